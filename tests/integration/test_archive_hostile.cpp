// Hostile shards, made here byte by byte: absolute and ".." names, links
// leading out, a device, a member over the configured size, too many
// members, a gzip bomb, a truncated tar, garbage. Each is a 422 JSON error
// for archpath, archregx and append, a flagged entry in a listing, nothing
// is written outside the object, and the node keeps serving.
#include "local_cluster.h"

#include "api/headers.h"
#include "api/uri.h"
#include "archive/archive_writer.h"
#include "client/api_client.h"

#include <QDirIterator>
#include <QTest>
#include <cstring>
#include <nlohmann/json.hpp>

using namespace tessera;

namespace {

// One ustar header block (and the data, padded), written by hand so that
// names and types the safe writer refuses can be made.
std::string tarEntry(const std::string& name, char type, const std::string& data, const std::string& link = {},
                     std::uint64_t declaredSize = UINT64_MAX)
{
    char h[512];
    std::memset(h, 0, sizeof h);
    std::strncpy(h, name.c_str(), 100);
    std::snprintf(h + 100, 8, "%07o", 0644);
    std::snprintf(h + 108, 8, "%07o", 0);
    std::snprintf(h + 116, 8, "%07o", 0);
    const std::uint64_t size = declaredSize == UINT64_MAX ? data.size() : declaredSize;
    std::snprintf(h + 124, 12, "%011llo", static_cast<unsigned long long>(size));
    std::snprintf(h + 136, 12, "%011o", 1700000000);
    std::memset(h + 148, ' ', 8);
    h[156] = type;
    std::strncpy(h + 157, link.c_str(), 100);
    std::memcpy(h + 257, "ustar", 6);
    std::memcpy(h + 263, "00", 2);
    if (type == '3') {
        std::snprintf(h + 329, 8, "%07o", 1);
        std::snprintf(h + 337, 8, "%07o", 3);
    }
    unsigned sum = 0;
    for (unsigned char c : h) sum += c;
    std::snprintf(h + 148, 8, "%06o", sum);
    h[154] = '\0';
    h[155] = ' ';
    std::string out(h, sizeof h);
    out += data;
    out.append((512 - data.size() % 512) % 512, '\0');
    return out;
}

std::string tarEnd() { return std::string(1024, '\0'); }

std::string okEntry() { return tarEntry("ok.txt", '0', "fine\n"); }

std::string gzipBomb()
{
    std::string out;
    auto w = archive::ArchiveWriter::create(archive::ArchiveFormat::TarGz, [&out](const char* p, std::size_t n) {
        out.append(p, n);
        return api::Status();
    });
    if (!w || !(*w)->add("ok.txt", "fine\n", 0)) return {};
    // 15 members of 1,000,000 zeros (under the member and total limits)
    // compress to ~15 KiB: far over a ratio of 10.
    const std::string zeros(1'000'000, '\0');
    for (int i = 0; i < 15; ++i) {
        if (!(*w)->add("bomb-" + std::to_string(i) + ".bin", zeros, 0)) return {};
    }
    if (!(*w)->finish()) return {};
    return out;
}

}  // namespace

