#include "core/auth_session.h"

#include "core/cluster_connection.h"
#include "core/rest_client.h"
#include "core/token_store.h"

#include <QDateTime>
#include <QTimer>
#include <algorithm>
#include <limits>

namespace tessera::console {

namespace {

std::int64_t nowSeconds() { return QDateTime::currentSecsSinceEpoch(); }

bool isTransportError(api::ErrorKind kind)
{
    return kind == api::ErrorKind::Unavailable || kind == api::ErrorKind::Timeout;
}

}  // namespace

QString authStateName(AuthSession::State state)
{
    switch (state) {
    case AuthSession::State::Unknown: return QStringLiteral("unknown");
    case AuthSession::State::Off: return QStringLiteral("off");
    case AuthSession::State::SignInRequired: return QStringLiteral("sign-in required");
    case AuthSession::State::SigningIn: return QStringLiteral("signing in");
    case AuthSession::State::SignedIn: return QStringLiteral("signed in");
    case AuthSession::State::Expired: return QStringLiteral("expired");
    case AuthSession::State::SignedOut: return QStringLiteral("signed out");
    }
    return {};
}

AuthSession::AuthSession(RestClient* rest, ClusterConnection* connection, TokenStore* store, Options options,
                         QObject* parent)
    : QObject(parent), m_rest(rest), m_connection(connection), m_store(store), m_options(options),
      m_refreshTimer(new QTimer(this))
{
    m_refreshTimer->setSingleShot(true);
    connect(m_refreshTimer, &QTimer::timeout, this, &AuthSession::refresh);
    connect(m_rest, &RestClient::unauthorized, this, &AuthSession::onRefused);
    connect(m_connection, &ClusterConnection::signInRequired, this, &AuthSession::onRefused);
}

AuthSession::~AuthSession() = default;

QString AuthSession::statusText() const
{
    switch (m_state) {
    case State::Unknown:
    case State::Off: return {};
    case State::SignInRequired: return tr("Not signed in — the cluster needs a sign-in");
    case State::SigningIn: return tr("Signing in…");
    case State::SignedIn: {
        const QString name = QString::fromStdString(m_user.name);
        if (m_user.admin) return tr("Signed in as %1 (admin)").arg(name);
        return tr("Signed in as %1").arg(name);
    }
    case State::Expired: return tr("Session expired — sign in again");
    case State::SignedOut: return tr("Signed out");
    }
    return {};
}

QString AuthSession::accessToken() const
{
    if (m_tokens) return QString::fromStdString(m_tokens->token);
    return m_pasted;
}

QString AuthSession::refreshToken() const
{
    return m_tokens && m_tokens->refreshToken ? QString::fromStdString(*m_tokens->refreshToken) : QString();
}

int AuthSession::msUntilRefresh() const { return m_refreshTimer->isActive() ? m_refreshTimer->remainingTime() : -1; }

void AuthSession::setState(State state)
{
    if (state == m_state) return;
    m_state = state;
    emit stateChanged(state);
}

void AuthSession::setProfile(const QString& key, const QString& pastedToken)
{
    ++m_generation;
    m_refreshTimer->stop();
    m_key = key;
    m_pasted = pastedToken;
    m_tokens.reset();
    m_user = {};
    m_lastError.clear();
    m_refreshing = false;
    m_refreshedFor401 = false;
    m_refusedWhileLoading = false;
    m_connection->setToken(pastedToken);
    setState(State::Unknown);
    if (!pastedToken.isEmpty()) {
        m_loading = false;
        whoamiSoon();
        return;
    }
    m_loading = true;
    const quint64 generation = m_generation;
    m_store->read(key, [this, generation](api::Result<std::optional<api::TokenReply>> stored) {
        if (generation != m_generation) return;
        m_loading = false;
        const bool refused = m_refusedWhileLoading;
        m_refusedWhileLoading = false;
        if (!stored) {
            emit notice(tr("Stored tokens unreadable: %1").arg(QString::fromStdString(stored.error().message)));
        }
        if (!stored || !*stored) {
            if (refused) onRefused(tr("the cluster needs a sign-in"));
            return;
        }
        const api::TokenReply& tokens = **stored;
        if (!tokens.refreshToken || tokens.refreshExpiresAt.value_or(0) <= nowSeconds()) {
            // Nothing can renew it: not worth keeping.
            forgetStored();
            if (tokens.expiresAt <= nowSeconds()) {
                if (refused) onRefused(tr("the stored session expired"));
                return;
            }
        }
        m_tokens = tokens;
        m_connection->setToken(QString::fromStdString(tokens.token));
        scheduleRefresh();
        // The feed may have been opened (and refused) without a token while
        // the keychain answered.
        if (refused || m_connection->state() != ClusterConnection::State::Offline) {
            m_connection->close();
            m_connection->open();
        }
        whoamiSoon();
    });
}

void AuthSession::whoamiSoon()
{
    // setProfile runs before the connection (and its REST client) has the
    // new endpoint; the question waits until then.
    const quint64 generation = m_generation;
    QMetaObject::invokeMethod(
        this,
        [this, generation] {
            if (generation == m_generation) loadWhoami();
        },
        Qt::QueuedConnection);
}

void AuthSession::signIn(const QString& user, const QString& password)
{
    if (m_state == State::SigningIn) return;
    m_beforeSignIn = m_state;
    // A refresh in flight is dropped with the old pair.
    m_refreshTimer->stop();
    m_refreshing = false;
    setState(State::SigningIn);
    const quint64 generation = ++m_generation;
    m_rest->login(api::LoginRequest{user.toStdString(), password.toStdString()}, this,
                  [this, generation](api::Result<api::TokenReply> reply) {
                      if (generation != m_generation) return;
                      if (!reply) {
                          m_lastError = reply.kind() == api::ErrorKind::NotFound
                                            ? tr("This cluster runs with auth off: no sign-in is needed.")
                                            : QString::fromStdString(reply.error().message);
                          setState(m_beforeSignIn);
                          emit signInFailed(m_lastError);
                          return;
                      }
                      m_lastError.clear();
                      m_pasted.clear();
                      m_refreshedFor401 = false;
                      apply(*reply);
                      loadWhoami();
                  });
}

void AuthSession::apply(const api::TokenReply& tokens)
{
    m_tokens = tokens;
    m_connection->setToken(QString::fromStdString(tokens.token));
    scheduleRefresh();
    const quint64 generation = m_generation;
    m_store->write(m_key, tokens, [this, generation](api::Status st) {
        if (generation != m_generation || st) return;
        emit notice(tr("Tokens not saved (%1): the next start asks for a sign-in")
                        .arg(QString::fromStdString(st.error().message)));
    });
}

void AuthSession::scheduleRefresh()
{
    m_refreshTimer->stop();
    if (!m_tokens || !m_tokens->refreshToken) return;
    const std::int64_t dueInSeconds = m_tokens->expiresAt - nowSeconds() - m_options.refreshBefore.count();
    const std::int64_t maxMs = std::numeric_limits<int>::max();
    const std::int64_t ms = std::clamp<std::int64_t>(dueInSeconds * 1000, m_options.minRefreshDelay.count(), maxMs);
    m_refreshTimer->start(static_cast<int>(ms));
}

void AuthSession::refresh()
{
    if (m_refreshing) return;
    m_refreshTimer->stop();
    if (!m_tokens || !m_tokens->refreshToken) {
        endSession(State::Expired, tr("no refresh token"));
        return;
    }
    if (m_tokens->refreshExpiresAt.value_or(0) <= nowSeconds()) {
        endSession(State::Expired, tr("the refresh token expired"));
        return;
    }
    m_refreshing = true;
    const quint64 generation = m_generation;
    m_rest->refreshTokens(QString::fromStdString(*m_tokens->refreshToken), this,
                          [this, generation](api::Result<api::TokenReply> reply) {
                              if (generation != m_generation) return;
                              m_refreshing = false;
                              if (!reply) {
                                  m_lastError = QString::fromStdString(reply.error().message);
                                  if (isTransportError(reply.kind())) {
                                      // The cluster may come back before the token runs out.
                                      m_refreshTimer->start(static_cast<int>(m_options.retryAfterNetworkError.count()));
                                      return;
                                  }
                                  endSession(State::Expired, m_lastError);
                                  return;
                              }
                              ++m_refreshes;
                              apply(*reply);
                              emit refreshed();
                              resumeConnection();
                              loadWhoami();  // the admin flag as it is now
                          });
}

void AuthSession::loadWhoami()
{
    const quint64 generation = m_generation;
    m_rest->whoami(this, [this, generation](api::Result<api::UserInfo> user) {
        if (generation != m_generation) return;
        if (!user) {
            if (user.kind() == api::ErrorKind::NotFound) {
                setState(State::Off);
            } else if (user.kind() != api::ErrorKind::Unauthorized) {
                m_lastError = QString::fromStdString(user.error().message);
                if (m_state == State::SigningIn) {
                    setState(m_beforeSignIn);
                    emit signInFailed(m_lastError);
                }
            }
            return;  // a 401 went through onRefused
        }
        const bool wasSignedIn = m_state == State::SignedIn;
        m_user = *user;
        m_lastUserName = QString::fromStdString(m_user.name);
        m_refreshedFor401 = false;
        // A change of user or role shows even when the state stays.
        m_state = State::Unknown;
        setState(State::SignedIn);
        resumeConnection();
        if (!wasSignedIn) emit signedIn(m_user);
    });
}

void AuthSession::onRefused(const QString& message)
{
    if (m_loading) {
        m_refusedWhileLoading = true;
        return;
    }
    if (m_refreshing || m_state == State::SigningIn) return;  // the answer decides
    if (m_tokens && m_tokens->refreshToken && !m_refreshedFor401) {
        m_refreshedFor401 = true;
        refresh();
        return;
    }
    if (m_tokens || !m_pasted.isEmpty()) {
        endSession(State::Expired, message);
        return;
    }
    if (m_state == State::SignInRequired || m_state == State::SignedOut || m_state == State::Expired) {
        m_connection->holdForSignIn(tr("sign-in required"));
        return;  // already said
    }
    m_lastError = message;
    m_connection->holdForSignIn(tr("sign-in required"));
    setState(State::SignInRequired);
    emit signInNeeded(message);
}

void AuthSession::endSession(State state, const QString& reason)
{
    ++m_generation;
    m_refreshTimer->stop();
    m_refreshing = false;
    if (m_tokens) forgetStored();
    m_tokens.reset();
    m_pasted.clear();
    m_user = {};
    m_lastError = reason;
    m_connection->setToken(QString());
    // No polls and no feed retries that the cluster would refuse.
    m_connection->holdForSignIn(state == State::SignedOut ? tr("signed out") : tr("session expired"));
    setState(state);
    if (state == State::Expired) emit signInNeeded(reason);
}

void AuthSession::resumeConnection()
{
    if (m_connection->heldForSignIn()) m_connection->open();
}

void AuthSession::forgetStored()
{
    m_store->remove(m_key, [this](api::Status st) {
        if (!st) emit notice(tr("Stored tokens not removed: %1").arg(QString::fromStdString(st.error().message)));
    });
}

void AuthSession::signOut()
{
    if (!m_tokens) return;
    const api::TokenReply tokens = *m_tokens;
    const quint64 generation = ++m_generation;
    m_refreshTimer->stop();
    // The refresh token first, while the access token still authenticates
    // the call; then the access token itself.
    auto finish = [this, generation](api::Status st) {
        if (generation != m_generation) return;
        if (!st) {
            emit notice(tr("The cluster did not revoke the token (%1); it is forgotten here")
                            .arg(QString::fromStdString(st.error().message)));
        }
        endSession(State::SignedOut, QString());
        emit signedOut();
    };
    const QString access = QString::fromStdString(tokens.token);
    if (!tokens.refreshToken) {
        m_rest->revokeToken(access, this, finish);
        return;
    }
    m_rest->revokeToken(QString::fromStdString(*tokens.refreshToken), this,
                        [this, access, finish, generation](api::Status st) {
                            if (generation != m_generation) return;
                            if (!st) return finish(st);
                            m_rest->revokeToken(access, this, finish);
                        });
}

}  // namespace tessera::console
