// Object preview and shard sample preview against a real local cluster:
// text, JSON, hex, images, the truncation cap; ShardModel keys, fields,
// values, thumbnails and flags for a generated shard; a Fashion-MNIST shard
// on the Buckets page (screenshots); the preview cleared when the bucket or
// folder changes under it.
#include "archive/archive_writer.h"
#include "client/api_client.h"
#include "console_test_util.h"
#include "core/rest_client.h"
#include "demo/fashion_mnist.h"
#include "local_cluster.h"
#include "models/bucket_model.h"
#include "models/object_model.h"
#include "models/preview_loader.h"
#include "models/shard_model.h"
#include "rest_cluster.h"
#include "ui/buckets_page.h"
#include "ui/preview_panel.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QImage>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace tessera;
using namespace tessera::console;

namespace {

std::string pngBytes(int w, int h, QRgb color)
{
    QImage img(w, h, QImage::Format_RGB32);
    img.fill(color);
    QByteArray out;
    QBuffer buf(&out);
    buf.open(QIODevice::WriteOnly);
    img.save(&buf, "PNG");
    return out.toStdString();
}

std::string makeTar(const std::vector<std::pair<std::string, std::string>>& members,
                    archive::ArchiveFormat format = archive::ArchiveFormat::Tar)
{
    std::string out;
    auto w = archive::ArchiveWriter::create(format, [&](const char* d, std::size_t n) -> api::Status {
        out.append(d, n);
        return {};
    });
    if (!w) return {};
    for (const auto& [name, data] : members) {
        if (!(*w)->add(name, data, 1700000000)) return {};
    }
    if (!(*w)->finish()) return {};
    return out;
}

Preview loadPreview(PreviewLoader& loader, const QString& bucket, const QString& name)
{
    QSignalSpy spy(&loader, &PreviewLoader::ready);
    loader.load(bucket, name);
    if (!spy.wait(10000)) return {};
    return spy.last().at(0).value<Preview>();
}

}  // namespace

