// Signing in, the session and the Access page against a real local cluster
// with auth on (1 proxy + 1 target), driven like a user: the sign-in dialog
// opens by itself when the cluster answers 401, a wrong password and too many
// attempts show the cluster's words, a good one signs in and the live feed
// opens with the token; the access token is refreshed before it expires and
// once after a 401; a refused refresh ends in "Session expired" with the
// connection held (no more 401s); signing out revokes both tokens at the
// cluster; the tokens survive a restart in a 0600 file; the Access page adds
// a user, grants, revokes and removes, each checked with curl; a non-admin
// sees no Access page. Tokens go to a file (TokenStore::Backend::File) so the
// run does not depend on a keychain.
#include "console_test_util.h"
#include "core/auth_session.h"
#include "core/cluster_connection.h"
#include "core/rest_client.h"
#include "core/token_store.h"
#include "curl_run.h"
#include "event_loop_wait.h"
#include "local_cluster.h"
#include "models/console_session.h"
#include "models/grant_model.h"
#include "models/user_model.h"
#include "ui/access_page.h"
#include "ui/add_user_dialog.h"
#include "ui/auth_status.h"
#include "ui/login_dialog.h"
#include "ui/main_window.h"
#include "ui/theme.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

using namespace tessera;
using namespace tessera::console;
using namespace std::chrono_literals;

namespace {

const char* const kAdminPassword = "admin-password-1";
const char* const kViewerPassword = "viewer-password-1";
const char* const kProfile = "auth-cluster";
// Every wait here: a login hashes with Argon2id, a revocation reaches every target.
constexpr int kWaitMs = 15000;

QString bearer(const QString& token) { return QStringLiteral("Authorization: Bearer ") + token; }

// The mode bits of `path` (-1 when it does not exist).
int fileMode(const QString& path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0) return -1;
    return static_cast<int>(st.st_mode & 0777);
}

}  // namespace

