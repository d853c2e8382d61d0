#pragma once
// ETL on the wire: the transformer spec a client initializes
// (`PUT /v1/etl`), the ETL registry the proxy keeps and distributes with the
// other cluster metadata (EtlMd), each target's report on its transformer
// (EtlTargetState), the proxy's summary (EtlInfo), and the value of the
// offline actions `etl-bck` / `etl-listrange` (EtlBucketMsg).
//
// Durations are written as Go-style strings ("30s", "1m30s", "250ms"), as
// AIStore writes them; sizes as integers (bytes) or size strings ("64MiB").

#include "result.h"
#include "wire.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

// How the target talks to a transformer.
enum class EtlComm {
    Io,     // io://    one process per object: the bytes on stdin, the result on stdout
    HPush,  // hpush:// a long-running HTTP server; the target POSTs the bytes to it
    HPull,  // hpull:// a long-running HTTP server; the client is redirected to it, and it GETs the object
};
std::string_view etlCommName(EtlComm c);
std::optional<EtlComm> etlCommFromName(std::string_view s);  // "io://" or "io"

namespace etl_limits {
inline constexpr std::size_t kMaxCommandArgs = 64;
inline constexpr std::size_t kMaxArgBytes = 4096;
inline constexpr std::size_t kMaxEnv = 64;
inline constexpr std::int64_t kMaxInitTimeoutMs = 10 * 60 * 1000;
inline constexpr std::int64_t kMaxObjTimeoutMs = 60 * 60 * 1000;
inline constexpr std::uint64_t kMaxOutputSize = std::uint64_t{16} << 30;
inline constexpr std::uint32_t kMaxPoolSize = 256;
inline constexpr std::size_t kMaxPipeline = 8;
inline constexpr std::size_t kMaxArgsParam = 4096;  // etl_args on a GET
}  // namespace etl_limits

struct EtlSpec {
    std::string name;
    EtlComm communication = EtlComm::Io;
    std::vector<std::string> command;  // argv; command[0] resolves inside the node's etl_bin_dirs
    std::map<std::string, std::string> env;
    std::int64_t initTimeoutMs = 30'000;  // hpush/hpull: until the server answers GET /health
    std::int64_t objTimeoutMs = 60'000;   // one object's transformation
    std::uint64_t maxOutputSize = std::uint64_t{256} << 20;
    std::uint32_t poolSize = 0;                          // io: processes at once per target; 0: 2 x cores
    std::uint64_t memoryLimit = std::uint64_t{4} << 30;  // RLIMIT_AS of each transformer process
    // io:// only. false: one process per object. true ("framing":"length"):
    // up to pool_size long-lived processes, each object sent as an 8-byte
    // big-endian length and the bytes, the result read back the same way.
    bool framed = false;
    bool operator==(const EtlSpec&) const = default;
};

void to_json(nlohmann::json& j, const EtlSpec& v);
void readFields(FieldReader& r, EtlSpec& v);
// The checks beyond the types: name, argv, env, ranges. BadRequest naming
// the field ("etl: /command: ...").
Status validateEtlSpec(const EtlSpec& spec);
// A spec from a request body: parsed, then validated.
Result<EtlSpec> parseEtlSpec(std::string_view body);
// The same for a document already parsed (a YAML spec, say).
Result<EtlSpec> readEtlSpec(const nlohmann::json& j);

// "250ms", "30s", "1m30s", "2h"; BadRequest otherwise.
Result<std::int64_t> parseDurationMs(std::string_view text);
std::string formatDurationMs(std::int64_t ms);

// The stage an ETL is asked to be in (EtlMd) or is in (targets, summary).
namespace etl_stage {
inline constexpr const char* kStarting = "starting";  // targets: the transformer is starting
inline constexpr const char* kRunning = "running";
inline constexpr const char* kStopped = "stopped";
inline constexpr const char* kError = "error";  // failed to start (or init failed everywhere)
}  // namespace etl_stage

struct EtlEntry {
    EtlSpec spec;
    std::string stage = etl_stage::kRunning;  // wanted: running | stopped
    std::int64_t createdNs = 0;
    bool operator==(const EtlEntry&) const = default;
};

