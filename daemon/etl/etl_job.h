#pragma once
// Offline ETL, on one target (job kind "etl-bck"): every object of the
// source bucket this target holds (by prefix, or the names the proxy gave
// it for a template or a list) goes through the ETL, and the result is
// written straight to the target that owns the destination name (this one
// or a peer; never through the proxy). A destination object appears whole
// or not at all (the owner's PUT is atomic, and nothing is sent before the
// transformer finished successfully).
// Per-sample mode: each source shard is read member by member, the members
// selected by extension go through the ETL, the others are copied, and a
// new shard with the same keys in the same order is written.
// Phases: scan (totals), transform.

#include "api/etl_msg.h"
#include "archive/archive_limits.h"
#include "etl_manager.h"
#include "jobs/job_runner.h"
#include "target/meta_cache.h"
#include "target/object_store.h"

#include <chrono>
#include <string>

namespace tessera::daemon::etl {

inline constexpr const char* kKindEtlBucket = "etl-bck";

class EtlJob : public jobs::JobWork {
public:
    struct Env {
        const target::ObjectStore& store;
        target::MetaCache& cache;
        EtlManager& etl;
        std::string selfId;
        std::chrono::milliseconds peerTimeout;
        archive::ArchiveLimits limits;
        unsigned cores = 2;
        std::string clusterKey;  // presented to the owners results are stored on (auth on)
    };
    static api::Result<std::unique_ptr<jobs::JobWork>> create(Env env, const nlohmann::json& args);
    api::Status run(jobs::JobContext& ctx) override;

private:
    EtlJob(Env env, api::EtlJobArgs args) : m_env(std::move(env)), m_args(std::move(args)) {}
    struct Item {
        std::string name;
        std::uint64_t size = 0;
    };
    std::vector<Item> scan(jobs::JobContext& ctx) const;
    // One object: transformed (or each of its members), then stored.
    api::Status process(const Item& item, jobs::JobContext& ctx) const;
    api::Result<EtlOutput> transformShard(const Item& item, const target::OpenObject& obj, jobs::JobContext& ctx) const;
    api::Status store(const std::string& name, const EtlOutput& out) const;

    Env m_env;
    api::EtlJobArgs m_args;
    std::vector<std::string> m_pipeline;
};

}  // namespace tessera::daemon::etl
