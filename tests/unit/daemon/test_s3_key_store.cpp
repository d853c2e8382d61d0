// S3 access keys in the user store: created with a random id and secret,
// listed without secrets, deleted by their own user only, gone with their
// user, kept across a reopen, and sealed: the database holds no secret in
// clear, a sealed secret opens only under its key file's key and only for
// its own access key, and the files are mode 0600.
#include "auth/secret_box.h"
#include "auth/user_store.h"
#include "sqlite/sqlite_db.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace tessera;
using tessera::daemon::auth::SecretBox;
using tessera::daemon::auth::UserStore;

namespace {

std::unique_ptr<SecretBox> boxFrom(const std::string& path)
{
    auto b = SecretBox::loadOrCreate(path);
    if (!b) qFatal("secret box: %s", b.error().message.c_str());
    return std::move(b.value());
}

unsigned modeOf(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return 0;
    return st.st_mode & 0777;
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

class TestS3KeyStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<UserStore> m_store;

    std::string path() const { return m_dir.filePath("users.db").toStdString(); }
    std::string keyPath() const { return m_dir.filePath("s3-secrets.key").toStdString(); }

    void reopen()
    {
        m_store.reset();
        auto s = UserStore::open(path(), boxFrom(keyPath()));
        if (!s) qFatal("open: %s", s.error().message.c_str());
        m_store = std::move(s.value());
    }

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_store.reset();
        for (const char* f : {"users.db", "users.db-wal", "users.db-shm", "s3-secrets.key"})
            QFile::remove(m_dir.filePath(f));
        reopen();
        QVERIFY(m_store->addUser("alice", "alice-password", false).ok());
        QVERIFY(m_store->addUser("bob", "bob-password", false).ok());
        QVERIFY(m_store->addUser("root", "root-password", true).ok());
    }

