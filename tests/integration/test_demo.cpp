// The demo dataset on Debian's real dataset-fashion-mnist: all 70,000
// samples convert with the idx labels, and `tessera demo fashion-mnist`
// loads samples into a real cluster, shards them with ishard (every sample
// exactly once, its label intact), and leaves loaded buckets alone.
#include "local_cluster.h"
#include "shard_test_util.h"

#include "demo/fashion_mnist.h"
#include "demo/idx_file.h"

#include <QFileInfo>
#include <QProcess>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;
using namespace tessera::cli::demo;

class TestDemo : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{2, 1, false, 300, 3, {}, {}}};

    int cli(const QStringList& args, QByteArray* out = nullptr)
    {
        QProcess p;
        p.start(QStringLiteral(TESSERA_CLI_BINARY),
                QStringList{"--endpoint", QString::fromStdString(m_cluster.proxyUrl())} + args);
        p.closeWriteChannel();
        if (!p.waitForFinished(120000)) return -1;
        if (out != nullptr) *out = p.readAllStandardOutput();
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }

private slots:
    void initTestCase()
    {
        if (!QFileInfo::exists(QString(kFashionMnistDir) + "/train-images-idx3-ubyte.gz")) {
            QSKIP("dataset-fashion-mnist is not installed (installers/deps.sh installs it)");
        }
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
    }

    void allSamplesCarryTheIdxLabels()
    {
        auto train = readIdxLabels(std::string(kFashionMnistDir) + "/train-labels-idx1-ubyte.gz");
        auto test = readIdxLabels(std::string(kFashionMnistDir) + "/t10k-labels-idx1-ubyte.gz");
        QVERIFY(train && test);
        QCOMPARE(train->labels.size(), std::size_t{60000});
        QCOMPARE(test->labels.size(), std::size_t{10000});
        std::vector<std::uint8_t> expected = train->labels;
        expected.insert(expected.end(), test->labels.begin(), test->labels.end());

        std::size_t cls = 0, png = 0, json = 0;
        bool labelsMatch = true;
        auto sum = convertFashionMnist(kFashionMnistDir, 0, [&](const std::string& name, const std::string& bytes) {
            if (name.size() > 4 && name.compare(name.size() - 4, 4, ".cls") == 0) {
                labelsMatch = labelsMatch && cls < expected.size() && bytes == std::to_string(expected[cls]);
                ++cls;
            } else if (name.size() > 4 && name.compare(name.size() - 4, 4, ".png") == 0) {
                ++png;
                if (bytes.rfind("\x89PNG", 0) != 0) return api::Status{api::Error::badRequest("not a PNG: " + name)};
            } else {
                ++json;
            }
            return api::Status{};
        });
        QVERIFY2(sum, sum ? "" : sum.error().message.c_str());
        QCOMPARE(sum->samples, std::uint64_t{70000});
        QCOMPARE(cls, std::size_t{70000});
        QCOMPARE(png, std::size_t{70000});
        QCOMPARE(json, std::size_t{70000});
        QVERIFY(labelsMatch);
        for (auto n : sum->perClass) QCOMPARE(n, std::uint64_t{7000});  // a balanced dataset
    }

    void loadsIntoTheCluster()
    {
        QByteArray out;
        QCOMPARE(cli({"--json", "demo", "fashion-mnist", "--limit", "300", "--bucket", "fmnist", "--shard-bucket",
                      "fmnist-shards", "--shard-size", "64KiB"},
                     &out),
                 0);
        const auto doc = nlohmann::json::parse(out.toStdString());
        QCOMPARE(doc["samples"].get<int>(), 300);
        QCOMPARE(doc["objects"].get<int>(), 900);
        QCOMPARE(doc["failed"].get<int>(), 0);

        client::HttpClient http;
        auto r = http.send(client::Method::Get, m_cluster.proxyUrl() + "/v1/buckets/fmnist?pagesize=10000");
        QVERIFY(r);
        QCOMPARE(r->status, 200);
        QCOMPARE(nlohmann::json::parse(r->body)["entries"].size(), std::size_t{900});
        r = http.send(client::Method::Get, m_cluster.proxyUrl() + "/v1/objects/fmnist/train/000000.json");
        QCOMPARE(r->status, 200);
        QCOMPARE(nlohmann::json::parse(r->body)["label_name"].get<std::string>(), std::string("Ankle boot"));

        // Sharded by the same command: every sample exactly once, whole.
        QCOMPARE(doc["shard_bucket"].get<std::string>(), std::string("fmnist-shards"));
        QCOMPARE(doc["shard_job"]["state"].get<std::string>(), std::string("finished"));
        verifyShards();

        // Loaded already: nothing is uploaded or sharded again.
        QCOMPARE(cli({"demo", "fashion-mnist", "--limit", "300", "--bucket", "fmnist", "--shard-bucket",
                      "fmnist-shards", "--shard-size", "64KiB"},
                     &out),
                 0);
        QVERIFY(out.contains("nothing to do"));

        // Samples loaded but no shards (an interrupted first run): shards only.
        client::Client c(m_cluster.proxyUrl());
        QVERIFY(c.destroyBucket("fmnist-shards"));
        QCOMPARE(cli({"demo", "fashion-mnist", "--limit", "300", "--bucket", "fmnist", "--shard-bucket",
                      "fmnist-shards", "--shard-size", "64KiB"},
                     &out),
                 0);
        QVERIFY(out.contains("sharding them"));
        verifyShards();
    }

private:
    // The shards of fmnist-shards hold the 300 samples once each, each with
    // its .cls, .json and .png, the label the idx file gives.
    void verifyShards()
    {
        auto labels = readIdxLabels(std::string(kFashionMnistDir) + "/train-labels-idx1-ubyte.gz");
        QVERIFY(labels);
        client::Client c(m_cluster.proxyUrl());
        auto list = c.listAll("fmnist-shards");
        QVERIFY(list);
        QVERIFY2(list->size() > 1, "64 KiB shards: several");
        std::map<std::string, std::vector<std::string>> samples;  // key -> extensions, in shard order
        std::map<std::string, std::string> cls, json;
        for (const auto& e : *list) {
            auto bytes = c.getObject("fmnist-shards", e.name);
            QVERIFY(bytes);
            bool ok = false;
            for (const auto& [name, data] : tests::readShard(*bytes, archive::ArchiveFormat::Tar, &ok)) {
                const auto dot = name.find('.');
                const auto key = name.substr(0, dot);
                samples[key].push_back(name.substr(dot));
                if (name.substr(dot) == ".cls") cls[key] = data;
                if (name.substr(dot) == ".json") json[key] = data;
                if (name.substr(dot) == ".png") QVERIFY(data.rfind("\x89PNG", 0) == 0);
            }
            QVERIFY2(ok, e.name.c_str());
        }
        QCOMPARE(samples.size(), std::size_t{300});
        for (const auto& [key, exts] : samples) {
            QCOMPARE(exts, (std::vector<std::string>{".cls", ".json", ".png"}));  // once each, together
            const auto index = std::stoul(key.substr(key.find('/') + 1));
            const auto label = labels->labels.at(index);
            QCOMPARE(cls[key], std::to_string(label));
            const auto j = nlohmann::json::parse(json[key]);
            QCOMPARE(j["label"].get<int>(), int(label));
            QCOMPARE(j["label_name"].get<std::string>(), std::string(kFashionClasses[label]));
        }
    }
};

QTEST_GUILESS_MAIN(TestDemo)
#include "test_demo.moc"
