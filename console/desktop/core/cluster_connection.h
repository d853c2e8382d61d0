#pragma once

#include "api/cluster_event.h"
#include "api/feed.h"
#include "api/job.h"
#include "api/smap.h"
#include "core/backoff.h"
#include "core/node_stats_poll.h"
#include "core/tls_settings.h"

#include <QAbstractSocket>
#include <QList>
#include <QObject>
#include <QSslError>
#include <QString>
#include <QUrl>
#include <chrono>
#include <cstdint>
#include <vector>

class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace tessera::console {
class RestClient;
}
class QTimer;
class QWebSocket;

namespace tessera::console {

// The console's one link to a cluster: owns the QNetworkAccessManager every
// REST client shares and the QWebSocket of the live feed (ws://<proxy>/v1/ws,
// wss:// for an https:// proxy, checked as setTls says).
//
// - Reconnects by itself with exponential backoff and jitter (QWebSocket never
//   does); after a reconnect the new `snapshot` replaces all state, and the job
//   list is re-read over REST.
// - Checks `seq` on every message: a gap means messages were lost, so the feed
//   is reopened to start again from a snapshot.
// - When the proxy answers HTTP but refuses the console with 401 (auth on, and
//   no token or one it no longer takes), it stops and emits signInRequired()
//   instead of retrying (AuthSession signs in or refreshes and reopens).
// - When the proxy answers HTTP but the WebSocket cannot be opened, it says so
//   (feedProblem()) and polls `GET /v1/cluster?what=node_stats|smap` and
//   `GET /v1/jobs` instead, while still retrying the WebSocket.
//
// Lives on the UI thread; everything is asynchronous.
class ClusterConnection : public QObject {
    Q_OBJECT
public:
    enum class State { Offline, Connecting, Connected, Reconnecting };
    Q_ENUM(State)
    enum class FeedMode { Live, Polling };
    Q_ENUM(FeedMode)

    struct Options {
        std::chrono::milliseconds backoffInitial{500};
        std::chrono::milliseconds backoffMax{15000};
        double backoffJitter = 0.3;
        std::chrono::milliseconds openTimeout{5000};     // WebSocket handshake
        std::chrono::milliseconds requestTimeout{5000};  // every REST call made here
        std::chrono::milliseconds pollInterval{1000};    // polling fallback cadence
        int wsFailuresBeforePolling = 2;                 // failed opens while HTTP answers
    };

    explicit ClusterConnection(QObject* parent = nullptr);
    ClusterConnection(Options options, QObject* parent);
    ~ClusterConnection() override;

    QUrl endpoint() const { return m_endpoint; }
    // The console's one REST client: its endpoint and token follow the
    // connection's; the polls and every page's calls go through it.
    RestClient* rest() const { return m_rest; }

    State state() const { return m_state; }
    FeedMode feedMode() const { return m_feedMode; }
    // Why the live feed is not in use (empty when it is).
    QString feedProblem() const { return m_feedProblem; }
    // The last connection error (empty when connected).
    QString lastError() const { return m_lastError; }
    const api::Smap& smap() const { return m_smap; }
    std::int64_t smapVersion() const { return m_smap.version; }
    int nodeCount() const { return static_cast<int>(m_smap.pmap.size() + m_smap.tmap.size()); }
    int gapsDetected() const { return m_gaps; }
    // Offline because the cluster refused the console's token (or its lack
    // of one): no polls and no feed retries until open() (after a sign-in).
    bool heldForSignIn() const { return m_heldForSignIn; }
    int reconnects() const { return m_reconnects; }

public slots:
    // Connects to `endpoint` (reconnecting when already connected elsewhere).
    void setEndpoint(const QUrl& endpoint);
    void setToken(const QString& token);
    // How an https:// endpoint's certificate is checked, for the feed and
    // every REST call; takes effect at the next open (setEndpoint opens). A
    // CA file that cannot be read keeps an https:// endpoint Offline with
    // lastError() naming the file.
    void setTls(const TlsSettings& settings);
    void open();
    // Stops everything: Offline until open() again.
    void close();
    // close(), remembering `reason` (lastError()) and heldForSignIn().
    void holdForSignIn(const QString& reason);
    // Re-reads the state from the cluster (F5): a fresh snapshot and job list.
    void resync();

signals:
    void endpointChanged(const QUrl& endpoint);
    void stateChanged(tessera::console::ClusterConnection::State state);
    void feedModeChanged(tessera::console::ClusterConnection::FeedMode mode);
    // State, Smap version or node count changed (for the status bar).
    void statusChanged();
    void snapshotReceived(const tessera::api::FeedSnapshot& snapshot);
    void metricsReceived(const tessera::api::MetricsUpdate& metrics);
    void smapChanged(const tessera::api::Smap& smap);
    // Buckets changed (snapshot or bmd message): bucket views re-read.
    void bucketsChanged();
    // The buckets' usage figures (snapshot, bmd and buckets messages).
    void bucketSummariesChanged(const std::vector<tessera::api::BucketSummary>& buckets);
    void jobUpdated(const tessera::api::JobStatus& job);
    // The full job list (REST), after a snapshot or while polling.
    void jobsListed(const std::vector<tessera::api::JobStatus>& jobs);
    void eventReceived(const tessera::api::ClusterEvent& event);
    void gapDetected(std::int64_t expectedSeq, std::int64_t receivedSeq);
    // The cluster answers but refuses the console (401) on the feed or the
    // polls: the connection is held (heldForSignIn()) and says so once.
    void signInRequired(const QString& message);

private:
    void setState(State state);
    void setFeedMode(FeedMode mode, const QString& problem);
    void openSocket();
    void onSocketConnected();
    void onSocketLost(const QString& reason);
    void onTextMessage(const QString& text);
    void handle(api::FeedMessage&& message);
    void applySmap(const api::Smap& smap);
    void scheduleReconnect();
    void probeHealth(const QString& wsReason);
    // After the feed failed while /v1/health answers: a 401 on a call that
    // needs a token means the feed was refused for want of one.
    void probeAccess(const QString& wsReason);
    void refuse(const QString& message);
    void startPolling(const QString& reason);
    void stopPolling();
    void poll();
    void fetchJobs();
    void fetchSmap();

    Options m_options;
    QNetworkAccessManager* m_network = nullptr;
    RestClient* m_rest;
    QWebSocket* m_socket = nullptr;
    QTimer* m_openTimer = nullptr;
    QTimer* m_reconnectTimer = nullptr;
    QTimer* m_pollTimer = nullptr;
    Backoff m_backoff;
    NodeStatsPoll m_poll;
    QUrl m_endpoint;
    QString m_token;
    QString m_socketToken;             // the token the feed was opened with
    QString m_tlsProblem;              // why setTls's settings cannot be used (empty: they can)
    QList<QSslError> m_feedSslErrors;  // reported by the socket during its last handshake
    State m_state = State::Offline;
    FeedMode m_feedMode = FeedMode::Live;
    QString m_feedProblem;
    QString m_lastError;
    api::Smap m_smap;
    std::int64_t m_lastSeq = 0;
    bool m_socketActive = false;  // a socket open attempt or session is ours to handle
    bool m_everConnected = false;
    bool m_pollInFlight = false;
    bool m_heldForSignIn = false;
    bool m_jobsForbiddenSaid = false;  // the 403 of GET /v1/jobs was logged
    int m_wsFailures = 0;
    int m_gaps = 0;
    int m_reconnects = 0;
    quint64 m_generation = 0;  // bumps on close/setEndpoint: late replies are dropped
};

QString stateName(ClusterConnection::State state);

}  // namespace tessera::console