class TestArchiveHostile : public QObject {
    Q_OBJECT

private:
    // Small limits so that a test can break them cheaply.
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{
        2,
        1,
        false,
        300,
        3,
        {},
        {"--archive-max-member-size", "1048576", "--archive-max-members", "50", "--archive-max-compression-ratio", "10",
         "--archive-max-total-size", "16777216"}}};
    const std::string m_bucket = "hostile";

    client::Response send(client::Method m, const std::string& name, const api::QueryMap& q,
                          const client::Body& body = {})
    {
        auto r = m_cluster.http().send(m,
                                       m_cluster.proxyUrl() + "/v1/objects/" + m_bucket + "/" +
                                           api::percentEncode(name, true) + (q.empty() ? "" : "?" + api::buildQuery(q)),
                                       body);
        return r ? r.value() : client::Response{};
    }

    // Every file under the cluster's data directory, relative to it.
    QStringList allFiles()
    {
        QStringList out;
        QDirIterator it(m_cluster.dataDir(), QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
        while (it.hasNext()) out << it.next().mid(m_cluster.dataDir().size());
        return out;
    }

    static void expect422(const client::Response& r, const char* what)
    {
        QVERIFY2(r.status == 422, qPrintable(QString("%1: HTTP %2 %3").arg(what).arg(r.status).arg(r.body.c_str())));
        auto j = nlohmann::json::parse(r.body, nullptr, false);
        QVERIFY2(j.is_object() && j.value("status", 0) == 422, what);
        QVERIFY2(!j.value("message", std::string()).empty(), what);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        client::Client c(m_cluster.proxyUrl());
        QVERIFY(c.createBucket(m_bucket).ok());
        QVERIFY(c.putObject(m_bucket, "plain.txt", "still here").ok());
    }

    void refused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("member");  // what archpath asks for
        QTest::addColumn<QString>("reason");  // in the message
        auto row = [](const char* tag, const char* name, const std::string& bytes, const char* member,
                      const char* reason) {
            QTest::newRow(tag) << name << QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())) << member
                               << reason;
        };
        row("absolute path", "abs.tar", okEntry() + tarEntry("/etc/evil", '0', "x") + tarEnd(), "ok.txt", "absolute");
        row("dot-dot", "dotdot.tar", okEntry() + tarEntry("../x", '0', "x") + tarEnd(), "ok.txt", "..");
        row("symlink to /etc/passwd", "symabs.tar", okEntry() + tarEntry("link", '2', "", "/etc/passwd") + tarEnd(),
            "ok.txt", "symbolic link");
        row("symlink up and out", "symrel.tar", okEntry() + tarEntry("a/link", '2', "", "../../x") + tarEnd(), "ok.txt",
            "symbolic link");
        row("hardlink outside", "hard.tar", okEntry() + tarEntry("h", '1', "", "../outside") + tarEnd(), "ok.txt",
            "hard link");
        row("char device", "dev.tar", okEntry() + tarEntry("dev/null", '3', "") + tarEnd(), "ok.txt", "not a regular");
        row("member over the size limit", "big.tar",
            okEntry() + tarEntry("big.bin", '0', std::string((1 << 20) + 1, 'b')) + tarEnd(), "ok.txt",
            "archive_max_member_size");
        std::string many = okEntry();
        for (int i = 0; i < 60; ++i) many += tarEntry("m" + std::to_string(i), '0', "m");
        row("too many members", "many.tar", many + tarEnd(), "ok.txt", "archive_max_members");
        row("gzip bomb", "bomb.tgz", gzipBomb(), "bomb-9.bin", "archive_max_compression_ratio");
        const auto whole = okEntry() + tarEntry("cut.bin", '0', std::string(5000, 'c')) + tarEnd();
        row("truncated tar", "cut.tar", whole.substr(0, 512 + 512 + 512 + 1000), "ok.txt", "");
        std::string garbage(9000, '\0');
        for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 131 + 7) % 251);
        row("garbage tar", "garbage.tar", garbage, "ok.txt", "");
        row("garbage tgz", "garbage.tgz", garbage, "ok.txt", "");
        row("garbage zip", "garbage.zip", garbage, "ok.txt", "");
        row("garbage lz4", "garbage.tar.lz4", garbage, "ok.txt", "");
    }
    void refused()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, member);
        QFETCH(QString, reason);
        QVERIFY(!bytes.isEmpty());
        const std::string n = "bad/" + name.toStdString();
        const std::string data(bytes.constData(), static_cast<std::size_t>(bytes.size()));
        QCOMPARE(send(client::Method::Put, n, {}, client::Body::string(data)).status, 200);
        const auto before = allFiles();

        const auto one = send(client::Method::Get, n, {{"archpath", member.toStdString()}});
        expect422(one, "archpath");
        if (!reason.isEmpty()) {
            QVERIFY2(QString::fromStdString(one.body).contains(reason), one.body.c_str());
        }
        expect422(send(client::Method::Get, n, {{"archregx", "."}}), "archregx");
        expect422(send(client::Method::Put, n, {{"archpath", "added.txt"}}, client::Body::string("new")), "append");

        // Listed, flagged, with the reason; the listing itself succeeds.
        client::Client c(m_cluster.proxyUrl());
        api::ListRequest req;
        req.prefix = n;
        req.flags = api::kLsArchDir;
        auto page = c.listObjects(m_bucket, req);
        QVERIFY(page.ok());
        QCOMPARE(page->entries.size(), std::size_t{1});
        QVERIFY(page->entries[0].flags & api::kEntryArchError);
        QVERIFY(!page->entries[0].error.empty());
        QCOMPARE(c.listArchive(m_bucket, n).kind(), api::ErrorKind::Corruption);

        // Nothing new on disk (no index, no extracted file), the shard is
        // unchanged, and the node serves.
        QCOMPARE(allFiles(), before);
        QVERIFY(*c.getObject(m_bucket, n) == data);
        QCOMPARE(*c.getObject(m_bucket, "plain.txt"), std::string("still here"));
        for (const auto& f : allFiles()) {
            QVERIFY2(!f.endsWith("/evil") && !f.endsWith("/outside") && !f.endsWith("/x"), qPrintable(f));
        }
    }

    // An appended member over the configured limit is refused before its
    // body is stored; the shard stays as it was.
    void appendOverTheLimit()
    {
        client::Client c(m_cluster.proxyUrl());
        QVERIFY(c.appendToArchive(m_bucket, "lim.tar", "a", "a").ok());
        auto r = c.appendToArchive(m_bucket, "lim.tar", "b", std::string((1 << 20) + 1, 'b'));
        QCOMPARE(r.kind(), api::ErrorKind::TooLarge);
        auto listed = c.listArchive(m_bucket, "lim.tar");
        QVERIFY(listed.ok());
        QCOMPARE(listed->size(), std::size_t{2});  // the shard and "a"
    }

    void appendBeyondTheMemberCount()
    {
        client::Client c(m_cluster.proxyUrl());
        for (int i = 0; i < 50; ++i)
            QVERIFY(c.appendToArchive(m_bucket, "full.tar", "m" + std::to_string(i), "m").ok());
        auto r = c.appendToArchive(m_bucket, "full.tar", "one-too-many", "m");
        QCOMPARE(r.kind(), api::ErrorKind::BadRequest);
        QVERIFY(r.error().message.find("archive_max_members") != std::string::npos);
        QCOMPARE(*c.getArchiveMember(m_bucket, "full.tar", "m49"), std::string("m"));
    }

    void nodesStillHealthy()
    {
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            auto r = m_cluster.http().send(client::Method::Get, m_cluster.targetUrl(i) + "/v1/health");
            QVERIFY(r.ok());
            QCOMPARE(r->status, 200);
        }
    }
};

QTEST_GUILESS_MAIN(TestArchiveHostile)
#include "test_archive_hostile.moc"
