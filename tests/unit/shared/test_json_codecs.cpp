// Wire types round-trip through JSON; malformed input is a BadRequest.
#include "api/action_msg.h"
#include "api/bmd.h"
#include "api/http_error.h"
#include "api/job.h"
#include "api/json_shape.h"
#include "api/object_list.h"
#include "api/object_meta.h"
#include "api/slice_meta.h"
#include "api/smap.h"
#include "api/uri.h"

#include <QTest>
#include <nlohmann/json.hpp>

Q_DECLARE_METATYPE(std::string)

using namespace tessera::api;

class TestJsonCodecs : public QObject {
    Q_OBJECT

private slots:
    void smapRoundTrip()
    {
        Smap s;
        s.version = 7;
        s.uuid = "u1";
        s.primary = Snode{"p1", "proxy", NetInfo{"127.0.0.1", 8080, "http://127.0.0.1:8080"}};
        s.pmap["p1"] = s.primary;
        s.tmap["t1"] = Snode{"t1", "target", NetInfo{"127.0.0.1", 8081, "http://127.0.0.1:8081"}};
        s.tmap["t2"] = Snode{"t2", "target", NetInfo{"127.0.0.2", 8082, "http://127.0.0.2:8082"}, kSnodeAway};
        const auto text = nlohmann::json(s).dump();
        QVERIFY(text.find("\"daemon_id\"") != std::string::npos);
        QVERIFY(text.find("\"direct_url\"") != std::string::npos);
        auto back = parseSmap(text);
        QVERIFY(back.ok());
        QCOMPARE(back->version, 7);
        QVERIFY(back->tmap.at("t1") == s.tmap.at("t1"));
        QVERIFY(back->primary == s.primary);
        QVERIFY(back->findTarget("t1") != nullptr);
        QVERIFY(back->findTarget("nope") == nullptr);
        QCOMPARE(back->uuid, std::string("u1"));
        QVERIFY(back->pmap == s.pmap);
        QVERIFY(back->tmap == s.tmap);
        QCOMPARE(back->targetCount(), std::size_t{2});
        // An away target stays in the map, flagged.
        QVERIFY(back->tmap.at("t2").away());
        QVERIFY(!back->tmap.at("t1").away());
        QCOMPARE(back->activeTargetCount(), std::size_t{1});
        QVERIFY(back->tmap.at("t2").sameIdentity(
            Snode{"t2", "target", NetInfo{"127.0.0.2", 8082, "http://127.0.0.2:8082"}}));
        QVERIFY(!(back->tmap.at("t2") == Snode{"t2", "target", NetInfo{"127.0.0.2", 8082, "http://127.0.0.2:8082"}}));
        // A decommissioning target travels as flag bit 18 (and AIStore's
        // SnodeDecomm, 8, for AIStore's clients): present, not a placement target.
        auto leaving = s;
        leaving.tmap["t1"].flags = kSnodeDecommissioning;
        const auto leavingText = nlohmann::json(leaving).dump();
        QCOMPARE(nlohmann::json::parse(leavingText)["tmap"]["t1"]["flags"].get<std::uint64_t>(),
                 (std::uint64_t{1} << 18) | kAisSnodeDecomm);
        auto leavingBack = parseSmap(leavingText);
        QVERIFY(leavingBack.ok());
        QVERIFY(leavingBack->tmap == leaving.tmap);
        QVERIFY(leavingBack->tmap.at("t1").decommissioning());
        QVERIFY(!leavingBack->tmap.at("t1").away());
        QVERIFY(!leavingBack->tmap.at("t1").placement());
        QVERIFY(leavingBack->tmap.at("t2").placement());  // away: still owns its objects
        QCOMPARE(leavingBack->activeTargetCount(), std::size_t{1});
        QCOMPARE(leavingBack->placementTargetCount(), std::size_t{1});
        // A map without flags (an older node's) reads as all present.
        auto noFlags = nlohmann::json::parse(text);
        noFlags["tmap"]["t2"].erase("flags");
        QVERIFY(!parseSmap(noFlags.dump())->tmap.at("t2").away());
        noFlags["tmap"]["t2"]["flags"] = "x";
        QCOMPARE(parseSmap(noFlags.dump()).kind(), ErrorKind::BadRequest);
        // AIStore field names on the wire.
        const auto j = nlohmann::json::parse(text);
        QCOMPARE(j["tmap"]["t2"]["public_net"]["daemon_port"].get<std::string>(), std::string("8082"));  // a string
        QCOMPARE(j["version"].get<std::string>(), std::string("7"));  // `version,string`
        QVERIFY(j["tmap"]["t2"]["intra_control_net"] == j["tmap"]["t2"]["public_net"]);
        QVERIFY(j["tmap"]["t2"]["intra_data_net"] == j["tmap"]["t2"]["public_net"]);
        // AIStore's IDDigest: xxhash64(id, seed 1103515245) (the value from an independent xxhash64).
        QCOMPARE(j["tmap"]["t2"]["id_digest"].get<std::uint64_t>(), std::uint64_t{17780131176456335389ull});
        QCOMPARE(j["tmap"]["t2"]["public_net"]["node_ip_addr"].get<std::string>(), std::string("127.0.0.2"));
        QCOMPARE(j["tmap"]["t2"]["daemon_type"].get<std::string>(), std::string("target"));
        QCOMPARE(j["proxy_si"]["daemon_id"].get<std::string>(), std::string("p1"));
        QVERIFY(!j.contains("primary"));
        // The older Tessera form (primary, numbers) still reads.
        auto older = j;
        older["primary"] = older["proxy_si"];
        older.erase("proxy_si");
        older["version"] = 7;
        older["tmap"]["t1"]["public_net"]["daemon_port"] = 8081;
        auto olderBack = parseSmap(older.dump());
        QVERIFY(olderBack.ok());
        QVERIFY(olderBack->tmap == s.tmap && olderBack->primary == s.primary && olderBack->version == 7);
        // Maintenance and decommissioning also set AIStore's own bits
        // (SnodeMaint, SnodeDecomm) for its clients; reading drops them.
        auto maint = s;
        maint.tmap["t1"].flags = kSnodeMaintenance;
        const auto maintJson = nlohmann::json(maint);
        QCOMPARE(maintJson["tmap"]["t1"]["flags"].get<std::uint64_t>(), kSnodeMaintenance | kAisSnodeMaint);
        QVERIFY(maintJson.get<Smap>().tmap == maint.tmap);
        // Parsing the dump of the parsed map gives the same text.
        QCOMPARE(nlohmann::json(*back).dump(), text);

        QCOMPARE(parseSmap("").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseSmap("{").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseSmap("[]").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseSmap(R"({"version":"x"})").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseSmap(R"({"version":1,"uuid":"u"})").kind(), ErrorKind::BadRequest);  // no maps
        auto noTmap = nlohmann::json::parse(text);
        noTmap["tmap"]["t1"].erase("public_net");
        QCOMPARE(parseSmap(noTmap.dump()).kind(), ErrorKind::BadRequest);
        QCOMPARE(parseSnode(R"({"daemon_id":1})").kind(), ErrorKind::BadRequest);
        // A wrong type names the field, in the project's words.
        auto wrong = nlohmann::json(s.tmap.at("t2"));
        wrong["public_net"]["daemon_port"] = "80x2";
        auto bad = parseSnode(wrong.dump());
        QCOMPARE(bad.kind(), ErrorKind::BadRequest);
        QCOMPARE(bad.error().message, std::string("node: /public_net/daemon_port must be a port number 0..65535"));
        QVERIFY(bad.error().message.find("json.exception") == std::string::npos);
        wrong = nlohmann::json(s.tmap.at("t2"));
        wrong["colour"] = "blue";
        QCOMPARE(parseSnode(wrong.dump()).error().message, std::string("node: /colour is not a field of a node"));
        wrong = nlohmann::json(s.tmap.at("t2"));
        wrong["daemon_id"] = 7;
        QCOMPARE(parseSnode(wrong.dump()).error().message, std::string("node: /daemon_id must be a string"));
        auto node = parseSnode(nlohmann::json(s.tmap.at("t2")).dump());
        QVERIFY(node.ok());
        QVERIFY(*node == s.tmap.at("t2"));
    }

