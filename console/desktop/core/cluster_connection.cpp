#include "core/cluster_connection.h"

#include "api/paths.h"
#include "api/smap.h"
#include "core/rest_client.h"

#include <QDateTime>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>
#include <QWebSocket>
#include <type_traits>

namespace tessera::console {

namespace {

QUrl feedUrl(const QUrl& endpoint)
{
    QUrl url = endpoint;
    url.setScheme(endpoint.scheme() == QLatin1String("https") ? QStringLiteral("wss") : QStringLiteral("ws"));
    url.setPath(QString::fromLatin1(api::path::kFeed.data(), static_cast<qsizetype>(api::path::kFeed.size())));
    url.setQuery(QString());
    return url;
}

}  // namespace

QString stateName(ClusterConnection::State state)
{
    switch (state) {
    case ClusterConnection::State::Offline: return QStringLiteral("offline");
    case ClusterConnection::State::Connecting: return QStringLiteral("connecting");
    case ClusterConnection::State::Connected: return QStringLiteral("connected");
    case ClusterConnection::State::Reconnecting: return QStringLiteral("reconnecting");
    }
    return {};
}

ClusterConnection::ClusterConnection(QObject* parent) : ClusterConnection(Options{}, parent) {}

ClusterConnection::ClusterConnection(Options options, QObject* parent)
    : QObject(parent), m_options(options), m_network(new QNetworkAccessManager(this)),
      m_rest(new RestClient(m_network, this)),
      m_socket(new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this)), m_openTimer(new QTimer(this)),
      m_reconnectTimer(new QTimer(this)), m_pollTimer(new QTimer(this)),
      m_backoff(options.backoffInitial, options.backoffMax, options.backoffJitter)
{
    m_rest->setControlTimeoutMs(static_cast<int>(m_options.requestTimeout.count()));
    m_openTimer->setSingleShot(true);
    m_reconnectTimer->setSingleShot(true);
    m_pollTimer->setInterval(static_cast<int>(m_options.pollInterval.count()));

    connect(m_socket, &QWebSocket::connected, this, &ClusterConnection::onSocketConnected);
    connect(m_socket, &QWebSocket::disconnected, this, [this] {
        onSocketLost(m_socket->closeReason().isEmpty() ? m_socket->errorString() : m_socket->closeReason());
    });
    // Qt 6.4: the error signal is error(SocketError); errorOccurred arrives in 6.5.
    connect(m_socket, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error), this,
            [this](QAbstractSocket::SocketError error) {
                // The socket's own words for a refused certificate are a bare
                // "SSL handshake failed"; the errors reported before say why.
                const QString refused =
                    error == QAbstractSocket::SslHandshakeFailedError
                        ? handshakeFailure(m_endpoint.host() + QLatin1Char(':') + QString::number(m_endpoint.port(443)),
                                           m_feedSslErrors)
                        : QString();
                onSocketLost(refused.isEmpty() ? m_socket->errorString() : refused);
            });
    connect(m_socket, &QWebSocket::sslErrors, this,
            [this](const QList<QSslError>& errors) { m_feedSslErrors = errors; });
    connect(m_socket, &QWebSocket::textMessageReceived, this, &ClusterConnection::onTextMessage);
    connect(m_openTimer, &QTimer::timeout, this,
            [this] { onSocketLost(tr("the feed did not open within %1 ms").arg(m_options.openTimeout.count())); });
    connect(m_reconnectTimer, &QTimer::timeout, this, &ClusterConnection::openSocket);
    connect(m_pollTimer, &QTimer::timeout, this, &ClusterConnection::poll);
}

ClusterConnection::~ClusterConnection()
{
    m_socketActive = false;
    m_socket->abort();
}

void ClusterConnection::setEndpoint(const QUrl& endpoint)
{
    close();
    m_endpoint = endpoint;
    m_rest->setEndpoint(endpoint);
    m_smap = {};
    m_everConnected = false;
    emit endpointChanged(m_endpoint);
    emit statusChanged();
    open();
}

