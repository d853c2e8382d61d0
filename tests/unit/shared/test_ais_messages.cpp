// AIStore's answer types (api/ais_dsort.h, api/ais_node.h, api/ais_config.h,
// api/ais_go_types.h): each round-trips through its JSON unchanged, is read
// strictly (an unknown field, a missing one, a number where Go writes a
// string are refused), and is built from Tessera's state as documented.
#include "api/ais_config.h"
#include "api/ais_dsort.h"
#include "api/ais_go_types.h"
#include "api/ais_node.h"
#include "api/wire.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera::api;
using nlohmann::json;

namespace {

template <typename T>
T roundTrip(const T& v, const char* what)
{
    const auto text = json(v).dump();
    auto back = parseMessage<T>(text, what);
    if (!back) qFatal("%s did not round-trip: %s\n%s", what, back.error().message.c_str(), text.c_str());
    return *back;
}

template <typename T>
std::string errorOf(const json& j)
{
    auto r = readMessage<T>(j, "msg");
    return r ? std::string("(accepted)") : r.error().message;
}

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kT0 = 1'780'000'000 * kSec;  // 2026-05-28

DsortTargetPart part(JobState state, const std::string& phase, json counters)
{
    DsortTargetPart p;
    p.jobId = "dsort-1";
    p.inputBck = "src";
    p.outputBck = "dst";
    p.description = "nightly";
    p.jobState = state;
    p.target.id = "dsort-1";
    p.target.kind = "dsort";
    p.target.target = "t1";
    p.target.state = state;
    p.target.phase = phase;
    p.target.startNs = kT0;
    p.counters = std::move(counters);
    p.nowNs = kT0 + 9 * kSec;
    return p;
}

NodeStats targetStats()
{
    NodeStats st;
    st.id = "t1";
    st.role = "target";
    st.uptimeNs = 42 * kSec;
    st.cpuNs = 3 * kSec;
    st.rssBytes = 100 << 20;
    st.op(OpKind::Get).n = 7;
    st.op(OpKind::Get).bytes = 7000;
    st.op(OpKind::Put).n = 3;
    st.op(OpKind::Put).errors = 1;
    const auto mp = [](std::string path, std::uint64_t total, std::uint64_t used, std::string fs) {
        MountpathStats m;
        m.path = std::move(path);
        m.total = total;
        m.used = used;
        m.available = total - used;
        m.fs = std::move(fs);
        m.state = mountpathStateFor(total, used);
        return m;
    };
    const auto a = mp("/data/a", 1000, 400, "8:1");
    const auto b = mp("/data/b", 1000, 400, "8:1");   // the same filesystem as /data/a
    const auto c = mp("/data/c", 2000, 1900, "8:2");  // full (95 %)
    st.mountpaths = {a, b, c};
    return st;
}

}  // namespace

