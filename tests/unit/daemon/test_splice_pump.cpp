// SplicePump moves a relayed body between sockets with splice(2): every byte
// arrives in order, a full destination is a Wait (never a blocked call), a
// source that ends early or goes silent is an error, and a closed
// destination is ClientGone.
#include "net/splice_pump.h"

#include <QTest>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/time.h>
#include <thread>
#include <unistd.h>

using tessera::daemon::UniqueFd;
using tessera::daemon::net::SplicePump;

namespace {

struct Pair {
    UniqueFd a;
    UniqueFd b;
};

Pair socketPair()
{
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) qFatal("socketpair failed");
    return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void setReadTimeout(int fd, int ms)
{
    timeval tv{};
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

std::string pattern(std::size_t n)
{
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 4093) & 0xff);
    return s;
}

void writeAll(int fd, const std::string& data)
{
    std::size_t off = 0;
    while (off < data.size()) {
        const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n <= 0) return;
        off += static_cast<std::size_t>(n);
    }
}

std::string readAll(int fd)
{
    std::string out;
    char buf[65536];
    while (true) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) return out;
        out.append(buf, static_cast<std::size_t>(n));
    }
}

// Runs the pump to its end, waiting with poll() where the session would wait
// on its I/O thread. Returns the last step or error.
tessera::api::Result<SplicePump::Step> pumpAll(SplicePump& pump, int from, int to, std::uint64_t& left, int* waits)
{
    while (true) {
        auto step = pump.run(from, to, left, 256 * 1024);
        if (!step) return step;
        if (*step == SplicePump::Step::Wait) {
            ++*waits;
            pollfd p{to, POLLOUT, 0};
            if (::poll(&p, 1, 10'000) != 1) return tessera::api::Error::internal("destination never writable");
            continue;
        }
        if (*step == SplicePump::Step::More) continue;
        return step;
    }
}

}  // namespace

class TestSplicePump : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { std::signal(SIGPIPE, SIG_IGN); }

    void movesEveryByteInOrder()
    {
        const auto data = pattern(9 * 1024 * 1024 + 4321);  // several pipes' worth, not a multiple
        auto src = socketPair();
        auto dst = socketPair();
        setReadTimeout(src.a.get(), 10'000);
        QCOMPARE(::fcntl(dst.a.get(), F_SETFL, ::fcntl(dst.a.get(), F_GETFL) | O_NONBLOCK), 0);
        std::thread writer([&] {
            writeAll(src.b.get(), data);
            src.b.reset();
        });
        std::string got;
        std::thread reader([&] { got = readAll(dst.b.get()); });
        auto pump = SplicePump::create();
        QVERIFY(pump);
        std::uint64_t left = data.size();
        int waits = 0;
        auto end = pumpAll(*pump, src.a.get(), dst.a.get(), left, &waits);
        dst.a.reset();  // the reader sees the end
        writer.join();
        reader.join();
        QVERIFY2(end, end ? "" : end.error().message.c_str());
        QCOMPARE(*end, SplicePump::Step::Done);
        QCOMPARE(left, std::uint64_t{0});
        QCOMPARE(got.size(), data.size());
        QVERIFY(got == data);
    }

    void stopsAtTheLengthAndWaitsWhenTheDestinationIsFull()
    {
        // Nobody reads the destination at first: the pump must say Wait, not
        // block; and it must not take more than `left` from the source.
        const auto data = pattern(4 * 1024 * 1024);
        auto src = socketPair();
        auto dst = socketPair();
        setReadTimeout(src.a.get(), 10'000);
        QCOMPARE(::fcntl(dst.a.get(), F_SETFL, ::fcntl(dst.a.get(), F_GETFL) | O_NONBLOCK), 0);
        std::thread writer([&] { writeAll(src.b.get(), data + "TRAILING"); });
        auto pump = SplicePump::create();
        QVERIFY(pump);
        std::uint64_t left = data.size();
        auto first = pump->run(src.a.get(), dst.a.get(), left, 64 * 1024 * 1024);
        QVERIFY(first);
        QCOMPARE(*first, SplicePump::Step::Wait);
        QVERIFY(left > 0);
        std::string got;
        std::thread reader([&] { got = readAll(dst.b.get()); });
        int waits = 0;
        auto end = pumpAll(*pump, src.a.get(), dst.a.get(), left, &waits);
        dst.a.reset();
        reader.join();
        writer.join();
        QVERIFY(end);
        QCOMPARE(*end, SplicePump::Step::Done);
        QVERIFY(got == data);
        char rest[16] = {};
        QCOMPARE(::read(src.a.get(), rest, sizeof rest), ssize_t{8});  // the bytes past the length stay
        QCOMPARE(std::string(rest, 8), std::string("TRAILING"));
    }

    void sourceEndingEarlyIsAnError()
    {
        auto src = socketPair();
        auto dst = socketPair();
        setReadTimeout(src.a.get(), 10'000);
        QCOMPARE(::fcntl(dst.a.get(), F_SETFL, ::fcntl(dst.a.get(), F_GETFL) | O_NONBLOCK), 0);
        writeAll(src.b.get(), pattern(1000));
        src.b.reset();
        auto pump = SplicePump::create();
        QVERIFY(pump);
        std::uint64_t left = 5000;
        int waits = 0;
        auto end = pumpAll(*pump, src.a.get(), dst.a.get(), left, &waits);
        QVERIFY(!end);
        QCOMPARE(end.error().kind, tessera::api::ErrorKind::Unavailable);
        QVERIFY2(end.error().message.find("ended early") != std::string::npos, end.error().message.c_str());
        QCOMPARE(left, std::uint64_t{4000});
    }

    void silentSourceTimesOut()
    {
        auto src = socketPair();
        auto dst = socketPair();
        setReadTimeout(src.a.get(), 150);
        QCOMPARE(::fcntl(dst.a.get(), F_SETFL, ::fcntl(dst.a.get(), F_GETFL) | O_NONBLOCK), 0);
        auto pump = SplicePump::create();
        QVERIFY(pump);
        std::uint64_t left = 100;
        auto step = pump->run(src.a.get(), dst.a.get(), left, 1 << 20);
        QVERIFY(!step);
        QVERIFY2(step.error().message.find("silent") != std::string::npos, step.error().message.c_str());
    }

    void closedDestinationIsClientGone()
    {
        auto src = socketPair();
        auto dst = socketPair();
        setReadTimeout(src.a.get(), 10'000);
        QCOMPARE(::fcntl(dst.a.get(), F_SETFL, ::fcntl(dst.a.get(), F_GETFL) | O_NONBLOCK), 0);
        writeAll(src.b.get(), pattern(64 * 1024));
        dst.b.reset();
        auto pump = SplicePump::create();
        QVERIFY(pump);
        std::uint64_t left = 64 * 1024;
        auto step = pump->run(src.a.get(), dst.a.get(), left, 1 << 20);
        QVERIFY(step);
        QCOMPARE(*step, SplicePump::Step::ClientGone);
    }
};

QTEST_GUILESS_MAIN(TestSplicePump)
#include "test_splice_pump.moc"
