// The redirect signature: it verifies for exactly the request it was made
// for, until its expiry, and not after, nor for another method, bucket or
// object, nor under another key.
#include "auth/request_signature.h"

#include "api/uri.h"

#include <QTest>

using namespace tessera;
using tessera::daemon::auth::RequestSignature;

namespace {

struct Params {
    std::string sig;
    std::string exp;
};

Params split(const std::string& query)
{
    auto q = api::parseQuery(query);
    if (!q) qFatal("unparsable query %s", query.c_str());
    return {q->at("tsig"), q->at("texp")};
}

}  // namespace

class TestRequestSignature : public QObject {
    Q_OBJECT

private:
    const std::int64_t m_now = 1'700'000'000;

    static RequestSignature make(char fill)
    {
        auto s = RequestSignature::create(std::string(32, fill));
        if (!s) qFatal("create");
        return std::move(s.value());
    }

private slots:
    void goodSignature()
    {
        const auto s = make('a');
        const auto query = s.sign("GET", "imgs", "cats/1.jpg", m_now);
        const auto p = split(query);
        QCOMPARE(p.exp, std::to_string(m_now + RequestSignature::kDefaultLifetime));
        QCOMPARE(p.sig.size(), std::size_t{64});
        QVERIFY(s.verify("GET", "imgs", "cats/1.jpg", p.sig, p.exp, m_now).ok());
        QVERIFY(s.verify("GET", "imgs", "cats/1.jpg", p.sig, p.exp, m_now + 30).ok());
        // Bucket-level requests sign an empty object.
        const auto b = split(s.sign("DELETE", "imgs", "", m_now));
        QVERIFY(s.verify("DELETE", "imgs", "", b.sig, b.exp, m_now).ok());
    }

    void expired()
    {
        const auto s = make('a');
        const auto p = split(s.sign("PUT", "imgs", "x", m_now, 5));
        auto r = s.verify("PUT", "imgs", "x", p.sig, p.exp, m_now + 6);
        QCOMPARE(r.kind(), api::ErrorKind::Unauthorized);
        QCOMPARE(r.error().message, std::string("redirect signature refused: expired"));
    }

    void tampered()
    {
        const auto s = make('a');
        const auto p = split(s.sign("GET", "imgs", "cats/1.jpg", m_now));
        const std::string mismatch = "redirect signature refused: does not match the request";
        QCOMPARE(s.verify("PUT", "imgs", "cats/1.jpg", p.sig, p.exp, m_now).error().message, mismatch);
        QCOMPARE(s.verify("GET", "imgz", "cats/1.jpg", p.sig, p.exp, m_now).error().message, mismatch);
        QCOMPARE(s.verify("GET", "imgs", "cats/2.jpg", p.sig, p.exp, m_now).error().message, mismatch);
        // Moving bytes between bucket and object changes the signed text.
        QCOMPARE(s.verify("GET", "imgs/cats", "1.jpg", p.sig, p.exp, m_now).error().message, mismatch);
        // A later expiry with the same signature.
        QCOMPARE(s.verify("GET", "imgs", "cats/1.jpg", p.sig, std::to_string(m_now + 31), m_now).error().message,
                 mismatch);
        // Another cluster's key.
        QCOMPARE(make('b').verify("GET", "imgs", "cats/1.jpg", p.sig, p.exp, m_now).error().message, mismatch);
        std::string flipped = p.sig;
        flipped[0] = flipped[0] == '0' ? '1' : '0';
        QCOMPARE(s.verify("GET", "imgs", "cats/1.jpg", flipped, p.exp, m_now).error().message, mismatch);
        QCOMPARE(s.verify("GET", "imgs", "cats/1.jpg", "", p.exp, m_now).error().message, mismatch);
    }

    void limits()
    {
        const auto s = make('a');
        // A lifetime asked beyond the maximum is clamped when signing ...
        const auto p = split(s.sign("GET", "imgs", "x", m_now, 100'000));
        QCOMPARE(p.exp, std::to_string(m_now + RequestSignature::kMaxLifetime));
        // ... and an expiry beyond it is refused when verifying, even when
        // correctly signed (a signer with another limit).
        QCOMPARE(s.verify("GET", "imgs", "x", p.sig, p.exp, m_now - 1).error().message,
                 std::string("redirect signature refused: expiry beyond the maximum lifetime"));
        for (const char* bad : {"", "12a", "-5", "99999999999999999999", " 1"}) {
            QCOMPARE(s.verify("GET", "imgs", "x", p.sig, bad, m_now).error().message,
                     std::string("redirect signature refused: texp is not unix seconds"));
        }
        QCOMPARE(RequestSignature::create(std::string(31, 'k')).kind(), api::ErrorKind::BadRequest);
    }
};

QTEST_GUILESS_MAIN(TestRequestSignature)
#include "test_request_signature.moc"