class TestAisMessages : public QObject {
    Q_OBJECT

private slots:
    // A target's dSort counters (its metrics route) as the proxy reads them.
    void dsortCounters()
    {
        const nlohmann::json one{{"extract.ms", 12}, {"spill.bytes", 0}, {"sorter", true}, {"memory.budget", 1.5}};
        auto back = parseDsortCounters(one.dump());
        QVERIFY(back.ok());
        QVERIFY(*back == one);
        auto many =
            parseDsortCountersById(nlohmann::json{{"dsort-a", one}, {"dsort-b", nlohmann::json::object()}}.dump());
        QVERIFY(many.ok());
        QCOMPARE(many->size(), std::size_t{2});
        QVERIFY(many->at("dsort-a") == one);
        for (const char* bad : {"", "[1]", "{\"a\":\"x\"}", "{\"a\":null}", "{\"a\":{}}", "{"}) {
            QCOMPARE(parseDsortCounters(bad).kind(), ErrorKind::BadRequest);
        }
        for (const char* bad : {"[]", "{\"j\":1}", "{\"j\":{\"a\":[1]}}"}) {
            QCOMPARE(parseDsortCountersById(bad).kind(), ErrorKind::BadRequest);
        }
    }
    void goValues()
    {
        QCOMPARE(formatGoRfc3339Nano(0), std::string("0001-01-01T00:00:00Z"));
        QCOMPARE(formatGoRfc3339Nano(kT0 + 120'000'000), std::string("2026-05-28T20:26:40.12Z"));
        QCOMPARE(parseRfc3339("2026-05-28T20:26:40.12Z").value(), kT0 + 120'000'000);
        QCOMPARE(parseRfc3339("2026-05-28T22:26:40+02:00").value(), kT0);
        QCOMPARE(parseRfc3339("0001-01-01T00:00:00Z").value(), std::int64_t{0});
        QVERIFY(!parseRfc3339("2026-05-28 20:26:40Z"));
        QVERIFY(!parseRfc3339("2026-05-28T20:26:40"));
        QCOMPARE(formatGoDuration(0), std::string("0s"));
        QCOMPARE(formatGoDuration(5000 * 1'000'000LL), std::string("5s"));
        QCOMPARE(formatGoDuration(1500 * 1'000'000LL), std::string("1.5s"));
        QCOMPARE(formatGoDuration(600 * kSec), std::string("10m0s"));
        QCOMPARE(formatGoDuration(7200 * kSec + 1), std::string("2h0m0.000000001s"));
        QCOMPARE(formatGoDuration(250 * 1'000'000LL), std::string("250ms"));
        GoIntString n;
        json("42").get_to(n);
        QCOMPARE(n.value, std::int64_t{42});
        QVERIFY_THROWS_EXCEPTION(json::exception, json(42).get_to(n));  // Go `,string`: a string
        QVERIFY_THROWS_EXCEPTION(json::exception, json("4x").get_to(n));
    }

    void dsortJobInfoRoundTripsAndIsStrict()
    {
        const auto info = aisDsortJobInfo(part(JobState::Finished, "create",
                                               {{"extract.ms", 1200},
                                                {"sort.ms", 300},
                                                {"create.ms", 2500},
                                                {"extract.shards", 4},
                                                {"extract.records", 12},
                                                {"extract.bytes", 9000},
                                                {"create.shards", 2},
                                                {"spill.records", 0},
                                                {"spill.bytes", 0}}));
        QCOMPARE(roundTrip(info, "JobInfo"), info);
        const json j = info;
        QVERIFY(j.contains("Metrics"));  // no json tag in Go: the field's name
        QCOMPARE((j["loc-objs"]).dump(), (json("4")).dump());
        QCOMPARE((j["src-bck"]).dump(),
                 (json::parse(R"({"name":"src","provider":"ais","namespace":{"uuid":"","name":""}})")).dump());
        auto unknown = j;
        unknown["Metrics"]["shard_creation"]["extra"] = 1;
        QCOMPARE(errorOf<AisDsortJobInfo>(unknown), std::string("msg: /Metrics/shard_creation/extra: unknown field"));
        auto number = j;
        number["loc-bytes"] = 9000;
        QVERIFY(errorOf<AisDsortJobInfo>(number).starts_with("msg: /loc-bytes: "));
        auto missing = j;
        missing.erase("archived");
        QCOMPARE(errorOf<AisDsortJobInfo>(missing), std::string("msg: /archived: required"));
    }

