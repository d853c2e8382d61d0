#pragma once
// Waiting in console tests with a running event loop. QTest::qWaitFor
// processes events and then sleeps up to 10 ms between checks; Qt's HTTP
// thread hands each 16 KiB of an upload body to the main thread, so under
// qWaitFor an upload crawls at one chunk per sleep. This polls with a timer
// inside a QEventLoop instead, so transfers run at full speed.

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <functional>

namespace tessera::console::test {

// True once `done` holds; false after `timeoutMs`.
inline bool waitUntil(const std::function<bool()>& done, int timeoutMs)
{
    if (done()) return true;
    QEventLoop loop;
    QElapsedTimer clock;
    clock.start();
    QTimer poll;
    poll.setInterval(5);
    bool ok = false;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (done()) {
            ok = true;
            loop.quit();
        } else if (clock.elapsed() > timeoutMs) {
            loop.quit();
        }
    });
    poll.start();
    loop.exec();
    return ok;
}

}  // namespace tessera::console::test