    void actionMessages()
    {
        ActionMsg m{"decommission-node", "", nlohmann::json(RemoveNode{"t1"})};
        auto back = parseActionMsg(nlohmann::json(m).dump());
        QVERIFY(back.ok());
        QVERIFY(*back == m);
        QCOMPARE(nlohmann::json(m).dump(), std::string(R"({"action":"decommission-node","value":{"sid":"t1"}})"));
        auto rm = parseRemoveNode(back->value);
        QVERIFY(rm.ok());
        QCOMPARE(rm->daemonId, std::string("t1"));
        // AIStore's own fields are read; the draining ones must be off.
        QVERIFY(parseRemoveNode(nlohmann::json{{"sid", "t1"}, {"rm_user_data", false}, {"no_shutdown", true}}).ok());
        QCOMPARE(parseRemoveNode(nlohmann::json{{"sid", "t1"}, {"rm_user_data", true}}).kind(), ErrorKind::BadRequest);
        QCOMPARE(parseRemoveNode(nlohmann::json{{"sid", 1}}).error().message,
                 std::string("/value/sid: must be a string"));
        QCOMPARE(parseRemoveNode(nlohmann::json::object()).error().message, std::string("/value/sid: required"));
        QVERIFY(parseRemoveNode(nlohmann::json{{"sid", "t"}, {"x", 1}}).error().message.find("/value/x") == 0);
        QCOMPARE(parseActionMsg(R"({"value":1})").error().message, std::string("action message: /action: required"));
        QCOMPARE(parseActionMsg(R"({"action":5})").error().message,
                 std::string("action message: /action: must be a string"));
        QVERIFY(parseActionMsg(R"({"action":"a","extra":1})").error().message ==
                "action message: /extra: unknown field");
        QCOMPARE(parseActionMsg("[1]").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseActionMsg("{").kind(), ErrorKind::BadRequest);
        ActionMsg named{"create-bck", "b1", nullptr};
        QCOMPARE(nlohmann::json(named).dump(), std::string(R"({"action":"create-bck","name":"b1"})"));
        QVERIFY(*parseActionMsg(nlohmann::json(named).dump()) == named);
    }

