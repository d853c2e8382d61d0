// Jobs never launder corrupted bytes: an object whose stored bytes no longer
// match their checksum fails the archive, ishard, dSort and rebalance work
// that reads it, naming it, and nothing is written from it under a fresh
// checksum. Real processes; the corruption is a byte flipped on disk.
#include "local_cluster.h"

#include "api/hrw.h"
#include "client/api_client.h"
#include "dsort_test_util.h"
#include "shard_test_util.h"
#include "spec/ishard_spec.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;
using nlohmann::json;

namespace {

// Flips one byte of every copy of bucket/name on the cluster's disks, in
// place: the stored metadata (and its checksum) stays as it was.
int corrupt(const tests::LocalCluster& c, const std::string& bucket, const std::string& name)
{
    int flipped = 0;
    for (int t = 0; t < c.targetCount(); ++t) {
        for (const auto& mp : c.targetMountpaths(t)) {
            QFile f(QString::fromStdString(mp + "/buckets/" + bucket + "/" + name));
            if (!f.exists() || !f.open(QIODevice::ReadWrite)) continue;
            const auto pos = f.size() / 2;
            f.seek(pos);
            char b = 0;
            f.getChar(&b);
            f.seek(pos);
            f.putChar(static_cast<char>(b ^ 0x5a));
            ++flipped;
        }
    }
    return flipped;
}

}  // namespace

