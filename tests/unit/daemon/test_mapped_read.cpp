// Reading a file through a mapping (readMapped): the bytes of a range that
// starts off a page boundary and spans several pieces come out as the file
// holds them; a sink's error stops the read; and a file cut short while it
// is read gives Corruption ("shorter than expected") instead of killing the
// process with SIGBUS, after which the process reads files as before.
#include "common/mapped_read.h"

#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon;

namespace {

std::string pattern(std::size_t n)
{
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7919 + i / 4096) & 0xff);
    return s;
}

int writeFile(const QString& path, const std::string& bytes)
{
    const int fd = ::open(path.toLocal8Bit().constData(), O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
    if (fd >= 0 && writeAll(fd, bytes.data(), bytes.size()) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

class TestMappedRead : public QObject {
    Q_OBJECT

private slots:
    void readsTheRangeAsTheFileHoldsIt()
    {
        QTemporaryDir dir;
        const auto bytes = pattern(3 * 1024 * 1024 + 123);
        const int fd = writeFile(dir.filePath("f"), bytes);
        QVERIFY(fd >= 0);
        for (const auto& [offset, length, piece] :
             std::vector<std::tuple<std::uint64_t, std::uint64_t, std::size_t>>{{0, bytes.size(), 256 * 1024},
                                                                                {4095, 1000000, 4096},
                                                                                {5000, bytes.size() - 5000, 99999},
                                                                                {bytes.size() - 1, 1, 1},
                                                                                {17, 0, 10}}) {
            std::string got;
            std::size_t calls = 0;
            auto st = readMapped(
                fd, offset, length,
                [&](const char* p, std::size_t n) {
                    if (n > piece) return api::Status(api::Error::internal("piece too big"));
                    got.append(p, n);
                    ++calls;
                    return api::Status{};
                },
                "test", piece);
            QVERIFY2(st.ok(), st.ok() ? "" : st.error().message.c_str());
            QVERIFY(got == bytes.substr(offset, length));
            QCOMPARE(calls, static_cast<std::size_t>((length + piece - 1) / piece));
        }
        // A range past the end: Corruption, as copyRange says it (this one
        // long enough to be mapped).
        auto past = readMapped(
            fd, bytes.size() - 10, kMapFrom + 5000, [](const char*, std::size_t) { return api::Status{}; }, "test");
        QVERIFY2(!past.ok(), "a range past the end read");
        QCOMPARE(past.kind(), api::ErrorKind::Corruption);
        ::close(fd);
    }

    void aSinkErrorStopsTheRead()
    {
        QTemporaryDir dir;
        const int fd = writeFile(dir.filePath("f"), pattern(1 << 20));
        QVERIFY(fd >= 0);
        int calls = 0;
        auto st = readMapped(
            fd, 0, 1 << 20,
            [&](const char*, std::size_t) {
                ++calls;
                return api::Status(api::Error::noSpace("full"));
            },
            "test", 4096);
        QCOMPARE(st.kind(), api::ErrorKind::NoSpace);
        QCOMPARE(calls, 1);
        ::close(fd);
    }

    // The file is truncated by another descriptor after the first piece:
    // the pages past its new end read as zeros, and the read fails.
    void aFileCutShortIsAnErrorNotACrash()
    {
        QTemporaryDir dir;
        const auto bytes = pattern(2 << 20);
        const int fd = writeFile(dir.filePath("f"), bytes);
        QVERIFY(fd >= 0);
        const int other = ::open(dir.filePath("f").toLocal8Bit().constData(), O_RDWR | O_CLOEXEC);
        QVERIFY(other >= 0);
        int calls = 0;
        auto st = readMapped(
            fd, 0, bytes.size(),
            [&](const char* p, std::size_t n) {
                volatile char sum = 0;
                for (std::size_t i = 0; i < n; ++i) sum = static_cast<char>(sum + p[i]);  // touch every page
                if (++calls == 1 && ::ftruncate(other, 8192) != 0) return api::Status(api::Error::internal("truncate"));
                return api::Status{};
            },
            "reading f", 64 * 1024);
        QCOMPARE(st.kind(), api::ErrorKind::Corruption);
        QVERIFY(st.error().message.find("reading f") != std::string::npos);
        QCOMPARE(calls, 2);  // the second piece faulted; the read stopped after it
        ::close(other);
        ::close(fd);

        // Later reads work as before: the file's rest, and a mapped one.
        for (const auto& [name, size] : std::vector<std::pair<QString, std::size_t>>{{"f", 8192}, {"g", 1 << 20}}) {
            int again = -1;
            if (name == "g") again = writeFile(dir.filePath(name), bytes.substr(0, size));
            else again = ::open(dir.filePath(name).toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC);
            QVERIFY(again >= 0);
            std::string got;
            auto ok = readMapped(
                again, 0, size,
                [&](const char* p, std::size_t n) {
                    got.append(p, n);
                    return api::Status{};
                },
                "test");
            QVERIFY(ok.ok());
            QVERIFY(got == bytes.substr(0, size));
            ::close(again);
        }
    }
};

QTEST_GUILESS_MAIN(TestMappedRead)
#include "test_mapped_read.moc"