void ClusterConnection::setToken(const QString& token)
{
    m_token = token;
    m_rest->setToken(token);
}

void ClusterConnection::setTls(const TlsSettings& settings)
{
    auto config = sslConfiguration(settings);
    if (!config) {
        m_tlsProblem = QString::fromStdString(config.error().message);
        return;
    }
    m_tlsProblem.clear();
    m_socket->setSslConfiguration(*config);
    m_rest->setSslConfiguration(*config);
}

void ClusterConnection::open()
{
    if (!m_endpoint.isValid() || m_endpoint.host().isEmpty()) {
        m_lastError = tr("no endpoint");
        setState(State::Offline);
        return;
    }
    if (!m_tlsProblem.isEmpty() && m_endpoint.scheme() == QLatin1String("https")) {
        m_lastError = m_tlsProblem;
        setState(State::Offline);
        emit statusChanged();  // the state may not have changed, the error has
        return;
    }
    if (m_state != State::Offline) {
        return;
    }
    m_heldForSignIn = false;
    m_backoff.reset();
    m_wsFailures = 0;
    setState(State::Connecting);
    openSocket();
}

void ClusterConnection::close()
{
    ++m_generation;
    m_socketActive = false;
    m_socket->abort();
    m_openTimer->stop();
    m_reconnectTimer->stop();
    stopPolling();
    setFeedMode(FeedMode::Live, QString());
    setState(State::Offline);
}

void ClusterConnection::holdForSignIn(const QString& reason)
{
    close();
    m_heldForSignIn = true;
    m_lastError = reason;
    emit statusChanged();
}

void ClusterConnection::refuse(const QString& message)
{
    // The cluster's words go to the sign-in prompt; the status line stays short.
    holdForSignIn(tr("sign-in required"));
    emit signInRequired(message);
}

void ClusterConnection::resync()
{
    if (m_state == State::Offline) {
        open();
        return;
    }
    if (m_feedMode == FeedMode::Polling) {
        fetchSmap();
        fetchJobs();
        poll();
        return;
    }
    if (m_state == State::Connected) {
        // A fresh session starts with a fresh snapshot.
        m_socketActive = false;
        m_socket->abort();
        openSocket();
    }
}

void ClusterConnection::setState(State state)
{
    if (state == m_state) {
        return;
    }
    m_state = state;
    emit stateChanged(state);
    emit statusChanged();
}

void ClusterConnection::setFeedMode(FeedMode mode, const QString& problem)
{
    m_feedProblem = problem;
    if (mode == m_feedMode) {
        emit statusChanged();
        return;
    }
    m_feedMode = mode;
    emit feedModeChanged(mode);
    emit statusChanged();
}

void ClusterConnection::openSocket()
{
    m_reconnectTimer->stop();
    m_socketActive = true;
    m_lastSeq = 0;
    m_feedSslErrors.clear();
    m_socketToken = m_token;
    QNetworkRequest req(feedUrl(m_endpoint));
    if (!m_token.isEmpty()) {
        req.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    }
    m_openTimer->start(static_cast<int>(m_options.openTimeout.count()));
    m_socket->open(req);
}

void ClusterConnection::onSocketConnected()
{
    if (!m_socketActive) {
        return;
    }
    m_openTimer->stop();
    m_backoff.reset();
    m_wsFailures = 0;
    m_lastError.clear();
    stopPolling();
    if (m_everConnected) {
        ++m_reconnects;
    }
    m_everConnected = true;
    setFeedMode(FeedMode::Live, QString());
    setState(State::Connected);
}