class TestJobFaults : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{3, 1, false, 300, 3, {"--rebalance-auto", "false"}, {}}};

    client::Client client() { return client::Client(m_cluster.proxyUrl()); }

    std::string errorsOf(const api::JobStatus& st)
    {
        std::string all = st.error;
        for (const auto& [id, ts] : st.targets) all += " | " + ts.error;
        return all;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto c = client();
        QVERIFY(c.createBucket("src"));
        QVERIFY(c.createBucket("dst"));
        for (int i = 0; i < 12; ++i) {
            const auto n = "s-" + std::to_string(i) + ".jpg";
            QVERIFY(c.putObject("src", n, std::string(4096, static_cast<char>('a' + i))).ok());
        }
        QCOMPARE(corrupt(m_cluster, "src", "s-5.jpg"), 1);
        // A plain GET with validation on says 422; the jobs must say so too.
        auto r = m_cluster.http().send(
            client::Method::Patch, m_cluster.proxyUrl() + "/v1/buckets/src",
            client::Body::string(
                json{{"action", "set-bprops"}, {"value", {{"checksum", {{"validate_warm_get", true}}}}}}.dump()));
        QCOMPARE(r->status, 200);
        auto g = m_cluster.http().send(client::Method::Get, m_cluster.proxyUrl() + "/v1/objects/src/s-5.jpg");
        QCOMPARE(g->status, 422);
    }

    // Archive: the corrupted source fails the job naming it; no shard.
    void archiveRefusesCorruptedSource()
    {
        auto c = client();
        api::ArchiveMsg m;
        m.srcBck = "src";
        m.toBck = "dst";
        m.archName = "bad.tar";
        for (int i = 0; i < 12; ++i) m.objNames.push_back("s-" + std::to_string(i) + ".jpg");
        auto st = c.startArchive(m);
        QVERIFY2(st, st ? "" : st.error().message.c_str());
        const auto end = tests::waitJob(c, st->id);
        QCOMPARE(api::jobStateName(end.state), std::string_view("failed"));
        const auto errors = errorsOf(end);
        QVERIFY2(errors.find("s-5.jpg") != std::string::npos, errors.c_str());
        QVERIFY2(errors.find("corrupt") != std::string::npos || errors.find("checksum") != std::string::npos,
                 errors.c_str());
        QCOMPARE(m_cluster.http().send(client::Method::Head, m_cluster.proxyUrl() + "/v1/objects/dst/bad.tar")->status,
                 404);
    }

    // ishard over the bucket: fails naming the object; nothing written.
    void ishardRefusesCorruptedSource()
    {
        auto c = client();
        QVERIFY(c.createBucket("dst-ishard"));
        spec::IshardSpec s;
        s.srcBck = "src";
        s.dstBck = "dst-ishard";
        s.shardSize = 1 << 20;
        auto st = c.startIshard(s);
        QVERIFY2(st, st ? "" : st.error().message.c_str());
        const auto end = tests::waitJob(c, st->id);
        QCOMPARE(api::jobStateName(end.state), std::string_view("failed"));
        const auto errors = errorsOf(end);
        QVERIFY2(errors.find("s-5.jpg") != std::string::npos, errors.c_str());
        // No shard holds the corrupted bytes (a shard that failed leaves nothing).
        auto list = c.listAll("dst-ishard");
        QVERIFY(list);
        for (const auto& e : *list) {
            auto bytes = c.getObject("dst-ishard", e.name);
            QVERIFY(bytes);
            bool ok = false;
            for (const auto& [member, data] : tests::readShard(*bytes, archive::ArchiveFormat::Tar, &ok)) {
                QVERIFY2(member.find("s-5") == std::string::npos, (e.name + " holds " + member).c_str());
            }
            QVERIFY(ok);
        }
    }

    // dSort: a corrupted input shard fails the job naming it.
    void dsortRefusesCorruptedInput()
    {
        auto c = client();
        QVERIFY(c.createBucket("din"));
        QVERIFY(c.createBucket("dout"));
        for (int i = 0; i < 3; ++i) {
            std::vector<tests::DsortRecordData> recs;
            for (int k = 0; k < 8; ++k) {
                const auto key = "k" + std::to_string(i) + "-" + std::to_string(k);
                recs.push_back({key, {{key + ".txt", std::string(2000, static_cast<char>('a' + k))}}});
            }
            QVERIFY(c.putObject("din", "in-" + std::to_string(i) + ".tar", tests::makeShard(recs)).ok());
        }
        QCOMPARE(corrupt(m_cluster, "din", "in-1.tar"), 1);
        auto id = c.startDsort(json{{"input_bck", "din"},
                                    {"input_format", {{"template", "in-{0..2}"}}},
                                    {"input_extension", ".tar"},
                                    {"output_bck", "dout"},
                                    {"output_format", "out-{000..999}"},
                                    {"output_shard_size", "8KiB"}});
        QVERIFY2(id, id ? "" : id.error().message.c_str());
        const auto end = tests::waitDsort(c, *id);
        QCOMPARE(api::jobStateName(end.job.state), std::string_view("failed"));
        const auto errors = errorsOf(end.job);
        QVERIFY2(errors.find("in-1.tar") != std::string::npos, errors.c_str());
        QVERIFY2(errors.find("checksum") != std::string::npos, errors.c_str());
    }

    // Rebalance: a corrupted copy is not delivered under a new checksum; it
    // stays where it is and the job names it.
    void rebalanceRefusesCorruptedCopy()
    {
        auto c = client();
        // The earlier tests' corrupted objects would move too, and a job's
        // status names only its first failed item: only this bucket stays.
        auto buckets = c.listBuckets();
        QVERIFY(buckets.ok());
        for (const auto& b : *buckets) QVERIFY(c.destroyBucket(b.name).ok());
        QVERIFY(c.createBucket("moving"));
        for (int i = 0; i < 30; ++i) {
            QVERIFY(c.putObject("moving", "m-" + std::to_string(i), std::string(1000, 'x') + std::to_string(i)).ok());
        }
        QVERIFY(m_cluster.addTarget());
        // Names the newcomer now owns, still on the old owners.
        std::vector<std::string> moving;
        const auto smap = m_cluster.smap();
        for (int i = 0; i < 30; ++i) {
            const auto n = "m-" + std::to_string(i);
            if (api::hrwTarget(smap, api::objectUname("moving", n))->id == m_cluster.targetId(3)) moving.push_back(n);
        }
        QVERIFY(!moving.empty());
        QCOMPARE(corrupt(m_cluster, "moving", moving.front()), 1);
        auto st = c.startJob("rebalance");
        QVERIFY2(st, st ? "" : st.error().message.c_str());
        const auto end = tests::waitJob(c, st->id);
        const auto errors = errorsOf(end);
        QVERIFY2(errors.find(moving.front()) != std::string::npos, errors.c_str());
        QVERIFY2(errors.find("corrupt") != std::string::npos, errors.c_str());
        // The newcomer holds no copy of it; the others moved.
        const auto newcomer = m_cluster.targetMountpaths(3).front();
        QVERIFY(!QFile::exists(QString::fromStdString(newcomer + "/buckets/moving/" + moving.front())));
        for (std::size_t i = 1; i < moving.size(); ++i) {
            QVERIFY(QFile::exists(QString::fromStdString(newcomer + "/buckets/moving/" + moving[i])));
        }
    }
};

QTEST_GUILESS_MAIN(TestJobFaults)
#include "test_job_faults.moc"
