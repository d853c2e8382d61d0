#pragma once

#include "api/auth_msg.h"

#include <QObject>
#include <QString>
#include <chrono>
#include <cstdint>
#include <optional>

class QTimer;

namespace tessera::console {

class ClusterConnection;
class RestClient;
class TokenStore;

// Who the console is signed in as on the current cluster, and the tokens
// that say so (docs/console.md, "Signing in").
//
// - signIn() trades a user name and password for an access token (15 min)
//   and a refresh token (24 h) with POST /v1/tokens; the password is not kept.
// - The access token goes to the connection (every REST call and the live
//   feed's next open). Shortly before it expires (Options::refreshBefore) and
//   once after a 401, the refresh token is traded for a new pair.
// - When a refresh is refused, the refresh token has expired, or the cluster
//   refuses the console and there is no token to try: the connection is held
//   (no polls, no feed retries) and the state says why until a new sign-in.
// - The tokens are kept in the TokenStore under the profile's key, so a
//   console started again is still signed in until the refresh token expires.
//   A profile's own pasted token is used as it is (never refreshed, never
//   stored).
//
// UI thread; `rest`, `connection` and `store` must outlive the session.
class AuthSession : public QObject {
    Q_OBJECT
public:
    enum class State {
        Unknown,         // no token, and the cluster has not asked for one
        Off,             // the cluster runs with auth off (no token calls)
        SignInRequired,  // the cluster refused the console: no token
        SigningIn,
        SignedIn,
        Expired,    // the session ended (refresh refused or expired)
        SignedOut,  // by the user
    };
    Q_ENUM(State)

    struct Options {
        // Refresh this long before the access token expires.
        std::chrono::seconds refreshBefore{60};
        // Never sooner than this after a new token (the clocks may disagree).
        std::chrono::milliseconds minRefreshDelay{1000};
        // A refresh that could not reach the cluster is tried again after this.
        std::chrono::milliseconds retryAfterNetworkError{10000};
    };

    AuthSession(RestClient* rest, ClusterConnection* connection, TokenStore* store, Options options,
                QObject* parent = nullptr);
    ~AuthSession() override;

    // A new profile (before the connection opens it): forgets the old
    // session, uses `pastedToken` when not empty, else loads the tokens kept
    // for `key` (when the store answers later, the connection is reopened
    // with them).
    void setProfile(const QString& key, const QString& pastedToken);

    State state() const { return m_state; }
    const api::UserInfo& user() const { return m_user; }
    // The name last signed in with (kept after the session ends, for the prompt).
    QString lastUserName() const { return m_lastUserName; }
    bool isAdmin() const { return m_state == State::SignedIn && m_user.admin; }
    // One line for the status bar: "Signed in as NAME (admin)", "Session
    // expired — sign in again", ...; empty when the cluster needs no sign-in.
    QString statusText() const;
    // Why the last sign-in, refresh or sign-out failed (the cluster's message).
    QString lastError() const { return m_lastError; }
    QString accessToken() const;
    QString refreshToken() const;
    bool usesPastedToken() const { return !m_pasted.isEmpty(); }
    bool canSignOut() const { return m_tokens.has_value(); }
    // Milliseconds until the scheduled refresh; -1 when none is scheduled.
    int msUntilRefresh() const;
    int refreshCount() const { return m_refreshes; }
    QString profileKey() const { return m_key; }

public slots:
    void signIn(const QString& user, const QString& password);
    // Trades the refresh token now.
    void refresh();
    // Revokes both tokens at the cluster, forgets them here and in the store.
    void signOut();

signals:
    void stateChanged(tessera::console::AuthSession::State state);
    void signedIn(const tessera::api::UserInfo& user);
    void signInFailed(const QString& message);
    // The console needs a (new) sign-in: a prompt should open.
    void signInNeeded(const QString& reason);
    void refreshed();
    void signedOut();
    // Something the status bar should say once (a token store or revocation problem).
    void notice(const QString& text);

private:
    void setState(State state);
    void apply(const api::TokenReply& tokens);
    void scheduleRefresh();
    void loadWhoami();
    void whoamiSoon();
    void onRefused(const QString& message);
    void endSession(State state, const QString& reason);
    void resumeConnection();
    void forgetStored();

    RestClient* m_rest;
    ClusterConnection* m_connection;
    TokenStore* m_store;
    Options m_options;
    QTimer* m_refreshTimer;
    State m_state = State::Unknown;
    State m_beforeSignIn = State::Unknown;
    QString m_key;
    QString m_pasted;
    std::optional<api::TokenReply> m_tokens;
    api::UserInfo m_user;
    QString m_lastError;
    QString m_lastUserName;
    bool m_loading = false;  // the store has not answered for m_key yet
    bool m_refusedWhileLoading = false;
    bool m_refreshing = false;
    bool m_refreshedFor401 = false;  // one refresh per 401 episode; the next 401 ends the session
    int m_refreshes = 0;
    quint64 m_generation = 0;  // bumps with each profile and sign-out: late answers are dropped
};

QString authStateName(AuthSession::State state);

}  // namespace tessera::console
