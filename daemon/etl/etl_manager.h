#pragma once
// A target's ETLs: follows the ETL registry the proxy distributes (starts
// what is wanted running, stops what is stopped or gone), runs transforms
// and pipelines for inline GETs and offline jobs, and answers the proxy:
//   GET  /v1/internal/etl               every ETL here (EtlTargetState list)
//   GET  /v1/internal/etl/{name}/logs   the transformer's recent stderr (EtlLog)
//   POST /v1/internal/etl/check         a spec (EtlSpec): may this node run it? (403 naming the rule)
//
// Thread safety: every public member may be called from any thread.

#include "api/etl_msg.h"
#include "net/router.h"
#include "transformer.h"

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tessera::daemon::etl {

class EtlManager {
public:
    struct Options {
        std::vector<std::string> binDirs;  // where transformers may live
        std::string workRoot;              // <data>/etl-work: one directory per ETL
        std::string host;                  // the target's address (hpush/hpull servers listen there)
        std::string selfUrl;
        std::string caFile;  // the CA the node trusts on a TLS cluster, "" otherwise
        std::string targetId;
        unsigned cores = 2;
        std::function<void(const std::string& etl, const std::string& severity, const std::string& message)> onEvent;
    };

    explicit EtlManager(Options options);
    ~EtlManager();  // stops every transformer
    EtlManager(const EtlManager&) = delete;
    EtlManager& operator=(const EtlManager&) = delete;

    // A new registry (from the metadata cache's listener): reconciled on
    // the manager's own thread; returns at once.
    void apply(const api::EtlMd& md);
    // Waits until everything applied so far is reconciled (tests, shutdown).
    void settle();
    void stopAll();

    // The executable the spec names, resolved inside etl_bin_dirs.
    api::Result<std::string> check(const api::EtlSpec& spec) const;

    // The input through each ETL of `pipeline` in turn. NotFound for an
    // unknown name, Unavailable while one is starting here, Conflict when
    // stopped.
    api::Result<EtlOutput> transform(const std::vector<std::string>& pipeline, const EtlInput& in,
                                     const std::string& args);
    // The running transformer of `name`, or the error transform() would give.
    api::Result<std::shared_ptr<Transformer>> find(const std::string& name) const;

    std::vector<api::EtlTargetState> states() const;

    void registerRoutes(net::Router& router);

private:
    void run();
    void reconcile(const api::EtlMd& md);
    net::Response listRoute(const net::Request& req);
    net::Response logsRoute(const net::Request& req);
    net::Response checkRoute(const net::Request& req);

    Options m_options;
    mutable std::mutex m_mutex;
    std::map<std::string, std::shared_ptr<Transformer>> m_etls;
    std::map<std::string, std::string> m_startErrors;  // wanted running but could not be made so
    std::shared_ptr<const api::EtlMd> m_wanted;        // the registry last applied

    std::mutex m_queueMutex;
    std::condition_variable m_queueCv;
    std::optional<api::EtlMd> m_pending;
    std::int64_t m_appliedVersion = 0;
    std::int64_t m_queuedVersion = 0;
    bool m_stop = false;
    std::thread m_thread;
};

// "a,b" -> {"a","b"}; BadRequest for an empty item or more than kMaxPipeline.
api::Result<std::vector<std::string>> parsePipeline(const std::string& first, const std::string& rest);

}  // namespace tessera::daemon::etl
