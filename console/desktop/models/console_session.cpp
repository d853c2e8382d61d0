#include "models/console_session.h"

#include "core/cluster_connection.h"
#include "core/job_client.h"
#include "core/metrics_store.h"
#include "core/profile_store.h"
#include "core/spec_store.h"
#include "models/bucket_model.h"
#include "models/event_model.h"
#include "models/job_model.h"
#include "models/metrics_history.h"
#include "models/node_model.h"
#include "models/user_model.h"

#include <QDateTime>

namespace tessera::console {

ConsoleSession::ConsoleSession(const QString& databasePath, QObject* parent)
    : ConsoleSession(databasePath, Options{}, parent)
{
}

ConsoleSession::ConsoleSession(const QString& databasePath, Options options, QObject* parent) : QObject(parent)
{
    if (auto store = ProfileStore::open(databasePath)) {
        m_profileStore = std::move(*store);
    } else {
        m_storageError = QString::fromStdString(store.error().message + ": " + store.error().causedBy);
    }
    if (auto store = MetricsStore::open(databasePath)) {
        m_metricsStore = std::move(*store);
    } else if (m_storageError.isEmpty()) {
        m_storageError = QString::fromStdString(store.error().message + ": " + store.error().causedBy);
    }

    if (auto store = SpecStore::open(databasePath)) {
        m_specStore = std::move(*store);
    } else if (m_storageError.isEmpty()) {
        m_storageError = QString::fromStdString(store.error().message + ": " + store.error().causedBy);
    }

    m_connection = new ClusterConnection(this);
    m_jobClient = new JobClient(m_connection->rest(), this);
    m_nodes = new NodeModel(this);
    m_jobs = new JobModel(this);
    m_events = new EventModel(this);
    m_metrics = new MetricsHistory(m_metricsStore.get(), this);
    m_bucketsModels = BucketsModels::create(m_connection->rest(), this);
    m_tokenStore = new TokenStore(options.tokens, this);
    m_auth = new AuthSession(m_connection->rest(), m_connection, m_tokenStore, options.auth, this);
    m_users = new UserModel(m_connection->rest(), this);

    connect(m_connection, &ClusterConnection::endpointChanged, this, [this](const QUrl& endpoint) {
        m_metrics->setSource(endpoint.toString(), QDateTime::currentMSecsSinceEpoch());
        m_nodes->clear();
        m_jobs->clear();
        m_events->clear();
    });
    connect(m_connection, &ClusterConnection::snapshotReceived, this, [this](const api::FeedSnapshot& s) {
        m_events->addEvents(s.events);
        m_jobs->setJobs(s.jobs);
    });
    connect(m_connection, &ClusterConnection::smapChanged, m_nodes, &NodeModel::setSmap);
    connect(m_connection, &ClusterConnection::metricsReceived, m_nodes, &NodeModel::setMetrics);
    connect(m_connection, &ClusterConnection::metricsReceived, m_metrics, &MetricsHistory::addMetrics);
    connect(m_connection, &ClusterConnection::jobUpdated, m_jobs, &JobModel::updateJob);
    connect(m_connection, &ClusterConnection::jobsListed, m_jobs, &JobModel::setJobs);
    connect(m_connection, &ClusterConnection::eventReceived, m_events, &EventModel::addEvent);
    connect(m_connection, &ClusterConnection::bucketSummariesChanged, m_bucketsModels.buckets,
            &BucketModel::setServerSummaries);
    connect(m_connection, &ClusterConnection::smapChanged, m_bucketsModels.buckets, &BucketModel::setSmap);
    // A job started here shows at once; the feed's job messages follow.
    connect(m_jobClient, &JobClient::started, m_jobs, [this](const api::JobStatus& job) { m_jobs->updateJob(job); });
    // The end of a reprotect or rebalance may complete the copies (mirror.pending
    // cleared): the feed's bmd message says so, but a console polling the
    // cluster has no feed.
    connect(m_jobs, &JobModel::jobEnded, this, [this](const api::JobStatus& job) {
        if (job.kind == "reprotect" || job.kind == "rebalance") m_bucketsModels.buckets->refreshProps();
    });
}

ConsoleSession::~ConsoleSession() = default;

void ConsoleSession::connectTo(const ConnectionProfile& profile)
{
    m_profileName = profile.name;
    if (m_profileStore && !profile.name.isEmpty()) {
        if (auto st = m_profileStore->markUsed(profile.name); !st && st.kind() != api::ErrorKind::NotFound) {
            qWarning("tessera-console: %s", st.error().message.c_str());
        }
    }
    // Closed first: the stored tokens may arrive (keychain) before the new
    // endpoint opens, and must not reopen the old one.
    m_connection->close();
    m_connection->setTls(profile.tls);
    m_auth->setProfile(tokenKey(profile), profile.token);
    m_connection->setEndpoint(profile.endpoint);
    emit profileChanged(m_profileName);
}

std::optional<ConnectionProfile> ConsoleSession::startupProfile(const QUrl& commandLine,
                                                                const TlsSettings& commandLineTls) const
{
    if (commandLine.isValid() && !commandLine.host().isEmpty()) {
        return ConnectionProfile{QString(), commandLine, QString(), commandLineTls};
    }
    if (!m_profileStore) {
        return std::nullopt;
    }
    auto last = m_profileStore->lastUsed();
    if (!last) {
        qWarning("tessera-console: %s", last.error().message.c_str());
        return std::nullopt;
    }
    return *last;
}

QString ConsoleSession::tokenKey(const ConnectionProfile& profile)
{
    return profile.name.isEmpty() ? profile.endpoint.toString() : profile.name;
}

RestClient* ConsoleSession::rest() const { return m_connection->rest(); }

}  // namespace tessera::console