class TestConsolePreview : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(test::startRestCluster(m_network, 2, m_cluster, m_rest), m_cluster->error().c_str());
        m_client = std::make_unique<client::Client>(m_cluster->proxyUrl());
        QVERIFY(m_client->createBucket("preview").ok());
    }

    void previewsTextJsonHexAndImages()
    {
        QVERIFY(m_client->putObject("preview", "notes.txt", "line one\nline two — ünïcode\n").ok());
        QVERIFY(m_client->putObject("preview", "meta.json", R"({"label":3,"tags":["a","b"]})").ok());
        std::string blob(3000, '\0');
        for (std::size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<char>(i * 7);
        QVERIFY(m_client->putObject("preview", "blob.bin", blob).ok());
        QVERIFY(m_client->putObject("preview", "pic.png", pngBytes(40, 30, qRgb(200, 10, 10))).ok());
        QVERIFY(m_client->putObject("preview", "big.txt", std::string(300000, 'x')).ok());
        QVERIFY(m_client->putObject("preview", "empty", "").ok());

        PreviewLoader loader(m_rest.get());
        Preview p = loadPreview(loader, "preview", "notes.txt");
        QCOMPARE(p.kind, Preview::Kind::Text);
        QCOMPARE(p.text, QStringLiteral("line one\nline two — ünïcode\n"));
        QVERIFY(!p.truncated());

        p = loadPreview(loader, "preview", "meta.json");
        QCOMPARE(p.kind, Preview::Kind::Json);
        QCOMPARE(p.text, QStringLiteral("{\n  \"label\": 3,\n  \"tags\": [\n    \"a\",\n    \"b\"\n  ]\n}\n"));

        p = loadPreview(loader, "preview", "blob.bin");
        QCOMPARE(p.kind, Preview::Kind::Hex);
        QVERIFY(p.text.startsWith("00000000  00 07 0e 15 1c 23 2a 31  38 3f 46 4d 54 5b 62 69  |.....#*18?FMT[bi|\n"));
        QCOMPARE(p.text.count('\n'), (3000 + 15) / 16);

        p = loadPreview(loader, "preview", "pic.png");
        QCOMPARE(p.kind, Preview::Kind::Image);
        QCOMPARE(p.image.size(), QSize(40, 30));
        QCOMPARE(p.image.pixel(5, 5), qRgb(200, 10, 10));

        loader.setMaxBytes(64 * 1024);
        p = loadPreview(loader, "preview", "big.txt");
        QCOMPARE(p.kind, Preview::Kind::Text);
        QCOMPARE(p.bytesRead, 64 * 1024);
        QCOMPARE(p.totalSize, 300000);
        QVERIFY(p.truncated());
        QCOMPARE(p.text.size(), 64 * 1024);
        QVERIFY2(p.summary.contains("truncated"), qPrintable(p.summary));

        p = loadPreview(loader, "preview", "empty");
        QCOMPARE(p.kind, Preview::Kind::Empty);
        p = loadPreview(loader, "preview", "missing");
        QCOMPARE(p.kind, Preview::Kind::Error);
        QVERIFY2(p.text.contains("does not exist"), qPrintable(p.text));
    }

    void shardModelShowsKeysFieldsAndFlags()
    {
        std::vector<std::pair<std::string, std::string>> members;
        for (int i = 0; i < 5; ++i) {
            const std::string key = "train/s" + std::to_string(i);
            members.push_back({key + ".png", pngBytes(28, 28, qRgb(i * 40, 0, 0))});
            members.push_back({key + ".cls", std::to_string(i + 1) + "\n"});
            members.push_back({key + ".json", R"({"i":)" + std::to_string(i) + "}"});
            members.push_back({key + ".bin", std::string(100 + i, 'b')});
        }
        members.push_back({"train/s5.png", pngBytes(28, 28, qRgb(0, 0, 255))});  // no cls/json/bin
        members.push_back({"train/s5.cls", "5"});
        members.push_back({"v1.2/s6.png", pngBytes(28, 28, qRgb(0, 255, 0))});  // a dot in the key
        members.push_back({"v1.2/s6.cls", "6"});
        members.push_back({"v1.2/s6.json", "{}"});
        members.push_back({"v1.2/s6.bin", "bb"});
        const std::string tar = makeTar(members);
        QVERIFY(!tar.empty());
        QVERIFY(m_client->putObject("preview", "gen.tar", tar).ok());

        ShardModel model(m_rest.get());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&model, &ShardModel::loaded);
        model.setShard("preview", "gen.tar");
        QVERIFY(loaded.wait(10000));
        QVERIFY2(model.errorText().isEmpty(), qPrintable(model.errorText()));
        QCOMPARE(model.rowCount(), 7);
        QCOMPARE(model.fields(), (QStringList{"png", "cls", "json", "bin"}));
        QCOMPARE(model.columnCount(), 6);
        QCOMPARE(model.headerData(5, Qt::Horizontal).toString(), QStringLiteral("Flags"));
        QStringList keys;
        for (int r = 0; r < model.rowCount(); ++r) keys << model.keyAt(r);
        QCOMPARE(keys,
                 (QStringList{"train/s0", "train/s1", "train/s2", "train/s3", "train/s4", "train/s5", "v1.2/s6"}));
        QCOMPARE(model.membersOf(0), (QStringList{"train/s0.bin", "train/s0.cls", "train/s0.json", "train/s0.png"}));

        // Contents are read when asked for (the tester asked for every cell).
        for (int r = 0; r < model.rowCount(); ++r) {
            for (int c = 1; c <= 4; ++c) model.data(model.index(r, c));
        }
        QVERIFY(QTest::qWaitFor([&] { return model.pendingFetches() == 0; }, 20000));
        QCOMPARE(model.data(model.index(2, 2)).toLongLong(), 3);  // cls as an integer
        QCOMPARE(model.data(model.index(2, 2)).typeId(), QMetaType::LongLong);
        const QImage thumb = model.data(model.index(2, 1), ShardModel::ImageRole).value<QImage>();
        QVERIFY(!thumb.isNull());
        QCOMPARE(thumb.size(), QSize(ShardModel::kThumbnailPx, ShardModel::kThumbnailPx));
        QCOMPARE(thumb.pixel(10, 10), qRgb(80, 0, 0));
        QCOMPARE(model.data(model.index(2, 4)).toString(), QStringLiteral("102 bytes"));  // bin: its size
        QCOMPARE(model.data(model.index(2, 3)).toString(), QStringLiteral(R"({"i":2})"));

        // s5 lacks bin and json, which most samples have.
        QCOMPARE(model.data(model.index(5, 3), ShardModel::MissingRole).toBool(), true);
        QCOMPARE(model.data(model.index(5, 5)).toString(), QStringLiteral("missing: json, bin"));
        QCOMPARE(model.data(model.index(6, 5)).toString(), QStringLiteral("dot in key"));
        QCOMPARE(model.data(model.index(0, 5)).toString(), QString());
        QCOMPARE(model.incompleteSamples(), 1);
        QCOMPARE(model.statusText(),
                 QStringLiteral("7 samples · 26 members · fields: png, cls, json, bin · 1 incomplete"));

        // The same samples in the compressed formats.
        for (auto [name, format] :
             {std::pair{"gen.tgz", archive::ArchiveFormat::TarGz}, std::pair{"gen.zip", archive::ArchiveFormat::Zip}}) {
            QVERIFY(m_client->putObject("preview", name, makeTar(members, format)).ok());
            model.setShard("preview", name);
            QVERIFY(loaded.wait(10000));
            QCOMPARE(model.rowCount(), 7);
            QCOMPARE(model.fields(), (QStringList{"png", "cls", "json", "bin"}));
            model.data(model.index(3, 2));
            QVERIFY(QTest::qWaitFor([&] { return model.pendingFetches() == 0; }, 10000));
            QCOMPARE(model.data(model.index(3, 2)).toLongLong(), 4);
        }

        model.setShard("preview", "no-such.tar");
        QVERIFY(loaded.wait(10000));
        QCOMPARE(model.rowCount(), 0);
        QVERIFY2(model.statusText().contains("no shard named"), qPrintable(model.statusText()));
    }

    void fashionMnistOnTheBucketsPage()
    {
        // 64 real Fashion-MNIST samples (png, cls, json) as one shard, and a
        // few loose objects to list.
        std::vector<std::pair<std::string, std::string>> members;
        auto converted = cli::demo::convertFashionMnist(
            cli::demo::kFashionMnistDir, 64, [&](const std::string& name, const std::string& bytes) -> api::Status {
                members.push_back({name, bytes});
                return {};
            });
        if (!converted) QSKIP(qPrintable(QString::fromStdString("Fashion-MNIST: " + converted.error().message)));
        QCOMPARE(converted->samples, 64u);
        QVERIFY(m_client->createBucket("fashion-mnist").ok());
        const std::string tar = makeTar(members);
        QVERIFY(m_client->putObject("fashion-mnist", "shards/train-000000.tar", tar).ok());
        for (int i = 0; i < 12; ++i) {
            const auto& [name, bytes] = members[static_cast<std::size_t>(i)];
            QVERIFY(m_client->putObject("fashion-mnist", "loose/" + name, bytes).ok());
        }
        QVERIFY(m_client
                    ->putObject("fashion-mnist", "README.json",
                                R"({"dataset":"Fashion-MNIST","samples":64,"fields":["png","cls","json"]})")
                    .ok());

        BucketsPage page(m_rest.get());
        page.resize(1280, 800);
        page.show();
        QVERIFY(QTest::qWaitFor([&] { return page.bucketModel()->rowCount() == 2 && !page.currentBucket().isEmpty(); },
                                10000));
        page.selectBucket("fashion-mnist");
        ObjectModel* objects = page.objectModel();
        QVERIFY(QTest::qWaitFor([&] { return objects->bucket() == "fashion-mnist" && objects->isComplete(); }, 10000));
        QCOMPARE(objects->rowCount(), 3);  // README.json, loose/, shards/
        objects->setFolder("loose/train/");
        QVERIFY(QTest::qWaitFor([&] { return objects->isComplete() && objects->rowCount() == 12; }, 10000));
        QSignalSpy previewed(page.previewPanel()->loader(), &PreviewLoader::ready);
        page.objectView()->selectRow(2);  // 000000.png
        QVERIFY(previewed.wait(10000));
        QCOMPARE(previewed.last().at(0).value<Preview>().kind, Preview::Kind::Image);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return page.bucketModel()
                           ->data(page.bucketModel()->index(0, 1), BucketModel::ObjectCountRole)
                           .toLongLong() == 14;
            },
            10000));
        test::saveScreenshot(&page, "console-object-preview");

        page.objectView()->selectRow(1);  // 000000.json
        QVERIFY(previewed.wait(10000));
        QCOMPARE(previewed.last().at(0).value<Preview>().kind, Preview::Kind::Json);

        objects->setFolder("shards/");
        QVERIFY(QTest::qWaitFor([&] { return objects->isComplete() && objects->rowCount() == 1; }, 10000));
        ShardModel* shard = page.previewPanel()->shardModel();
        QSignalSpy shardLoaded(shard, &ShardModel::loaded);
        page.objectView()->selectRow(0);
        QVERIFY(shardLoaded.wait(10000));
        QCOMPARE(shard->rowCount(), 64);
        QCOMPARE(shard->fields(), (QStringList{"png", "cls", "json"}));
        QCOMPARE(shard->incompleteSamples(), 0);
        // The first rows on screen get their thumbnails and labels.
        QVERIFY(QTest::qWaitFor(
            [&] {
                return shard->pendingFetches() == 0 && shard->data(shard->index(0, 1), ShardModel::ImageRole).isValid();
            },
            20000));
        const auto cls =
            std::find_if(members.begin(), members.end(), [](const auto& m) { return m.first == "train/000000.cls"; });
        QVERIFY(cls != members.end());
        QCOMPARE(shard->data(shard->index(0, 2)).toLongLong(), std::stoll(cls->second));
        QTest::qWait(50);
        test::saveScreenshot(&page, "console-shard-preview");

        objects->setFolder({});
        QVERIFY(QTest::qWaitFor([&] { return objects->isComplete(); }, 10000));
        page.objectView()->selectRow(0);  // README.json
        QVERIFY(previewed.wait(10000));
        test::saveScreenshot(&page, "console-buckets");

        // Search: typed, debounced, answered by the server with the prefix.
        page.focusSearch();
        auto* search = page.findChild<QLineEdit*>("searchField");
        QVERIFY(search != nullptr && search->hasFocus());
        const quint64 generation = objects->generation();
        QTest::keyClicks(search, "sha");
        QCOMPARE(objects->generation(), generation);  // nothing yet: the typing is debounced
        QVERIFY(QTest::qWaitFor([&] { return objects->search() == "sha" && objects->isComplete(); }, 5000));
        QCOMPARE(objects->generation(), generation + 1);  // one listing for three keys
        QCOMPARE(objects->rowCount(), 1);
        QCOMPARE(objects->fullName(0), QStringLiteral("shards/"));
    }

    // After the Fashion-MNIST page test, which expects its two buckets only.
    void switchingBucketsClearsThePreview()
    {
        // Bucket "switch-a": a shard of 3 samples and a folder; "switch-b": one text.
        QVERIFY(m_client->createBucket("switch-a").ok());
        QVERIFY(m_client->createBucket("switch-b").ok());
        std::vector<std::pair<std::string, std::string>> members;
        for (int i = 0; i < 3; ++i) {
            const std::string key = "s" + std::to_string(i);
            members.push_back({key + ".png", pngBytes(8, 8, qRgb(0, 0, 255))});
            members.push_back({key + ".cls", std::to_string(i)});
        }
        QVERIFY(m_client->putObject("switch-a", "a.tar", makeTar(members)).ok());
        QVERIFY(m_client->putObject("switch-a", "dir/x.txt", "in a folder").ok());
        QVERIFY(m_client->putObject("switch-b", "b.txt", "bucket b").ok());

        BucketsPage page(m_rest.get());
        page.resize(1280, 800);
        page.show();
        BucketModel* buckets = page.bucketModel();
        ObjectModel* objects = page.objectModel();
        PreviewPanel* preview = page.previewPanel();
        ShardModel* shard = preview->shardModel();
        const QString placeholder = preview->summaryText();
        QVERIFY(
            QTest::qWaitFor([&] { return buckets->rowOf("switch-b") >= 0 && !page.currentBucket().isEmpty(); }, 10000));
        auto open = [&](const QString& bucket) {
            page.selectBucket(bucket);
            return QTest::qWaitFor([&] { return objects->bucket() == bucket && objects->isComplete(); }, 10000);
        };
        auto selectName = [&](const QString& fullName) {
            for (int r = 0; r < objects->rowCount(); ++r) {
                if (objects->fullName(r) == fullName) {
                    page.objectView()->selectRow(r);
                    return true;
                }
            }
            return false;
        };

        // A's shard on screen.
        QVERIFY(open("switch-a"));
        QSignalSpy shardLoaded(shard, &ShardModel::loaded);
        QVERIFY(selectName("a.tar"));
        QVERIFY(shardLoaded.wait(10000));
        QCOMPARE(shard->rowCount(), 3);
        QCOMPARE(preview->shownName(), QStringLiteral("a.tar"));
        // A new search in the same folder keeps it.
        objects->setSearch("a");
        QCOMPARE(preview->shownName(), QStringLiteral("a.tar"));
        QCOMPARE(shard->rowCount(), 3);

        // Another bucket: the panel is empty at once, not A's shard.
        page.selectBucket("switch-b");
        QCOMPARE(objects->bucket(), QStringLiteral("switch-b"));
        QVERIFY(preview->shownBucket().isEmpty());
        QVERIFY(preview->shownName().isEmpty());
        QCOMPARE(shard->rowCount(), 0);
        QCOMPARE(shard->shard(), QString());
        QCOMPARE(preview->summaryText(), placeholder);
        QVERIFY(QTest::qWaitFor([&] { return objects->isComplete(); }, 10000));

        // B's text, then back to A while it is still being read: its answer is
        // dropped and only A's object is shown.
        QSignalSpy ready(preview->loader(), &PreviewLoader::ready);
        QVERIFY(selectName("b.txt"));
        QCOMPARE(preview->shownName(), QStringLiteral("b.txt"));
        QVERIFY(open("switch-a"));
        QVERIFY(preview->shownName().isEmpty());
        objects->setFolder("dir/");
        QVERIFY(QTest::qWaitFor([&] { return objects->isComplete() && objects->rowCount() == 1; }, 10000));
        QVERIFY(selectName("dir/x.txt"));
        QVERIFY(ready.wait(10000));
        QCOMPARE(ready.size(), 1);
        QCOMPARE(ready.last().at(0).value<Preview>().name, QStringLiteral("dir/x.txt"));
        QCOMPARE(ready.last().at(0).value<Preview>().text, QStringLiteral("in a folder"));
        QCOMPARE(preview->summaryText(), ready.last().at(0).value<Preview>().summary);

        // Up a folder: the object is not in the listing any more, nor in the panel.
        objects->setFolder({});
        QVERIFY(preview->shownName().isEmpty());
        QCOMPARE(preview->summaryText(), placeholder);
    }

private:
    std::unique_ptr<tests::LocalCluster> m_cluster;
    std::unique_ptr<client::Client> m_client;
    QNetworkAccessManager m_network;
    std::unique_ptr<RestClient> m_rest;
};

QTEST_MAIN(TestConsolePreview)
#include "test_console_preview.moc"
