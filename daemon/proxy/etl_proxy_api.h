#pragma once
// The proxy's ETL front end (AIStore's REST shapes where AIStore has the call):
//   PUT    /v1/etl                 init: the spec (EtlSpec JSON) -> EtlInfo once every target runs it
//   GET    /v1/etl                 every ETL (EtlInfo list: stage, objects and bytes in/out, errors)
//   GET    /v1/etl/{name}          one ETL: spec, per-target state, last errors
//   GET    /v1/etl/{name}/logs     each target's transformer stderr ([EtlLog]; ?target=ID for one)
//   POST   /v1/etl/{name}/start    (also /stop)
//   DELETE /v1/etl/{name}
//   POST   /v1/buckets/SRC {"action":"etl-bck"|"etl-listrange","name":DST,"value":EtlBucketMsg}
// The registry is the proxy's (SQLite, versioned) and goes to every target
// with the other cluster metadata; targets start and stop the transformers.
// Init, start and stop answer once every target reports the new stage (or
// any failed: then nothing is left running). State changes and transformer
// restarts are published on the feed as `event` messages of kind etl_*.
//
// Thread safety: handlers run on worker threads; the watcher on its own.

#include "api/action_msg.h"
#include "api/etl_msg.h"
#include "feed_hub.h"
#include "job_coordinator.h"
#include "net/router.h"
#include "peer_calls.h"
#include "proxy_state.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace tessera::daemon::proxy {

class EtlProxyApi {
public:
    EtlProxyApi(ProxyState& state, PeerCalls& peers, JobCoordinator& jobs, std::chrono::milliseconds peerTimeout);
    ~EtlProxyApi();

    void attach(std::shared_ptr<FeedHub> hub) { m_hub = std::move(hub); }
    void registerRoutes(net::Router& router);
    // Registers the etl-bck job kind with the coordinator.
    void registerWith(JobCoordinator& jobs);
    // POST /v1/buckets/SRC with action etl-bck or etl-listrange.
    net::Response bucketAction(const std::string& srcBucket, const api::ActionMsg& msg);
    void start();  // the watcher (feed events)
    void stop();

private:
    net::Response init(const net::Request& req);
    net::Response list(const net::Request& req);
    net::Response show(const net::Request& req);
    net::Response logs(const net::Request& req);
    net::Response startEtl(const net::Request& req);
    net::Response stopEtl(const net::Request& req);
    net::Response remove(const net::Request& req);

    // Pushes the registry and waits (up to `timeout`) for every target to
    // report `name` in `stage` (or gone when stage is empty). The error
    // names the targets that did not.
    api::Status pushAndWait(const api::EtlMd& md, const std::string& name, const std::string& stage,
                            std::chrono::milliseconds timeout);
    // Every target's states: by target id, or the reason it did not answer.
    std::map<std::string, api::Result<std::vector<api::EtlTargetState>>> collect() const;
    api::EtlInfo summarize(const api::EtlEntry& entry,
                           const std::map<std::string, api::Result<std::vector<api::EtlTargetState>>>& states,
                           bool detail) const;
    void publish(const std::string& severity, const std::string& kind, const std::string& node,
                 const std::string& message);
    void watch();
    api::Result<std::map<std::string, nlohmann::json>> prepare(const nlohmann::json& args, const api::Smap& targets);

    ProxyState& m_state;
    PeerCalls& m_peers;
    JobCoordinator& m_jobs;
    std::chrono::milliseconds m_peerTimeout;
    std::shared_ptr<FeedHub> m_hub;
    std::mutex m_changeMutex;  // one registry change at a time

    std::mutex m_watchMutex;
    std::condition_variable m_watchCv;
    bool m_stop = false;
    std::thread m_watcher;
    std::map<std::string, api::EtlTargetState> m_seen;  // "etl/target" -> last state (watcher thread only)
};

}  // namespace tessera::daemon::proxy