    // The phases follow one another from the part's start, each lasting
    // what the target measured; the job is over when it finished.
    void dsortJobInfoOfAFinishedPart()
    {
        const auto i = aisDsortJobInfo(part(JobState::Finished, "create",
                                            {{"extract.ms", 1200},
                                             {"sort.ms", 300},
                                             {"create.ms", 2500},
                                             {"extract.shards", 4},
                                             {"extract.missing_shards", 1},
                                             {"extract.records", 12},
                                             {"extract.bytes", 9000},
                                             {"create.shards", 2},
                                             {"spill.records", 3},
                                             {"spill.bytes", 77},
                                             {"sort.duplicates", 2}}));
        const auto& m = *i.metrics;
        QCOMPARE(m.extraction->phase.started.unixNs, kT0);
        QCOMPARE(m.extraction->phase.ended.unixNs, kT0 + 1'200'000'000);
        QCOMPARE(m.sorting->phase.started.unixNs, kT0 + 1'200'000'000);
        QCOMPARE(m.creation->phase.ended.unixNs, kT0 + 4'000'000'000);
        QVERIFY(m.extraction->phase.finished && m.sorting->phase.finished && m.creation->phase.finished);
        QVERIFY(!m.creation->phase.running);
        QCOMPARE(m.extraction->totalCount.value, std::int64_t{4});
        QCOMPARE(m.extraction->extractedCount.value, std::int64_t{3});  // one shard missing
        QCOMPARE(m.extraction->extractedRecordCount.value, std::int64_t{12});
        QCOMPARE(m.extraction->extractedToDiskSize.value, std::int64_t{77});
        QCOMPARE(m.creation->toCreate.value, std::int64_t{2});
        QCOMPARE(m.creation->createdCount.value, std::int64_t{2});
        QCOMPARE(m.warnings.size(), std::size_t{2});
        QCOMPARE(m.description, std::string("nightly"));
        QVERIFY(m.archived && !m.aborted);
        QVERIFY(i.isFinished());
        QCOMPARE(i.finished.unixNs, kT0 + 4'000'000'000);
        QCOMPARE(i.extractedDurationNs, std::int64_t{1'200'000'000});
        QCOMPARE(i.creationDurationNs, std::int64_t{2'500'000'000});
        QCOMPARE(i.objs.value, std::int64_t{3});
        QCOMPARE(i.dstBck.name, std::string("dst"));
    }

    void dsortJobInfoOfARunningPart()
    {
        auto p = part(JobState::Running, "sort", {{"extract.ms", 2000}, {"extract.shards", 4}});
        const auto i = aisDsortJobInfo(p);
        const auto& m = *i.metrics;
        QVERIFY(m.extraction->phase.finished);
        QVERIFY(m.sorting->phase.running && !m.sorting->phase.finished);
        QCOMPARE(m.sorting->phase.started.unixNs, kT0 + 2 * kSec);
        QCOMPARE(m.sorting->phase.elapsedNs, 7 * kSec);  // until "now"
        QVERIFY(!m.creation->phase.running && !m.creation->phase.finished);
        QCOMPARE(m.creation->phase.started.unixNs, std::int64_t{0});  // not started: Go's zero time
        QVERIFY(!i.isFinished());
        QCOMPARE(i.finished.unixNs, std::int64_t{0});
        QCOMPARE((json(i)["finish_time"]).dump(), (json("0001-01-01T00:00:00Z")).dump());

        // Failed: aborted, with the error; the phase ended with the part.
        p = part(JobState::Failed, "extract", json::object());
        p.target.endNs = kT0 + 3 * kSec;
        p.target.error = "src/x.tar: damaged";
        const auto f = aisDsortJobInfo(p);
        QVERIFY(f.aborted && f.metrics->aborted && f.isFinished());
        QCOMPARE(f.metrics->errors, std::vector<std::string>{"src/x.tar: damaged"});
        QCOMPARE(f.metrics->extraction->phase.elapsedNs, 3 * kSec);
        QVERIFY(!f.metrics->extraction->phase.finished);
    }

    // dsort.JobInfo.Aggregate's rules.
    void dsortAggregate()
    {
        auto a =
            aisDsortJobInfo(part(JobState::Finished, "create",
                                 {{"extract.ms", 1000}, {"sort.ms", 100}, {"create.ms", 100}, {"extract.shards", 2}}));
        auto bp = part(JobState::Finished, "create",
                       {{"extract.ms", 3000}, {"sort.ms", 100}, {"create.ms", 100}, {"extract.shards", 5}});
        bp.target.startNs = kT0 - kSec;
        const auto b = aisDsortJobInfo(bp);
        aggregate(a, b);
        QCOMPARE(a.started.unixNs, kT0 - kSec);
        QCOMPARE(a.finished.unixNs, kT0 - kSec + 3'200'000'000);
        QCOMPARE(a.extractedDurationNs, 3 * kSec);
        QCOMPARE(a.objs.value, std::int64_t{7});
        auto running = aisDsortJobInfo(part(JobState::Running, "extract", json::object()));
        aggregate(a, running);
        QCOMPARE(a.finished.unixNs, std::int64_t{0});  // one still running: unknown
        QVERIFY(!a.archived);
    }

    void nodeStatusRoundTripsAndIsStrict()
    {
        Smap smap;
        smap.version = 9;
        smap.uuid = "cu";
        smap.primary = Snode{"p1", "proxy", NetInfo{"127.0.0.1", 8080, "http://127.0.0.1:8080"}};
        smap.pmap["p1"] = smap.primary;
        Snode self{"t1", "target", NetInfo{"127.0.0.1", 8081, "http://127.0.0.1:8081"}};
        self.flags = kSnodeMaintenance;  // written with AIStore's SnodeMaint bit beside it
        smap.tmap["t1"] = self;
        AisMachine m;
        m.memTotal = 1000 << 20;
        m.memAvailable = 600 << 20;
        m.loadAvg = {0.5, 0.25, 0.125};
        m.processCpuPercent = 12.5;
        m.machineCpuPercent = 40.2;
        const auto st = targetStats();
        const auto ns = aisNodeStatus(st, Snode{"t1", "target", self.publicNet}, smap, 4, m, "0.1.0");
        QCOMPARE(roundTrip(ns, "NodeStatus"), ns);
        QCOMPARE(ns.status, std::string("maintenance"));
        QCOMPARE(ns.snode.flags, self.flags);
        QCOMPARE(ns.smapVersion, std::int64_t{9});
        QCOMPARE(ns.cluster.primaryId, std::string("p1"));
        QCOMPARE(ns.cluster.bmdVersion, std::int64_t{4});
        QVERIFY(ns.cluster.flags & kAisMaintenanceMode);
        QVERIFY(ns.cluster.flags & kAisDiskOOS);  // /data/c is full
        QCOMPARE(ns.tracker.at("get.n"), std::int64_t{7});
        QCOMPARE(ns.tracker.at("get.size"), std::int64_t{7000});
        QCOMPARE(ns.tracker.at("err.put.n"), std::int64_t{1});
        QCOMPARE(ns.tracker.at("up.ns.time"), 42 * kSec);
        QCOMPARE(ns.capacity.mountpaths.size(), std::size_t{3});
        QCOMPARE(ns.capacity.mountpaths.at("/data/c").pctUsed, 95);
        QCOMPARE(ns.capacity.mountpaths.at("/data/c").fsId, (std::array<std::int32_t, 2>{8, 2}));
        QCOMPARE(ns.capacity.totalUsed.value, std::int64_t{400 + 1900});  // /data/b shares /data/a's fs
        QCOMPARE(ns.capacity.pctMax, 95);
        QCOMPARE(ns.capacity.pctMin, 40);
        QCOMPARE(ns.sysInfo.memUsed, std::uint64_t{100 << 20});
        QCOMPARE(ns.sysInfo.memAvail, std::uint64_t{600 << 20});
        QCOMPARE(ns.sysInfo.pctMemUsed, 10.0);
        QCOMPARE(ns.sysInfo.cpuUtil, std::int64_t{40});
        const json j = ns;
        QCOMPARE((j["tracker"]["get.n"]).dump(), (json::parse(R"({"v":"7"})")).dump());
        QCOMPARE((j["smap_version"]).dump(), (json("9")).dump());
        QCOMPARE((j["capacity"]["mountpaths"]["/data/c"]["fs"]["FsID"]).dump(), (json("8,2")).dump());
        QCOMPARE((j["sys_info"]["load_avg"]).dump(),
                 (json::parse(R"({"One":0.5,"Five":0.25,"Fifteen":0.125})")).dump());
        QVERIFY(j["cluster"]["smap"].contains("Primary"));
        auto bad = j;
        bad["tracker"]["get.n"]["v"] = 7;
        QVERIFY(errorOf<AisNodeStatus>(bad).starts_with("msg: /tracker/get.n/v: "));
        bad = j;
        bad["capacity"]["total_used"] = "x";
        QVERIFY(errorOf<AisNodeStatus>(bad).starts_with("msg: /capacity/total_used: "));
        bad = j;
        bad["primary"] = "p1";
        QCOMPARE(errorOf<AisNodeStatus>(bad), std::string("msg: /primary: unknown field"));

        // A proxy: no mountpaths (Go's nil map), capacity zero.
        NodeStats px;
        px.uptimeNs = kSec;
        const auto pn = aisNodeStatus(px, smap.primary, smap, 4, m, "0.1.0");
        QCOMPARE((json(pn)["capacity"]["mountpaths"]).dump(), (json()).dump());
        QCOMPARE(roundTrip(pn, "NodeStatus"), pn);
        QCOMPARE(pn.status, std::string());
    }

    void sysInfoAndLists()
    {
        const auto st = targetStats();
        AisMachine m;
        m.memTotal = 100;
        AisClusterSysInfo c;
        c.proxy["p1"] = aisMemCpuInfo(NodeStats{}, m);
        c.target["t1"] = AisTargetSysInfo{aisMemCpuInfo(st, m), aisCapacityInfo(st)};
        QCOMPARE(roundTrip(c, "ClusterSysInfo"), c);
        const json t = c.target["t1"];  // MemCPUInfo and CapacityInfo in one object
        QCOMPARE((t["fs_used"]).dump(), (json("2300")).dump());
        QCOMPARE((t["fs_capacity"]).dump(), (json("3000")).dump());
        QVERIFY(t.contains("mem_used") && t.contains("pct_fs_used"));
        QCOMPARE(aisCapacityInfo(st).pctUsed, 100.0 * 2300 / 3000);
        const auto list = aisMountpathList(st);
        QCOMPARE(list.available, (std::vector<std::string>{"/data/a", "/data/b", "/data/c"}));
        QCOMPARE(roundTrip(list, "MountpathList"), list);
        QCOMPARE(roundTrip(AisRemAisVec{}, "RemAisVec"), AisRemAisVec{});
        QCOMPARE(json(AisRemAisVec{}).dump(), std::string(R"({"a":[],"ver":0})"));
    }

    void configRoundTripsAndIsStrict()
    {
        AisConfigSource s;
        s.host = "10.0.0.5";
        s.port = 8081;
        s.mountpaths = {"/data/a", "/data/b"};
        s.dataDir = "/var/lib/tessera";
        s.tlsCertFile = "/etc/tessera/node.crt";
        s.authEnabled = true;
        s.peerTimeoutMs = 5000;
        s.keepaliveMaxMs = 6000;
        s.ioTimeoutMs = 60000;
        s.primaryUrl = "https://10.0.0.1:8080";
        s.clusterUuid = "cu";
        const auto cc = aisClusterConfig(s);
        QCOMPARE(roundTrip(cc, "ClusterConfig"), cc);
        const auto full = aisConfig(s);
        QCOMPARE(roundTrip(full, "Config"), full);
        const json j = full;
        QCOMPARE((j["host_net"]["port"]).dump(), (json("8081")).dump());
        QCOMPARE((j["fspaths"]["paths"]).dump(), (json::parse(R"({"/data/a":"","/data/b":""})")).dump());
        QCOMPARE((j["timeout"]["cplane_operation"]).dump(), (json("5s")).dump());
        QCOMPARE((j["timeout"]["max_keepalive"]).dump(), (json("6s")).dump());
        QCOMPARE((j["timeout"]["send_file_time"]).dump(), (json("1m0s")).dump());
        QCOMPARE((j["net"]["http"]["use_https"]).dump(), (json(true)).dump());
        QCOMPARE((j["auth"]["client_auth_required"]).dump(), (json(true)).dump());
        QCOMPARE((j["proxy"]["primary_url"]).dump(), (json("https://10.0.0.1:8080")).dump());
        QCOMPARE((j["config_version"]).dump(), (json("1")).dump());
        QCOMPARE((j["backend"]).dump(), (json::object()).dump());
        auto bad = json(cc);
        bad["net"]["http"]["use_https"] = "true";
        QVERIFY(errorOf<AisClusterConfig>(bad).starts_with("msg: /net/http/use_https: "));
        bad = json(cc);
        bad.erase("resilver");
        QCOMPARE(errorOf<AisClusterConfig>(bad), std::string("msg: /resilver: required"));
        // The cluster form has no local part.
        QCOMPARE(errorOf<AisClusterConfig>(j), std::string("msg: /confdir: unknown field"));
    }
};

QTEST_APPLESS_MAIN(TestAisMessages)
#include "test_ais_messages.moc"
