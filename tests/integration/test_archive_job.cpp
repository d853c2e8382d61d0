// The archive job on a real 3-target cluster: one shard from a list or a
// template of objects spread over every target (one of them too large to
// buffer), member bytes exact; a missing source fails the job naming it and
// leaves nothing; continue_on_err skips it; append keeps the old members;
// bad requests are 4xx and start nothing.
#include "local_cluster.h"
#include "shard_test_util.h"

#include "api/archive_msg.h"
#include "api/hrw.h"
#include "api/json_util.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;
using tests::Members;

class TestArchiveJob : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster;
    std::map<std::string, std::string> m_objects;  // in bucket "arch-src"

    client::Client client() { return client::Client(m_cluster.proxyUrl()); }

    api::ArchiveMsg msg(const std::string& shard)
    {
        api::ArchiveMsg m;
        m.srcBck = "arch-src";
        m.toBck = "arch-dst";
        m.archName = shard;
        return m;
    }

    api::JobStatus run(const api::ArchiveMsg& m)
    {
        auto c = client();
        auto st = c.startArchive(m);
        if (!st) qFatal("archive refused: %s", st.error().message.c_str());
        return tests::waitJob(c, st->id);
    }

    Members shard(const std::string& name, archive::ArchiveFormat f)
    {
        auto c = client();
        auto bytes = c.getObject("arch-dst", name);
        if (!bytes) return {};
        bool ok = false;
        auto m = tests::readShard(*bytes, f, &ok);
        return ok ? m : Members{};
    }

    Members expected(const std::vector<std::string>& names, const std::string& prefix = {})
    {
        Members out;
        for (const auto& n : names) out.emplace_back(prefix + n, m_objects.at(n));
        return out;
    }

    // POST /v1/buckets/SRC with a raw body: the status and the error message.
    std::pair<int, std::string> post(const std::string& bucket, const std::string& body)
    {
        auto r = m_cluster.http().send(client::Method::Post, m_cluster.proxyUrl() + "/v1/buckets/" + bucket,
                                       client::Body::string(body));
        if (!r) return {0, r.error().message};
        auto j = nlohmann::json::parse(r->body, nullptr, false);
        return {r->status, j.is_object() ? j.value("message", std::string()) : r->body};
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto c = client();
        QVERIFY(c.createBucket("arch-src"));
        QVERIFY(c.createBucket("arch-dst"));
        for (int i = 0; i < 60; ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "img-%04d.jpg", i);
            m_objects[name] = tests::randomBytes(static_cast<std::size_t>(i * 997 % 20000), i);
        }
        m_objects["dir/nested.bin"] = tests::randomBytes(3000, 99);
        // Larger than the 4 MiB a target buffers from a peer: streamed.
        m_objects["big.bin"] = tests::randomBytes((std::size_t{5} << 20) + 123, 7);
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "arch-src", m_objects), 0);
    }

    void byListExactBytes()
    {
        const std::vector<std::string> names{"img-0003.jpg", "big.bin",      "dir/nested.bin",
                                             "img-0000.jpg", "img-0059.jpg", "img-0017.jpg"};
        // A shard owned by another target than big.bin's, so that big.bin
        // (over the 4 MiB a batch carries) is streamed from its owner.
        const auto smap = m_cluster.smap();
        const auto bigOwner = api::hrwTarget(smap, api::objectUname("arch-src", "big.bin"))->id;
        std::string name;
        for (int i = 0; name.empty(); ++i) {
            const auto n = "list-" + std::to_string(i) + ".tar";
            if (api::hrwTarget(smap, api::objectUname("arch-dst", n))->id != bigOwner) name = n;
        }
        auto m = msg(name);
        m.objNames = names;
        auto st = run(m);
        QCOMPARE(api::jobStateName(st.state), std::string_view("finished"));
        QCOMPARE(st.progress.objectsDone, std::uint64_t{names.size()});
        QCOMPARE(st.targets.size(), std::size_t{1});  // only the shard's owner works
        QVERIFY(st.targets.begin()->first != bigOwner);
        QVERIFY(shard(name, archive::ArchiveFormat::Tar) == expected(names));
    }

    void byTemplateWithSourceBucket()
    {
        auto m = msg("tmpl.tgz");
        m.templ = "img-{0010..0049..3}.jpg";
        m.includeSrcBck = true;
        auto st = run(m);
        QCOMPARE(api::jobStateName(st.state), std::string_view("finished"));
        std::vector<std::string> names;
        for (int i = 10; i <= 49; i += 3) {
            char n[32];
            std::snprintf(n, sizeof n, "img-%04d.jpg", i);
            names.push_back(n);
        }
        QCOMPARE(st.progress.objectsDone, std::uint64_t{names.size()});
        QVERIFY(shard("tmpl.tgz", archive::ArchiveFormat::TarGz) == expected(names, "arch-src/"));
    }

    void missingSourceFailsCleanly()
    {
        auto m = msg("missing.tar");
        m.objNames = {"img-0001.jpg", "no-such-object.jpg", "img-0002.jpg"};
        auto st = run(m);
        QCOMPARE(api::jobStateName(st.state), std::string_view("failed"));
        QVERIFY2(st.error.find("arch-src/no-such-object.jpg") != std::string::npos, st.error.c_str());
        auto c = client();
        auto head = c.headObject("arch-dst", "missing.tar");
        QVERIFY(!head);
        QCOMPARE(head.kind(), api::ErrorKind::NotFound);  // nothing partial under the name
    }

    void continueOnErrorSkips()
    {
        auto m = msg("skip.tar");
        m.objNames = {"img-0001.jpg", "no-such-object.jpg", "img-0002.jpg"};
        m.continueOnErr = true;
        auto st = run(m);
        QCOMPARE(api::jobStateName(st.state), std::string_view("finished"));
        QCOMPARE(st.progress.errors, std::uint64_t{1});
        QVERIFY(shard("skip.tar", archive::ArchiveFormat::Tar) == expected({"img-0001.jpg", "img-0002.jpg"}));
    }

    void appendKeepsOldMembers_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("format");
        QTest::newRow("tar") << "app.tar" << int(archive::ArchiveFormat::Tar);
        QTest::newRow("zip") << "app.zip" << int(archive::ArchiveFormat::Zip);
        QTest::newRow("tar.lz4") << "app.tar.lz4" << int(archive::ArchiveFormat::TarLz4);
    }

    void appendKeepsOldMembers()
    {
        QFETCH(QString, name);
        QFETCH(int, format);
        const auto f = static_cast<archive::ArchiveFormat>(format);
        auto m = msg(name.toStdString());
        m.objNames = {"img-0004.jpg", "img-0005.jpg"};
        QCOMPARE(api::jobStateName(run(m).state), std::string_view("finished"));
        m.objNames = {"img-0006.jpg", "dir/nested.bin"};
        m.appendToArch = true;
        QCOMPARE(api::jobStateName(run(m).state), std::string_view("finished"));
        QVERIFY(shard(name.toStdString(), f) ==
                expected({"img-0004.jpg", "img-0005.jpg", "img-0006.jpg", "dir/nested.bin"}));
        // Appending to a shard that does not exist creates it.
        auto fresh = msg("fresh-" + name.toStdString());
        fresh.objNames = {"img-0007.jpg"};
        fresh.appendToArch = true;
        QCOMPARE(api::jobStateName(run(fresh).state), std::string_view("finished"));
        QVERIFY(shard("fresh-" + name.toStdString(), f) == expected({"img-0007.jpg"}));
    }

    void viaJobsEndpoint()
    {
        auto c = client();
        auto st = c.startJob("archive", {{"src_bck", "arch-src"},
                                         {"to_bck", {{"name", "arch-dst"}}},
                                         {"archname", "jobs.tar"},
                                         {"objnames", {"img-0008.jpg"}}});
        QVERIFY2(st, st ? "" : st.error().message.c_str());
        QCOMPARE(api::jobStateName(tests::waitJob(c, st->id).state), std::string_view("finished"));
        QVERIFY(shard("jobs.tar", archive::ArchiveFormat::Tar) == expected({"img-0008.jpg"}));
    }

    void badRequests_data()
    {
        QTest::addColumn<QString>("bucket");
        QTest::addColumn<QString>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("says");
        const QString v = "{\"action\":\"archive\",\"value\":%1}";
        QTest::newRow("no archname") << "arch-src" << v.arg("{\"objnames\":[\"a\"]}") << 400 << "/archname";
        QTest::newRow("list and template")
            << "arch-src" << v.arg("{\"archname\":\"a.tar\",\"objnames\":[\"a\"],\"template\":\"a{0..1}\"}") << 400
            << "/objnames";
        QTest::newRow("neither") << "arch-src" << v.arg("{\"archname\":\"a.tar\"}") << 400 << "/objnames";
        QTest::newRow("empty list") << "arch-src" << v.arg("{\"archname\":\"a.tar\",\"objnames\":[]}") << 400
                                    << "/objnames";
        QTest::newRow("bad name") << "arch-src" << v.arg("{\"archname\":\"a.tar\",\"objnames\":[\"../x\"]}") << 400
                                  << "/objnames/0";
        QTest::newRow("bad template") << "arch-src" << v.arg("{\"archname\":\"a.tar\",\"template\":\"a{5..1}\"}") << 400
                                      << "/template";
        QTest::newRow("template over the limit")
            << "arch-src" << v.arg("{\"archname\":\"a.tar\",\"template\":\"a{0..100000}\"}") << 400 << "/template";
        QTest::newRow("unknown format") << "arch-src" << v.arg("{\"archname\":\"a.rar\",\"objnames\":[\"a\"]}") << 400
                                        << "/archname";
        QTest::newRow("bad mime") << "arch-src"
                                  << v.arg("{\"archname\":\"a.tar\",\"mime\":\"rar\",\"objnames\":[\"a\"]}") << 400
                                  << "/mime";
        QTest::newRow("flag type") << "arch-src"
                                   << v.arg("{\"archname\":\"a.tar\",\"objnames\":[\"a\"],\"append_to_arch\":\"yes\"}")
                                   << 400 << "/append_to_arch";
        QTest::newRow("unknown field") << "arch-src"
                                       << v.arg("{\"archname\":\"a.tar\",\"objnames\":[\"a\"],\"archnam\":\"x\"}")
                                       << 400 << "/archnam";
        QTest::newRow("no destination bucket")
            << "arch-src"
            << v.arg("{\"archname\":\"a.tar\",\"objnames\":[\"a\"],\"to_bck\":{\"name\":\"nope-bucket\"}}") << 404
            << "nope-bucket";
        QTest::newRow("no source bucket")
            << "nope-bucket" << v.arg("{\"archname\":\"a.tar\",\"objnames\":[\"a\"]}") << 404 << "nope-bucket";
        QTest::newRow("value not an object") << "arch-src" << v.arg("[1]") << 400 << "object";
    }

    void badRequests()
    {
        QFETCH(QString, bucket);
        QFETCH(QString, body);
        QFETCH(int, status);
        QFETCH(QString, says);
        auto c = client();
        const auto before = c.listJobs()->size();
        auto [code, message] = post(bucket.toStdString(), body.toStdString());
        QCOMPARE(code, status);
        QVERIFY2(message.find(says.toStdString()) != std::string::npos, message.c_str());
        QCOMPARE(c.listJobs()->size(), before);  // nothing started
    }
};

QTEST_GUILESS_MAIN(TestArchiveJob)
#include "test_archive_job.moc"
