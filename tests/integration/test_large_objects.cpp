// Large objects stream through the target in bounded memory, both ways.
#include "local_cluster.h"

#include "api/checksum.h"
#include "api/hrw.h"

#include <QElapsedTimer>
#include <QFile>
#include <QStorageInfo>
#include <QTemporaryFile>
#include <QTest>
#include <random>

using namespace tessera;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

namespace {
// Peak resident set size of a process, in KiB (VmHWM).
qint64 peakRssKiB(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly)) return -1;
    for (const auto& line : f.readAll().split('\n')) {
        if (line.startsWith("VmHWM:")) return line.mid(6).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}
}  // namespace

class TestLargeObjects : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{1, 2, false, 300, 3, {}}};

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        HttpClient http;
        auto r = http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/large",
                           Body::string(R"({"action":"create-bck"})"));
        QCOMPARE(r->status, 200);
    }

    void halfGiBInBoundedMemory()
    {
        constexpr qint64 kSize = 512LL << 20;
        const QStorageInfo disk(m_cluster.dataDir());
        if (disk.bytesAvailable() < 4 * kSize) QSKIP("less than 2 GiB free for the large-object test");
        QTemporaryFile src;
        QVERIFY(src.open());
        // Random head and tail around a sparse middle: cheap to make, and a
        // misplaced chunk would change the checksum.
        std::mt19937_64 rng(99);
        QByteArray chunk(1 << 20, '\0');
        for (auto& c : chunk) c = static_cast<char>(rng());
        src.write(chunk);
        QVERIFY(src.resize(kSize - chunk.size()));
        QVERIFY(src.seek(kSize - chunk.size()));
        src.write(chunk);
        src.close();

        api::Xxh64Stream want;
        {
            QFile f(src.fileName());
            QVERIFY(f.open(QIODevice::ReadOnly));
            while (!f.atEnd()) {
                const auto b = f.read(4 << 20);
                want.update(b.constData(), static_cast<std::size_t>(b.size()));
            }
        }
        const qint64 before = peakRssKiB(m_cluster.targetPid(0));
        QVERIFY(before > 0);

        HttpClient http;
        QElapsedTimer timer;
        timer.start();
        auto put = http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/large/one-gib",
                             Body::file(src.fileName().toStdString()),
                             {{"ais-checksum-type", "xxhash"}, {"ais-checksum-value", want.hex()}});
        QVERIFY(put);
        QCOMPARE(put->status, 200);
        QCOMPARE(put->header("ais-size"), std::to_string(kSize));

        const qint64 putMs = timer.restart();
        api::Xxh64Stream got;
        qint64 received = 0;
        client::Sink sink = [&](const char* d, std::size_t n) -> api::Status {
            got.update(d, n);
            received += static_cast<qint64>(n);
            return {};
        };
        auto get = http.send(Method::Get, m_cluster.proxyUrl() + "/v1/objects/large/one-gib", {}, {}, &sink);
        QVERIFY(get);
        QCOMPARE(get->status, 200);
        const qint64 getMs = timer.elapsed();
        qInfo("512 MiB PUT %lld ms, GET %lld ms (client and target on one machine)", putMs, getMs);
        QCOMPARE(received, kSize);
        QCOMPARE(got.hex(), want.hex());

        const qint64 after = peakRssKiB(m_cluster.targetPid(0));
        qInfo("target peak RSS: %lld KiB before, %lld KiB after a 512 MiB PUT and GET", before, after);
        // The body never sits in memory: growth stays far below the object size.
        QVERIFY2(after - before < 64 * 1024, "target memory grew with the object size");
    }
};

QTEST_GUILESS_MAIN(TestLargeObjects)
#include "test_large_objects.moc"
