// Fashion-MNIST conversion on idx files made by the test: sample names,
// labels, PNG bytes, the limit, and every malformed input as its error kind.
#include "demo/fashion_mnist.h"
#include "demo/idx_file.h"
#include "demo/png_encoder.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <nlohmann/json.hpp>
#include <zlib.h>

using namespace tessera;
using namespace tessera::cli::demo;

namespace {

void be32(std::string& s, std::uint32_t v)
{
    s += static_cast<char>(v >> 24);
    s += static_cast<char>(v >> 16);
    s += static_cast<char>(v >> 8);
    s += static_cast<char>(v);
}

bool writeGz(const QString& path, const std::string& data)
{
    gzFile f = gzopen(path.toLocal8Bit().constData(), "wb");
    if (f == nullptr) return false;
    const int n = gzwrite(f, data.data(), static_cast<unsigned>(data.size()));
    gzclose(f);
    return n == static_cast<int>(data.size());
}

std::string images(std::uint32_t count, std::uint32_t side, std::uint32_t magic = 0x803)
{
    std::string s;
    be32(s, magic);
    be32(s, count);
    be32(s, side);
    be32(s, side);
    for (std::uint32_t i = 0; i < count * side * side; ++i) s += static_cast<char>((i * 7) & 0xff);
    return s;
}

std::string labels(const std::vector<std::uint8_t>& l, std::uint32_t magic = 0x801)
{
    std::string s;
    be32(s, magic);
    be32(s, static_cast<std::uint32_t>(l.size()));
    for (auto v : l) s += static_cast<char>(v);
    return s;
}

}  // namespace

class TestFashionMnist : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString makeSource(const QString& name, const std::string& trainImages, const std::string& trainLabels,
                       const std::string& testImages, const std::string& testLabels)
    {
        const QString d = m_dir.path() + "/" + name;
        QDir().mkpath(d);
        if (!writeGz(d + "/train-images-idx3-ubyte.gz", trainImages)) return {};
        if (!writeGz(d + "/train-labels-idx1-ubyte.gz", trainLabels)) return {};
        if (!writeGz(d + "/t10k-images-idx3-ubyte.gz", testImages)) return {};
        if (!writeGz(d + "/t10k-labels-idx1-ubyte.gz", testLabels)) return {};
        return d;
    }

private slots:
    void convertsEverySample()
    {
        const auto src = makeSource("ok", images(3, 28), labels({9, 0, 4}), images(2, 28), labels({1, 9}));
        QVERIFY(!src.isEmpty());
        std::map<std::string, std::string> files;
        auto sum = convertFashionMnist(src.toStdString(), 0, [&](const std::string& n, const std::string& b) {
            files[n] = b;
            return api::Status{};
        });
        QVERIFY(sum);
        QCOMPARE(sum->samples, std::uint64_t{5});
        QCOMPARE(sum->files, std::uint64_t{15});
        QCOMPARE(sum->perClass[9], std::uint64_t{2});
        QCOMPARE(files.size(), std::size_t{15});
        QCOMPARE(files.at("train/000000.cls"), std::string("9"));
        QCOMPARE(files.at("train/000002.cls"), std::string("4"));
        QCOMPARE(files.at("test/000001.cls"), std::string("9"));
        const auto meta = nlohmann::json::parse(files.at("test/000000.json"));
        QCOMPARE(meta["label"].get<int>(), 1);
        QCOMPARE(meta["label_name"].get<std::string>(), std::string("Trouser"));
        QCOMPARE(meta["split"].get<std::string>(), std::string("test"));
        QCOMPARE(meta["index"].get<int>(), 0);
        const auto& png = files.at("train/000001.png");
        QVERIFY(png.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
        // IHDR: 28 x 28, 8-bit grayscale.
        QCOMPARE(static_cast<unsigned char>(png[19]), 28u);
        QCOMPARE(static_cast<unsigned char>(png[23]), 28u);
        QCOMPARE(static_cast<int>(png[24]), 8);
        QCOMPARE(static_cast<int>(png[25]), 0);
    }

    void limitStopsEarly()
    {
        const auto src = makeSource("lim", images(4, 28), labels({1, 2, 3, 4}), images(1, 28), labels({5}));
        int calls = 0;
        auto sum = convertFashionMnist(src.toStdString(), 2, [&](const std::string&, const std::string&) {
            ++calls;
            return api::Status{};
        });
        QVERIFY(sum);
        QCOMPARE(sum->samples, std::uint64_t{2});
        QCOMPARE(calls, 6);
    }

    void sinkErrorEndsTheConversion()
    {
        const auto src = makeSource("sink", images(2, 28), labels({1, 2}), images(1, 28), labels({5}));
        auto sum = convertFashionMnist(src.toStdString(), 0, [&](const std::string&, const std::string&) {
            return api::Status{api::Error::noSpace("disk full")};
        });
        QCOMPARE(sum.kind(), api::ErrorKind::NoSpace);
    }

    void malformedSources_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("trainImages");
        QTest::addColumn<QByteArray>("trainLabels");
        QTest::addColumn<int>("kind");
        const auto ok = QByteArray::fromStdString(images(2, 28));
        const auto okl = QByteArray::fromStdString(labels({1, 2}));
        QTest::newRow("bad image magic") << "m1" << QByteArray::fromStdString(images(2, 28, 0x801)) << okl
                                         << int(api::ErrorKind::Corruption);
        QTest::newRow("bad label magic") << "m2" << ok << QByteArray::fromStdString(labels({1, 2}, 0x803))
                                         << int(api::ErrorKind::Corruption);
        QTest::newRow("truncated images") << "m3" << ok.left(ok.size() - 100) << okl << int(api::ErrorKind::Corruption);
        QTest::newRow("absurd dimensions")
            << "m4" << QByteArray::fromStdString(images(0, 5000)) << okl << int(api::ErrorKind::Corruption);
        QTest::newRow("count mismatch") << "m5" << ok << QByteArray::fromStdString(labels({1, 2, 3}))
                                        << int(api::ErrorKind::Corruption);
        QTest::newRow("label out of range")
            << "m6" << ok << QByteArray::fromStdString(labels({1, 10})) << int(api::ErrorKind::Corruption);
    }
    void malformedSources()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, trainImages);
        QFETCH(QByteArray, trainLabels);
        QFETCH(int, kind);
        const auto src =
            makeSource(name, trainImages.toStdString(), trainLabels.toStdString(), images(1, 28), labels({0}));
        auto sum = convertFashionMnist(src.toStdString(), 0,
                                       [](const std::string&, const std::string&) { return api::Status{}; });
        QVERIFY(!sum);
        QCOMPARE(int(sum.kind()), kind);
    }

    void missingSourceIsNotFound()
    {
        auto sum = convertFashionMnist((m_dir.path() + "/nothing").toStdString(), 0,
                                       [](const std::string&, const std::string&) { return api::Status{}; });
        QCOMPARE(sum.kind(), api::ErrorKind::NotFound);
    }

    void notGzipIsCorruption()
    {
        const QString d = m_dir.path() + "/plain";
        QDir().mkpath(d);
        QFile f(d + "/train-images-idx3-ubyte.gz");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\x1f\x8b garbage that is no gzip stream at all");
        f.close();
        QCOMPARE(readIdxImages((d + "/train-images-idx3-ubyte.gz").toStdString()).kind(), api::ErrorKind::Corruption);
    }
};

QTEST_GUILESS_MAIN(TestFashionMnist)
#include "test_fashion_mnist.moc"