    void bmdRoundTrip()
    {
        Bmd b;
        b.version = 3;
        b.uuid = "bu";
        BucketProps p;
        p.created = 123;
        p.checksum.validateWarmGet = true;
        b.buckets["data"] = p;
        auto back = parseBmd(nlohmann::json(b).dump());
        QVERIFY(back.ok());
        QCOMPARE(back->version, 3);
        QVERIFY(back->buckets.at("data") == p);
        QVERIFY(back->find("data") != nullptr);
        QVERIFY(back->find("other") == nullptr);
        auto props = parseBucketProps(nlohmann::json(p).dump());
        QVERIFY(props.ok() && *props == p);
        QCOMPARE(back->uuid, std::string("bu"));
        QCOMPARE(back->buckets.size(), std::size_t{1});
        const auto j = nlohmann::json(b);
        QCOMPARE(j["buckets"]["data"]["checksum"]["validate_warm_get"].get<bool>(), true);
        QCOMPARE(j["buckets"]["data"]["checksum"]["type"].get<std::string>(), std::string("xxhash"));
        QCOMPARE(j["buckets"]["data"]["provider"].get<std::string>(), std::string("ais"));

        auto empty = parseBmd(nlohmann::json(Bmd{}).dump());
        QVERIFY(empty.ok());
        QVERIFY(empty->buckets.empty());
        QCOMPARE(empty->version, std::int64_t{0});

        QCOMPARE(parseBmd("[]").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseBmd("{}").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseBmd(R"({"version":1,"uuid":"u","buckets":[]})").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseBucketProps(R"({"provider":"ais","created":"yesterday","checksum":{}})").kind(),
                 ErrorKind::BadRequest);
        BucketRef ref{"data", "ais"};
        const auto refJson = nlohmann::json(ref);
        QCOMPARE(refJson["name"].get<std::string>(), std::string("data"));
        QCOMPARE(refJson["provider"].get<std::string>(), std::string("ais"));
        QCOMPARE(refJson.get<BucketRef>().name, std::string("data"));
        // A listed bucket without a provider is an "ais" bucket.
        QCOMPARE(nlohmann::json::parse(R"({"name":"x"})").get<BucketRef>().provider, std::string("ais"));
    }

    void propsUpdate()
    {
        BucketProps p;
        auto st = applyPropsUpdate(p, nlohmann::json::parse(R"({"checksum":{"validate_warm_get":true}})"));
        QVERIFY(st.ok());
        QVERIFY(p.checksum.validateWarmGet);
        QVERIFY(applyPropsUpdate(p, nlohmann::json::object()).ok());
        QVERIFY(p.checksum.validateWarmGet);
        QVERIFY(applyPropsUpdate(p, nlohmann::json::parse(R"({"checksum":{"type":"xxhash"}})")).ok());
        QCOMPARE(p.checksum.type, std::string("xxhash"));
        QVERIFY(applyPropsUpdate(p, nlohmann::json::parse(R"({"checksum":{"validate_warm_get":false}})")).ok());
        QVERIFY(!p.checksum.validateWarmGet);
        QVERIFY(applyPropsUpdate(p, nlohmann::json::parse(R"({"checksum":{"validate_warm_get":true}})")).ok());
        const BucketProps before = p;
        for (const char* bad :
             {R"({"nonsense":1})", R"({"checksum":{"validate_warm_get":"yes"}})", R"({"checksum":{"type":"md5"}})",
              R"({"checksum":5})", R"([1])", R"({"checksum":{"validate_warm_get":false,"x":1}})", R"({"created":5})",
              R"({"provider":"aws"})", R"("checksum")", R"(null)"}) {
            auto r = applyPropsUpdate(p, nlohmann::json::parse(bad));
            QVERIFY2(!r.ok(), bad);
            QCOMPARE(r.kind(), ErrorKind::BadRequest);
            QVERIFY2(p == before, bad);  // nothing changed
        }
    }

    void objEntryRoundTrip()
    {
        const ObjEntry full{
            "train/x.jpg", 12345, "0123456789abcdef", "2026-01-01T00:00:00.000000000Z", "7", 0, "", "", "", 0};
        auto j = nlohmann::json(full);
        QCOMPARE(j["name"].get<std::string>(), full.name);
        QCOMPARE(j["size"].get<std::string>(), std::string("12345"));  // AIStore's `size,string`
        QVERIFY(j.get<ObjEntry>() == full);

        // Only the name: unrequested fields stay out of the JSON; size reads back as -1.
        const ObjEntry bare{"n", -1, "", "", "", 0, "", "", "", 0};
        j = nlohmann::json(bare);
        QCOMPARE(j.dump(), std::string(R"({"name":"n"})"));
        QVERIFY(j.get<ObjEntry>() == bare);

        // Size 0 is a real size and survives.
        const ObjEntry member{"s.tar/m", 3, "", "", "", kEntryInArch, "", "", "", 0};
        QVERIFY(nlohmann::json(member).get<ObjEntry>() == member);
        QCOMPARE(nlohmann::json(member).at("flags").get<std::uint32_t>(), 128u);
        const ObjEntry broken{"b.tar", 9, "", "", "", kEntryArchError, "damaged", "", "", 0};
        QVERIFY(nlohmann::json(broken).get<ObjEntry>() == broken);
        const ObjEntry zero{"z", 0, "", "", "", 0, "", "", "", 0};
        QVERIFY(nlohmann::json(zero).get<ObjEntry>() == zero);

        bool threw = false;
        try {
            (void)nlohmann::json::parse(R"({"size":1})").get<ObjEntry>();
        } catch (const nlohmann::json::exception&) {
            threw = true;
        }
        QVERIFY(threw);  // parseObjectList turns this into BadRequest (below)
    }

