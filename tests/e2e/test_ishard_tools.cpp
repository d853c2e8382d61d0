// Shards written by the ishard job (the archive job writes through the same
// code) read by the tools people use: for each format one tool extracts the whole
// shard into a directory and every file equals its source object.
#include "../integration/local_cluster.h"
#include "../integration/shard_test_util.h"

#include "client/api_client.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tessera;

namespace {

bool run(const QString& cmd)
{
    QProcess p;
    p.start("sh", {"-c", cmd});
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("%s failed: %s", qPrintable(cmd), p.readAllStandardError().constData());
        return false;
    }
    return true;
}

}  // namespace

class TestIshardTools : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster;
    QTemporaryDir m_dir;
    std::map<std::string, std::string> m_objects;

    // The files under dir, relative names -> bytes.
    static std::map<std::string, std::string> filesUnder(const QString& dir)
    {
        std::map<std::string, std::string> out;
        QDir root(dir);
        std::function<void(const QString&)> walk = [&](const QString& d) {
            for (const auto& fi : QDir(d).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
                if (fi.isDir()) {
                    walk(fi.filePath());
                    continue;
                }
                QFile f(fi.filePath());
                if (!f.open(QIODevice::ReadOnly)) continue;
                const auto b = f.readAll();
                out[root.relativeFilePath(fi.filePath()).toStdString()] = std::string(b.constData(), b.size());
            }
        };
        walk(dir);
        return out;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        client::Client c(m_cluster.proxyUrl());
        QVERIFY(c.createBucket("tools-src"));
        for (int i = 0; i < 40; ++i) {
            char key[32];
            std::snprintf(key, sizeof key, "samples/%04d", i);
            m_objects[std::string(key) + ".jpg"] = tests::randomBytes(1000 + i * 311, i);
            m_objects[std::string(key) + ".cls"] = std::to_string(i % 7);
        }
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "tools-src", m_objects), 0);
    }

    void extractedByTools_data()
    {
        QTest::addColumn<QString>("ext");
        QTest::addColumn<QString>("extract");  // F: the shard, D: the directory
        QTest::addColumn<QString>("tool");
        QTest::newRow("tar: GNU tar") << ".tar"
                                      << "tar -xf {file} -C {dir}"
                                      << "tar";
        QTest::newRow("tgz: bsdtar") << ".tgz"
                                     << "bsdtar -xf {file} -C {dir}"
                                     << "bsdtar";
        QTest::newRow("tar.lz4: lz4 | GNU tar") << ".tar.lz4"
                                                << "lz4 -dc {file} | tar -xf - -C {dir}"
                                                << "lz4";
        QTest::newRow("zip: unzip") << ".zip"
                                    << "unzip -q {file} -d {dir}"
                                    << "unzip";
    }

    void extractedByTools()
    {
        QFETCH(QString, ext);
        QFETCH(QString, extract);
        QFETCH(QString, tool);
        if (QStandardPaths::findExecutable(tool).isEmpty())
            QSKIP(qPrintable(tool + " is not installed (installers/deps.sh)"));
        client::Client c(m_cluster.proxyUrl());
        const std::string dst = "tools-" + ext.mid(1).replace('.', '-').toStdString();
        QVERIFY(c.createBucket(dst));
        spec::IshardSpec s;
        s.srcBck = "tools-src";
        s.dstBck = dst;
        s.shardSize = 24 << 10;
        s.ext = ext.toStdString();
        s.format = *archive::formatFromName("x" + s.ext);
        auto st = c.startIshard(s);
        QVERIFY2(st, st ? "" : st.error().message.c_str());
        QCOMPARE(tests::waitJob(c, st->id).state, api::JobState::Finished);
        auto list = c.listAll(dst);
        QVERIFY(list && list->size() > 1);
        const QString out = m_dir.path() + "/" + QString::fromStdString(dst);
        QVERIFY(QDir().mkpath(out));
        for (const auto& e : *list) {
            const QString file = m_dir.path() + "/" + QString::fromStdString(e.name);
            QVERIFY(c.getToFile(dst, e.name, file.toStdString()));
            QVERIFY(run(QString(extract).replace("{file}", file).replace("{dir}", out)));
        }
        QVERIFY(filesUnder(out) == m_objects);
    }
};

QTEST_GUILESS_MAIN(TestIshardTools)
#include "test_ishard_tools.moc"
