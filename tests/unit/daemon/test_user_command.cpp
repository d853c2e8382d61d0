// `tessera-node ... user ...` on the proxy's host: how the first admin comes
// to exist. Exit statuses (0 done, 1 refused, 2 usage), the password read
// from stdin only, and what the store holds afterwards.
#include "app/node_auth.h"
#include "app/user_command.h"

#include <QTemporaryDir>
#include <QTest>
#include <sstream>

using namespace tessera;
using namespace tessera::daemon;

class TestUserCommand : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    Config m_config;

    struct Outcome {
        int status = -1;
        std::string out;
        std::string err;
    };

    Outcome run(std::vector<std::string> args, const std::string& stdinText = {})
    {
        std::istringstream in(stdinText);
        std::ostringstream out;
        std::ostringstream err;
        Outcome o;
        o.status = runUserCommand(m_config, args, in, out, err);
        o.out = out.str();
        o.err = err.str();
        return o;
    }

private slots:
    void initTestCase()
    {
        m_config.role = "proxy";
        m_config.dataDir = m_dir.path().toStdString();
    }

    void findsTheCommandWord()
    {
        std::vector<std::string> words{"tessera-node", "--role", "proxy", "user", "ls"};
        std::vector<char*> argv;
        for (auto& w : words) argv.push_back(w.data());
        QCOMPARE(userCommandIndex(static_cast<int>(argv.size()), argv.data()), std::optional<int>(3));
        QCOMPARE(userCommandIndex(3, argv.data()), std::optional<int>());
    }

    void addFirstAdminAndMore()
    {
        auto added = run({"add", "root", "--admin"}, "root-password\n");
        QCOMPARE(added.status, 0);
        QCOMPARE(added.out, std::string("added root (admin)\n"));
        QCOMPARE(run({"add", "root"}, "other-password\n").status, 1);  // taken
        QCOMPARE(run({"add", "weak"}, "short\n").status, 1);           // policy
        QCOMPARE(run({"add", "nopass"}, "").status, 1);                // no stdin
        QCOMPARE(run({"add", "x", "--superuser"}, "password1\n").status, 2);
        QCOMPARE(run({"add", "alice"}, "alice-password\r\n").status, 0);  // CRLF from a Windows pipe
        QCOMPARE(run({"grant", "alice", "imgs", "read,write"}).status, 0);
        QCOMPARE(run({"grant", "alice", "imgs", "read,own"}).status, 2);
        QCOMPARE(run({"rm", "root"}).status, 1);  // the last admin stays
        QCOMPARE(run({"frobnicate"}).status, 2);
        QCOMPARE(run({}).status, 2);

        auto ls = run({"ls"});
        QCOMPARE(ls.status, 0);
        QCOMPARE(
            ls.out,
            std::string(R"({"admin":false,"grants":[{"bucket":"imgs","permissions":["read","write"]}],"name":"alice"})"
                        "\n"
                        R"({"admin":true,"grants":[],"name":"root"})"
                        "\n"));

        // The store the proxy opens holds them, with the password from stdin.
        auto store = auth::UserStore::open(NodeAuth::userStorePath(m_config));
        QVERIFY(store.ok());
        QVERIFY((*store)->authenticate("alice", "alice-password").ok());
        QVERIFY((*store)->authenticate("root", "root-password").ok());
        QCOMPARE(run({"passwd", "alice"}, "new-password\n").status, 0);
        QVERIFY((*store)->authenticate("alice", "new-password").ok());
        QCOMPARE(run({"rm", "alice"}).status, 0);
        QCOMPARE((*store)->user("alice").kind(), api::ErrorKind::NotFound);
    }

    void needsADataDirectory()
    {
        Config c;
        c.role = "proxy";
        std::istringstream in;
        std::ostringstream out;
        std::ostringstream err;
        QCOMPARE(runUserCommand(c, {"ls"}, in, out, err), 2);
    }
};

QTEST_GUILESS_MAIN(TestUserCommand)
#include "test_user_command.moc"
