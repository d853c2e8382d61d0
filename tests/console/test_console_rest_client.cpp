// RestClient against a real local cluster: typed answers, JSON errors as
// error kinds, and object calls through the proxy's 307 — PUT bodies (in
// memory, from a file, small and large) sent again to the owner.
#include "api/checksum.h"
#include "client/api_client.h"
#include "core/object_batch.h"
#include "core/rest_client.h"
#include "event_loop_wait.h"
#include "local_cluster.h"
#include "rest_cluster.h"

#include <QFile>
#include <QNetworkAccessManager>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

using namespace tessera;
using namespace tessera::console;

namespace {

template <typename T>
api::Result<T> waitFor(const std::function<void(QObject*, std::function<void(api::Result<T>)>)>& call)
{
    std::optional<api::Result<T>> out;
    QObject ctx;
    call(&ctx, [&](api::Result<T> r) { out.emplace(std::move(r)); });
    if (!tessera::console::test::waitUntil([&] { return out.has_value(); }, 30000))
        return api::Error::timeout("test wait");
    return std::move(*out);
}

api::Status waitStatus(const std::function<void(QObject*, std::function<void(api::Status)>)>& call)
{
    std::optional<api::Status> out;
    QObject ctx;
    call(&ctx, [&](api::Status r) { out.emplace(std::move(r)); });
    if (!tessera::console::test::waitUntil([&] { return out.has_value(); }, 30000))
        return api::Error::timeout("test wait");
    return *out;
}

QByteArray randomBytes(int n, quint32 seed)
{
    QRandomGenerator gen(seed);
    QByteArray b(n, '\0');
    for (char& c : b) c = static_cast<char>(gen.bounded(256));
    return b;
}

}  // namespace