// The ETL registry: persisted by the proxy, pushed to every target with
// the cluster map and the buckets.
struct EtlMd {
    std::int64_t version = 0;
    std::map<std::string, EtlEntry> etls;
    bool operator==(const EtlMd&) const = default;
};

void to_json(nlohmann::json& j, const EtlEntry& v);
void readFields(FieldReader& r, EtlEntry& v);
void to_json(nlohmann::json& j, const EtlMd& v);
void readFields(FieldReader& r, EtlMd& v);

// One target's transformer: GET /v1/internal/etl answers a list of these.
struct EtlTargetState {
    std::string name;
    std::string target;
    std::string stage = etl_stage::kStarting;
    std::string error;  // why it is in error, or the last restart's reason
    std::int64_t pid = 0;
    std::uint32_t port = 0;  // hpush/hpull
    std::uint64_t objectsIn = 0;
    std::uint64_t bytesIn = 0;
    std::uint64_t bytesOut = 0;
    std::uint64_t errors = 0;
    std::uint64_t restarts = 0;
    std::vector<std::string> lastErrors;  // newest last, bounded
    bool operator==(const EtlTargetState&) const = default;
};

void to_json(nlohmann::json& j, const EtlTargetState& v);
void readFields(FieldReader& r, EtlTargetState& v);

// GET /v1/etl (a list) and GET /v1/etl/NAME: the proxy's summary.
struct EtlInfo {
    std::string name;
    std::string communication;
    std::string stage;  // the wanted stage, or "error"/"starting" as the targets report
    std::uint64_t objectsIn = 0;
    std::uint64_t bytesIn = 0;
    std::uint64_t bytesOut = 0;
    std::uint64_t errors = 0;
    std::optional<EtlSpec> spec;                     // GET /v1/etl/NAME only
    std::map<std::string, EtlTargetState> targets;   // GET /v1/etl/NAME only
    std::map<std::string, std::string> unreachable;  // targets that did not answer, and why
    bool operator==(const EtlInfo&) const = default;
};

void to_json(nlohmann::json& j, const EtlInfo& v);
void readFields(FieldReader& r, EtlInfo& v);

// GET /v1/etl/NAME/logs: each transformer's recent stderr.
struct EtlLog {
    std::string target;
    std::string log;
    bool operator==(const EtlLog&) const = default;
};
void to_json(nlohmann::json& j, const EtlLog& v);
void readFields(FieldReader& r, EtlLog& v);

// The value of the `etl-bck` action (POST /v1/buckets/SRC, the destination
// in the action's `name`), and of `etl-listrange` (objects by names or by
// template). AIStore's TCBMsg / TCOMsg fields.
struct EtlBucketMsg {
    std::string id;  // the ETL's name
    std::string prefix;
    std::string templ;                       // JSON: template
    std::vector<std::string> objnames;       // etl-listrange
    std::map<std::string, std::string> ext;  // "png" -> "jpg": renames the destination
    bool dryRun = false;
    bool continueOnErr = false;
    std::uint32_t numWorkers = 0;  // per target; 0: the ETL's pool size
    // Per-sample shard ETL: each source shard becomes a shard of the same
    // name with each member (whose extension is in sampleExt, or every
    // member when empty) passed through the transformer.
    bool perSample = false;
    std::vector<std::string> sampleExt;
    bool operator==(const EtlBucketMsg&) const = default;
};

void to_json(nlohmann::json& j, const EtlBucketMsg& v);
void readFields(FieldReader& r, EtlBucketMsg& v);

// The args of one target's part of an offline ETL job.
struct EtlJobArgs {
    std::string srcBucket;
    std::string dstBucket;
    EtlBucketMsg msg;  // objnames: this target's share of a template or a list
    bool operator==(const EtlJobArgs&) const = default;
};

void to_json(nlohmann::json& j, const EtlJobArgs& v);
void readFields(FieldReader& r, EtlJobArgs& v);

// "name.png" with {"png":"jpg"} -> "name.jpg": the last extension of the
// last path component is looked up; no mapping keeps the name.
std::string mapExtension(const std::string& name, const std::map<std::string, std::string>& ext);

}  // namespace tessera::api
