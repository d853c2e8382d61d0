// Shards written by Tessera (through appends, one per format) read by the
// tools people use: GNU tar, bsdtar and unzip give back the exact bytes.
#include "../integration/local_cluster.h"

#include "client/api_client.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <random>

using namespace tessera;

namespace {

using Members = std::vector<std::pair<std::string, std::string>>;

std::string randomBytes(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

// Runs a shell command line; its stdout, or a null array when it failed.
QByteArray run(const QString& cmd)
{
    QProcess p;
    p.start("sh", {"-c", cmd});
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("%s failed: %s", qPrintable(cmd), p.readAllStandardError().constData());
        return {};
    }
    auto out = p.readAllStandardOutput();
    if (out.isNull()) out = QByteArray("");  // empty but not null: success
    return out;
}

}  // namespace

class TestArchiveTools : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{2, 1, false, 300, 3, {}}};
    QTemporaryDir m_dir;
    const Members m_members{{"readme.txt", "written by tessera\n"},
                            {"samples/0001.jpg", randomBytes(200000, 1)},
                            {"samples/0001.cls", "7"},
                            {"empty", ""}};

    // The shard built by appending every member, downloaded to a file.
    QString appendAndFetch(const std::string& shard)
    {
        client::Client c(m_cluster.proxyUrl());
        for (const auto& [n, data] : m_members) {
            if (!c.appendToArchive("tools", shard, n, data)) return {};
        }
        const QString path = m_dir.path() + "/" + QString::fromStdString(shard);
        if (!c.getToFile("tools", shard, path.toStdString())) return {};
        return path;
    }

    static bool have(const char* tool) { return !QStandardPaths::findExecutable(tool).isEmpty(); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        QVERIFY(client::Client(m_cluster.proxyUrl()).createBucket("tools").ok());
    }

    void readByTools_data()
    {
        QTest::addColumn<QString>("shard");
        QTest::addColumn<QString>("list");     // prints member names, one per line
        QTest::addColumn<QString>("extract");  // MEMBER replaced; prints its bytes
        QTest::addColumn<QString>("tool");
        QTest::newRow("tar: GNU tar") << "s.tar"
                                      << "tar -tf F"
                                      << "tar -xOf F MEMBER"
                                      << "tar";
        QTest::newRow("tar: bsdtar") << "s.tar"
                                     << "bsdtar -tf F"
                                     << "bsdtar -xOf F MEMBER"
                                     << "bsdtar";
        QTest::newRow("tgz: GNU tar") << "s.tgz"
                                      << "tar -tzf F"
                                      << "tar -xzOf F MEMBER"
                                      << "tar";
        QTest::newRow("tgz: bsdtar") << "s.tgz"
                                     << "bsdtar -tf F"
                                     << "bsdtar -xOf F MEMBER"
                                     << "bsdtar";
        QTest::newRow("tar.lz4: GNU tar + lz4") << "s.tar.lz4"
                                                << "tar -I lz4 -tf F"
                                                << "tar -I lz4 -xOf F MEMBER"
                                                << "lz4";
        QTest::newRow("tar.lz4: bsdtar") << "s.tar.lz4"
                                         << "bsdtar -tf F"
                                         << "bsdtar -xOf F MEMBER"
                                         << "bsdtar";
        QTest::newRow("zip: unzip") << "s.zip"
                                    << "unzip -Z1 F"
                                    << "unzip -p F MEMBER"
                                    << "unzip";
        QTest::newRow("zip: bsdtar") << "s.zip"
                                     << "bsdtar -tf F"
                                     << "bsdtar -xOf F MEMBER"
                                     << "bsdtar";
    }
    void readByTools()
    {
        QFETCH(QString, shard);
        QFETCH(QString, list);
        QFETCH(QString, extract);
        QFETCH(QString, tool);
        if (!have(tool.toUtf8().constData())) QSKIP(qPrintable(tool + " is not installed (installers/deps.sh)"));
        QString path = m_dir.path() + "/" + shard;
        if (!QFile::exists(path)) path = appendAndFetch(shard.toStdString());
        QVERIFY(!path.isEmpty());
        const auto names = run(QString(list).replace("F", path));
        QVERIFY(!names.isNull());
        QStringList expected;
        for (const auto& [n, data] : m_members) expected << QString::fromStdString(n);
        QCOMPARE(QString::fromUtf8(names).split('\n', Qt::SkipEmptyParts), expected);
        for (const auto& [n, data] : m_members) {
            const auto got = run(QString(extract).replace("F", path).replace("MEMBER", QString::fromStdString(n)));
            QVERIFY2(!got.isNull(), n.c_str());
            QVERIFY2(got == QByteArray(data.data(), static_cast<qsizetype>(data.size())), n.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestArchiveTools)
#include "test_archive_tools.moc"