class TestConsoleAuth : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{[] {
        tests::LocalCluster::Options o;
        o.targets = 1;
        o.mountpaths = 1;
        o.extraProxyArgs = {"--auth-enabled", "true"};
        o.extraTargetArgs = {"--auth-enabled", "true"};
        return o;
    }()};
    QTemporaryDir m_dir;  // token files and console databases
    QString m_admin;      // an admin token of the test's own (curl)
    std::unique_ptr<Theme> m_theme;

    QString url(const QString& path) const { return QString::fromStdString(m_cluster.proxyUrl()) + path; }
    QString tokenFile() const { return m_dir.filePath(QStringLiteral("config/tokens.json")); }

    int userCommand(const QStringList& args, const QByteArray& stdinText)
    {
        QProcess p;
        p.start(tests::nodeBinary(),
                QStringList{"--role", "proxy", "--data-dir", m_cluster.dataDir() + "/proxy", "user"} + args);
        p.write(stdinText);
        p.closeWriteChannel();
        if (!p.waitForFinished(30000)) return -1;
        return p.exitCode();
    }

    // POST /v1/tokens with curl: the token answer (null when refused).
    nlohmann::json curlLogin(const QString& user, const QString& password)
    {
        const auto body = nlohmann::json{{"user", user.toStdString()}, {"password", password.toStdString()}}.dump();
        const auto r = tests::curl({"-X", "POST", url("/v1/tokens"), "--data-binary", QString::fromStdString(body)});
        if (r.status != 200) return nullptr;
        return nlohmann::json::parse(r.body, nullptr, false);
    }

    // The HTTP status of GET /v1/whoami with `token`.
    int whoamiStatus(const QString& token) { return tests::curl({"-H", bearer(token), url("/v1/whoami")}).status; }

    // The HTTP status of POST /v1/tokens/refresh with `refreshToken`.
    int refreshStatus(const QString& refreshToken)
    {
        const auto body = nlohmann::json{{"refresh_token", refreshToken.toStdString()}}.dump();
        return tests::curl({"-X", "POST", url("/v1/tokens/refresh"), "--data-binary", QString::fromStdString(body)})
            .status;
    }

    // DELETE /v1/tokens {"token": token} as the holder of `bearerToken`.
    int revokeStatus(const QString& token, const QString& bearerToken)
    {
        const auto body = nlohmann::json{{"token", token.toStdString()}}.dump();
        return tests::curl({"-X", "DELETE", url("/v1/tokens"), "-H", bearer(bearerToken), "--data-binary",
                            QString::fromStdString(body)})
            .status;
    }

    // The cluster's users as the admin sees them (GET /v1/users).
    nlohmann::json serverUser(const std::string& name)
    {
        const auto r = tests::curl({"-H", bearer(m_admin), url("/v1/users")});
        const auto users = nlohmann::json::parse(r.body, nullptr, false);
        if (!users.is_array()) return nlohmann::json("unreadable: " + r.body);
        for (const auto& u : users) {
            if (u.value("name", std::string()) == name) return u;
        }
        return nullptr;
    }

    // What the token file holds for the test profile (null when nothing).
    nlohmann::json storedTokens()
    {
        QFile f(tokenFile());
        if (!f.open(QIODevice::ReadOnly)) return nullptr;
        const auto j = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
        if (!j.is_object() || !j.contains(kProfile)) return nullptr;
        return j.at(kProfile);
    }

    std::unique_ptr<ConsoleSession> newSession(AuthSession::Options auth = {})
    {
        ConsoleSession::Options o;
        o.tokens.backend = TokenStore::Backend::File;
        o.tokens.filePath = tokenFile();
        o.auth = auth;
        return std::make_unique<ConsoleSession>(m_dir.filePath(QStringLiteral("console.db")), o);
    }

    ConnectionProfile profile() const
    {
        return ConnectionProfile{QString::fromLatin1(kProfile), QUrl(url(QString())), QString()};
    }

    // Opens the sign-in dialog (unless it is open), fills it and clicks
    // "Sign in"; the dialog after the click (null once it closed).
    LoginDialog* submitSignIn(MainWindow& window, const QString& user, const QString& password)
    {
        if (!window.loginDialog()) window.openSignInDialog();
        LoginDialog* dialog = window.loginDialog();
        if (!dialog) return nullptr;
        dialog->setCredentials(user, password);
        auto* button = dialog->findChild<QPushButton*>(QStringLiteral("loginSubmit"));
        if (!button) return nullptr;
        QTest::mouseClick(button, Qt::LeftButton);
        return window.loginDialog();
    }

    // Connects `session` to the cluster with no stored tokens and signs in
    // through the dialog that opens.
    void connectAndSignIn(ConsoleSession& session, MainWindow& window, const QString& user, const QString& password)
    {
        QFile::remove(tokenFile());
        session.connectTo(profile());
        QVERIFY(test::waitUntil([&] { return window.loginDialog() != nullptr; }, kWaitMs));
        signIn(session, window, user, password);
    }

    void signIn(ConsoleSession& session, MainWindow& window, const QString& user, const QString& password)
    {
        submitSignIn(window, user, password);
        QVERIFY2(test::waitUntil([&] { return session.auth()->state() == AuthSession::State::SignedIn; }, kWaitMs),
                 qPrintable(session.auth()->lastError()));
        QVERIFY(test::waitUntil([&] { return window.loginDialog() == nullptr; }, kWaitMs));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("tessera-test"));
        QVERIFY(m_dir.isValid());
        m_theme = std::make_unique<Theme>(qApp);
        // The first admin, on the proxy's host, before the proxy starts.
        QCOMPARE(userCommand({"add", "admin", "--admin"}, QByteArray(kAdminPassword) + "\n"), 0);
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        const auto login = curlLogin("admin", kAdminPassword);
        QVERIFY(login.is_object());
        m_admin = QString::fromStdString(login.at("token").get<std::string>());
        const auto viewer = nlohmann::json{{"name", "viewer"}, {"password", kViewerPassword}, {"admin", false}}.dump();
        QCOMPARE(tests::curl({"-X", "POST", url("/v1/users"), "-H", bearer(m_admin), "--data-binary",
                              QString::fromStdString(viewer)})
                     .status,
                 201);
    }

    void unauthorizedClusterOpensSignInAndRefusesBadPasswords()
    {
        auto session = newSession();
        MainWindow window(session.get(), m_theme.get());
        window.show();
        session->connectTo(profile());
        // The feed and the cluster map answer 401: the dialog opens by itself
        // and the connection stops retrying.
        QVERIFY(test::waitUntil([&] { return window.loginDialog() != nullptr; }, kWaitMs));
        QCOMPARE(session->auth()->state(), AuthSession::State::SignInRequired);
        QVERIFY(session->connection()->heldForSignIn());
        QCOMPARE(session->connection()->state(), ClusterConnection::State::Offline);
        QCOMPARE(window.authStatus()->text(), QStringLiteral("Not signed in — the cluster needs a sign-in"));
        QVERIFY(!window.accessPageListed());

        // A wrong password: the cluster's message, the password field emptied.
        LoginDialog* dialog = submitSignIn(window, "admin", "not-the-password");
        QVERIFY(dialog);
        QVERIFY(test::waitUntil([&] { return !dialog->errorText().isEmpty(); }, kWaitMs));
        QCOMPARE(dialog->errorText(), QStringLiteral("wrong user name or password"));
        QVERIFY(dialog->findChild<QLineEdit*>(QStringLiteral("loginPassword"))->text().isEmpty());
        QCOMPARE(session->auth()->state(), AuthSession::State::SignInRequired);
        test::saveScreenshotWithDialog(&window, dialog, QStringLiteral("console-login"));

        // After five failures in a row for one name the next attempt is told
        // to wait (1 s, then 2, 4, ...), whatever the password.
        QString refused;
        for (int attempt = 0; attempt < 10 && !refused.contains(QLatin1String("retry in")); ++attempt) {
            submitSignIn(window, "ghost", "ghost-password-1");
            QVERIFY(test::waitUntil([&] { return !dialog->errorText().isEmpty(); }, kWaitMs));
            refused = dialog->errorText();
        }
        QVERIFY2(refused.startsWith(QLatin1String("too many failed logins for \"ghost\"")), qPrintable(refused));
        QVERIFY2(refused.contains(QLatin1String("; retry in ")), qPrintable(refused));

        // The right password: signed in, the feed opens live with the token.
        signIn(*session, window, "admin", kAdminPassword);
        QCOMPARE(window.authStatus()->text(), QStringLiteral("Signed in as admin (admin)"));
        QVERIFY(test::waitUntil([&] { return session->connection()->state() == ClusterConnection::State::Connected; },
                                kWaitMs));
        QCOMPARE(session->connection()->feedMode(), ClusterConnection::FeedMode::Live);
        QVERIFY(window.accessPageListed());
        QCOMPARE(whoamiStatus(session->auth()->accessToken()), 200);

        // Kept in the token file, readable by the user only; never the password.
        QCOMPARE(fileMode(tokenFile()), 0600);
        const auto stored = storedTokens();
        QVERIFY(stored.is_object());
        QCOMPARE(QString::fromStdString(stored.at("refresh_token").get<std::string>()),
                 session->auth()->refreshToken());
        QFile file(tokenFile());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains(kAdminPassword));

        // A console started again with the profile is signed in from the file.
        auto again = newSession();
        MainWindow second(again.get(), m_theme.get());
        again->connectTo(profile());
        QVERIFY(test::waitUntil([&] { return again->auth()->state() == AuthSession::State::SignedIn; }, kWaitMs));
        QCOMPARE(again->auth()->user().name, std::string("admin"));
        QVERIFY(second.loginDialog() == nullptr);
        QVERIFY(test::waitUntil([&] { return again->connection()->state() == ClusterConnection::State::Connected; },
                                kWaitMs));
    }

    void accessTokenRefreshedBeforeItExpires()
    {
        // Access tokens live 15 min: refreshing 898 s ahead is due 2 s after the sign-in.
        AuthSession::Options fast;
        fast.refreshBefore = 898s;
        fast.minRefreshDelay = 500ms;
        auto session = newSession(fast);
        MainWindow window(session.get(), m_theme.get());
        connectAndSignIn(*session, window, "admin", kAdminPassword);
        const QString access = session->auth()->accessToken();
        const QString refresh = session->auth()->refreshToken();
        QVERIFY(session->auth()->msUntilRefresh() > 0);
        QVERIFY(session->auth()->msUntilRefresh() <= 3000);

        QSignalSpy refreshed(session->auth(), &AuthSession::refreshed);
        QVERIFY(refreshed.wait(kWaitMs));
        QVERIFY(session->auth()->accessToken() != access);
        QVERIFY(session->auth()->refreshToken() != refresh);
        QCOMPARE(session->auth()->state(), AuthSession::State::SignedIn);
        // The old refresh token was traded (once only); the new pair works.
        QCOMPARE(refreshStatus(refresh), 401);
        QCOMPARE(whoamiStatus(session->auth()->accessToken()), 200);
        QCOMPARE(QString::fromStdString(storedTokens().at("token").get<std::string>()), session->auth()->accessToken());
        // The REST client now sends the new token.
        bool listed = false;
        session->rest()->listBuckets(this, [&](api::Result<std::vector<api::BucketRef>> r) { listed = r.ok(); });
        QVERIFY(test::waitUntil([&] { return listed; }, kWaitMs));
    }

    void unauthorizedCallRefreshesOnce()
    {
        auto session = newSession();
        MainWindow window(session.get(), m_theme.get());
        connectAndSignIn(*session, window, "admin", kAdminPassword);
        const QString access = session->auth()->accessToken();
        // The access token revoked behind the console's back: its next call
        // gets 401, the session refreshes, and the call after works.
        QCOMPARE(revokeStatus(access, access), 200);
        QSignalSpy refreshed(session->auth(), &AuthSession::refreshed);
        api::Status first;
        bool done = false;
        session->rest()->listBuckets(this, [&](api::Result<std::vector<api::BucketRef>> r) {
            first = r.ok() ? api::Status{} : api::Status(r.error());
            done = true;
        });
        QVERIFY(test::waitUntil([&] { return done; }, kWaitMs));
        QCOMPARE(first.kind(), api::ErrorKind::Unauthorized);
        QVERIFY(refreshed.count() == 1 || refreshed.wait(kWaitMs));
        QVERIFY(session->auth()->accessToken() != access);
        QCOMPARE(session->auth()->state(), AuthSession::State::SignedIn);
        QCOMPARE(whoamiStatus(session->auth()->accessToken()), 200);
        bool listed = false;
        session->rest()->listBuckets(this, [&](api::Result<std::vector<api::BucketRef>> r) { listed = r.ok(); });
        QVERIFY(test::waitUntil([&] { return listed; }, kWaitMs));
    }

    void feedRefusedWithAReplacedTokenKeepsTheSession()
    {
        // The live feed reopens with an access token that was just revoked
        // while a REST call's 401 refreshes the pair: the feed's refusal (and
        // the probe after it) answer for the old token and must not end the
        // new session. The order of the two answers varies, so it runs
        // several times.
        auto session = newSession();
        MainWindow window(session.get(), m_theme.get());
        connectAndSignIn(*session, window, "admin", kAdminPassword);
        constexpr int kRounds = 8;
        for (int round = 0; round < kRounds; ++round) {
            QVERIFY(test::waitUntil(
                [&] { return session->connection()->state() == ClusterConnection::State::Connected; }, kWaitMs));
            const QString access = session->auth()->accessToken();
            QCOMPARE(revokeStatus(access, access), 200);
            QSignalSpy refreshed(session->auth(), &AuthSession::refreshed);
            session->connection()->resync();  // the feed reopens with the revoked token
            session->rest()->listBuckets(this, [](api::Result<std::vector<api::BucketRef>>) {});
            QVERIFY(refreshed.wait(kWaitMs));
            QVERIFY2(test::waitUntil(
                         [&] {
                             return session->auth()->state() == AuthSession::State::SignedIn &&
                                    session->connection()->state() == ClusterConnection::State::Connected;
                         },
                         kWaitMs),
                     qPrintable(QStringLiteral("round %1: %2 / %3")
                                    .arg(round)
                                    .arg(authStateName(session->auth()->state()), session->auth()->lastError())));
            QVERIFY(session->auth()->accessToken() != access);
            QVERIFY(!session->connection()->heldForSignIn());
        }
        QCOMPARE(whoamiStatus(session->auth()->accessToken()), 200);
    }

    void refusedRefreshEndsTheSession()
    {
        auto session = newSession();
        MainWindow window(session.get(), m_theme.get());
        window.show();
        connectAndSignIn(*session, window, "admin", kAdminPassword);
        QVERIFY(test::waitUntil([&] { return session->connection()->state() == ClusterConnection::State::Connected; },
                                kWaitMs));
        const QString access = session->auth()->accessToken();
        // Both tokens revoked elsewhere: the 401 leads to a refresh, which is refused.
        QCOMPARE(revokeStatus(session->auth()->refreshToken(), access), 200);
        QCOMPARE(revokeStatus(access, access), 200);
        session->rest()->listBuckets(this, [](api::Result<std::vector<api::BucketRef>>) {});
        QVERIFY(test::waitUntil([&] { return session->auth()->state() == AuthSession::State::Expired; }, kWaitMs));
        QCOMPARE(window.authStatus()->text(), QStringLiteral("Session expired — sign in again"));
        QVERIFY(session->connection()->heldForSignIn());
        QCOMPARE(session->connection()->state(), ClusterConnection::State::Offline);
        QVERIFY(session->auth()->accessToken().isEmpty());
        QVERIFY(storedTokens().is_null());
        QVERIFY(!window.accessPageListed());
        // The prompt opened by itself, saying why.
        QVERIFY(test::waitUntil([&] { return window.loginDialog() != nullptr; }, kWaitMs));
        // Held: no feed retries or polls that the cluster would refuse (a
        // retry would show as Connecting).
        QSignalSpy states(session->connection(), &ClusterConnection::stateChanged);
        QVERIFY(!states.wait(2500));
        QCOMPARE(session->connection()->state(), ClusterConnection::State::Offline);

        // Signing in again resumes the connection.
        signIn(*session, window, "admin", kAdminPassword);
        QVERIFY(test::waitUntil([&] { return session->connection()->state() == ClusterConnection::State::Connected; },
                                kWaitMs));
        QVERIFY(!session->connection()->heldForSignIn());
    }

    void directRefreshWithAnInvalidTokenExpires()
    {
        auto session = newSession();
        MainWindow window(session.get(), m_theme.get());
        connectAndSignIn(*session, window, "admin", kAdminPassword);
        // The refresh token is traded here, so the session's own copy is stale.
        QCOMPARE(refreshStatus(session->auth()->refreshToken()), 200);
        QSignalSpy needed(session->auth(), &AuthSession::signInNeeded);
        session->auth()->refresh();
        QVERIFY(needed.wait(kWaitMs));
        QCOMPARE(session->auth()->state(), AuthSession::State::Expired);
        QVERIFY(!needed.at(0).at(0).toString().isEmpty());
        QCOMPARE(window.authStatus()->text(), QStringLiteral("Session expired — sign in again"));
    }

    void signOutRevokesBothTokens()
    {
        auto session = newSession();
        MainWindow window(session.get(), m_theme.get());
        window.show();
        connectAndSignIn(*session, window, "admin", kAdminPassword);
        const QString access = session->auth()->accessToken();
        const QString refresh = session->auth()->refreshToken();
        QVERIFY(storedTokens().is_object());

        auto* button = window.authStatus()->findChild<QPushButton*>(QStringLiteral("authButton"));
        QVERIFY(button && button->isVisible());
        QCOMPARE(button->text(), QStringLiteral("Sign out"));
        QSignalSpy signedOut(session->auth(), &AuthSession::signedOut);
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(signedOut.wait(kWaitMs));
        QCOMPARE(session->auth()->state(), AuthSession::State::SignedOut);
        QCOMPARE(window.authStatus()->text(), QStringLiteral("Signed out"));
        QCOMPARE(button->text(), QStringLiteral("Sign in…"));
        // The cluster refuses both from now on; nothing is kept here.
        QCOMPARE(whoamiStatus(access), 401);
        QCOMPARE(refreshStatus(refresh), 401);
        QVERIFY(storedTokens().is_null());
        QVERIFY(session->connection()->heldForSignIn());
        QVERIFY(!window.accessPageListed());
    }

    void accessPageAddsGrantsRevokesAndRemoves()
    {
        QFile::remove(tokenFile());  // no session kept from an earlier case
        auto session = newSession();
        QAbstractItemModelTester usersTester(session->users(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        MainWindow window(session.get(), m_theme.get());
        window.show();
        session->connectTo(profile());
        QVERIFY(test::waitUntil([&] { return window.loginDialog() != nullptr; }, kWaitMs));
        signIn(*session, window, "admin", kAdminPassword);
        AccessPage* page = window.accessPage();
        QAbstractItemModelTester grantsTester(page->grants(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(window.accessPageListed());
        window.showPage(window.pageIndex(QStringLiteral("Access")));
        QVERIFY(page->isVisible());
        QVERIFY(page->reasonText().isEmpty());
        UserModel* users = session->users();
        QVERIFY(test::waitUntil([&] { return users->rowOf("admin") >= 0 && users->rowOf("viewer") >= 0; }, kWaitMs));
        QCOMPARE(users->data(users->index(users->rowOf("admin"), UserModel::RoleColumn)).toString(), "admin");

        // Add: the passwords must agree; the cluster's policy shows in the dialog.
        page->addUser();
        auto* dialog = page->findChild<AddUserDialog*>();
        QVERIFY(dialog && dialog->isVisible());
        dialog->setForm("carol", "carol-password-1", "carol-password-2", false);
        dialog->submit();
        QCOMPARE(dialog->errorText(), QStringLiteral("The two passwords differ."));
        dialog->setForm("carol", "short", "short", false);
        dialog->submit();
        QVERIFY(test::waitUntil([&] { return !dialog->errorText().isEmpty(); }, kWaitMs));
        QVERIFY2(dialog->errorText().startsWith(QLatin1String("a password needs at least")),
                 qPrintable(dialog->errorText()));
        QVERIFY(serverUser("carol").is_null());
        dialog->setForm("carol", "carol-password-1", "carol-password-1", false);
        QSignalSpy accepted(dialog, &QDialog::accepted);
        dialog->submit();
        QVERIFY(accepted.count() == 1 || accepted.wait(kWaitMs));
        QVERIFY(users->rowOf("carol") >= 0);
        QCOMPARE(serverUser("carol").at("admin").get<bool>(), false);

        // Grant read and list on "imgs".
        page->selectUser("carol");
        QCOMPARE(page->selectedUser(), QStringLiteral("carol"));
        page->setGrantForm("imgs", {api::Permission::Read, api::Permission::List});
        page->grantSelected();
        QVERIFY(test::waitUntil([&] { return page->grants()->rowCount() == 1; }, kWaitMs));
        QCOMPARE(page->grants()->data(page->grants()->index(0, GrantModel::PermissionsColumn)).toString(),
                 QStringLiteral("read, list"));
        QCOMPARE(serverUser("carol").at("grants").dump(),
                 nlohmann::json::array({{{"bucket", "imgs"}, {"permissions", {"read", "list"}}}}).dump());
        page->grantsView()->setCurrentIndex(page->grants()->index(0, 0));
        test::saveScreenshot(&window, QStringLiteral("console-access"));

        // A bucket name the cluster refuses: its message on the page.
        page->setGrantForm("no/such/bucket", {api::Permission::Read});
        page->grantSelected();
        QVERIFY(test::waitUntil([&] { return !page->errorText().isEmpty(); }, kWaitMs));
        QVERIFY2(page->errorText().startsWith(QLatin1String("a grant names a bucket")), qPrintable(page->errorText()));

        // Revoke list: read stays.
        page->setGrantForm("imgs", {api::Permission::List});
        page->revokeSelected();
        QVERIFY(test::waitUntil(
            [&] {
                return page->grants()->rowCount() == 1 &&
                       page->grants()->data(page->grants()->index(0, GrantModel::PermissionsColumn)).toString() ==
                           QLatin1String("read");
            },
            kWaitMs));
        QCOMPARE(serverUser("carol").at("grants").dump(),
                 nlohmann::json::array({{{"bucket", "imgs"}, {"permissions", {"read"}}}}).dump());

        // Remove, after a confirmation naming the user.
        QString asked;
        test::answerConfirmation(QStringLiteral("removeUserConfirmation"), QMessageBox::Yes, &asked);
        page->removeUser();
        QVERIFY2(asked.contains(QLatin1String("\"carol\"")), qPrintable(asked));
        QVERIFY(test::waitUntil([&] { return users->rowOf("carol") < 0; }, kWaitMs));
        QVERIFY(serverUser("carol").is_null());
        QVERIFY(serverUser("viewer").is_object());
    }

    void nonAdminSeesNoAccessPage()
    {
        QFile::remove(tokenFile());  // no session kept from an earlier case
        auto session = newSession();
        MainWindow window(session.get(), m_theme.get());
        window.show();
        session->connectTo(profile());
        QVERIFY(test::waitUntil([&] { return window.loginDialog() != nullptr; }, kWaitMs));
        signIn(*session, window, "viewer", kViewerPassword);
        QCOMPARE(window.authStatus()->text(), QStringLiteral("Signed in as viewer"));
        QVERIFY(!session->auth()->isAdmin());
        QVERIFY(!window.accessPageListed());
        QVERIFY(!window.accessPage()->findChild<QTableView*>(QStringLiteral("usersView"))->isEnabled());
        QCOMPARE(window.accessPage()->reasonText(),
                 QStringLiteral("Only an admin manages access; you are signed in as viewer."));
        QCOMPARE(session->users()->rowCount(), 0);
        // The feed opens for any valid token.
        QVERIFY(test::waitUntil([&] { return session->connection()->state() == ClusterConnection::State::Connected; },
                                kWaitMs));
        QCOMPARE(session->connection()->feedMode(), ClusterConnection::FeedMode::Live);
    }

    void pastedProfileTokenStillWorks()
    {
        QFile::remove(tokenFile());
        auto session = newSession();
        MainWindow window(session.get(), m_theme.get());
        const auto login = curlLogin("viewer", kViewerPassword);
        QVERIFY(login.is_object());
        ConnectionProfile pasted = profile();
        pasted.token = QString::fromStdString(login.at("token").get<std::string>());
        session->connectTo(pasted);
        QVERIFY(test::waitUntil([&] { return session->auth()->state() == AuthSession::State::SignedIn; }, kWaitMs));
        QCOMPARE(window.authStatus()->text(), QStringLiteral("Signed in as viewer"));
        QVERIFY(session->auth()->usesPastedToken());
        QVERIFY(!session->auth()->canSignOut());
        QCOMPARE(session->auth()->msUntilRefresh(), -1);
        QVERIFY(test::waitUntil([&] { return session->connection()->state() == ClusterConnection::State::Connected; },
                                kWaitMs));
        QVERIFY(storedTokens().is_null());  // never stored
    }

    void tokenFileIsPrivateAndKeyedByProfile()
    {
        TokenStore::Options o;
        o.backend = TokenStore::Backend::File;
        o.filePath = m_dir.filePath(QStringLiteral("fresh/dir/tokens.json"));
        TokenStore store(o);
        const api::TokenReply a{"access-a", 100, std::string("refresh-a"), 200};
        const api::TokenReply b{"access-b", 300, std::string("refresh-b"), 400};
        api::Status wrote;
        store.write("one", a, [&](api::Status st) { wrote = st; });
        QVERIFY2(wrote.ok(), wrote.ok() ? "" : wrote.error().message.c_str());
        store.write("two", b, [&](api::Status st) { wrote = st; });
        QVERIFY(wrote.ok());
        QCOMPARE(fileMode(o.filePath), 0600);
        QCOMPARE(fileMode(m_dir.filePath(QStringLiteral("fresh/dir"))), 0700);
        std::optional<api::TokenReply> read;
        store.read("one", [&](api::Result<std::optional<api::TokenReply>> r) {
            QVERIFY(r.ok());
            read = *r;
        });
        QVERIFY(read.has_value());
        QCOMPARE(*read, a);
        store.remove("one", [&](api::Status st) { wrote = st; });
        QVERIFY(wrote.ok());
        store.read("one", [&](api::Result<std::optional<api::TokenReply>> r) {
            QVERIFY(r.ok());
            read = *r;
        });
        QVERIFY(!read.has_value());
        store.read("two", [&](api::Result<std::optional<api::TokenReply>> r) {
            QVERIFY(r.ok());
            read = *r;
        });
        QVERIFY(read.has_value());
        QCOMPARE(*read, b);
        QCOMPARE(store.backendName(), QStringLiteral("file ") + o.filePath);
    }

    void autoFallsBackToTheFileOnce()
    {
        // No session bus: no keychain service can answer (as on a server or
        // in an offscreen run), so Auto moves to the file and says so once.
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        TokenStore::Options o;
        o.backend = TokenStore::Backend::Auto;
        o.filePath = m_dir.filePath(QStringLiteral("auto/tokens.json"));
        TokenStore store(o);
        QSignalSpy notices(&store, &TokenStore::notice);
        // Looking for stored tokens (every start) moves to the file quietly.
        std::optional<api::Result<std::optional<api::TokenReply>>> found;
        store.read("three", [&](api::Result<std::optional<api::TokenReply>> r) { found = std::move(r); });
        QVERIFY(test::waitUntil([&] { return found.has_value(); }, kWaitMs));
        QVERIFY(found->ok() && !found->value());
        QVERIFY(store.usingFile());
        QCOMPARE(notices.count(), 0);
        const api::TokenReply tokens{"access-c", 100, std::string("refresh-c"), 200};
        std::optional<api::Status> wrote;
        store.write("three", tokens, [&](api::Status st) { wrote = st; });
        QVERIFY(test::waitUntil([&] { return wrote.has_value(); }, kWaitMs));
        QVERIFY(wrote->ok());
        QVERIFY(store.usingFile());
        QCOMPARE(notices.count(), 1);
        QVERIFY2(notices.at(0).at(0).toString().contains(o.filePath), qPrintable(notices.at(0).at(0).toString()));
        QCOMPARE(fileMode(o.filePath), 0600);
        wrote.reset();
        store.write("four", tokens, [&](api::Status st) { wrote = st; });
        QVERIFY(wrote.has_value() && wrote->ok());
        QCOMPARE(notices.count(), 1);
    }

    void cleanupTestCase() { m_theme.reset(); }
};

QTEST_MAIN(TestConsoleAuth)
#include "test_console_auth.moc"