    void createListDelete()
    {
        auto k = m_store->createS3Key("alice", "training jobs");
        QVERIFY2(k.ok(), k.ok() ? "" : k.error().message.c_str());
        QCOMPARE(k->key.accessKey.size(), std::size_t{20});
        QCOMPARE(k->key.accessKey.substr(0, 2), std::string("TK"));
        QVERIFY(api::validateS3AccessKey(k->key.accessKey).ok());
        QCOMPARE(k->secretKey.size(), std::size_t{40});
        QCOMPARE(k->key.user, std::string("alice"));
        QCOMPARE(k->key.description, std::string("training jobs"));
        QVERIFY(k->key.createdAt > 1'700'000'000);
        auto other = m_store->createS3Key("alice", "");
        QVERIFY(other.ok());
        QVERIFY(other->key.accessKey != k->key.accessKey);
        QVERIFY(other->secretKey != k->secretKey);

        auto secret = m_store->s3Secret(k->key.accessKey);
        QVERIFY(secret.ok() && *secret);
        QCOMPARE((*secret)->secret, k->secretKey);
        QCOMPARE((*secret)->user, std::string("alice"));
        auto unknown = m_store->s3Secret("TKNOSUCHKEY");
        QVERIFY(unknown.ok() && !*unknown);

        auto mine = m_store->listS3Keys("alice");
        QVERIFY(mine.ok());
        QCOMPARE(mine->size(), std::size_t{2});
        QVERIFY((*mine)[0] == k->key || (*mine)[1] == k->key);
        auto bobs = m_store->listS3Keys("bob");
        QVERIFY(bobs.ok() && bobs->empty());
        QCOMPARE(m_store->listS3Keys("nobody").kind(), api::ErrorKind::NotFound);
        QCOMPARE(m_store->createS3Key("nobody", "").kind(), api::ErrorKind::NotFound);
        QCOMPARE(m_store->createS3Key("bob", std::string(257, 'x')).kind(), api::ErrorKind::BadRequest);

        // Only its own user's name deletes a key.
        QCOMPARE(m_store->deleteS3Key("bob", k->key.accessKey).kind(), api::ErrorKind::NotFound);
        QVERIFY(m_store->deleteS3Key("alice", k->key.accessKey).ok());
        QCOMPARE(m_store->deleteS3Key("alice", k->key.accessKey).kind(), api::ErrorKind::NotFound);
        auto gone = m_store->s3Secret(k->key.accessKey);
        QVERIFY(gone.ok() && !*gone);
        auto left = m_store->listS3Keys("alice");
        QVERIFY(left.ok());
        QCOMPARE(left->size(), std::size_t{1});
        QCOMPARE(left->front().accessKey, other->key.accessKey);
    }

    void listAllAndLimit()
    {
        QVERIFY(m_store->createS3Key("bob", std::string_view{}).ok());
        for (std::size_t i = 0; i < api::s3_key_limits::kMaxKeysPerUser; ++i) {
            QVERIFY(m_store->createS3Key("alice", "").ok());
        }
        QCOMPARE(m_store->createS3Key("alice", "").kind(), api::ErrorKind::Conflict);
        auto all = m_store->listS3Keys(std::string_view{});  // as the API passes "every key"
        QVERIFY(all.ok());
        QCOMPARE(all->size(), api::s3_key_limits::kMaxKeysPerUser + 1);
        QCOMPARE(all->front().user, std::string("alice"));  // by user
        QCOMPARE(all->back().user, std::string("bob"));
    }

    void deletingTheUserDeletesItsKeys()
    {
        auto k = m_store->createS3Key("bob", "");
        QVERIFY(k.ok());
        QVERIFY(m_store->deleteUser("bob").ok());
        auto gone = m_store->s3Secret(k->key.accessKey);
        QVERIFY(gone.ok() && !*gone);
        // A new "bob" does not inherit the old one's keys.
        QVERIFY(m_store->addUser("bob", "bob-password", false).ok());
        auto keys = m_store->listS3Keys("bob");
        QVERIFY(keys.ok() && keys->empty());
    }

    void sealedAtRestAndSurvivesReopen()
    {
        auto k = m_store->createS3Key("alice", "");
        QVERIFY(k.ok());
        reopen();
        auto back = m_store->s3Secret(k->key.accessKey);
        QVERIFY(back.ok() && *back);
        QCOMPARE((*back)->secret, k->secretKey);
        m_store.reset();
        // Neither the database nor its WAL holds the secret in clear.
        for (const auto& f : {path(), path() + "-wal"}) {
            QVERIFY2(slurp(f).find(k->secretKey) == std::string::npos, f.c_str());
        }
        QCOMPARE(modeOf(path()), 0600u);
        QCOMPARE(modeOf(keyPath()), 0600u);
        QCOMPARE(slurp(keyPath()).size(), std::size_t{65});  // 64 hex digits and a newline

        // Another key file: the sealed secret does not open (Corruption), and
        // the access key is never served with a wrong secret.
        QVERIFY(QFile::remove(QString::fromStdString(keyPath())));
        reopen();
        auto wrongKey = m_store->s3Secret(k->key.accessKey);
        QCOMPARE(wrongKey.kind(), api::ErrorKind::Corruption);
    }

    void aSealedSecretOpensOnlyForItsOwnKey()
    {
        auto box = SecretBox::fromKey(std::string(32, '\x07'));
        QVERIFY(box.ok());
        const auto sealed = (*box)->seal("the-secret", "TKAAAA");
        QVERIFY(sealed.find("the-secret") == std::string::npos);
        auto open = (*box)->open(sealed, "TKAAAA");
        QVERIFY(open.ok());
        QCOMPARE(*open, std::string("the-secret"));
        QCOMPARE((*box)->open(sealed, "TKBBBB").kind(), api::ErrorKind::Corruption);
        // Two seals of one secret differ (a random nonce each).
        QVERIFY((*box)->seal("the-secret", "TKAAAA") != sealed);
        std::string flipped = sealed;
        flipped[flipped.size() - 1] = flipped.back() == '0' ? '1' : '0';
        QCOMPARE((*box)->open(flipped, "TKAAAA").kind(), api::ErrorKind::Corruption);
        QCOMPARE((*box)->open("zz", "TKAAAA").kind(), api::ErrorKind::Corruption);
        QCOMPARE((*box)->open("", "TKAAAA").kind(), api::ErrorKind::Corruption);
        QCOMPARE(SecretBox::fromKey("short").kind(), api::ErrorKind::BadRequest);
    }

    void aDamagedKeyFileIsRefusedAndKept()
    {
        m_store.reset();
        {
            std::ofstream out(keyPath(), std::ios::trunc);
            out << "not hex\n";
        }
        auto b = SecretBox::loadOrCreate(keyPath());
        QCOMPARE(b.kind(), api::ErrorKind::Corruption);
        QCOMPARE(slurp(keyPath()), std::string("not hex\n"));
    }

    void withoutABoxS3KeysAreUnavailable()
    {
        m_store.reset();
        auto s = UserStore::open(path());
        QVERIFY(s.ok());
        QCOMPARE((*s)->createS3Key("alice", "").kind(), api::ErrorKind::Unavailable);
        QCOMPARE((*s)->s3Secret("TKAAAA").kind(), api::ErrorKind::Unavailable);
        QVERIFY((*s)->listS3Keys("alice").ok());
    }
};

QTEST_GUILESS_MAIN(TestS3KeyStore)
#include "test_s3_key_store.moc"