class TestConsoleRestClient : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(test::startRestCluster(m_network, 3, m_cluster, m_rest), m_cluster->error().c_str());
        m_client = std::make_unique<client::Client>(m_cluster->proxyUrl());
        const api::Status created = waitStatus([&](QObject* c, auto done) { m_rest->createBucket("rcb", c, done); });
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
    }

    void bucketsAndErrors()
    {
        auto again = waitStatus([&](QObject* c, auto done) { m_rest->createBucket("rcb", c, done); });
        QCOMPARE(again.kind(), api::ErrorKind::Conflict);
        QCOMPARE(again.error().message, std::string("bucket \"ais://rcb\" already exists"));
        auto bad = waitStatus([&](QObject* c, auto done) { m_rest->createBucket("A_B", c, done); });
        QCOMPARE(bad.kind(), api::ErrorKind::BadRequest);
        auto list = waitFor<std::vector<api::BucketRef>>([&](QObject* c, auto done) { m_rest->listBuckets(c, done); });
        QVERIFY(list.ok());
        QCOMPARE(list->size(), 1u);
        QCOMPARE(list->front().name, std::string("rcb"));
        auto missing = waitFor<ObjectInfo>([&](QObject* c, auto done) { m_rest->headObject("rcb", "nope", c, done); });
        QCOMPARE(missing.kind(), api::ErrorKind::NotFound);
    }

    // Each PUT goes to the proxy, which answers 307: the body must reach the
    // owner whole, from memory or from a file, below and above the 64 KiB
    // the proxy drains.
    void putBodiesSurviveTheRedirect_data()
    {
        QTest::addColumn<int>("size");
        QTest::addColumn<bool>("fromFile");
        for (int size : {0, 1000, 64 * 1024, 64 * 1024 + 1, 3 * 1024 * 1024}) {
            QTest::addRow("%d bytes, memory", size) << size << false;
            QTest::addRow("%d bytes, file", size) << size << true;
        }
    }

    void putBodiesSurviveTheRedirect()
    {
        QFETCH(int, size);
        QFETCH(bool, fromFile);
        const QByteArray bytes = randomBytes(size, quint32(size) + fromFile);
        const QString name = QStringLiteral("put/%1-%2 ü?#").arg(size).arg(fromFile);
        QTemporaryDir tmp;
        PutBody body = PutBody::fromData(bytes);
        if (fromFile) {
            QFile f(tmp.filePath("body"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(bytes), qint64(bytes.size()));
            f.close();
            body = PutBody::fromFile(f.fileName());
        }
        const QString sum = QString::fromStdString(api::xxhash64Hex(std::string_view(bytes.constData(), bytes.size())));
        auto put =
            waitFor<ObjectInfo>([&](QObject* c, auto done) { m_rest->putObject("rcb", name, body, sum, c, done); });
        QVERIFY2(put.ok(), put.ok() ? "" : put.error().message.c_str());
        QCOMPARE(put->size, qint64(size));
        QCOMPARE(QString::fromStdString(put->checksumValue), sum);
        auto got = m_client->getObject("rcb", name.toStdString());
        QVERIFY(got.ok());
        QCOMPARE(QByteArray::fromStdString(*got), bytes);
        auto head = waitFor<ObjectInfo>([&](QObject* c, auto done) { m_rest->headObject("rcb", name, c, done); });
        QVERIFY(head.ok());
        QCOMPARE(head->size, qint64(size));
        QCOMPARE(QString::fromStdString(head->checksumValue), sum);
    }

    void wrongChecksumIsRefused()
    {
        auto put = waitFor<ObjectInfo>([&](QObject* c, auto done) {
            m_rest->putObject("rcb", "bad-sum", PutBody::fromData("abc"), "0000000000000000", c, done);
        });
        QCOMPARE(put.kind(), api::ErrorKind::BadRequest);
        QVERIFY(QString::fromStdString(put.error().message).contains("checksum mismatch"));
        QCOMPARE(m_client->headObject("rcb", "bad-sum").kind(), api::ErrorKind::NotFound);
    }

    void manyCallsAtOnce()
    {
        const int kCalls = qEnvironmentVariableIntValue("KCALLS") > 0 ? qEnvironmentVariableIntValue("KCALLS") : 40;
        int ok = 0;
        int answered = 0;
        QObject ctx;
        for (int i = 0; i < kCalls; ++i) {
            m_rest->putObject("rcb", QStringLiteral("many/%1").arg(i), PutBody::fromData(QByteArray::number(i)), {},
                              &ctx, [&, i](api::Result<ObjectInfo> r) {
                                  if (!r) return void(++answered);
                                  m_rest->headObject("rcb", QStringLiteral("many/%1").arg(i), &ctx,
                                                     [&](api::Result<ObjectInfo> h) {
                                                         ++answered;
                                                         if (h) ++ok;
                                                     });
                              });
        }
        QVERIFY2(test::waitUntil([&] { return answered == kCalls; }, 30000), qPrintable(QString::number(answered)));
        QCOMPARE(ok, kCalls);
    }

    void rangeReadsAndDownloads()
    {
        const QByteArray bytes = randomBytes(100000, 7);
        QVERIFY(m_client->putObject("rcb", "range.bin", bytes.toStdString()).ok());
        auto head =
            waitFor<RangeData>([&](QObject* c, auto done) { m_rest->readHead("rcb", "range.bin", 4096, c, done); });
        QVERIFY(head.ok());
        QCOMPARE(head->bytes, bytes.left(4096));
        QCOMPARE(head->totalSize, qint64(bytes.size()));
        QVERIFY(head->truncated());
        auto whole =
            waitFor<RangeData>([&](QObject* c, auto done) { m_rest->readHead("rcb", "range.bin", 1 << 20, c, done); });
        QVERIFY(whole.ok());
        QCOMPARE(whole->bytes, bytes);
        QVERIFY(!whole->truncated());
        QVERIFY(m_client->putObject("rcb", "empty", "").ok());
        auto empty =
            waitFor<RangeData>([&](QObject* c, auto done) { m_rest->readHead("rcb", "empty", 4096, c, done); });
        QVERIFY(empty.ok());
        QCOMPARE(empty->totalSize, 0);
        QVERIFY(empty->bytes.isEmpty());

        QTemporaryDir tmp;
        const QString path = tmp.filePath("out.bin");
        auto n =
            waitFor<qint64>([&](QObject* c, auto done) { m_rest->download("rcb", "range.bin", {}, path, c, done); });
        QVERIFY(n.ok());
        QCOMPARE(*n, qint64(bytes.size()));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), bytes);
        // A failed download writes nothing under the name.
        const QString missingPath = tmp.filePath("missing.bin");
        auto miss =
            waitFor<qint64>([&](QObject* c, auto done) { m_rest->download("rcb", "nope", {}, missingPath, c, done); });
        QCOMPARE(miss.kind(), api::ErrorKind::NotFound);
        QVERIFY(!QFile::exists(missingPath));

        auto del = waitStatus([&](QObject* c, auto done) { m_rest->deleteObject("rcb", "range.bin", c, done); });
        QVERIFY(del.ok());
        auto del2 = waitStatus([&](QObject* c, auto done) { m_rest->deleteObject("rcb", "range.bin", c, done); });
        QCOMPARE(del2.kind(), api::ErrorKind::NotFound);
    }

    void abortEndsTheCall()
    {
        std::optional<api::Result<ObjectInfo>> out;
        QObject ctx;
        RestCall call = m_rest->putObject("rcb", "aborted", PutBody::fromData(randomBytes(4 << 20, 9)), {}, &ctx,
                                          [&](api::Result<ObjectInfo> r) { out.emplace(std::move(r)); });
        QVERIFY(call.isRunning());
        call.abort();
        QVERIFY(test::waitUntil([&] { return out.has_value(); }, 10000));
        QCOMPARE(out->kind(), api::ErrorKind::Unavailable);
        QVERIFY(!call.isRunning());
    }

    void controlCalls()
    {
        auto health = waitFor<api::Health>([&](QObject* c, auto done) { m_rest->health(c, done); });
        QVERIFY(health.ok());
        QCOMPARE(health->role, std::string("proxy"));
        QCOMPARE(health->targets, std::optional<std::uint64_t>(3));
        auto stats = waitFor<api::ClusterStats>([&](QObject* c, auto done) { m_rest->clusterStats(c, done); });
        QVERIFY(stats.ok());
        QCOMPARE(stats->targets.size(), std::size_t{3});
        QCOMPARE(stats->proxies.size(), std::size_t{1});
        auto smap = waitFor<api::Smap>([&](QObject* c, auto done) { m_rest->smap(c, done); });
        QVERIFY(smap.ok());
        QCOMPARE(smap->tmap.size(), std::size_t{3});
        auto jobs = waitFor<std::vector<api::JobStatus>>([&](QObject* c, auto done) { m_rest->jobs(c, done); });
        QVERIFY(jobs.ok());
        auto abort = waitFor<api::JobStatus>([&](QObject* c, auto done) { m_rest->abortJob("no-such-job", c, done); });
        QCOMPARE(abort.kind(), api::ErrorKind::NotFound);
    }

    void batchesReportOneSummary()
    {
        for (const char* n : {"batch/a", "batch/b", "batch/c"}) {
            QVERIFY(m_client->putObject("rcb", n, std::string("bytes of ") + n).ok());
        }
        ObjectBatch batch(m_rest.get());
        std::vector<ObjectBatch::Summary> summaries;
        connect(&batch, &ObjectBatch::finished, this, [&](const ObjectBatch::Summary& s) { summaries.push_back(s); });

        // Downloads: two files, and one name that does not exist.
        QTemporaryDir dir;
        batch.download("rcb",
                       {{"batch/a", {}, dir.filePath("a")},
                        {"batch/b", {}, dir.filePath("sub/b")},
                        {"batch/missing", {}, dir.filePath("m")}},
                       dir.path());
        QVERIFY(test::waitUntil([&] { return summaries.size() == 1; }, 30000));
        QCOMPARE(summaries[0].kind, ObjectBatch::Kind::Download);
        QCOMPARE(summaries[0].total, 3);
        QCOMPARE(summaries[0].done, 2);
        QCOMPARE(summaries[0].failures.size(), 1);
        QVERIFY(summaries[0].failures[0].startsWith("batch/missing: "));
        QVERIFY2(summaries[0].text().contains("downloaded 2 of 3"), qPrintable(summaries[0].text()));
        QFile a(dir.filePath("a"));
        QVERIFY(a.open(QIODevice::ReadOnly));
        QCOMPARE(a.readAll(), QByteArray("bytes of batch/a"));
        QVERIFY(QFile::exists(dir.filePath("sub/b")));
        QVERIFY(!QFile::exists(dir.filePath("m")));  // nothing is written for a failed download

        // Deletes: more names than run at once; one summary at the end.
        QStringList names{"batch/a", "batch/b", "batch/c"};
        for (int i = 0; i < ObjectBatch::kParallel * 2; ++i) names << QString("batch/absent-%1").arg(i);
        batch.removeObjects("rcb", names);
        QVERIFY(test::waitUntil([&] { return summaries.size() == 2; }, 30000));
        QCOMPARE(summaries[1].kind, ObjectBatch::Kind::Delete);
        QCOMPARE(summaries[1].done, 3);
        QCOMPARE(summaries[1].failures.size(), ObjectBatch::kParallel * 2);
        QVERIFY2(summaries[1].text().contains("and 11 more"), qPrintable(summaries[1].text()));
        QCOMPARE(m_client->headObject("rcb", "batch/c").kind(), api::ErrorKind::NotFound);
        QTest::qWait(50);
        QCOMPARE(summaries.size(), std::size_t{2});
    }

    void objectUrlIsEncoded()
    {
        const QUrl url = m_rest->objectUrl("rcb", "a b/c?d#e");
        QCOMPARE(url.toString(QUrl::FullyEncoded),
                 QString::fromStdString(m_cluster->proxyUrl()) + "/v1/objects/rcb/a%20b/c%3Fd%23e");
    }

private:
    std::unique_ptr<tests::LocalCluster> m_cluster;
    std::unique_ptr<client::Client> m_client;
    QNetworkAccessManager m_network;
    std::unique_ptr<RestClient> m_rest;
};

QTEST_GUILESS_MAIN(TestConsoleRestClient)
#include "test_console_rest_client.moc"
