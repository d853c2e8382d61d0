// Event detection from successive observations: joins and leaves, stale
// and recovered nodes, mountpath thresholds both ways, checksum errors,
// error bursts with their quiet period.
#include "proxy/event_detector.h"

#include <QTest>

using namespace tessera;
using tessera::daemon::proxy::EventDetector;

namespace {
api::Snode target(const std::string& id)
{
    api::Snode n;
    n.id = id;
    n.type = "target";
    n.publicNet.url = "http://127.0.0.1:1/" + id;
    return n;
}

api::NodeMetrics node(const std::string& id, std::uint64_t used = 10)
{
    api::NodeMetrics m;
    m.id = id;
    m.role = "target";
    m.mountpaths.push_back({"/mp", 100, used, 100 - used, api::mountpathStateFor(100, used), {}, -1, {}});
    return m;
}

std::vector<std::string> kinds(const std::vector<api::ClusterEvent>& ev)
{
    std::vector<std::string> out;
    for (const auto& e : ev) out.push_back(e.kind);
    return out;
}
}  // namespace

class TestEventDetector : public QObject {
    Q_OBJECT

private slots:
    void joinsAndLeaves()
    {
        EventDetector d(10);
        api::Smap a, b;
        a.version = 1;
        a.tmap["t1"] = target("t1");
        b.version = 2;
        b.tmap["t2"] = target("t2");
        const auto ev = d.smapChanged(a, b, 1000);
        QCOMPARE(kinds(ev), (std::vector<std::string>{"node_joined", "node_left"}));
        QCOMPARE(ev[0].node, std::string("t2"));
        QCOMPARE(ev[0].severity, std::string("info"));
        QCOMPARE(ev[1].node, std::string("t1"));
        QCOMPARE(ev[1].severity, std::string("warning"));
        QCOMPARE(ev[1].tsMs, std::int64_t{1000});
        QVERIFY(d.smapChanged(b, b, 1001).empty());
    }

    void awayAndBack()
    {
        EventDetector d(10);
        api::Smap a, b;
        a.version = 1;
        a.tmap["t1"] = target("t1");
        b = a;
        b.version = 2;
        b.tmap["t1"].flags |= api::kSnodeAway;
        auto ev = d.smapChanged(a, b, 1000);
        QCOMPARE(kinds(ev), std::vector<std::string>{"node_away"});
        QCOMPARE(ev[0].severity, std::string("error"));
        QVERIFY(ev[0].message.find("503") != std::string::npos);
        QVERIFY(d.smapChanged(b, b, 1001).empty());
        ev = d.smapChanged(b, a, 1002);
        QCOMPARE(kinds(ev), std::vector<std::string>{"node_back"});
        QCOMPARE(ev[0].severity, std::string("info"));
    }

    // A planned decommission: once when flagged, then node_left when it is out.
    void leavingThenLeft()
    {
        EventDetector d(10);
        api::Smap a, b, c;
        a.version = 1;
        a.tmap["t1"] = target("t1");
        a.tmap["t2"] = target("t2");
        b = a;
        b.version = 2;
        b.tmap["t1"].flags |= api::kSnodeDecommissioning;
        auto ev = d.smapChanged(a, b, 1000);
        QCOMPARE(kinds(ev), std::vector<std::string>{"node_leaving"});
        QCOMPARE(ev[0].node, std::string("t1"));
        QCOMPARE(ev[0].severity, std::string("info"));
        QVERIFY2(ev[0].message.find("move to the other targets") != std::string::npos, ev[0].message.c_str());
        QVERIFY(d.smapChanged(b, b, 1001).empty());
        c = b;
        c.version = 3;
        c.tmap.erase("t1");
        QCOMPARE(kinds(d.smapChanged(b, c, 1002)), std::vector<std::string>{"node_left"});
    }

    void staleAndRecovered()
    {
        EventDetector d(10);
        auto n = node("t1");
        QVERIFY(d.observe({n}, 1).empty());
        n.stale = true;
        n.ageMs = 1600;
        auto ev = d.observe({n}, 2);
        QCOMPARE(kinds(ev), std::vector<std::string>{"node_stale"});
        QVERIFY(ev[0].message.find("1600 ms") != std::string::npos);
        QVERIFY(d.observe({n}, 3).empty());  // reported once
        n.stale = false;
        QCOMPARE(kinds(d.observe({n}, 4)), std::vector<std::string>{"node_recovered"});
    }

    void mountpathThresholdsBothWays()
    {
        EventDetector d(10);
        QVERIFY(d.observe({node("t1", 50)}, 1).empty());
        auto ev = d.observe({node("t1", 86)}, 2);
        QCOMPARE(kinds(ev), std::vector<std::string>{"mountpath_nearly_full"});
        QCOMPARE(ev[0].mountpath, std::string("/mp"));
        QCOMPARE(ev[0].severity, std::string("warning"));
        QVERIFY(d.observe({node("t1", 88)}, 3).empty());  // same state: quiet
        ev = d.observe({node("t1", 96)}, 4);
        QCOMPARE(kinds(ev), std::vector<std::string>{"mountpath_full"});
        QCOMPARE(ev[0].severity, std::string("error"));
        ev = d.observe({node("t1", 90)}, 5);
        QCOMPARE(kinds(ev), std::vector<std::string>{"mountpath_nearly_full"});
        QCOMPARE(ev[0].severity, std::string("info"));  // better, not worse
        QCOMPARE(kinds(d.observe({node("t1", 20)}, 6)), std::vector<std::string>{"mountpath_ok"});
        // Already full when first seen: reported.
        EventDetector fresh(10);
        QCOMPARE(kinds(fresh.observe({node("t9", 99)}, 1)), std::vector<std::string>{"mountpath_full"});
    }

    void checksumErrorsOnIncreaseOnly()
    {
        EventDetector d(10);
        auto n = node("t1");
        n.checksumErrors = 4;  // from before the proxy watched: not news
        QVERIFY(d.observe({n}, 1).empty());
        n.checksumErrors = 6;
        auto ev = d.observe({n}, 2);
        QCOMPARE(kinds(ev), std::vector<std::string>{"checksum_error"});
        QVERIFY(ev[0].message.rfind("2 GET(s)", 0) == 0);
        QVERIFY(d.observe({n}, 3).empty());
    }

    void errorBurstsWithQuietPeriod()
    {
        EventDetector d(10, 10000);
        auto n = node("t1");
        n.ops[0].errorsPerSec = 4;
        n.ops[1].errorsPerSec = 5.9;
        QVERIFY(d.observe({n}, 1000).empty());  // 9.9/s: under
        n.ops[1].errorsPerSec = 6;
        QCOMPARE(kinds(d.observe({n}, 2000)), std::vector<std::string>{"error_burst"});
        QVERIFY(d.observe({n}, 5000).empty());  // within the quiet period
        QCOMPARE(kinds(d.observe({n}, 12000)), std::vector<std::string>{"error_burst"});
        EventDetector off(0);
        n.ops[0].errorsPerSec = 1e6;
        QVERIFY(off.observe({n}, 1).empty());
    }

    void staleNodesFiguresAreIgnored()
    {
        EventDetector d(10);
        auto n = node("t1", 10);
        QVERIFY(d.observe({n}, 1).empty());
        n = node("t1", 99);
        n.stale = true;
        QCOMPARE(kinds(d.observe({n}, 2)), std::vector<std::string>{"node_stale"});
    }
};

QTEST_APPLESS_MAIN(TestEventDetector)
#include "test_event_detector.moc"
