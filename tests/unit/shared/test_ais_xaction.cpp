// AIStore's xaction messages (api/ais_xaction.h): the query/args message is
// read in every form AIStore's clients send it (Go's QueryMsg and ArgsMsg,
// the Python SDK's JobArgs.as_dict(), any case), the answers round-trip and
// are read strictly, and a Tessera job maps onto snaps and a status as
// documented.
#include "api/ais_xaction.h"
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

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kT0 = 1'780'000'000 * kSec;

JobStatus job(JobState state)
{
    JobStatus st;
    st.id = "job-7";
    st.kind = "dsort";
    st.state = state;
    st.startNs = kT0;
    if (isFinal(state)) st.endNs = kT0 + 5 * kSec;
    TargetJobStatus t1;
    t1.id = st.id;
    t1.kind = st.kind;
    t1.target = "t1";
    t1.state = state;
    t1.startNs = kT0 + 1;
    t1.endNs = isFinal(state) ? kT0 + 4 * kSec : 0;
    t1.progress.objectsDone = 12;
    t1.progress.bytesDone = 3456;
    st.targets.emplace("t1", t1);
    return st;
}

}  // namespace

class TestAisXaction : public QObject {
    Q_OBJECT

private slots:
    void argsFromGoQueryMsg()
    {
        // xact.QueryMsg as api.QueryXactionSnaps marshals it.
        const auto body = R"({"show_active":true,"bck":{"name":"","provider":"","namespace":{"uuid":"","name":""}},
                              "id":"job-7","kind":"dsort","node":"t2"})";
        auto a = parseAisXactArgs(body, "q");
        QVERIFY2(a, a ? "" : a.error().message.c_str());
        QCOMPARE(a->id, std::string("job-7"));
        QCOMPARE(a->kind, std::string("dsort"));
        QCOMPARE(a->node, std::string("t2"));
        QVERIFY(a->onlyRunning);
        QVERIFY(!a->bck.has_value());  // Go's zero cmn.Bck is no bucket
        // And back: what the Go client would send.
        auto back = parseAisXactArgs(json(*a).dump(), "q");
        QVERIFY(back);
        QCOMPARE(*back, *a);
    }

    void argsFromGoArgsMsg()
    {
        // xact.ArgsMsg has no JSON tags: Go writes the field names.
        const auto body = R"({"ID":"","Kind":"rebalance","DaemonID":"","Bck":{"name":"b","provider":"ais",
                              "namespace":{"uuid":"","name":""}},"Buckets":null,"Timeout":0,"Force":true,
                              "OnlyRunning":false,"flags":2})";
        auto a = parseAisXactArgs(body, "v");
        QVERIFY2(a, a ? "" : a.error().message.c_str());
        QCOMPARE(a->kind, std::string("rebalance"));
        QVERIFY(a->bck.has_value());
        QCOMPARE(a->bck->name, std::string("b"));
        QVERIFY(a->force);
        QCOMPARE(a->flags, 2u);
    }

    void argsFromPythonSdk()
    {
        // aistore/sdk/types.py JobArgs.as_dict(), sent as the body of
        // what=status and what=qryxstats.
        const json j = {{"ID", "job-7"}, {"Kind", ""}, {"DaemonID", ""}, {"Bck", nullptr}, {"Buckets", nullptr}};
        auto a = readAisXactArgs(j, "sdk");
        QVERIFY2(a, a ? "" : a.error().message.c_str());
        QCOMPARE(a->id, std::string("job-7"));
        QVERIFY(a->kind.empty());
        QVERIFY(!a->bck.has_value());
        // Go matches keys in any case.
        auto mixed = readAisXactArgs(json{{"Id", "x"}, {"KIND", "dsort"}, {"Show_Active", true}}, "m");
        QVERIFY(mixed);
        QCOMPARE(mixed->id, std::string("x"));
        QCOMPARE(mixed->kind, std::string("dsort"));
        QVERIFY(mixed->onlyRunning);
    }

    void argsRefusals()
    {
        // An empty body (curl without -d) is every default.
        auto empty = parseAisXactArgs("  \n", "q");
        QVERIFY(empty);
        QCOMPARE(*empty, AisXactArgs{});
        auto unknown = parseAisXactArgs(R"({"id":"a","uuid":"b"})", "q");
        QVERIFY(!unknown);
        QCOMPARE(unknown.error().message, std::string("q: /uuid: unknown field"));
        auto wrong = parseAisXactArgs(R"({"kind":7})", "q");
        QVERIFY(!wrong);
        QCOMPARE(wrong.error().message, std::string("q: /kind: must be a string"));
        auto notObject = parseAisXactArgs("[1]", "q");
        QVERIFY(!notObject);
        QCOMPARE(notObject.error().message, std::string("q: must be a JSON object"));
        QVERIFY(!parseAisXactArgs("{", "q"));
    }

    void snapRoundTripAndStrictness()
    {
        auto s = aisXactSnap(job(JobState::Finished), job(JobState::Finished).targets.at("t1"));
        s.ctlMsg = "ctl";
        QCOMPARE(roundTrip(s, "snap"), s);
        json j = s;
        QVERIFY(j.at("ext").is_null());
        QVERIFY(j.at("glob.id") == json("0"));
        QVERIFY(j.at("stats").at("loc-objs") == json("12"));
        QVERIFY(j.at("stats").at("loc-bytes") == json("3456"));
        QVERIFY(j.at("bck") == json::parse(R"({"name":"","provider":"","namespace":{"uuid":"","name":""}})"));
        // A number where Go writes a string is refused; so is an unknown field.
        json bad = j;
        bad["stats"]["loc-objs"] = 12;
        QVERIFY(!readMessage<AisXactSnap>(bad, "snap"));
        bad = j;
        bad["progress"] = 1;
        QVERIFY(!readMessage<AisXactSnap>(bad, "snap"));
        // ctlmsg is omitted when empty.
        s.ctlMsg.clear();
        QVERIFY(!json(s).contains("ctlmsg"));
    }

    void snapOfARunningPart()
    {
        const auto st = job(JobState::Running);
        const auto s = aisXactSnap(st, st.targets.at("t1"));
        QCOMPARE(s.id, std::string("job-7"));
        QCOMPARE(s.kind, std::string("dsort"));
        QCOMPARE(s.startTime.unixNs, kT0 + 1);
        QCOMPARE(s.endTime.unixNs, std::int64_t{0});  // Go's zero time
        QVERIFY(json(s).at("end-time") == json("0001-01-01T00:00:00Z"));
        QVERIFY(!s.aborted);
        QVERIFY(!s.idle);
    }

    void snapOfAFailedPart()
    {
        auto st = job(JobState::Failed);
        st.targets.at("t1").error = "disk full";
        const auto s = aisXactSnap(st, st.targets.at("t1"));
        QVERIFY(s.aborted);
        QCOMPARE(s.abortErr, std::string("disk full"));
        QCOMPARE(s.endTime.unixNs, kT0 + 4 * kSec);
        QVERIFY(s.idle);
    }

    void statusOfAJob()
    {
        const auto running = aisXactStatus(job(JobState::Running));
        QCOMPARE(running.uuid, std::string("job-7"));
        QCOMPARE(running.kind, std::string("dsort"));
        QCOMPARE(running.endTime, std::int64_t{0});
        QVERIFY(!running.aborted);
        QVERIFY(!json(running).contains("is_idle"));
        QCOMPARE(roundTrip(running, "status"), running);

        const auto done = aisXactStatus(job(JobState::Finished));
        QCOMPARE(done.endTime, kT0 + 5 * kSec);
        QVERIFY(done.err.empty());
        QVERIFY(!done.aborted);
        QCOMPARE(roundTrip(done, "status"), done);

        auto abortedJob = job(JobState::Aborted);
        const auto aborted = aisXactStatus(abortedJob);
        QVERIFY(aborted.aborted);
        QCOMPARE(aborted.err, std::string("aborted"));
        abortedJob.state = JobState::Failed;
        abortedJob.error = "target t1 left";
        QCOMPARE(aisXactStatus(abortedJob).err, std::string("target t1 left"));
        // end_time is a JSON number (int64, no `,string` tag).
        QVERIFY(!readMessage<AisXactStatus>(
            json{{"kind", "k"}, {"uuid", "u"}, {"err", ""}, {"end_time", "1"}, {"aborted", false}}, "status"));
    }

    void selection()
    {
        const auto running = job(JobState::Running);
        const auto done = job(JobState::Finished);
        AisXactArgs q;
        QVERIFY(aisXactSelects(q, running));
        q.kind = "dsort";
        QVERIFY(aisXactSelects(q, done));
        q.kind = "rebalance";
        QVERIFY(!aisXactSelects(q, done));
        q = {};
        q.id = "job-8";
        QVERIFY(!aisXactSelects(q, done));
        q = {};
        q.onlyRunning = true;
        QVERIFY(aisXactSelects(q, running));
        QVERIFY(!aisXactSelects(q, done));
        QCOMPARE(aisXactName(done), std::string("dsort[job-7]"));
    }
};

QTEST_APPLESS_MAIN(TestAisXaction)
#include "test_ais_xaction.moc"
