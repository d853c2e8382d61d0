#include "core/backoff.h"

#include <QTest>

using namespace std::chrono_literals;
using tessera::console::Backoff;

class TestConsoleBackoff : public QObject {
    Q_OBJECT
private slots:
    void doublesUpToTheMaximumWithBoundedJitter()
    {
        Backoff backoff(100ms, 1000ms, 0.25);
        const std::chrono::milliseconds bases[] = {100ms, 200ms, 400ms, 800ms, 1000ms, 1000ms};
        for (const auto base : bases) {
            const auto delay = backoff.next();
            QVERIFY2(delay >= base, qPrintable(QString::number(delay.count())));
            QVERIFY2(delay <= base + base / 4, qPrintable(QString::number(delay.count())));
        }
        QCOMPARE(backoff.attempts(), 6);
    }

    void resetStartsAgain()
    {
        Backoff backoff(50ms, 400ms, 0.0);
        QCOMPARE(backoff.next(), 50ms);
        QCOMPARE(backoff.next(), 100ms);
        backoff.reset();
        QCOMPARE(backoff.attempts(), 0);
        QCOMPARE(backoff.next(), 50ms);
    }
};

QTEST_GUILESS_MAIN(TestConsoleBackoff)
#include "test_console_backoff.moc"
