// Argon2id password hashes: the right password verifies, any other does
// not, and the length policy is enforced on both sides.
#include "auth/password_hash.h"

#include <QTest>
#include <atomic>
#include <thread>
#include <vector>

using namespace tessera;
using tessera::daemon::auth::PasswordHash;

class TestPasswordHash : public QObject {
    Q_OBJECT

private slots:
    void verifiesOnlyTheRightPassword()
    {
        auto h = PasswordHash::hash("correct horse");
        QVERIFY(h.ok());
        // libsodium's encoded form names Argon2id and the INTERACTIVE parameters.
        QVERIFY(h->rfind("$argon2id$v=19$m=65536,t=2,p=1$", 0) == 0);
        QVERIFY(PasswordHash::verify(*h, "correct horse"));
        QVERIFY(!PasswordHash::verify(*h, "correct horsE"));
        QVERIFY(!PasswordHash::verify(*h, "correct horse "));
        QVERIFY(!PasswordHash::verify(*h, "wrong password"));
    }

    void saltsDiffer()
    {
        auto a = PasswordHash::hash("same password");
        auto b = PasswordHash::hash("same password");
        QVERIFY(a.ok() && b.ok());
        QVERIFY(*a != *b);
        QVERIFY(PasswordHash::verify(*a, "same password"));
        QVERIFY(PasswordHash::verify(*b, "same password"));
    }

    void lengthPolicy()
    {
        auto shortPw = PasswordHash::hash("1234567");
        QVERIFY(!shortPw.ok());
        QCOMPARE(shortPw.kind(), api::ErrorKind::BadRequest);
        QCOMPARE(shortPw.error().message, std::string("a password needs at least 8 bytes"));
        QVERIFY(PasswordHash::hash("12345678").ok());
        auto longPw = PasswordHash::hash(std::string(1025, 'x'));
        QCOMPARE(longPw.kind(), api::ErrorKind::BadRequest);
        QCOMPARE(longPw.error().message, std::string("a password has at most 1024 bytes"));
        auto h = PasswordHash::hash(std::string(1024, 'x'));
        QVERIFY(h.ok());
        QVERIFY(PasswordHash::verify(*h, std::string(1024, 'x')));
        QVERIFY(!PasswordHash::verify(*h, std::string(1025, 'x')));
    }

    void boundedConcurrency()
    {
        // Twice as many logins at once as there are slots: all of them get
        // the right answer, and never more than kMaxConcurrent hash at once.
        auto h = PasswordHash::hash("burst password");
        QVERIFY(h.ok());
        std::atomic<int> right{0};
        std::vector<std::thread> threads;
        for (int i = 0; i < 2 * PasswordHash::kMaxConcurrent; ++i) {
            threads.emplace_back([&, i] {
                if (PasswordHash::verify(*h, i % 2 ? "burst password" : "wrong password")) ++right;
            });
        }
        for (auto& t : threads) t.join();
        QCOMPARE(right.load(), PasswordHash::kMaxConcurrent);
        QVERIFY(PasswordHash::peakConcurrent() >= 1);
        QVERIFY(PasswordHash::peakConcurrent() <= PasswordHash::kMaxConcurrent);
    }

    void garbageHashNeverVerifies()
    {
        QVERIFY(!PasswordHash::verify("", "password1"));
        QVERIFY(!PasswordHash::verify("password1", "password1"));
        QVERIFY(!PasswordHash::verify("$argon2id$v=19$m=65536,t=2,p=1$AAAA$BBBB", "password1"));
        QVERIFY(!PasswordHash::verify(std::string(200, '$'), "password1"));
    }
};

QTEST_GUILESS_MAIN(TestPasswordHash)
#include "test_password_hash.moc"