    void objectListRoundTrip()
    {
        ObjectList l;
        l.uuid = "list-1";
        l.flags = 3;
        l.continuationToken = "b/c";
        l.entries.push_back(
            ObjEntry{"a", 10, "0123456789abcdef", "2026-01-01T00:00:00.000000000Z", "2", 0, "", "", "", 0});
        l.entries.push_back(ObjEntry{"b/c", 0, "", "", "", 0, "", "", "", 0});
        auto back = parseObjectList(nlohmann::json(l).dump());
        QVERIFY(back.ok());
        QCOMPARE(back->continuationToken, std::string("b/c"));
        QCOMPARE(back->entries.size(), std::size_t{2});
        QVERIFY(back->entries[0] == l.entries[0]);
        QVERIFY(back->entries[1] == l.entries[1]);
        QCOMPARE(back->uuid, std::string("list-1"));
        QCOMPARE(back->flags, 3u);
        QCOMPARE(parseObjectList(R"({"entries":[]})").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseObjectList(R"({"continuation_token":"","entries":[{"size":1}]})").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseObjectList(R"({"continuation_token":"","entries":{}})").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseObjectList("nope").kind(), ErrorKind::BadRequest);
        // A complete, empty listing (AIStore sends "entries":null).
        auto empty = parseObjectList(R"({"continuation_token":"","entries":null})");
        QVERIFY(empty.ok());
        QVERIFY(empty->entries.empty());
        QVERIFY(empty->continuationToken.empty());
        QCOMPARE(formatRfc3339(0), std::string("1970-01-01T00:00:00.000000000Z"));
        QCOMPARE(formatRfc3339(1500000000123456789LL), std::string("2017-07-14T02:40:00.123456789Z"));
    }

