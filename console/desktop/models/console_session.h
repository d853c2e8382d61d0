#pragma once

#include "core/auth_session.h"
#include "core/connection_profile.h"
#include "core/token_store.h"
#include "models/buckets_models.h"

#include <QObject>
#include <QString>
#include <memory>
#include <optional>

namespace tessera::console {

class ClusterConnection;
class EventModel;
class JobClient;
class JobModel;
class MetricsHistory;
class MetricsStore;
class NodeModel;
class ProfileStore;
class RestClient;
class SpecStore;
class UserModel;

// What one running console holds: the connection to a cluster, the cluster-side
// models fed from it, and the local stores. It only wires the connection's
// signals to the models; pages get the pieces they show (narrow pointers),
// never the session. UI thread.
class ConsoleSession : public QObject {
    Q_OBJECT
public:
    // Opens the stores in the SQLite database at `databasePath`. When the
    // database cannot be opened the console still runs (nothing persists) and
    // storageError() says why.
    struct Options {
        // Where tokens are kept (TESSERA_CONSOLE_TOKEN_STORE, the config folder).
        TokenStore::Options tokens = TokenStore::Options::fromEnvironment();
        AuthSession::Options auth = {};
    };
    explicit ConsoleSession(const QString& databasePath, QObject* parent = nullptr);
    ConsoleSession(const QString& databasePath, Options options, QObject* parent = nullptr);
    ~ConsoleSession() override;

    ClusterConnection* connection() const { return m_connection; }
    // The one REST client (the connection's): pages make their calls through it.
    RestClient* rest() const;
    JobClient* jobClient() const { return m_jobClient; }
    NodeModel* nodes() const { return m_nodes; }
    JobModel* jobs() const { return m_jobs; }
    EventModel* events() const { return m_events; }
    MetricsHistory* metrics() const { return m_metrics; }
    // Who the console is signed in as, and the tokens (kept in tokenStore()).
    AuthSession* auth() const { return m_auth; }
    TokenStore* tokenStore() const { return m_tokenStore; }
    // The cluster's users (the Access page; admins only).
    UserModel* users() const { return m_users; }
    const BucketsModels& bucketsModels() const { return m_bucketsModels; }
    ProfileStore* profiles() const { return m_profileStore.get(); }  // null when storage failed
    SpecStore* specs() const { return m_specStore.get(); }           // null when storage failed
    QString storageError() const { return m_storageError; }

    // Connects to `profile` (and records it as the last used when it is
    // saved), signed in with its pasted token or the tokens kept for it.
    void connectTo(const ConnectionProfile& profile);
    // The endpoint the console opens at start: `commandLine` (checked as
    // `commandLineTls` says) when valid, else the last used profile's, else none.
    std::optional<ConnectionProfile> startupProfile(const QUrl& commandLine,
                                                    const TlsSettings& commandLineTls = {}) const;
    QString profileName() const { return m_profileName; }
    // The key a profile's tokens are kept under: its name, or its endpoint
    // for a one-off connection.
    static QString tokenKey(const ConnectionProfile& profile);

signals:
    void profileChanged(const QString& name);

private:
    std::unique_ptr<ProfileStore> m_profileStore;
    std::unique_ptr<MetricsStore> m_metricsStore;
    std::unique_ptr<SpecStore> m_specStore;
    QString m_storageError;
    QString m_profileName;
    ClusterConnection* m_connection;
    JobClient* m_jobClient;
    NodeModel* m_nodes;
    JobModel* m_jobs;
    EventModel* m_events;
    MetricsHistory* m_metrics;
    TokenStore* m_tokenStore;
    AuthSession* m_auth;
    UserModel* m_users;
    BucketsModels m_bucketsModels;
};

}  // namespace tessera::console
