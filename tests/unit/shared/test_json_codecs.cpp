// Wire types round-trip through JSON; malformed input is a BadRequest.
#include "api/bmd.h"
#include "api/http_error.h"
#include "api/object_list.h"
#include "api/object_meta.h"
#include "api/smap.h"
#include "api/uri.h"

#include <QTest>
#include <nlohmann/json.hpp>

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
        QCOMPARE(parseSmap("{").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseSmap(R"({"version":"x"})").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseSnode(R"({"daemon_id":1})").kind(), ErrorKind::BadRequest);
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
        QCOMPARE(parseBmd("[]").kind(), ErrorKind::BadRequest);
        BucketRef ref{"data", "ais"};
        auto j = nlohmann::json(ref);
        QCOMPARE(j["name"].get<std::string>(), std::string("data"));
        QCOMPARE(j.get<BucketRef>().name, std::string("data"));
    }

    void propsUpdate()
    {
        BucketProps p;
        auto st = applyPropsUpdate(p, nlohmann::json::parse(R"({"checksum":{"validate_warm_get":true}})"));
        QVERIFY(st.ok());
        QVERIFY(p.checksum.validateWarmGet);
        const BucketProps before = p;
        for (const char* bad : {R"({"nonsense":1})", R"({"checksum":{"validate_warm_get":"yes"}})",
                                R"({"checksum":{"type":"md5"}})", R"({"checksum":5})", R"([1])",
                                R"({"checksum":{"validate_warm_get":false,"x":1}})"}) {
            auto r = applyPropsUpdate(p, nlohmann::json::parse(bad));
            QVERIFY2(!r.ok(), bad);
            QCOMPARE(r.kind(), ErrorKind::BadRequest);
            QVERIFY2(p == before, bad);  // nothing changed
        }
    }

    void objectListRoundTrip()
    {
        ObjectList l;
        l.continuationToken = "b/c";
        l.entries.push_back(ObjEntry{"a", 10, "0123456789abcdef", "2026-01-01T00:00:00.000000000Z", "2"});
        l.entries.push_back(ObjEntry{"b/c", 0, "", "", ""});
        auto back = parseObjectList(nlohmann::json(l).dump());
        QVERIFY(back.ok());
        QCOMPARE(back->continuationToken, std::string("b/c"));
        QCOMPARE(back->entries.size(), std::size_t{2});
        QVERIFY(back->entries[0] == l.entries[0]);
        QVERIFY(back->entries[1] == l.entries[1]);
        QCOMPARE(parseObjectList(R"({"entries":[]})").kind(), ErrorKind::BadRequest);
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
        QTest::newRow("props bad") << "props=name,colour" << false << 0;
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
        if (ok) QCOMPARE(static_cast<int>(r->pageSize), pageSize);
        else QCOMPARE(r.kind(), ErrorKind::BadRequest);
    }

    void listRequestJson()
    {
        auto r = listRequestFromJson(
            R"({"action":"list","value":{"prefix":"a/","pagesize":5,"continuation_token":"a/b","props":"size"}})");
        QVERIFY(r.ok());
        QCOMPARE(r->prefix, std::string("a/"));
        QCOMPARE(r->pageSize, 5u);
        QCOMPARE(r->continuationToken, std::string("a/b"));
        QVERIFY(r->props & kPropSize);
        QVERIFY(listRequestFromJson(R"({"prefix":"x"})").ok());
        QCOMPARE(listRequestFromJson(R"({"action":"delete"})").kind(), ErrorKind::BadRequest);
        QCOMPARE(listRequestFromJson(R"({"pagesize":-3})").kind(), ErrorKind::BadRequest);
        QCOMPARE(listRequestFromJson(R"({"mystery":1})").kind(), ErrorKind::BadRequest);
        QCOMPARE(listRequestFromJson("not json").kind(), ErrorKind::BadRequest);
        // Query round trip.
        auto back = listRequestFromQuery(listRequestToQuery(*r));
        QVERIFY(back.ok());
        QCOMPARE(back->prefix, r->prefix);
        QCOMPARE(back->continuationToken, r->continuationToken);
        QCOMPARE(back->props, r->props);
        QCOMPARE(listPropsToString(kPropName | kPropChecksum), std::string("name,checksum"));
    }

    void objectMeta()
    {
        ObjectMeta m;
        m.size = 42;
        m.checksumValue = "0123456789abcdef";
        m.version = "3";
        m.atimeNs = 99;
        m.custom = {{"label", "cat"}, {"split", "train"}};
        auto back = parseObjectMeta(nlohmann::json(m).dump());
        QVERIFY(back.ok());
        QVERIFY(*back == m);
        QCOMPARE(parseObjectMeta("{garbage").kind(), ErrorKind::Corruption);

        auto md = parseCustomMd("label=cat,split=train");
        QVERIFY(md.ok());
        QCOMPARE(md->at("split"), std::string("train"));
        QCOMPARE(formatCustomMd(*md), std::string("label=cat,split=train"));
        QCOMPARE(parseCustomMd("novalue").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseCustomMd("=x").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseCustomMd("bad key=x").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseCustomMd(std::string(5000, 'a')).kind(), ErrorKind::BadRequest);
    }

    void httpErrors()
    {
        const std::pair<ErrorKind, int> table[] = {
            {ErrorKind::BadRequest, 400},  {ErrorKind::NotFound, 404},  {ErrorKind::MethodNotAllowed, 405},
            {ErrorKind::Conflict, 409},    {ErrorKind::TooLarge, 413},  {ErrorKind::RangeNotSatisfiable, 416},
            {ErrorKind::Corruption, 422},  {ErrorKind::IoError, 500},   {ErrorKind::Internal, 500},
            {ErrorKind::Unavailable, 503}, {ErrorKind::Timeout, 504},   {ErrorKind::NoSpace, 507},
        };
        for (const auto& [kind, status] : table) {
            QCOMPARE(httpStatusFor(kind), status);
            if (status != 500) QCOMPARE(errorKindForStatus(status), kind);
        }
        auto body = nlohmann::json::parse(errorBody(Error::ioError("disk", "EIO")));
        QCOMPARE(body["status"].get<int>(), 500);
        QCOMPARE(body["message"].get<std::string>(), std::string("disk"));
        QCOMPARE(body["caused_by"].get<std::string>(), std::string("EIO"));
        QVERIFY(!nlohmann::json::parse(errorBody(Error::notFound("x"))).contains("caused_by"));
        auto e = errorFromResponse(409, R"({"status":409,"message":"exists"})");
        QCOMPARE(e.kind, ErrorKind::Conflict);
        QCOMPARE(e.message, std::string("exists"));
        e = errorFromResponse(502, "Bad Gateway");
        QCOMPARE(e.kind, ErrorKind::Internal);
        QCOMPARE(e.message, std::string("Bad Gateway"));
        QCOMPARE(errorFromResponse(404, "").message, std::string("HTTP 404"));
        QCOMPARE(std::string(errorKindName(ErrorKind::Corruption)), std::string("Corruption"));
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
        auto t = splitTarget("/v1/objects/b/o?x=1");
        QCOMPARE(t.path, std::string("/v1/objects/b/o"));
        QCOMPARE(t.query, std::string("x=1"));
        QCOMPARE(splitTarget("/p").query, std::string());
    }
};

QTEST_APPLESS_MAIN(TestJsonCodecs)
#include "test_json_codecs.moc"
