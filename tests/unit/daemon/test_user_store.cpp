// Users and per-bucket grants in SQLite: the grant/revoke/check matrix,
// the error kinds (Conflict, NotFound, BadRequest, Unauthorized), the last
// admin kept, and everything still there after reopening the database.
#include "auth/user_store.h"

#include <QTemporaryDir>
#include <QTest>

using namespace tessera;
using tessera::api::Permission;
using tessera::daemon::auth::UserStore;

class TestUserStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<UserStore> m_store;

    std::string path() const { return m_dir.filePath("auth/users.db").toStdString(); }

    bool can(const char* user, const char* bucket, Permission p)
    {
        auto r = m_store->check(user, bucket, p);
        if (!r) qFatal("check(%s, %s) failed: %s", user, bucket, r.error().message.c_str());
        return *r;
    }

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QFile::remove(QString::fromStdString(path()));
        m_store.reset();
        auto s = UserStore::open(path());
        QVERIFY(s.ok());
        m_store = std::move(s.value());
    }

    void addAndAuthenticate()
    {
        QVERIFY(m_store->addUser("alice", "alice-password", false).ok());
        auto again = m_store->addUser("alice", "other-password", true);
        QCOMPARE(again.kind(), api::ErrorKind::Conflict);
        QCOMPARE(m_store->addUser("bad name", "password1", false).kind(), api::ErrorKind::BadRequest);
        QCOMPARE(m_store->addUser("bob", "short", false).kind(), api::ErrorKind::BadRequest);

        auto ok = m_store->authenticate("alice", "alice-password");
        QVERIFY(ok.ok());
        QCOMPARE(ok->name, std::string("alice"));
        QCOMPARE(ok->admin, false);
        // Wrong password and unknown user: the same kind and message.
        auto wrong = m_store->authenticate("alice", "other-password");
        auto unknown = m_store->authenticate("nobody", "alice-password");
        QCOMPARE(wrong.kind(), api::ErrorKind::Unauthorized);
        QCOMPARE(unknown.kind(), api::ErrorKind::Unauthorized);
        QCOMPARE(wrong.error().message, unknown.error().message);

        QVERIFY(m_store->setPassword("alice", "new-password").ok());
        QCOMPARE(m_store->authenticate("alice", "alice-password").kind(), api::ErrorKind::Unauthorized);
        QVERIFY(m_store->authenticate("alice", "new-password").ok());
        QCOMPARE(m_store->setPassword("nobody", "new-password").kind(), api::ErrorKind::NotFound);
    }

    void grantRevokeCheckMatrix()
    {
        QVERIFY(m_store->addUser("root", "root-password", true).ok());
        QVERIFY(m_store->addUser("reader", "reader-password", false).ok());
        QVERIFY(m_store->addUser("writer", "writer-password", false).ok());
        QVERIFY(m_store->grant("reader", {"imgs", {Permission::Read, Permission::List}}).ok());
        QVERIFY(m_store->grant("writer", {"*", {Permission::Write}}).ok());
        QVERIFY(m_store->grant("writer", {"logs", {Permission::Read, Permission::Delete}}).ok());

        struct Row {
            const char* user;
            const char* bucket;
            bool expected[5];  // read, list, write, delete, admin-bucket
        };
        const Row matrix[] = {
            {"root", "imgs", {true, true, true, true, true}},
            {"root", "other", {true, true, true, true, true}},
            {"reader", "imgs", {true, true, false, false, false}},
            {"reader", "logs", {false, false, false, false, false}},
            {"writer", "imgs", {false, false, true, false, false}},
            {"writer", "logs", {true, false, true, true, false}},
        };
        for (const auto& row : matrix) {
            for (std::size_t i = 0; i < 5; ++i) {
                const auto p = api::kAllPermissions[i];
                if (can(row.user, row.bucket, p) != row.expected[i]) {
                    QFAIL(qPrintable(QString("%1 on %2: %3 should be %4")
                                         .arg(row.user, row.bucket, QString::fromUtf8(api::permissionName(p).data()))
                                         .arg(row.expected[i])));
                }
            }
        }

        // Revoking is exact: "*" on "*", one permission at a time.
        QCOMPARE(m_store->revoke("writer", "imgs", Permission::Write).kind(), api::ErrorKind::NotFound);
        QVERIFY(m_store->revoke("writer", "*", Permission::Write).ok());
        QVERIFY(!can("writer", "imgs", Permission::Write));
        QVERIFY(can("writer", "logs", Permission::Read));
        QCOMPARE(m_store->revoke("writer", "*", Permission::Write).kind(), api::ErrorKind::NotFound);
        QVERIFY(m_store->revoke("reader", "imgs", Permission::List).ok());
        QVERIFY(can("reader", "imgs", Permission::Read));
        QVERIFY(!can("reader", "imgs", Permission::List));

        // Unknown users and bad buckets.
        QCOMPARE(m_store->check("nobody", "imgs", Permission::Read).kind(), api::ErrorKind::NotFound);
        QCOMPARE(m_store->grant("nobody", {"imgs", {Permission::Read}}).kind(), api::ErrorKind::NotFound);
        QCOMPARE(m_store->revoke("nobody", "imgs", Permission::Read).kind(), api::ErrorKind::NotFound);
        QCOMPARE(m_store->grant("reader", {"BAD..name", {Permission::Read}}).kind(), api::ErrorKind::BadRequest);
        QCOMPARE(m_store->grant("reader", {"imgs", {}}).kind(), api::ErrorKind::BadRequest);

        // The user as listed, grants by bucket, permissions in declared order.
        auto w = m_store->user("writer");
        QVERIFY(w.ok());
        QCOMPARE(w->grants.size(), std::size_t{1});
        QCOMPARE(w->grants[0], (api::Grant{"logs", {Permission::Read, Permission::Delete}}));
        auto all = m_store->listUsers();
        QVERIFY(all.ok());
        QCOMPARE(all->size(), std::size_t{3});
        QCOMPARE((*all)[0].name, std::string("reader"));
        QCOMPARE((*all)[1].name, std::string("root"));
        QCOMPARE((*all)[1].admin, true);
        QCOMPARE((*all)[2].name, std::string("writer"));
    }

    void deleteAndLastAdmin()
    {
        QVERIFY(m_store->addUser("root", "root-password", true).ok());
        QVERIFY(m_store->addUser("carol", "carol-password", false).ok());
        QVERIFY(m_store->grant("carol", {"imgs", {Permission::Read}}).ok());
        QCOMPARE(m_store->deleteUser("root").kind(), api::ErrorKind::Conflict);
        QCOMPARE(m_store->setAdmin("root", false).kind(), api::ErrorKind::Conflict);
        QVERIFY(m_store->setAdmin("carol", true).ok());
        QVERIFY(m_store->setAdmin("root", false).ok());
        QVERIFY(m_store->setAdmin("root", true).ok());
        QVERIFY(m_store->deleteUser("carol").ok());
        QCOMPARE(m_store->deleteUser("carol").kind(), api::ErrorKind::NotFound);
        QCOMPARE(m_store->user("carol").kind(), api::ErrorKind::NotFound);
        // A new user of the same name starts without the old grants.
        QVERIFY(m_store->addUser("carol", "carol-password", false).ok());
        QVERIFY(!can("carol", "imgs", Permission::Read));
    }

    void survivesReopen()
    {
        QVERIFY(m_store->addUser("dave", "dave-password", false).ok());
        QVERIFY(m_store->grant("dave", {"imgs", {Permission::Write}}).ok());
        m_store.reset();
        auto s = UserStore::open(path());
        QVERIFY(s.ok());
        m_store = std::move(s.value());
        QVERIFY(m_store->authenticate("dave", "dave-password").ok());
        QVERIFY(can("dave", "imgs", Permission::Write));
    }

    void tokenKeysSurviveReopen()
    {
        auto none = m_store->tokenKeys();
        QVERIFY(none.ok());
        QVERIFY(!*none);
        const api::TokenKeyRing ring{2, {"cluster-v1", "0011223344556677"}};
        QVERIFY(m_store->saveTokenKeys(ring).ok());
        const api::TokenKeyRing next{3, {"0011223344556677"}};
        QVERIFY(m_store->saveTokenKeys(next).ok());  // replaces, one row
        m_store.reset();
        auto s = UserStore::open(path());
        QVERIFY(s.ok());
        m_store = std::move(s.value());
        auto back = m_store->tokenKeys();
        QVERIFY(back.ok() && *back);
        QCOMPARE(**back, next);
    }

    void revokedTokensSurviveReopen()
    {
        auto none = m_store->revokedTokens();
        QVERIFY(none.ok());
        QVERIFY(!*none);
        api::RevokedTokens list;
        list.tokens.push_back({"jti-1", 1'800'000'000});
        QVERIFY(m_store->saveRevokedTokens(list).ok());
        list.tokens.push_back({"jti-2", 1'800'000'100});
        QVERIFY(m_store->saveRevokedTokens(list).ok());  // replaces, one row
        m_store.reset();
        auto s = UserStore::open(path());
        QVERIFY(s.ok());
        m_store = std::move(s.value());
        auto back = m_store->revokedTokens();
        QVERIFY(back.ok() && *back);
        QCOMPARE(**back, list);
    }
};

QTEST_GUILESS_MAIN(TestUserStore)
#include "test_user_store.moc"
