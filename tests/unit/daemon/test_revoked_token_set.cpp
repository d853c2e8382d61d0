// The revoked-token list that travels with the cluster metadata: entries
// leave when the token they name would have expired, the list holds at
// most kMaxRevokedTokens live entries, and a merge that would pass the
// limit changes nothing.
#include "auth/revoked_token_set.h"

#include <QTest>

using namespace tessera;
using tessera::daemon::auth::RevokedTokenSet;

namespace {
constexpr std::int64_t kNow = 1'700'000'000;
std::string jti(std::size_t i) { return "j" + std::to_string(i); }
}  // namespace

class TestRevokedTokenSet : public QObject {
    Q_OBJECT

private slots:
    void entriesLeaveWithTheirTokensExpiry()
    {
        RevokedTokenSet set;
        QVERIFY(set.add("a", kNow + 10, kNow).ok());
        QVERIFY(set.add("b", kNow + 100, kNow).ok());
        QVERIFY(set.contains("a") && set.contains("b"));
        // At kNow + 11 "a" would be refused as expired anyway: it goes.
        QVERIFY(set.add("c", kNow + 50, kNow + 11).ok());
        QVERIFY(!set.contains("a"));
        QCOMPARE(set.size(), std::size_t{2});
        QCOMPARE(set.exportList(), (api::RevokedTokens{{{"b", kNow + 100}, {"c", kNow + 50}}}));
    }

    void importMergesAndDropsTheExpired()
    {
        RevokedTokenSet set;
        QVERIFY(set.add("b", kNow + 100, kNow).ok());
        // "b" keeps the later expiry; "old" is already past and not kept.
        const api::RevokedTokens pushed{{{"b", kNow + 200}, {"old", kNow - 1}, {"new", kNow + 30}}};
        QVERIFY(set.importList(pushed, kNow).ok());
        QCOMPARE(set.exportList(), (api::RevokedTokens{{{"b", kNow + 200}, {"new", kNow + 30}}}));
    }

    void boundedSize()
    {
        constexpr auto kMax = api::auth_limits::kMaxRevokedTokens;
        RevokedTokenSet set;
        api::RevokedTokens many;
        for (std::size_t i = 0; i < kMax; ++i) many.tokens.push_back({jti(i), kNow + 60});
        QVERIFY(set.importList(many, kNow).ok());
        QCOMPARE(set.size(), kMax);
        auto full = set.add("one-more", kNow + 60, kNow);
        QCOMPARE(full.kind(), api::ErrorKind::Unavailable);
        QCOMPARE(full.error().message, std::string("the revoked-token list holds 100000 live entries"));
        // Re-revoking a listed token is not a new entry.
        QVERIFY(set.add(jti(7), kNow + 90, kNow).ok());
        // A merge past the limit is refused whole.
        QCOMPARE(set.importList(api::RevokedTokens{{{"x", kNow + 60}, {"y", kNow + 60}}}, kNow).kind(),
                 api::ErrorKind::Unavailable);
        QVERIFY(!set.contains("x"));
        QCOMPARE(set.size(), kMax);
        // Once those tokens expire there is room again.
        QVERIFY(set.add("after", kNow + 200, kNow + 61).ok());
        QCOMPARE(set.size(), std::size_t{2});  // jti(7), revoked again until kNow + 90, and "after"
    }
};

QTEST_GUILESS_MAIN(TestRevokedTokenSet)
#include "test_revoked_token_set.moc"
