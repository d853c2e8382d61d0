// Uploads from the Buckets page against a real local cluster: a QDropEvent
// with a nested temp folder uploads every file with verified bytes; the
// "pack into WebDataset shards" option writes shards whose samples are the
// files; failures are retried; the upload model passes the model tester.
#include "archive/archive_limits.h"
#include "archive/archive_reader.h"
#include "archive/member_name.h"
#include "client/api_client.h"
#include "console_test_util.h"
#include "core/folder_scanner.h"
#include "core/rest_client.h"
#include "core/shard_packer.h"
#include "core/upload_queue.h"
#include "event_loop_wait.h"
#include "local_cluster.h"
#include "models/bucket_model.h"
#include "models/object_model.h"
#include "models/upload_model.h"
#include "rest_cluster.h"
#include "ui/buckets_page.h"
#include "ui/upload_dialog.h"
#include "ui/upload_panel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QNetworkAccessManager>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <set>

using namespace tessera;
using namespace tessera::console;

namespace {

QByteArray randomBytes(int n, quint32 seed)
{
    QRandomGenerator gen(seed);
    QByteArray b(n, '\0');
    for (char& c : b) c = static_cast<char>(gen.bounded(256));
    return b;
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// Drops `paths` on `target` at `at` (its centre when null).
void dropOn(QWidget* target, const QStringList& paths, QPoint at = {})
{
    auto* mime = new QMimeData;
    QList<QUrl> urls;
    for (const QString& p : paths) urls << QUrl::fromLocalFile(p);
    mime->setUrls(urls);
    const QPointF pos = at.isNull() ? QPointF(target->width() / 2.0, target->height() / 2.0) : QPointF(at);
    QDragEnterEvent enter(pos.toPoint(), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(pos, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    QVERIFY(drop.isAccepted());
    delete mime;
}

}  // namespace

class TestConsoleUpload : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(test::startRestCluster(m_network, 2, m_cluster, m_rest), m_cluster->error().c_str());
        m_client = std::make_unique<client::Client>(m_cluster->proxyUrl());
        QVERIFY(m_client->createBucket("uploads").ok());
    }

    void dropUploadsEveryFileVerified()
    {
        // A nested folder: small, empty, and larger-than-64-KiB files (the
        // proxy does not read those bodies before its 307).
        QTemporaryDir tmp;
        const QString root = tmp.filePath("dataset");
        std::map<QString, QByteArray> files = {
            {"readme.txt", "hello\n"},
            {"empty.bin", {}},
            {"a/1.json", R"({"label": 3})"},
            {"a/b/2.bin", randomBytes(200 * 1024, 2)},
            {"a/b/c/3.bin", randomBytes(1500 * 1024, 3)},
            {"name with spaces & #.txt", "odd name\n"},
        };
        for (int i = 0; i < 20; ++i)
            files[QStringLiteral("many/%1.dat").arg(i, 3, 10, QChar('0'))] = randomBytes(1000 + i, 100 + i);
        for (const auto& [rel, bytes] : files) QVERIFY(writeFile(root + '/' + rel, bytes));

        BucketsPage page(m_rest.get());
        page.resize(1280, 800);
        page.show();
        QAbstractItemModelTester tester(page.uploadPanel()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(test::waitUntil([&] { return page.currentBucket() == "uploads"; }, 10000));

        dropOn(&page, {root});
        QVERIFY(test::waitUntil([&] { return page.uploadDialog() != nullptr; }, 10000));
        const QString summary = page.uploadDialog()->summaryText();
        QVERIFY2(summary.contains("<b>26</b> files"), qPrintable(summary));
        QVERIFY2(summary.contains("uploads / "), qPrintable(summary));
        page.uploadDialog()->accept();

        UploadQueue* queue = page.uploadQueue();
        QCOMPARE(queue->count(), 26);
        const bool idle = test::waitUntil([&] { return queue->isIdle(); }, 60000);
        for (int i = 0; i < queue->count() && !idle; ++i) {
            qWarning() << queue->item(i).objectName << uploadStateName(queue->item(i).state) << queue->item(i).sent
                       << queue->item(i).error;
        }
        QVERIFY(idle);
        for (int i = 0; i < queue->count(); ++i) {
            QVERIFY2(queue->item(i).state == UploadState::Done,
                     qPrintable(queue->item(i).objectName + ": " + queue->item(i).error));
        }
        const UploadTotals totals = queue->totals();
        QCOMPARE(totals.done, 26);
        QCOMPARE(totals.failed, 0);
        QCOMPARE(totals.bytesDone, totals.bytes);
        QCOMPARE(page.uploadPanel()->model()->totalPercent(), 100);

        // Every byte, read back over HTTP.
        for (const auto& [rel, bytes] : files) {
            auto got = m_client->getObject("uploads", ("dataset/" + rel).toStdString());
            QVERIFY2(got.ok(), qPrintable(rel + ": " + QString::fromStdString(got.ok() ? "" : got.error().message)));
            QCOMPARE(QByteArray::fromStdString(*got), bytes);
        }
        // The listing shows the folder.
        QVERIFY(test::waitUntil([&] { return page.objectModel()->isComplete() && page.objectModel()->rowCount() == 1; },
                                10000));
        QCOMPARE(page.objectModel()->fullName(0), QStringLiteral("dataset/"));
    }

    void packIntoShardsKeepsSamplesWhole()
    {
        QTemporaryDir tmp;
        const QString root = tmp.filePath("samples");
        std::map<QString, QByteArray> files;
        for (int i = 0; i < 30; ++i) {
            const QString key = QStringLiteral("train/%1").arg(i, 4, 10, QChar('0'));
            files[key + ".cls"] = QByteArray::number(i % 10);
            files[key + ".txt"] = QStringLiteral("sample %1\n").arg(i).toUtf8();
            files[key + ".bin"] = randomBytes(3000 + 17 * i, 1000 + i);
        }
        for (const auto& [rel, bytes] : files) QVERIFY(writeFile(root + '/' + rel, bytes));

        BucketsPage page(m_rest.get());
        QVERIFY(test::waitUntil([&] { return page.currentBucket() == "uploads"; }, 10000));
        dropOn(&page, {root});
        QVERIFY(test::waitUntil([&] { return page.uploadDialog() != nullptr; }, 10000));
        constexpr qint64 kTarget = 32 * 1024;
        page.uploadDialog()->setPackIntoShards(true);
        page.uploadDialog()->setShardBytes(kTarget);
        QSignalSpy packed(page.uploadQueue(), &UploadQueue::packingFinished);
        page.uploadDialog()->accept();
        QVERIFY(packed.count() == 1 || packed.wait(30000));
        QVERIFY2(packed.first().at(0).toBool(), qPrintable(packed.first().at(1).toString()));
        QVERIFY(test::waitUntil([&] { return page.uploadQueue()->isIdle(); }, 60000));

        auto shards = m_client->listAll("uploads", "samples-");
        QVERIFY(shards.ok());
        QVERIFY2(shards->size() >= 3, qPrintable(QString::number(shards->size())));
        std::map<QString, QByteArray> seen;
        for (std::size_t s = 0; s < shards->size(); ++s) {
            const auto& entry = (*shards)[s];
            QCOMPARE(QString::fromStdString(entry.name), QStringLiteral("samples-%1.tar").arg(s, 6, 10, QChar('0')));
            QVERIFY2(entry.size <= kTarget, qPrintable(QString::number(entry.size)));
            auto bytes = m_client->getObject("uploads", entry.name);
            QVERIFY(bytes.ok());
            auto reader =
                archive::ArchiveReader::openMemory(*bytes, archive::ArchiveFormat::Tar, archive::ArchiveLimits{});
            QVERIFY(reader.ok());
            std::set<std::string> keys;
            for (;;) {
                auto next = (*reader)->next();
                QVERIFY(next.ok());
                if (!next->has_value()) break;
                const QString name = QString::fromStdString((*next)->name);
                auto data = (*reader)->readAll();
                QVERIFY(data.ok());
                QVERIFY2(!seen.count(name), qPrintable("twice: " + name));
                seen[name] = QByteArray::fromStdString(*data);
                keys.insert(std::string(archive::wdsKey((*next)->name)));
            }
            // No sample is split: each key's three files are in this shard.
            for (const std::string& k : keys) {
                for (const char* ext : {".bin", ".cls", ".txt"}) {
                    QVERIFY2(seen.count(QString::fromStdString(k) + ext), (k + ext).c_str());
                }
            }
        }
        QCOMPARE(seen.size(), files.size());
        for (const auto& [rel, bytes] : files) QCOMPARE(seen[rel], bytes);
    }

    void failedUploadsAreRetried()
    {
        QTemporaryDir tmp;
        QVERIFY(writeFile(tmp.filePath("x.txt"), "retry me\n"));
        UploadQueue queue(m_rest.get());
        UploadModel model(&queue);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        queue.enqueue("later", {{tmp.filePath("x.txt"), "x.txt", "x.txt", 9}});
        QVERIFY(test::waitUntil([&] { return queue.isIdle(); }, 10000));
        QCOMPARE(queue.item(0).state, UploadState::Failed);
        QVERIFY2(queue.item(0).error.contains("later"), qPrintable(queue.item(0).error));
        QVERIFY(model.totalsText().contains("1 failed"));
        QVERIFY(m_client->createBucket("later").ok());
        queue.retryFailed();
        QVERIFY(test::waitUntil([&] { return queue.isIdle(); }, 10000));
        QCOMPARE(queue.item(0).state, UploadState::Done);
        QCOMPARE(queue.item(0).attempts, 2);
        auto got = m_client->getObject("later", "x.txt");
        QVERIFY(got.ok());
        QCOMPARE(*got, std::string("retry me\n"));
    }

    void cancelStopsQueuedAndRunning()
    {
        QTemporaryDir tmp;
        UploadSources sources;
        for (int i = 0; i < 12; ++i) {
            const QString p = tmp.filePath(QStringLiteral("f%1").arg(i));
            QVERIFY(writeFile(p, randomBytes(512 * 1024, 500 + i)));
            sources.push_back({p, QStringLiteral("f%1").arg(i), QStringLiteral("cancel/f%1").arg(i), 512 * 1024});
        }
        UploadQueue queue(m_rest.get());
        queue.setParallel(2);
        queue.enqueue("uploads", sources);
        queue.cancelAll();
        QVERIFY(queue.isIdle());
        const UploadTotals t = queue.totals();
        QCOMPARE(t.canceled, 12);
        QCOMPARE(t.bytes, 0);
        queue.clearFinished();
        QCOMPARE(queue.count(), 0);
        // Nothing half-written: no object, or whole ones (a PUT is atomic).
        auto listed = m_client->listAll("uploads", "cancel/");
        QVERIFY(listed.ok());
        for (const auto& e : *listed) QCOMPARE(e.size, 512 * 1024);
    }

    // Larger files, one at a time: the queue is caught in flight (rate and
    // ETA on the totals line) for the screenshot, then everything verifies.
    void queueInFlight()
    {
        QTemporaryDir tmp;
        const QString root = tmp.filePath("batch");
        constexpr int kFiles = 24;
        constexpr int kSize = 4 << 20;
        for (int i = 0; i < kFiles; ++i) {
            QByteArray bytes(kSize, '\0');
            QRandomGenerator(7000 + i).fillRange(reinterpret_cast<quint32*>(bytes.data()), kSize / 4);
            QVERIFY(writeFile(root + QStringLiteral("/part-%1.bin").arg(i, 2, 10, QChar('0')), bytes));
        }
        BucketsPage page(m_rest.get());
        page.resize(1280, 800);
        page.show();
        QVERIFY(test::waitUntil([&] { return page.bucketModel()->rowOf("uploads") >= 0; }, 10000));
        page.selectBucket("uploads");
        QCOMPARE(page.currentBucket(), QStringLiteral("uploads"));
        page.uploadQueue()->setParallel(1);
        page.uploadPaths({root});
        QVERIFY(test::waitUntil([&] { return page.uploadDialog() != nullptr; }, 10000));
        page.uploadDialog()->accept();
        UploadQueue* queue = page.uploadQueue();
        // Caught while running when the machine is not too fast for it.
        const bool caught = test::waitUntil(
            [&] {
                const UploadTotals t = queue->totals();
                return (t.rate > 0 && t.active > 0 && t.done >= 6) || queue->isIdle();
            },
            60000);
        QVERIFY(caught);
        if (!queue->isIdle()) {
            const UploadTotals t = queue->totals();
            QVERIFY(t.active <= 1);
            QVERIFY(t.etaSeconds >= 0);
            QVERIFY2(page.uploadPanel()->model()->totalsText().contains("/s · ETA "),
                     qPrintable(page.uploadPanel()->model()->totalsText()));
            test::saveScreenshot(&page, "console-upload-queue");
        }
        QVERIFY(test::waitUntil([&] { return queue->isIdle(); }, 60000));
        QCOMPARE(queue->totals().done, kFiles);
        for (int i = 0; i < kFiles; ++i) {
            auto head = m_client->headObject(
                "uploads", QStringLiteral("batch/part-%1.bin").arg(i, 2, 10, QChar('0')).toStdString());
            QVERIFY(head.ok());
            QCOMPARE(head->size, kSize);
            QCOMPARE(QString::fromStdString(head->checksumValue), queue->item(i).checksum);
        }
    }

    // A file dropped on another bucket's row goes into that bucket.
    void dropOnABucketRow()
    {
        QVERIFY(m_client->createBucket("zz-target").ok());
        QTemporaryDir tmp;
        QVERIFY(writeFile(tmp.filePath("row.txt"), "dropped on the row\n"));
        BucketsPage page(m_rest.get());
        page.resize(1280, 800);
        page.show();
        QVERIFY(test::waitUntil(
            [&] { return page.bucketModel()->rowOf("zz-target") >= 0 && !page.currentBucket().isEmpty(); }, 10000));
        QVERIFY(page.currentBucket() != "zz-target");
        auto* list = page.findChild<QTableView*>("bucketView");
        QVERIFY(list != nullptr);
        const QRect rowRect = list->visualRect(page.bucketModel()->index(page.bucketModel()->rowOf("zz-target"), 0));
        const QPoint at = list->viewport()->mapTo(&page, rowRect.center());
        dropOn(&page, {tmp.filePath("row.txt")}, at);
        QCOMPARE(page.currentBucket(), QStringLiteral("zz-target"));
        QVERIFY(test::waitUntil([&] { return page.uploadDialog() != nullptr; }, 10000));
        QVERIFY2(page.uploadDialog()->summaryText().contains("zz-target / "),
                 qPrintable(page.uploadDialog()->summaryText()));
        page.uploadDialog()->accept();
        QVERIFY(test::waitUntil([&] { return page.uploadQueue()->isIdle(); }, 10000));
        auto got = m_client->getObject("zz-target", "row.txt");
        QVERIFY(got.ok());
        QCOMPARE(*got, std::string("dropped on the row\n"));
    }

    void walkNamesFilesUnderTheDroppedFolder()
    {
        QTemporaryDir tmp;
        QVERIFY(writeFile(tmp.filePath("top/a.txt"), "a"));
        QVERIFY(writeFile(tmp.filePath("top/sub/b.txt"), "bb"));
        QVERIFY(writeFile(tmp.filePath("loose.txt"), "ccc"));
        QVERIFY(QFile::link(tmp.filePath("loose.txt"), tmp.filePath("top/link")));
        const ScanResult both = FolderScanner::walk({tmp.filePath("top"), tmp.filePath("loose.txt")}, "dest/");
        QVERIFY(both.error.isEmpty());
        QStringList names;
        for (const UploadSource& f : both.files) names << f.objectName;
        QCOMPARE(names, (QStringList{"dest/loose.txt", "dest/top/a.txt", "dest/top/sub/b.txt"}));
        QCOMPARE(both.totalBytes, 6);
        QCOMPARE(both.skipped.size(), 1);
        QVERIFY2(both.skipped.first().endsWith(": symbolic link"), qPrintable(both.skipped.first()));
        QVERIFY(both.folderName.isEmpty());
        QCOMPARE(FolderScanner::walk({tmp.filePath("top")}, {}).folderName, QStringLiteral("top"));
        const ScanResult capped = FolderScanner::walk({tmp.filePath("top")}, {}, 1);
        QCOMPARE(capped.error, QStringLiteral("more than 1 files"));
        QVERIFY(capped.files.empty());
    }

    void packerGivesALargeSampleAShardOfItsOwn()
    {
        QTemporaryDir tmp;
        UploadSources files;
        auto add = [&](const QString& rel, int size) {
            QVERIFY(writeFile(tmp.filePath("in/" + rel), QByteArray(size, 'x')));
            files.push_back({tmp.filePath("in/" + rel), "in/" + rel, "in/" + rel, size});
        };
        add("a.bin", 100);
        add("b.bin", 20000);  // larger than the target alone
        add("c.bin", 100);
        add("c.txt", 100);
        QDir().mkpath(tmp.filePath("out"));
        PackOptions options;
        options.targetShardBytes = 8192;
        options.outputDir = tmp.filePath("out");
        options.objectPrefix = "p-";
        options.stripPrefix = "in/";
        std::atomic<bool> cancel{false};
        auto packed = ShardPacker::pack(files, options, cancel);
        QVERIFY(packed.ok());
        QCOMPARE(packed->shards.size(), 3u);  // [a] [b] [c.bin c.txt]
        QCOMPARE(packed->shards[1].source.objectName, QStringLiteral("p-000001.tar"));
        QCOMPARE(packed->shards[1].members, 1);
        QCOMPARE(packed->shards[2].members, 2);
        QCOMPARE(packed->shards[2].samples, 1);
        QCOMPARE(packed->samples, 3);
        cancel = true;
        QCOMPARE(ShardPacker::pack(files, options, cancel).kind(), api::ErrorKind::Unavailable);
    }

private:
    std::unique_ptr<tests::LocalCluster> m_cluster;
    std::unique_ptr<client::Client> m_client;
    QNetworkAccessManager m_network;
    std::unique_ptr<RestClient> m_rest;
};

QTEST_MAIN(TestConsoleUpload)
#include "test_console_upload.moc"
