// Shards through a real 3-target cluster: archpath reads of every member in
// every format, archregx selections, archmime, listing with the archive flag
// across pages and targets, appends (also 32 at once), and the .tar index.
#include "local_cluster.h"

#include "api/headers.h"
#include "api/uri.h"
#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "client/api_client.h"

#include <QDirIterator>
#include <QTest>
#include <atomic>
#include <map>
#include <random>
#include <thread>

using namespace tessera;
using archive::ArchiveFormat;

namespace {

using Members = std::vector<std::pair<std::string, std::string>>;

std::string randomBytes(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

std::string buildShard(ArchiveFormat f, const Members& members)
{
    std::string out;
    auto w = archive::ArchiveWriter::create(f, [&out](const char* p, std::size_t n) {
        out.append(p, n);
        return api::Status();
    });
    if (!w) return {};
    for (const auto& [name, data] : members) {
        if (!(*w)->add(name, data, 1700000000)) return {};
    }
    if (!(*w)->finish()) return {};
    return out;
}

// Every member of a shard held in memory, in shard order.
api::Result<Members> readShard(const std::string& bytes, ArchiveFormat f)
{
    auto r = archive::ArchiveReader::openMemory(bytes, f, {});
    if (!r) return r.error();
    Members out;
    for (;;) {
        auto m = (*r)->next();
        if (!m) return m.error();
        if (!m->has_value()) return out;
        auto data = (*r)->readAll();
        if (!data) return data.error();
        out.emplace_back((**m).name, std::move(data.value()));
    }
}

Members sampleMembers(unsigned seed)
{
    Members m;
    m.emplace_back("empty.txt", "");
    m.emplace_back("readme.txt", "hello, shard\n");
    for (int i = 0; i < 12; ++i) {
        m.emplace_back("train/n0144_" + std::to_string(1000 + i) + ".jpg",
                       randomBytes(1000 + (i * 7919) % 100000, seed + i));
        m.emplace_back("train/n0144_" + std::to_string(1000 + i) + ".cls", std::to_string(i % 10));
    }
    // Over ShardService::kMemoryMemberBytes: read through a temporary file.
    m.emplace_back("big/blob.bin", randomBytes((1 << 20) + 4321, seed + 99));
    return m;
}

}  // namespace

class TestArchive : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{3, 2, false, 300, 3, {}}};
    const std::string m_bucket = "shards";

    client::Client client() { return client::Client(m_cluster.proxyUrl()); }

    // A raw GET through the proxy, for statuses and headers.
    client::Response rawGet(const std::string& name, const api::QueryMap& q, const client::Headers& headers = {})
    {
        auto r = m_cluster.http().send(client::Method::Get,
                                       m_cluster.proxyUrl() + "/v1/objects/" + m_bucket + "/" +
                                           api::percentEncode(name, true) + "?" + api::buildQuery(q),
                                       {}, headers);
        return r ? r.value() : client::Response{};
    }

    std::vector<QString> indexFiles(const std::string& name)
    {
        std::vector<QString> out;
        for (int t = 0; t < m_cluster.targetCount(); ++t) {
            for (const auto& mp : m_cluster.targetMountpaths(t)) {
                const auto p = QString::fromStdString(mp + "/.tessera/archidx/" + m_bucket + "/" + name);
                if (QFile::exists(p)) out.push_back(p);
            }
        }
        return out;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        QVERIFY(client().createBucket(m_bucket).ok());
    }

    void everyMemberInEveryFormat_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("name");
        QTest::newRow("tar") << int(ArchiveFormat::Tar) << "rt/shard.tar";
        QTest::newRow("tgz") << int(ArchiveFormat::TarGz) << "rt/shard.tgz";
        QTest::newRow("tar.gz") << int(ArchiveFormat::TarGz) << "rt/shard.tar.gz";
        QTest::newRow("tar.lz4") << int(ArchiveFormat::TarLz4) << "rt/shard.tar.lz4";
        QTest::newRow("zip") << int(ArchiveFormat::Zip) << "rt/shard.zip";
    }
    void everyMemberInEveryFormat()
    {
        QFETCH(int, format);
        QFETCH(QString, name);
        const auto members = sampleMembers(static_cast<unsigned>(format) * 100);
        const auto shard = buildShard(ArchiveFormat(format), members);
        QVERIFY(!shard.empty());
        auto c = client();
        QVERIFY(c.putObject(m_bucket, name.toStdString(), shard).ok());
        for (const auto& [member, data] : members) {
            auto got = c.getArchiveMember(m_bucket, name.toStdString(), member);
            QVERIFY2(got.ok(), got.ok() ? "" : got.error().message.c_str());
            QVERIFY2(*got == data, member.c_str());
        }
        // "./" is tar's habit: the same member.
        QCOMPARE(*c.getArchiveMember(m_bucket, name.toStdString(), "./readme.txt"), std::string("hello, shard\n"));
        auto missing = c.getArchiveMember(m_bucket, name.toStdString(), "train/nope.jpg");
        QCOMPARE(missing.kind(), api::ErrorKind::NotFound);
        QVERIFY(missing.error().message.find("train/nope.jpg") != std::string::npos);
        const auto r = rawGet(name.toStdString(), {{"archpath", "readme.txt"}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.header("content-type"), std::string("application/octet-stream"));
        QCOMPARE(r.header("content-length"), std::string("13"));
        QCOMPARE(rawGet(name.toStdString(), {{"archpath", "../etc/passwd"}}).status, 400);
        // An empty archpath names no member: the whole object, as AIStore
        // reads it (its Python SDK 1.2 sends `archpath=` with every GET).
        const auto plain = rawGet(name.toStdString(), {{"archpath", ""}});
        QCOMPARE(plain.status, 200);
        QVERIFY(plain.body == shard);

        // Range applies to the member's bytes.
        auto part = rawGet(name.toStdString(), {{"archpath", "readme.txt"}}, {{"Range", "bytes=7-11"}});
        QCOMPARE(part.status, 206);
        QCOMPARE(part.body, std::string("shard"));
        QCOMPARE(part.header("content-range"), std::string("bytes 7-11/13"));
        auto tail = rawGet(name.toStdString(), {{"archpath", "readme.txt"}}, {{"Range", "bytes=-3"}});
        QCOMPARE(tail.status, 206);
        QCOMPARE(tail.body, std::string("rd\n"));
        auto past = rawGet(name.toStdString(), {{"archpath", "readme.txt"}}, {{"Range", "bytes=100-200"}});
        QCOMPARE(past.status, 416);
        QCOMPARE(past.header("content-range"), std::string("bytes */13"));
        const auto& blob = members.back().second;  // big/blob.bin, served from a file region
        auto mid = rawGet(name.toStdString(), {{"archpath", "big/blob.bin"}}, {{"Range", "bytes=1048570-1048599"}});
        QCOMPARE(mid.status, 206);
        QVERIFY(mid.body == blob.substr(1048570, 30));
    }

    // Shards made by other tools: GNU tar (directories, ./ names), bsdtar
    // zip, gzip and lz4 over tar.
    void shardsMadeByTools()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString src = dir.path() + "/src";
        QVERIFY(QDir().mkpath(src + "/d/e"));
        const Members files{{"a.txt", "alpha\n"}, {"d/b.bin", randomBytes(70000, 5)}, {"d/e/c.json", "{\"c\":1}"}};
        for (const auto& [n, data] : files) {
            QFile f(src + "/" + QString::fromStdString(n));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(data.data(), static_cast<qint64>(data.size()));
        }
        const std::vector<std::pair<QString, QString>> recipes{
            {"tools.tar", "tar -C " + src + " -cf OUT ."},
            {"tools.tgz", "tar -C " + src + " -czf OUT a.txt d"},
            {"tools.tar.lz4", "tar -C " + src + " -cf - a.txt d | lz4 -q > OUT"},
            {"tools.zip", "cd " + src + " && bsdtar --format zip -cf OUT a.txt d"},
        };
        auto c = client();
        for (const auto& [shard, recipe] : recipes) {
            const QString out = dir.path() + "/" + shard;
            QString cmd = recipe;
            cmd.replace("OUT", out);
            QCOMPARE(QProcess::execute("sh", {"-c", cmd}), 0);
            QVERIFY(c.putFile(m_bucket, "tools/" + shard.toStdString(), out.toStdString()).ok());
            for (const auto& [n, data] : files) {
                auto got = c.getArchiveMember(m_bucket, "tools/" + shard.toStdString(), n);
                QVERIFY2(got.ok(), qPrintable(shard + " " + QString::fromStdString(n)));
                QVERIFY(*got == data);
            }
            auto listed = c.listArchive(m_bucket, "tools/" + shard.toStdString());
            QVERIFY(listed.ok());
            std::map<std::string, std::int64_t> sizes;
            for (const auto& e : *listed) {
                if (e.flags & api::kEntryInArch) sizes[e.name] = e.size;
            }
            QCOMPARE(sizes.size(), files.size());  // directories are not members
            for (const auto& [n, data] : files) {
                QCOMPARE(sizes["tools/" + shard.toStdString() + "/" + n], static_cast<std::int64_t>(data.size()));
            }
        }
    }

    void selections_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("regexp") << "regexp"
                                << "\\.cls$" << QStringList{"s/0001.cls", "s/0002.cls", "t/0001.cls"};
        QTest::newRow("default is regexp") << ""
                                           << "^s/000[12]\\.jpg" << QStringList{"s/0001.jpg", "s/0002.jpg"};
        QTest::newRow("prefix") << "prefix"
                                << "s/0001" << QStringList{"s/0001.jpg", "s/0001.cls", "s/0001.seg.png"};
        QTest::newRow("suffix") << "suffix"
                                << ".jpg" << QStringList{"s/0001.jpg", "s/0002.jpg"};
        QTest::newRow("substr") << "substr"
                                << "0001" << QStringList{"s/0001.jpg", "s/0001.cls", "s/0001.seg.png", "t/0001.cls"};
        QTest::newRow("wdskey") << "wdskey"
                                << "s/0001" << QStringList{"s/0001.jpg", "s/0001.cls", "s/0001.seg.png"};
    }
    void selections()
    {
        QFETCH(QString, mode);
        QFETCH(QString, value);
        QFETCH(QStringList, expected);
        const Members members{{"s/0001.jpg", randomBytes(3000, 1)},
                              {"s/0001.cls", "3"},
                              {"s/0001.seg.png", randomBytes(500, 2)},
                              {"s/0002.jpg", randomBytes(2000, 3)},
                              {"s/0002.cls", "7"},
                              {"t/0001.cls", "1"},
                              {"other.txt", "x"}};
        std::map<std::string, std::string> byName(members.begin(), members.end());
        auto c = client();
        for (auto f : {ArchiveFormat::Tar, ArchiveFormat::TarGz, ArchiveFormat::TarLz4, ArchiveFormat::Zip}) {
            const std::string shard = "sel/samples" + std::string(archive::formatExtension(f));
            QVERIFY(c.putObject(m_bucket, shard, buildShard(f, members)).ok());
            auto got = c.getArchiveMatches(m_bucket, shard, value.toStdString(), mode.toStdString());
            QVERIFY2(got.ok(), got.ok() ? "" : got.error().message.c_str());
            auto parsed = readShard(*got, ArchiveFormat::Tar);
            QVERIFY(parsed.ok());
            QStringList names;
            for (const auto& [n, data] : *parsed) {
                names << QString::fromStdString(n);
                QVERIFY2(data == byName[n], n.c_str());
            }
            QCOMPARE(names, expected);  // shard order, each once
        }
    }

    void selectionErrors()
    {
        auto c = client();
        QVERIFY(c.putObject(m_bucket, "sel/err.tar", buildShard(ArchiveFormat::Tar, {{"a.txt", "a"}})).ok());
        QCOMPARE(rawGet("sel/err.tar", {{"archregx", "a"}, {"archmode", "glob"}}).status, 400);
        QCOMPARE(rawGet("sel/err.tar", {{"archregx", "("}}).status, 400);
        QCOMPARE(rawGet("sel/err.tar", {{"archregx", ""}}).status, 200);  // no pattern: the whole object
        QCOMPARE(rawGet("sel/err.tar", {{"archregx", "a"}, {"archpath", "a.txt"}}).status, 400);
        const auto none = rawGet("sel/err.tar", {{"archregx", "zzz"}, {"archmode", "prefix"}});
        QCOMPARE(none.status, 404);
        QVERIFY(none.body.find("\"status\":404") != std::string::npos);
        const auto tarType = rawGet("sel/err.tar", {{"archregx", "a"}, {"archmode", "prefix"}});
        QCOMPARE(tarType.status, 200);
        QCOMPARE(tarType.header("content-type"), std::string("application/x-tar"));
        // Not a shard's name and no archmime.
        QVERIFY(c.putObject(m_bucket, "sel/plain.bin", "not a shard").ok());
        QCOMPARE(rawGet("sel/plain.bin", {{"archpath", "a"}}).status, 400);
        QCOMPARE(rawGet("sel/no-such.tar", {{"archpath", "a"}}).status, 404);
    }

    void archmimeOverridesTheExtension()
    {
        auto c = client();
        const Members m{{"in/side.txt", "inside"}};
        QVERIFY(c.putObject(m_bucket, "mime/blob.bin", buildShard(ArchiveFormat::TarGz, m)).ok());
        QVERIFY(c.putObject(m_bucket, "mime/zipped.tar", buildShard(ArchiveFormat::Zip, m)).ok());
        for (const char* mime : {"tgz", ".tgz", "tar.gz", "application/x-gzip"}) {
            auto got = c.getArchiveMember(m_bucket, "mime/blob.bin", "in/side.txt", mime);
            QVERIFY2(got.ok(), mime);
            QCOMPARE(*got, std::string("inside"));
        }
        QCOMPARE(*c.getArchiveMember(m_bucket, "mime/zipped.tar", "in/side.txt", "zip"), std::string("inside"));
        // The extension says tar, the bytes are zip: damaged, never a guess.
        QCOMPARE(c.getArchiveMember(m_bucket, "mime/zipped.tar", "in/side.txt").kind(), api::ErrorKind::Corruption);
        QCOMPARE(rawGet("mime/blob.bin", {{"archpath", "in/side.txt"}, {"archmime", "rar"}}).status, 400);
    }

    // Pages of 2 objects across 3 targets: each shard is followed by its
    // members, in (object, member) order, and no page splits a shard.
    void listingWithMembers()
    {
        auto c = client();
        const std::string p = "ls/";
        std::vector<std::pair<std::string, Members>> shards;
        for (int i = 0; i < 7; ++i) {
            Members m;
            for (int j = 0; j < i % 4 + 1; ++j) {
                m.emplace_back("k" + std::to_string(9 - j) + ".txt",
                               std::string(static_cast<std::size_t>(10 * j + i), 'x'));
            }
            const auto ext = std::string(archive::formatExtension(ArchiveFormat(i % 4)));
            shards.emplace_back(p + "s" + std::to_string(i) + ext, m);
            QVERIFY(c.putObject(m_bucket, shards.back().first, buildShard(ArchiveFormat(i % 4), m)).ok());
        }
        // "s0.tar-x" sorts before "s0.tar/k9.txt" by full name.
        for (const auto& plain : {"s0.tar-x", "a", "z", "s3.zipped"})
            QVERIFY(c.putObject(m_bucket, p + plain, "p").ok());
        std::vector<std::pair<std::string, std::int64_t>> expected;
        std::map<std::string, Members> byName(shards.begin(), shards.end());
        std::vector<std::string> objects;
        for (const auto& [n, m] : shards) objects.push_back(n);
        for (const auto& plain : {"s0.tar-x", "a", "z", "s3.zipped"}) objects.push_back(p + plain);
        std::sort(objects.begin(), objects.end());
        for (const auto& o : objects) {
            expected.emplace_back(o, -2);
            if (auto it = byName.find(o); it != byName.end()) {
                for (const auto& [mn, data] : it->second)
                    expected.emplace_back(o + "/" + mn, static_cast<std::int64_t>(data.size()));
            }
        }
        for (std::uint32_t pageSize : {2u, 1000u}) {
            api::ListRequest req;
            req.prefix = p;
            req.pageSize = pageSize;
            req.flags = api::kLsArchDir;
            std::vector<std::pair<std::string, std::int64_t>> got;
            int pages = 0;
            for (;;) {
                auto page = c.listObjects(m_bucket, req);
                QVERIFY2(page.ok(), page.ok() ? "" : page.error().message.c_str());
                ++pages;
                for (const auto& e : page->entries) {
                    const bool member = (e.flags & api::kEntryInArch) != 0;
                    got.emplace_back(e.name, member ? e.size : -2);
                    if (!member && byName.count(e.name)) QVERIFY(e.flags & api::kEntryIsArchive);
                }
                if (page->continuationToken.empty()) break;
                // The token is an object name, never a member's.
                QVERIFY(std::find(objects.begin(), objects.end(), page->continuationToken) != objects.end());
                req.continuationToken = page->continuationToken;
                QVERIFY(pages < 50);
            }
            QCOMPARE(got, expected);
            if (pageSize == 2) QVERIFY(pages >= 6);
        }
        // The query forms: flags=8 and archive=true; without, no members.
        for (const auto& q : std::vector<std::string>{"flags=8", "archive=true"}) {
            auto r = m_cluster.http().send(client::Method::Get,
                                           m_cluster.proxyUrl() + "/v1/buckets/" + m_bucket + "?prefix=ls/s1&" + q);
            QVERIFY(r.ok());
            QVERIFY2(r->body.find("\"ls/s1.tgz/k9.txt\"") != std::string::npos, r->body.c_str());
        }
        auto plain = c.listAll(m_bucket, "ls/s1");
        QVERIFY(plain.ok());
        QCOMPARE(plain->size(), std::size_t{1});
        // The JSON list message form.
        auto r =
            m_cluster.http().send(client::Method::Get, m_cluster.proxyUrl() + "/v1/buckets/" + m_bucket,
                                  client::Body::string(R"({"action":"list","value":{"prefix":"ls/s2","flags":8}})"),
                                  {{"Content-Type", "application/json"}});
        QVERIFY(r.ok());
        QVERIFY2(r->body.find("\"ls/s2.tar.lz4/k8.txt\"") != std::string::npos, r->body.c_str());
        QCOMPARE(m_cluster.http()
                     .send(client::Method::Get, m_cluster.proxyUrl() + "/v1/buckets/" + m_bucket + "?archive=maybe")
                     ->status,
                 400);
    }

    void appendKeepsOldMembers_data()
    {
        QTest::addColumn<int>("format");
        QTest::newRow("tar") << int(ArchiveFormat::Tar);
        QTest::newRow("tgz") << int(ArchiveFormat::TarGz);
        QTest::newRow("tar.lz4") << int(ArchiveFormat::TarLz4);
        QTest::newRow("zip") << int(ArchiveFormat::Zip);
    }
    void appendKeepsOldMembers()
    {
        QFETCH(int, format);
        const auto f = ArchiveFormat(format);
        const std::string shard = "app/keep" + std::string(archive::formatExtension(f));
        Members members{{"one.txt", "1"}, {"two/bin", randomBytes(40000, 8)}};
        auto c = client();
        QVERIFY(c.putObject(m_bucket, shard, buildShard(f, members)).ok());
        auto put = c.appendToArchive(m_bucket, shard, "three/new.bin", randomBytes(70000, 9));
        QVERIFY2(put.ok(), put.ok() ? "" : put.error().message.c_str());
        QCOMPARE(put->version, std::string("2"));
        members.emplace_back("three/new.bin", randomBytes(70000, 9));
        auto whole = c.getObject(m_bucket, shard);
        QVERIFY(whole.ok());
        auto parsed = readShard(*whole, f);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
        QCOMPARE(parsed->size(), members.size());
        QVERIFY(*parsed == members);
        for (const auto& [n, data] : members) QVERIFY(*c.getArchiveMember(m_bucket, shard, n) == data);
        // Bad member names change nothing.
        for (const char* bad : {"../up", "/abs", ""}) {
            auto r = c.appendToArchive(m_bucket, shard, bad, "x");
            QCOMPARE(r.kind(), api::ErrorKind::BadRequest);
        }
        QVERIFY(*c.getObject(m_bucket, shard) == *whole);
    }

    void appendOrCreate()
    {
        auto c = client();
        for (auto f : {ArchiveFormat::Tar, ArchiveFormat::TarGz, ArchiveFormat::TarLz4, ArchiveFormat::Zip}) {
            const std::string shard = "app/new" + std::string(archive::formatExtension(f));
            QCOMPARE(c.headObject(m_bucket, shard).kind(), api::ErrorKind::NotFound);
            QVERIFY(c.appendToArchive(m_bucket, shard, "first.txt", "first").ok());
            QVERIFY(c.appendToArchive(m_bucket, shard, "second.txt", "second").ok());
            auto parsed = readShard(*c.getObject(m_bucket, shard), f);
            QVERIFY(parsed.ok());
            QVERIFY((*parsed == Members{{"first.txt", "first"}, {"second.txt", "second"}}));
        }
        // A name that is no shard's, without archmime: 400, nothing created.
        QCOMPARE(c.appendToArchive(m_bucket, "app/new.bin", "a", "x").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(c.headObject(m_bucket, "app/new.bin").kind(), api::ErrorKind::NotFound);
        QVERIFY(c.appendToArchive(m_bucket, "app/new.bin", "a", "x", "tar").ok());
        QCOMPARE(*c.getArchiveMember(m_bucket, "app/new.bin", "a", "tar"), std::string("x"));
    }

    void concurrentAppendsAreSerialized()
    {
        const std::string shard = "app/concurrent.tar";
        constexpr int kWriters = 32;
        std::atomic<int> failures{0};
        std::vector<std::thread> threads;
        for (int i = 0; i < kWriters; ++i) {
            threads.emplace_back([&, i] {
                client::Client c(m_cluster.proxyUrl());
                auto r = c.appendToArchive(m_bucket, shard, "m/" + std::to_string(i) + ".bin",
                                           randomBytes(static_cast<std::size_t>(1000 + i * 97), 500 + i));
                if (!r) ++failures;
            });
        }
        for (auto& t : threads) t.join();
        QCOMPARE(failures.load(), 0);
        auto c = client();
        auto parsed = readShard(*c.getObject(m_bucket, shard), ArchiveFormat::Tar);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
        QCOMPARE(parsed->size(), std::size_t{kWriters});
        std::map<std::string, std::string> got(parsed->begin(), parsed->end());
        for (int i = 0; i < kWriters; ++i) {
            const auto n = "m/" + std::to_string(i) + ".bin";
            QVERIFY2(got[n] == randomBytes(static_cast<std::size_t>(1000 + i * 97), 500 + i), n.c_str());
            QVERIFY(*c.getArchiveMember(m_bucket, shard, n) == got[n]);
        }
        QCOMPARE(c.headObject(m_bucket, shard)->version, std::to_string(kWriters));
        auto listed = c.listArchive(m_bucket, shard);
        QVERIFY(listed.ok());
        QCOMPARE(listed->size(), std::size_t{kWriters + 1});
    }

    // The first read builds the index (and keeps it beside the object),
    // the next ones use it; a rewritten shard is indexed again.
    void indexBuiltOnceAndInvalidated()
    {
        auto c = client();
        const std::string shard = "idx/one.tar";
        QVERIFY(c.putObject(m_bucket, shard, buildShard(ArchiveFormat::Tar, {{"m.txt", "version 1"}})).ok());
        QVERIFY(indexFiles(shard).empty());
        auto first = rawGet(shard, {{"archpath", "m.txt"}});
        QCOMPARE(first.status, 200);
        QCOMPARE(first.body, std::string("version 1"));
        QCOMPARE(first.header(api::kHdrArchiveIndex), std::string("built"));
        QCOMPARE(indexFiles(shard).size(), std::size_t{1});
        auto second = rawGet(shard, {{"archpath", "m.txt"}});
        QCOMPARE(second.header(api::kHdrArchiveIndex), std::string("memory"));
        // Rewritten with a different member of the same name: never the old offsets.
        QVERIFY(c.putObject(m_bucket, shard,
                            buildShard(ArchiveFormat::Tar, {{"pad.bin", randomBytes(5000, 1)}, {"m.txt", "v2!"}}))
                    .ok());
        QVERIFY(indexFiles(shard).empty());  // the overwrite removed the stale file
        auto third = rawGet(shard, {{"archpath", "m.txt"}});
        QCOMPARE(third.body, std::string("v2!"));
        QCOMPARE(third.header(api::kHdrArchiveIndex), std::string("built"));
        // An append indexes the new shard right away.
        QVERIFY(c.appendToArchive(m_bucket, shard, "later.txt", "later").ok());
        auto fourth = rawGet(shard, {{"archpath", "later.txt"}});
        QCOMPARE(fourth.body, std::string("later"));
        QCOMPARE(fourth.header(api::kHdrArchiveIndex), std::string("memory"));
        // Deleted with the object.
        QVERIFY(c.deleteObject(m_bucket, shard).ok());
        QVERIFY(indexFiles(shard).empty());
        // Other formats have no index.
        QVERIFY(c.putObject(m_bucket, "idx/one.tgz", buildShard(ArchiveFormat::TarGz, {{"m", "z"}})).ok());
        QCOMPARE(rawGet("idx/one.tgz", {{"archpath", "m"}}).header(api::kHdrArchiveIndex), std::string("none"));
    }

    // A target restarted with an empty memory reads the index file.
    void indexFileSurvivesARestart()
    {
        auto c = client();
        const std::string shard = "idx/restart.tar";
        QVERIFY(c.putObject(m_bucket, shard, buildShard(ArchiveFormat::Tar, {{"r.txt", "restart"}})).ok());
        auto first = rawGet(shard, {{"archpath", "r.txt"}});
        QCOMPARE(first.header(api::kHdrArchiveIndex), std::string("built"));
        const auto owner = first.header(api::kHdrLocation);
        int idx = -1;
        for (int t = 0; t < m_cluster.targetCount(); ++t) {
            if (m_cluster.targetId(t) == owner) idx = t;
        }
        QVERIFY(idx >= 0);
        QVERIFY(m_cluster.restartTarget(idx));
        client::Response again;
        QVERIFY(QTest::qWaitFor(
            [&] {
                again = rawGet(shard, {{"archpath", "r.txt"}});
                return again.status == 200;
            },
            10000));
        QCOMPARE(again.body, std::string("restart"));
        QCOMPARE(again.header(api::kHdrArchiveIndex), std::string("file"));
    }

    void bucketDestroyRemovesIndexes()
    {
        auto c = client();
        QVERIFY(c.createBucket("shards-gone").ok());
        QVERIFY(c.putObject("shards-gone", "g.tar", buildShard(ArchiveFormat::Tar, {{"g", "g"}})).ok());
        QCOMPARE(*c.getArchiveMember("shards-gone", "g.tar", "g"), std::string("g"));
        QVERIFY(c.destroyBucket("shards-gone").ok());
        for (int t = 0; t < m_cluster.targetCount(); ++t) {
            for (const auto& mp : m_cluster.targetMountpaths(t)) {
                QVERIFY(!QFile::exists(QString::fromStdString(mp + "/.tessera/archidx/shards-gone")));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestArchive)
#include "test_archive.moc"