void ClusterConnection::onSocketLost(const QString& reason)
{
    if (!m_socketActive) {
        return;
    }
    m_socketActive = false;
    m_openTimer->stop();
    m_socket->abort();
    m_lastError = reason;
    if (m_state == State::Offline) {
        return;
    }
    if (m_socketToken != m_token) {
        // The token changed while the feed was opening or open (a refresh or
        // a new sign-in): the loss may be the old token's refusal.
        openSocket();
        return;
    }
    probeHealth(reason);
}

void ClusterConnection::probeHealth(const QString& wsReason)
{
    const quint64 generation = m_generation;
    m_rest->health(this, [this, generation, wsReason](api::Result<api::Health> health) {
        if (generation != m_generation) {
            return;
        }
        if (health) {
            probeAccess(wsReason);
            return;
        }
        m_lastError = QString::fromStdString(health.error().message);
        stopPolling();
        setFeedMode(FeedMode::Live, QString());
        setState(State::Reconnecting);
        scheduleReconnect();
    });
}

void ClusterConnection::probeAccess(const QString& wsReason)
{
    const quint64 generation = m_generation;
    const QString sentToken = m_token;
    m_rest->smap(this, [this, generation, wsReason, sentToken](api::Result<api::Smap> smap) {
        if (generation != m_generation) {
            return;
        }
        if (!smap && smap.kind() == api::ErrorKind::Unauthorized) {
            if (sentToken != m_token) {
                // Refused with a token replaced meanwhile (a refresh): that
                // says nothing about the new one, which the feed tries now.
                openSocket();
                return;
            }
            refuse(QString::fromStdString(smap.error().message));
            return;
        }
        ++m_wsFailures;
        if (m_wsFailures >= m_options.wsFailuresBeforePolling && m_feedMode != FeedMode::Polling) {
            startPolling(tr("live feed unavailable (%1); polling node statistics").arg(wsReason));
        } else if (m_feedMode != FeedMode::Polling) {
            setState(State::Reconnecting);
        }
        scheduleReconnect();
    });
}

void ClusterConnection::scheduleReconnect() { m_reconnectTimer->start(static_cast<int>(m_backoff.next().count())); }

void ClusterConnection::onTextMessage(const QString& text)
{
    if (!m_socketActive) {
        return;
    }
    auto message = api::decodeFeedMessage(text.toStdString());
    if (!message) {
        qWarning("tessera-console: dropped a feed message: %s", message.error().message.c_str());
        return;
    }
    const std::int64_t expected = m_lastSeq + 1;
    if (message->seq != expected) {
        // Messages were lost: start a new session, which begins with a snapshot.
        ++m_gaps;
        emit gapDetected(expected, message->seq);
        m_socketActive = false;
        m_socket->abort();
        openSocket();
        return;
    }
    m_lastSeq = message->seq;
    handle(std::move(*message));
}

void ClusterConnection::handle(api::FeedMessage&& message)
{
    std::visit(
        [this](auto&& payload) {
            using T = std::decay_t<decltype(payload)>;
            if constexpr (std::is_same_v<T, api::FeedSnapshot>) {
                m_smap = api::Smap{};  // a snapshot replaces everything
                applySmap(payload.smap);
                emit snapshotReceived(payload);
                emit bucketSummariesChanged(payload.buckets);
                emit bucketsChanged();
                if (payload.metrics) {
                    emit metricsReceived(*payload.metrics);
                }
                fetchJobs();  // the snapshot holds the running jobs only
            } else if constexpr (std::is_same_v<T, api::MetricsUpdate>) {
                emit metricsReceived(payload);
            } else if constexpr (std::is_same_v<T, api::Smap>) {
                applySmap(payload);
            } else if constexpr (std::is_same_v<T, api::BmdUpdate>) {
                emit bucketSummariesChanged(payload.buckets);
                emit bucketsChanged();
            } else if constexpr (std::is_same_v<T, api::BucketsUpdate>) {
                emit bucketSummariesChanged(payload.buckets);  // new figures, the same buckets
            } else if constexpr (std::is_same_v<T, api::ClusterEvent>) {
                emit eventReceived(payload);
            } else if constexpr (std::is_same_v<T, api::JobStatus>) {
                emit jobUpdated(payload);
            } else if constexpr (std::is_same_v<T, api::FeedError>) {
                qWarning("tessera-console: the feed refused a control message: %s", payload.message.c_str());
            }
        },
        std::move(message.payload));
}

