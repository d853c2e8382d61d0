// LoginThrottle: five failures are free, then each doubles the wait up to
// the cap; a success clears it; name and address count together; old
// failures are forgotten; the table is bounded.
#include "auth/login_throttle.h"

#include <QTest>

using tessera::daemon::auth::LoginThrottle;
using namespace std::chrono_literals;

class TestLoginThrottle : public QObject {
    Q_OBJECT

private slots:
    void freeFailuresThenDoublingWaits()
    {
        LoginThrottle t;
        const auto t0 = LoginThrottle::Clock::now();
        for (int i = 0; i < 5; ++i) {
            QVERIFY(!t.wait("alice", "10.0.0.1", t0));
            t.failed("alice", "10.0.0.1", t0);
        }
        QVERIFY(!t.wait("alice", "10.0.0.1", t0));  // the fifth failure still costs nothing
        t.failed("alice", "10.0.0.1", t0);          // the sixth: 1 s
        QCOMPARE(t.wait("alice", "10.0.0.1", t0).value(), 1000ms);
        QVERIFY(!t.wait("alice", "10.0.0.1", t0 + 1s));
        t.failed("alice", "10.0.0.1", t0 + 1s);  // the seventh: 2 s
        QCOMPARE(t.wait("alice", "10.0.0.1", t0 + 1s).value(), 2000ms);
        QCOMPARE(t.wait("alice", "10.0.0.1", t0 + 1500ms).value(), 1500ms);
        auto at = t0 + 3s;
        for (int i = 0; i < 20; ++i) {
            t.failed("alice", "10.0.0.1", at);
            at += 1s;
        }
        // Capped at 5 minutes.
        QCOMPARE(t.wait("alice", "10.0.0.1", at - 1s).value(), 300000ms);
    }

    void nameAndAddressCountTogether()
    {
        LoginThrottle t;
        const auto t0 = LoginThrottle::Clock::now();
        for (int i = 0; i < 6; ++i) t.failed("alice", "10.0.0.1", t0);
        QVERIFY(t.wait("alice", "10.0.0.1", t0));
        QVERIFY(!t.wait("alice", "10.0.0.2", t0));  // alice at her own machine
        QVERIFY(!t.wait("bob", "10.0.0.1", t0));
        t.succeeded("alice", "10.0.0.1");
        QVERIFY(!t.wait("alice", "10.0.0.1", t0));
        QCOMPARE(t.size(), std::size_t{0});
    }

    void oldFailuresAreForgotten()
    {
        LoginThrottle t;
        const auto t0 = LoginThrottle::Clock::now();
        for (int i = 0; i < 5; ++i) t.failed("alice", "10.0.0.1", t0);
        t.failed("alice", "10.0.0.1", t0 + 16min);  // a first failure again
        QVERIFY(!t.wait("alice", "10.0.0.1", t0 + 16min));
    }

    void theTableIsBounded()
    {
        LoginThrottle::Options o;
        o.maxEntries = 3;
        LoginThrottle t(o);
        const auto t0 = LoginThrottle::Clock::now();
        for (int i = 0; i < 6; ++i) t.failed("first", "10.0.0.1", t0);
        for (int i = 0; i < 5; ++i) t.failed("u" + std::to_string(i), "10.0.0.1", t0 + std::chrono::seconds(i + 1));
        QCOMPARE(t.size(), std::size_t{3});
        QVERIFY(!t.wait("first", "10.0.0.1", t0));  // the oldest went first
    }
};

QTEST_GUILESS_MAIN(TestLoginThrottle)
#include "test_login_throttle.moc"