    void listRequests_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<int>("pageSize");
        QTest::newRow("defaults") << "" << true << 1000;
        QTest::newRow("zero means default") << "pagesize=0" << true << 1000;
        QTest::newRow("max") << "pagesize=10000" << true << 10000;
        QTest::newRow("over max") << "pagesize=10001" << false << 0;
        QTest::newRow("negative") << "pagesize=-1" << false << 0;
        QTest::newRow("garbage") << "pagesize=ten" << false << 0;
        QTest::newRow("props ok") << "props=name,size,checksum,atime,version" << true << 1000;
        QTest::newRow("one") << "pagesize=1" << true << 1;
        QTest::newRow("huge") << "pagesize=99999999999999999999999" << false << 0;
        QTest::newRow("plus sign") << "pagesize=%2B5" << false << 0;
        QTest::newRow("fraction") << "pagesize=1.5" << false << 0;
        QTest::newRow("empty value") << "pagesize=" << false << 0;
        QTest::newRow("spaces") << "pagesize=%205" << false << 0;
        QTest::newRow("props bad") << "props=name,colour" << false << 0;
        QTest::newRow("props empty") << "props=" << true << 1000;
        QTest::newRow("unrelated params ignored") << "provider=ais&pagesize=7" << true << 7;
    }
    void listRequests()
    {
        QFETCH(QString, query);
        QFETCH(bool, ok);
        QFETCH(int, pageSize);
        auto q = parseQuery(query.toStdString());
        QVERIFY(q.ok());
        auto r = listRequestFromQuery(*q);
        QCOMPARE(r.ok(), ok);
        if (!ok) {
            QCOMPARE(r.kind(), ErrorKind::BadRequest);
            return;
        }
        QCOMPARE(static_cast<int>(r->pageSize), pageSize);
    }

    void listRequestQueryFields()
    {
        auto q = parseQuery("prefix=train%2Fn01&continuation_token=train%2Fn01%2F9.jpg&props=checksum,%20atime");
        QVERIFY(q.ok());
        auto r = listRequestFromQuery(*q);
        QVERIFY(r.ok());
        QCOMPARE(r->prefix, std::string("train/n01"));
        QCOMPARE(r->continuationToken, std::string("train/n01/9.jpg"));
        QCOMPARE(r->props, std::uint32_t{kPropName | kPropChecksum | kPropAtime});  // name is always listed
        QCOMPARE(r->pageSize, kDefaultPageSize);
        // Defaults: name and size.
        auto d = listRequestFromQuery({});
        QVERIFY(d.ok());
        QCOMPARE(d->props, std::uint32_t{kPropName | kPropSize});
        QVERIFY(d->prefix.empty() && d->continuationToken.empty());
    }

    // The proxy's request to the targets of an erasure-coded bucket while
    // owners are away: the ids travel sorted and once each.
    void listRequestStandInRoundTrip()
    {
        ListRequest req;
        req.prefix = "a/";
        req.pageSize = 250;
        req.standInFor = {"t2", "t1", "t2"};
        auto back = listRequestFromQuery(listRequestToQuery(req));
        QVERIFY(back.ok());
        QCOMPARE(back->standInFor, (std::vector<std::string>{"t1", "t2"}));
        QCOMPARE(back->prefix, std::string("a/"));
        QCOMPARE(back->pageSize, std::uint32_t{250});
        auto none = listRequestFromQuery(listRequestToQuery(ListRequest{}));
        QVERIFY(none.ok() && none->standInFor.empty());
        auto empty = parseQuery("stand_in_for=t1,,t2");
        QVERIFY(empty.ok());
        QCOMPARE(listRequestFromQuery(*empty).kind(), ErrorKind::BadRequest);
        std::string many;
        for (std::size_t i = 0; i <= kMaxStandInFor; ++i) many += (many.empty() ? "t" : ",t") + std::to_string(i);
        QCOMPARE(listRequestFromQuery({{"stand_in_for", many}}).kind(), ErrorKind::BadRequest);
    }

    void listRequestJson_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<int>("pageSize");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("aistore shape") << R"({"action":"list","value":{"prefix":"a/","pagesize":5}})" << true << 5
                                       << "a/";
        QTest::newRow("bare value") << R"({"prefix":"x"})" << true << 1000 << "x";
        QTest::newRow("empty object") << "{}" << true << 1000 << "";
        QTest::newRow("pagesize 0 is default") << R"({"pagesize":0})" << true << 1000 << "";
        QTest::newRow("pagesize max") << R"({"action":"list","value":{"pagesize":10000}})" << true << 10000 << "";
        QTest::newRow("pagesize over max") << R"({"action":"list","value":{"pagesize":10001}})" << false << 0 << "";
        QTest::newRow("pagesize negative") << R"({"pagesize":-3})" << false << 0 << "";
        QTest::newRow("pagesize fraction") << R"({"pagesize":2.5})" << false << 0 << "";
        QTest::newRow("pagesize string") << R"({"pagesize":"10"})" << false << 0 << "";
        QTest::newRow("flags and uuid accepted") << R"({"flags":0,"uuid":"x","prefix":"p"})" << true << 1000 << "p";
        // What AIStore's Go API marshals (api/apc/lsmsg.go: flags is `,string`).
        QTest::newRow("aistore go lsmsg")
            << R"({"action":"list","name":"","value":{"uuid":"","props":"name,size,custom,location,copies","prefix":"q","continuation_token":"","target":"","flags":"8","pagesize":7}})"
            << true << 7 << "q";
        QTest::newRow("aistore optional fields")
            << R"({"value":{"hdr":{"X":["y"]},"time_format":"RFC822","start_after":"a","flags":"0"},"action":"list"})"
            << true << 1000 << "";
        QTest::newRow("flags not decimal") << R"({"flags":"0x8"})" << false << 0 << "";
        QTest::newRow("flags negative") << R"({"flags":-1})" << false << 0 << "";
        QTest::newRow("hdr not an object") << R"({"hdr":"x"})" << false << 0 << "";
        QTest::newRow("unknown field") << R"({"mystery":1})" << false << 0 << "";
        QTest::newRow("unknown field in value") << R"({"action":"list","value":{"limit":3}})" << false << 0 << "";
        QTest::newRow("unknown props") << R"({"props":"name,colour"})" << false << 0 << "";
        QTest::newRow("props not a string") << R"({"props":["name"]})" << false << 0 << "";
        QTest::newRow("prefix not a string") << R"({"prefix":1})" << false << 0 << "";
        QTest::newRow("other action") << R"({"action":"delete"})" << false << 0 << "";
        QTest::newRow("action without value") << R"({"action":"list"})" << false << 0 << "";
        QTest::newRow("value not an object") << R"({"action":"list","value":"x"})" << false << 0 << "";
        QTest::newRow("action not a string") << R"({"action":1,"value":{}})" << false << 0 << "";
        QTest::newRow("array") << "[]" << false << 0 << "";
        QTest::newRow("not json") << "not json" << false << 0 << "";
        QTest::newRow("empty body") << "" << false << 0 << "";
    }
    void listRequestJson()
    {
        QFETCH(QString, body);
        QFETCH(bool, ok);
        QFETCH(int, pageSize);
        QFETCH(QString, prefix);
        auto r = listRequestFromJson(body.toStdString());
        QCOMPARE(r.ok(), ok);
        if (!ok) {
            QCOMPARE(r.kind(), ErrorKind::BadRequest);
            return;
        }
        QCOMPARE(static_cast<int>(r->pageSize), pageSize);
        QCOMPARE(QString::fromStdString(r->prefix), prefix);
    }

    void jsonShapeIsCheckedWithoutADocument()
    {
        const JsonShape object{JsonShape::Top::Object, 3, 10};
        QVERIFY(checkJsonShape(R"({"a":[1,2],"b":{"c":null}})", object, "x").ok());
        QCOMPARE(checkJsonShape("[1]", object, "x").error().message, std::string("x: body must be a JSON object"));
        QCOMPARE(checkJsonShape("7", object, "x").error().message, std::string("x: body must be a JSON object"));
        QCOMPARE(checkJsonShape(R"({"a":[[[1]]]})", object, "x").error().message,
                 std::string("x: body nested deeper than 3 levels"));
        QCOMPARE(checkJsonShape(R"({"a":[1,2,3,4,5,6,7,8,9,10,11]})", object, "x").error().message,
                 std::string("x: body more than 10 values"));
        const auto bad = checkJsonShape(R"({"a":)", object, "x");
        QCOMPARE(bad.kind(), ErrorKind::BadRequest);
        QVERIFY(bad.error().message.find("malformed JSON at byte") != std::string::npos);
        QVERIFY(bad.error().message.find("json.exception") == std::string::npos);
        QVERIFY(!checkJsonShape("", object, "x").ok());
        QVERIFY(checkJsonShape("[[1],[2]]", {JsonShape::Top::Array, 2, 10}, "x").ok());
        QVERIFY(!checkJsonShape("{}", {JsonShape::Top::Array, 2, 10}, "x").ok());
    }

    void listRequestOverflowNamesTheNumber()
    {
        auto r = listRequestFromJson(R"({"pagesize":1e400})");
        QCOMPARE(r.kind(), ErrorKind::BadRequest);
        QVERIFY2(r.error().message.find("1e400") != std::string::npos, r.error().message.c_str());
        QVERIFY(r.error().message.find("json.exception") == std::string::npos);
        QVERIFY(r.error().message.find("must be a JSON object") == std::string::npos);
    }

    void listRequestAllFields()
    {
        auto r = listRequestFromJson(
            R"({"action":"list","value":{"prefix":"a/","pagesize":5,"continuation_token":"a/b","props":"size"}})");
        QVERIFY(r.ok());
        QCOMPARE(r->prefix, std::string("a/"));
        QCOMPARE(r->pageSize, 5u);
        QCOMPARE(r->continuationToken, std::string("a/b"));
        QCOMPARE(r->props, std::uint32_t{kPropName | kPropSize});
        // Query round trip.
        auto back = listRequestFromQuery(listRequestToQuery(*r));
        QVERIFY(back.ok());
        QCOMPARE(back->prefix, r->prefix);
        QCOMPARE(back->pageSize, r->pageSize);
        QCOMPARE(back->continuationToken, r->continuationToken);
        QCOMPARE(back->props, r->props);
        // ... and through the wire form of the query.
        auto wire = parseQuery(buildQuery(listRequestToQuery(*r)));
        QVERIFY(wire.ok());
        auto again = listRequestFromQuery(*wire);
        QVERIFY(again.ok());
        QCOMPARE(again->continuationToken, std::string("a/b"));
    }

    void listProps()
    {
        QCOMPARE(listPropsToString(kPropName | kPropChecksum), std::string("name,checksum"));
        QCOMPARE(listPropsToString(0), std::string("name"));
        QCOMPARE(listPropsToString(kPropName | kPropSize | kPropChecksum | kPropAtime | kPropVersion),
                 std::string("name,size,checksum,atime,version"));
        auto all = parseListProps("version,atime,checksum,size,name");
        QVERIFY(all.ok());
        QCOMPARE(*all, std::uint32_t{kPropName | kPropSize | kPropChecksum | kPropAtime | kPropVersion});
        QCOMPARE(*parseListProps(""), std::uint32_t{kPropName | kPropSize});  // AIStore's default: name,size
        QCOMPARE(*parseListProps("size,,size"), std::uint32_t{kPropName | kPropSize});
        QCOMPARE(parseListProps("Size").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseListProps("name;size").kind(), ErrorKind::BadRequest);
    }

    void objectMeta()
    {
        ObjectMeta m;
        m.size = 42;
        m.checksumValue = "0123456789abcdef";
        m.version = "3";
        m.atimeNs = 99;
        m.custom = {{"label", "cat"}, {"split", "train"}};
        m.stamp = 1'790'000'000'123'456'789;
        auto back = parseObjectMeta(nlohmann::json(m).dump());
        QVERIFY(back.ok());
        QVERIFY(*back == m);
        const auto j = nlohmann::json(m);
        QCOMPARE(j["cksum_value"].get<std::string>(), std::string("0123456789abcdef"));
        QCOMPARE(j["custom"]["label"].get<std::string>(), std::string("cat"));
        QCOMPARE(j["stamp"].get<std::int64_t>(), m.stamp);
        // Metadata written before stamps reads as stamp 0 (unknown).
        auto noStamp = j;
        noStamp.erase("stamp");
        QCOMPARE(parseObjectMeta(noStamp.dump())->stamp, std::int64_t{0});
        auto badStamp = j;
        badStamp["stamp"] = "soon";
        QCOMPARE(parseObjectMeta(badStamp.dump()).kind(), ErrorKind::Corruption);
        // A float in the metadata (all whole numbers) is refused, not cast:
        // beyond int64 the cast is undefined behaviour (found by fuzzing).
        auto hugeAtime = j;
        hugeAtime["atime"] = 1.79e21;
        QCOMPARE(parseObjectMeta(hugeAtime.dump()).kind(), ErrorKind::Corruption);
        const std::string hugePort =
            "{\"version\":1,\"uuid\":\"u\",\"primary\":{\"daemon_id\":\"p\","
            "\"daemon_type\":\"proxy\",\"public_net\":{\"node_ip_addr\":\"h\","
            "\"daemon_port\":1e52,\"direct_url\":\"http://h:1\"}},\"pmap\":{},\"tmap\":{}}";
        QCOMPARE(parseSmap(hugePort).kind(), ErrorKind::BadRequest);

        // Metadata without custom keys is fine; a damaged record is Corruption, never BadRequest.
        ObjectMeta plain;
        plain.size = 1;
        auto noCustom = nlohmann::json(plain);
        noCustom.erase("custom");
        auto parsedPlain = parseObjectMeta(noCustom.dump());
        QVERIFY(parsedPlain.ok());
        QVERIFY(*parsedPlain == plain);
        QCOMPARE(parseObjectMeta("{garbage").kind(), ErrorKind::Corruption);
        QCOMPARE(parseObjectMeta("").kind(), ErrorKind::Corruption);
        QCOMPARE(parseObjectMeta(R"({"size":"big"})").kind(), ErrorKind::Corruption);
        auto truncated = j.dump();
        truncated.resize(truncated.size() / 2);
        QCOMPARE(parseObjectMeta(truncated).kind(), ErrorKind::Corruption);
    }

    void customMd_data()
    {
        QTest::addColumn<QString>("header");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<int>("keys");
        QTest::newRow("two") << "label=cat,split=train" << true << 2;
        QTest::newRow("empty header") << "" << true << 0;
        QTest::newRow("empty value") << "k=" << true << 1;
        QTest::newRow("value with equals") << "expr=a=b" << true << 1;
        QTest::newRow("value with spaces") << "title=a cat" << true << 1;
        QTest::newRow("key charset") << "A-z_0.9=v" << true << 1;
        QTest::newRow("trailing comma") << "a=1," << true << 1;
        QTest::newRow("duplicate key keeps last") << "a=1,a=2" << true << 1;
        QTest::newRow("no equals") << "novalue" << false << 0;
        QTest::newRow("empty key") << "=x" << false << 0;
        QTest::newRow("empty item") << "a=1,,b=2" << false << 0;
        QTest::newRow("space in key") << "bad key=x" << false << 0;
        QTest::newRow("slash in key") << "a/b=x" << false << 0;
        QTest::newRow("control in value") << "a=x\ty" << false << 0;
        QTest::newRow("newline in value") << "a=x\ny" << false << 0;
        QTest::newRow("DEL in value") << "a=x\x7fy" << false << 0;
        QTest::newRow("NUL in value") << QString::fromLatin1("a=x\0y", 5) << false << 0;
        QTest::newRow("utf-8 value") << QString::fromUtf8("title=caf\xc3\xa9") << true << 1;
        QTest::newRow("over 4096 bytes") << "k=" + QString(4095, 'v') << false << 0;
        QTest::newRow("exactly 4096 bytes") << "k=" + QString(4094, 'v') << true << 1;
    }
    void customMd()
    {
        QFETCH(QString, header);
        QFETCH(bool, ok);
        QFETCH(int, keys);
        auto md = parseCustomMd(header.toStdString());
        QCOMPARE(md.ok(), ok);
        if (!ok) {
            QCOMPARE(md.kind(), ErrorKind::BadRequest);
            return;
        }
        QCOMPARE(static_cast<int>(md->size()), keys);
        // format(parse(x)) parses back to the same map.
        auto again = parseCustomMd(formatCustomMd(*md));
        QVERIFY(again.ok());
        QVERIFY(*again == *md);
    }

    void customMdExact()
    {
        auto md = parseCustomMd("split=train,label=cat,expr=a=b");
        QVERIFY(md.ok());
        QCOMPARE(md->at("split"), std::string("train"));
        QCOMPARE(md->at("expr"), std::string("a=b"));
        QCOMPARE(formatCustomMd(*md), std::string("expr=a=b,label=cat,split=train"));  // sorted by key
        QCOMPARE(formatCustomMd({}), std::string());
        QCOMPARE(parseCustomMd("a=1,a=2")->at("a"), std::string("2"));
    }

    void httpErrors()
    {
        const std::pair<ErrorKind, int> table[] = {
            {ErrorKind::BadRequest, 400},       {ErrorKind::NotFound, 404},
            {ErrorKind::MethodNotAllowed, 405}, {ErrorKind::Unauthorized, 401},
            {ErrorKind::Forbidden, 403},        {ErrorKind::Conflict, 409},
            {ErrorKind::TooLarge, 413},         {ErrorKind::RangeNotSatisfiable, 416},
            {ErrorKind::Corruption, 422},       {ErrorKind::IoError, 500},
            {ErrorKind::Internal, 500},         {ErrorKind::Unavailable, 503},
            {ErrorKind::Timeout, 504},          {ErrorKind::NoSpace, 507},
            {ErrorKind::BadGateway, 502},       {ErrorKind::TooManyRequests, 429},
        };
        for (const auto& [kind, status] : table) {
            QCOMPARE(httpStatusFor(kind), status);
            if (status != 500) QCOMPARE(errorKindForStatus(status), kind);
        }
        // Other statuses fall into the nearest kind.
        QCOMPARE(errorKindForStatus(418), ErrorKind::BadRequest);
        QCOMPARE(errorKindForStatus(500), ErrorKind::Internal);
        QCOMPARE(errorKindForStatus(501), ErrorKind::Internal);
        QCOMPARE(errorKindForStatus(0), ErrorKind::Internal);  // no response at all
    }

    void errorBodyShape()
    {
        auto body = nlohmann::json::parse(errorBody(Error::ioError("disk", "EIO")));
        QVERIFY(body == nlohmann::json::parse(R"({"status":500,"message":"disk","caused_by":"EIO"})"));
        // No caused_by key when there is no cause.
        QCOMPARE(errorBody(Error::notFound("x")), std::string(R"({"message":"x","status":404})"));
        QCOMPARE(nlohmann::json::parse(errorBody(Error::badRequest("bad name")))["status"].get<int>(), 400);
        QCOMPARE(nlohmann::json::parse(errorBody(Error::conflict("exists")))["status"].get<int>(), 409);
        QCOMPARE(nlohmann::json::parse(errorBody(Error::unavailable("starting")))["status"].get<int>(), 503);
        // Quotes, newlines and invalid UTF-8 in a message still give valid JSON.
        const auto tricky = errorBody(Error::badRequest("invalid name \"a\nb\xff\""));
        auto parsed = nlohmann::json::parse(tricky, nullptr, false);
        QVERIFY(!parsed.is_discarded());
        QCOMPARE(parsed["status"].get<int>(), 400);
        QVERIFY(parsed["message"].get<std::string>().find("a\nb") != std::string::npos);
    }

    void errorFromResponses()
    {
        auto e = errorFromResponse(409, R"({"status":409,"message":"exists"})");
        QCOMPARE(e.kind, ErrorKind::Conflict);
        QCOMPARE(e.message, std::string("exists"));
        QVERIFY(e.causedBy.empty());
        e = errorFromResponse(500, R"({"status":500,"message":"write failed","caused_by":"ENOSPC"})");
        QCOMPARE(e.kind, ErrorKind::Internal);
        QCOMPARE(e.message, std::string("write failed"));
        QCOMPARE(e.causedBy, std::string("ENOSPC"));
        // Our own body round-trips through the client side.
        const auto original = Error{ErrorKind::Corruption, "checksum mismatch", "expected 1, got 2"};
        e = errorFromResponse(httpStatusFor(original.kind), errorBody(original));
        QCOMPARE(e.kind, original.kind);
        QCOMPARE(e.message, original.message);
        QCOMPARE(e.causedBy, original.causedBy);
        // Not the JSON error shape: the status and the body's first line.
        e = errorFromResponse(502, "Bad Gateway");
        QCOMPARE(e.kind, ErrorKind::BadGateway);
        QCOMPARE(e.message, std::string("HTTP 502: Bad Gateway"));
        e = errorFromResponse(404, R"({"error":"no such thing"})");
        QCOMPARE(e.kind, ErrorKind::NotFound);
        QCOMPARE(e.message, std::string(R"(HTTP 404: {"error":"no such thing"})"));
        e = errorFromResponse(400, R"({"message":42})");
        QCOMPARE(e.message, std::string(R"(HTTP 400: {"message":42})"));
        e = errorFromResponse(503, "[1,2]");
        QCOMPARE(e.kind, ErrorKind::Unavailable);
        QCOMPARE(e.message, std::string("HTTP 503: [1,2]"));
        // A whole web page is quoted by its first line only.
        e = errorFromResponse(404, "\n<html>\r\n<head><title>404 Not Found</title></head>\n" + std::string(5000, 'x'));
        QCOMPARE(e.message, std::string("HTTP 404: <html>"));
        QCOMPARE(firstLine(std::string(300, 'a'), 10), std::string("aaaaaaaaaa..."));
        QCOMPARE(errorFromResponse(404, "").message, std::string("HTTP 404"));
        QCOMPARE(errorFromResponse(404, "").kind, ErrorKind::NotFound);
    }

    void errorKindNames()
    {
        const std::pair<ErrorKind, const char*> names[] = {
            {ErrorKind::BadRequest, "BadRequest"},
            {ErrorKind::NotFound, "NotFound"},
            {ErrorKind::Conflict, "Conflict"},
            {ErrorKind::Corruption, "Corruption"},
            {ErrorKind::IoError, "IoError"},
            {ErrorKind::NoSpace, "NoSpace"},
            {ErrorKind::Unavailable, "Unavailable"},
            {ErrorKind::Timeout, "Timeout"},
            {ErrorKind::RangeNotSatisfiable, "RangeNotSatisfiable"},
            {ErrorKind::TooLarge, "TooLarge"},
            {ErrorKind::MethodNotAllowed, "MethodNotAllowed"},
            {ErrorKind::Forbidden, "Forbidden"},
            {ErrorKind::Internal, "Internal"},
        };
        for (const auto& [kind, name] : names) QCOMPARE(std::string(errorKindName(kind)), std::string(name));
    }

    void queries()
    {
        auto q = parseQuery("a=1&b=x%20y&c=p+q&d&e=");
        QVERIFY(q.ok());
        QCOMPARE(q->at("b"), std::string("x y"));
        QCOMPARE(q->at("c"), std::string("p q"));
        QCOMPARE(q->at("d"), std::string());
        QCOMPARE(parseQuery("a=%zz").kind(), ErrorKind::BadRequest);
        QueryMap m{{"prefix", "a b/c"}, {"k", "&="}};
        auto back = parseQuery(buildQuery(m));
        QVERIFY(back.ok());
        QVERIFY(*back == m);
        QCOMPARE(q->at("a"), std::string("1"));
        QCOMPARE(q->at("e"), std::string());
        QCOMPARE(q->size(), std::size_t{5});
        QCOMPARE(parseQuery("a=%4").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseQuery("%zz=1").kind(), ErrorKind::BadRequest);
        QVERIFY(parseQuery("")->empty());
        QVERIFY(parseQuery("&&")->empty());
        QCOMPARE(parseQuery("a=1&a=2")->at("a"), std::string("2"));
        QCOMPARE(parseQuery("k=a=b")->at("k"), std::string("a=b"));
        auto t = splitTarget("/v1/objects/b/o?x=1");
        QCOMPARE(t.path, std::string("/v1/objects/b/o"));
        QCOMPARE(t.query, std::string("x=1"));
        QCOMPARE(splitTarget("/p").query, std::string());
        QCOMPARE(splitTarget("/p").path, std::string("/p"));
        QCOMPARE(splitTarget("/p?a=1?b").query, std::string("a=1?b"));  // only the first '?' splits
        QCOMPARE(splitTarget("/p?").query, std::string());
    }

    void encodeThenParseQuery_data()
    {
        QTest::addColumn<std::string>("value");
        QTest::newRow("plain") << std::string("train");
        QTest::newRow("slash") << std::string("train/n01/");
        QTest::newRow("space and plus") << std::string("a b+c");
        QTest::newRow("separators") << std::string("a&b=c?d#e");
        QTest::newRow("percent") << std::string("100%");
        QTest::newRow("utf-8") << std::string("\xe6\x97\xa5\xe6\x9c\xac/\xc3\xa9");
        QTest::newRow("control bytes") << std::string("a\0b\n", 4);
        QTest::newRow("empty") << std::string();
    }
    void encodeThenParseQuery()
    {
        QFETCH(std::string, value);
        for (bool keepSlash : {false, true}) {
            const auto text =
                "k" + std::string("=") + percentEncode(value, keepSlash) + "&" + percentEncode(value) + "x=2";
            auto q = parseQuery(text);
            QVERIFY(q.ok());
            QCOMPARE(q->at("k"), value);
            QCOMPARE(q->at(value + "x"), std::string("2"));
        }
    }
};

QTEST_APPLESS_MAIN(TestJsonCodecs)
#include "test_json_codecs.moc"