void ClusterConnection::applySmap(const api::Smap& smap)
{
    const bool changed = smap.version != m_smap.version || smap.tmap.size() != m_smap.tmap.size() ||
                         smap.pmap.size() != m_smap.pmap.size() || smap.uuid != m_smap.uuid;
    m_smap = smap;
    emit smapChanged(m_smap);
    if (changed) {
        emit statusChanged();
    }
}

void ClusterConnection::startPolling(const QString& reason)
{
    m_poll.reset();
    setFeedMode(FeedMode::Polling, reason);
    setState(State::Connected);
    fetchSmap();
    fetchJobs();
    poll();
    m_pollTimer->start();
}

void ClusterConnection::stopPolling()
{
    m_pollTimer->stop();
    m_pollInFlight = false;
}

void ClusterConnection::poll()
{
    if (m_pollInFlight || m_feedMode != FeedMode::Polling) {
        return;
    }
    m_pollInFlight = true;
    const quint64 generation = m_generation;
    const QString sentToken = m_token;
    m_rest->clusterStats(this, [this, generation, sentToken](api::Result<api::ClusterStats> stats) {
        if (generation != m_generation || m_feedMode != FeedMode::Polling) {
            return;
        }
        m_pollInFlight = false;
        if (!stats && stats.kind() == api::ErrorKind::Unauthorized) {
            if (sentToken != m_token) return;  // a replaced token's refusal: the next poll has the new one
            refuse(QString::fromStdString(stats.error().message));
            return;
        }
        if (!stats && stats.kind() != api::ErrorKind::BadRequest) {
            // The proxy went away too: back to reconnecting (the WebSocket retry is scheduled).
            m_lastError = QString::fromStdString(stats.error().message);
            stopPolling();
            setFeedMode(FeedMode::Live, QString());
            setState(State::Reconnecting);
            if (!m_reconnectTimer->isActive() && !m_socketActive) {
                scheduleReconnect();
            }
            return;
        }
        if (!stats) {
            qWarning("tessera-console: %s", stats.error().message.c_str());
            return;
        }
        emit metricsReceived(m_poll.update(*stats, QDateTime::currentMSecsSinceEpoch()));
        fetchSmap();
        fetchJobs();
    });
}

void ClusterConnection::fetchJobs()
{
    const quint64 generation = m_generation;
    m_rest->jobs(this, [this, generation](api::Result<std::vector<api::JobStatus>> jobs) {
        if (generation != m_generation) {
            return;
        }
        if (!jobs) {
            // The job list is for admins: a user's console would repeat the
            // same 403 at every snapshot and poll.
            if (jobs.kind() == api::ErrorKind::Forbidden && m_jobsForbiddenSaid) return;
            m_jobsForbiddenSaid = jobs.kind() == api::ErrorKind::Forbidden;
            qWarning("tessera-console: jobs: %s", jobs.error().message.c_str());
            return;
        }
        m_jobsForbiddenSaid = false;
        emit jobsListed(*jobs);
    });
}

void ClusterConnection::fetchSmap()
{
    const quint64 generation = m_generation;
    m_rest->smap(this, [this, generation](api::Result<api::Smap> smap) {
        if (generation != m_generation) {
            return;
        }
        if (!smap) {
            qWarning("tessera-console: cluster map: %s", smap.error().message.c_str());
            return;
        }
        if (smap->version != m_smap.version || smap->tmap.size() != m_smap.tmap.size()) {
            applySmap(*smap);
        }
    });
}

}  // namespace tessera::console
