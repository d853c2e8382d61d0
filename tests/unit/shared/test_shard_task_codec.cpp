// The shard task's own codec (what the proxy sends each target for archive
// and ishard jobs): dumpShardTask writes exactly what dumpJson(json(task))
// writes, parseShardTaskText reads back what was written (scanned, or through
// the full parser for anything the scanner leaves), bad tasks are BadRequest,
// and the job envelope carrying it as text splits back into its parts.
#include "api/job.h"
#include "api/json_util.h"
#include "api/shard_task.h"

#include <QTest>

using namespace tessera;
using namespace tessera::api;

namespace {

constexpr std::size_t kValues = 8'000'000;

ShardTask sample()
{
    ShardTask t;
    t.srcBck = "raw";
    t.dstBck = "shards";
    t.mime = ".tar";
    t.append = true;
    t.continueOnErr = false;
    t.mtime = 1700000000;
    ShardBuild a;
    a.name = "shard-000000.tar";
    a.members = {{"train/0.cls", 1, ""}, {"train/0.png", 290, "raw/train/0.png"}, {"unknown", -1, ""}};
    ShardBuild empty;
    empty.name = "shard-000001.tar";
    t.shards = {a, empty};
    return t;
}

bool sameTask(const ShardTask& a, const ShardTask& b)
{
    if (a.srcBck != b.srcBck || a.dstBck != b.dstBck || a.mime != b.mime || a.append != b.append ||
        a.continueOnErr != b.continueOnErr || a.mtime != b.mtime || a.shards.size() != b.shards.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.shards.size(); ++i) {
        const auto& x = a.shards[i];
        const auto& y = b.shards[i];
        if (x.name != y.name || x.members.size() != y.members.size()) return false;
        for (std::size_t k = 0; k < x.members.size(); ++k) {
            const auto& m = x.members[k];
            const auto& n = y.members[k];
            if (m.object != n.object || m.size != n.size || m.memberName != n.memberName) return false;
        }
    }
    return true;
}

}  // namespace

class TestShardTaskCodec : public QObject {
    Q_OBJECT

private slots:
    void dumpIsTheDocumentsText()
    {
        auto t = sample();
        QCOMPARE(dumpShardTask(t), dumpJson(nlohmann::json(t)));
        // Escapes, UTF-8 and invalid UTF-8 written as the document writes them.
        t.shards[0].members[0].object = "a \"quoted\" \\ name\twith\x01control";
        t.shards[0].members[1].memberName = "ünïcödé/🙂";
        t.dstBck = std::string("bad\xff");
        QCOMPARE(dumpShardTask(t), dumpJson(nlohmann::json(t)));
        QCOMPARE(dumpShardTask(ShardTask{}), dumpJson(nlohmann::json(ShardTask{})));
    }

    void roundTrip()
    {
        const auto t = sample();
        auto back = parseShardTaskText(dumpShardTask(t), kValues);
        QVERIFY(back);
        QVERIFY(sameTask(*back, t));

        // Names the scanner leaves to the full parser come back the same.
        auto odd = sample();
        odd.shards[0].members[0].object = "quote\" back\\slash\ttab";
        odd.shards[0].members[1].memberName = "ünïcödé/🙂";
        auto oddBack = parseShardTaskText(dumpShardTask(odd), kValues);
        QVERIFY(oddBack);
        QVERIFY(sameTask(*oddBack, odd));

        // Any key order and spacing; optional fields default as from_json's.
        const std::string loose = R"( { "shards" : [ { "name":"s.tar" , "members":[ ["a",-1] , ["b", 0, "m"] ] } ],
            "src_bck":"x", "dst_bck" : "y" } )";
        auto l = parseShardTaskText(loose, kValues);
        QVERIFY(l);
        QVERIFY(sameTask(*l, nlohmann::json::parse(loose).get<ShardTask>()));
        QCOMPARE(l->shards[0].members[1].memberName, std::string("m"));
        QCOMPARE(l->mtime, std::int64_t{0});

        // Numbers the scanner does not take (a fraction, an exponent) still
        // parse as the document parser reads them.
        const std::string fraction = R"({"src_bck":"x","dst_bck":"y","mtime":1e3,"shards":[]})";
        auto f = parseShardTaskText(fraction, kValues);
        QVERIFY(f);
        QCOMPARE(f->mtime, nlohmann::json::parse(fraction).get<ShardTask>().mtime);
    }

    void badTasksAreBadRequest()
    {
        for (const std::string bad :
             {R"({"src_bck":"x","dst_bck":"y"})", R"({"src_bck":"x","dst_bck":"y","shards":[{"name":"s"}]})",
              R"({"src_bck":"x","dst_bck":"y","shards":[{"name":"s","members":[["a"]]}]})",
              R"({"src_bck":"x","dst_bck":"y","shards":[{"name":"s","members":[["a","1"]]}]})",
              R"({"src_bck":"x","dst_bck":"y","shards":[]} trailing)", R"([])", "", "{"}) {
            auto r = parseShardTaskText(bad, kValues);
            QVERIFY2(!r, bad.c_str());
            QCOMPARE(r.kind(), ErrorKind::BadRequest);
        }
        // The value limit holds on both paths: this task is 21 JSON values;
        // 12 allowed is too few for the scanner and for the full check.
        auto t = sample();
        t.shards.resize(1);
        const auto text = dumpShardTask(t);
        QVERIFY(parseShardTaskText(text, 40));
        auto over = parseShardTaskText(text, 12);
        QVERIFY(!over);
        QCOMPARE(over.kind(), ErrorKind::BadRequest);
        t.shards[0].members[0].object = "needs\\the full parser";
        QVERIFY(!parseShardTaskText(dumpShardTask(t), 12));
    }

    void envelopeCarriesArgsAsText()
    {
        const auto args = dumpShardTask(sample());
        const auto body = dumpJobEnvelope("ishard-abc", "ishard", args);
        // A document parser reads the same envelope.
        auto doc = parseMessage<JobEnvelope>(body, "job");
        QVERIFY(doc);
        QCOMPARE(doc->id, std::string("ishard-abc"));
        QCOMPARE(doc->kind, std::string("ishard"));
        QCOMPARE(dumpJson(doc->args), args);

        JobEnvelopeText env;
        QVERIFY(splitJobEnvelope(body, env));
        QCOMPARE(env.id, std::string("ishard-abc"));
        QCOMPARE(env.kind, std::string("ishard"));
        QCOMPARE(std::string(env.args), args);
        QVERIFY(splitJobEnvelope(" { \"id\" : \"j\", \"kind\":\"archive\" ,\"args\": {\"a\":1} } \n", env));
        QCOMPARE(std::string(env.args), std::string("{\"a\":1}"));

        // Any other layout is left to the document parser.
        for (const std::string other :
             {R"({"kind":"ishard","id":"j","args":{}})", R"({"id":"j","kind":"ishard"})",
              R"({"id":"j","kind":"ishard","args":[]})", R"({"id":"j\u0041","kind":"k","args":{}})",
              R"({"id":"j","kind":"k","args":{})", R"({"id":"j","kind":"k","args":})"}) {
            QVERIFY2(!splitJobEnvelope(other, env), other.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestShardTaskCodec)
#include "test_shard_task_codec.moc"
