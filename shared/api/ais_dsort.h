#pragma once
// dSort's job information as AIStore sends it (ext/dsort/api_metrics.go,
// NVIDIA/aistore 583e772): GET /v1/sort?uuid=ID answers a map of target id
// to JobInfo (api.MetricsDsort, `ais show job dsort`, the Python SDK's
// Dsort.get_job_info()/wait()), GET /v1/sort a list of JobInfo aggregated
// over the targets (api.ListDsort). Field names, `,string` numbers, times
// and durations (nanoseconds) as AIStore's Go tags write them.
//
// Built from what a Tessera target reports of its part (its job status and
// its dSort session's counters, see aisDsortJobInfo). What Tessera does not
// measure is at AIStore's neutral value: no sent/recv/req/resp time stats
// (absent, as they are optional), moved_shard_count 0 (a shard is built on
// its owner, never moved).

#include "ais_go_types.h"
#include "job.h"
#include "wire.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tessera::api {

// cmn.Bck (cmn/bck_wire.go): {"name","provider","namespace":{"uuid","name"}}.
struct AisBck {
    std::string name;
    std::string provider = "ais";
    std::string nsUuid;
    std::string nsName;
    bool operator==(const AisBck&) const = default;
};

// TimeStats: milliseconds, every field `,string`.
struct AisTimeStats {
    GoIntString totalMs, count, minMs, maxMs, avgMs;
    bool operator==(const AisTimeStats&) const = default;
};

// phaseBase, embedded in each phase.
struct AisDsortPhase {
    GoTime started;
    GoTime ended;
    std::int64_t elapsedNs = 0;  // time.Duration
    bool running = false;
    bool finished = false;
    bool operator==(const AisDsortPhase&) const = default;
};

struct AisLocalExtraction {
    AisDsortPhase phase;
    GoIntString totalCount, extractedCount, extractedSize, extractedRecordCount, extractedToDiskCount,
        extractedToDiskSize;
    bool operator==(const AisLocalExtraction&) const = default;
};

struct AisMetaSorting {
    AisDsortPhase phase;
    std::optional<AisTimeStats> sentStats, recvStats;
    bool operator==(const AisMetaSorting&) const = default;
};

struct AisShardCreation {
    AisDsortPhase phase;
    GoIntString toCreate, createdCount, movedShardCount;
    std::optional<AisTimeStats> reqStats, respStats;
    bool operator==(const AisShardCreation&) const = default;
};

struct AisDsortMetrics {
    std::optional<AisLocalExtraction> extraction;
    std::optional<AisMetaSorting> sorting;
    std::optional<AisShardCreation> creation;
    std::string description;  // omitempty
    std::vector<std::string> warnings;
    std::vector<std::string> errors;
    bool aborted = false;   // cmn/atomic.Bool: always written
    bool archived = false;  // ditto
    bool operator==(const AisDsortMetrics&) const = default;
};

struct AisDsortJobInfo {
    std::string id;
    AisBck srcBck, dstBck;
    GoTime started;                          // started_time
    GoTime finished;                         // finish_time
    std::int64_t extractedDurationNs = 0;    // started_meta_sorting (omitempty)
    std::int64_t sortingDurationNs = 0;      // started_shard_creation (omitempty)
    std::int64_t creationDurationNs = 0;     // finished_shard_creation (omitempty)
    GoIntString objs;                        // loc-objs
    GoIntString bytes;                       // loc-bytes
    std::optional<AisDsortMetrics> metrics;  // "Metrics" (no json tag in Go)
    bool aborted = false;
    bool archived = false;
    bool operator==(const AisDsortJobInfo&) const = default;

    // dsort.JobInfo.IsFinished: aborted or archived.
    bool isFinished() const { return aborted || archived; }
};

void to_json(nlohmann::json& j, const AisBck& v);
void readFields(FieldReader& r, AisBck& v);
void to_json(nlohmann::json& j, const AisTimeStats& v);
void readFields(FieldReader& r, AisTimeStats& v);
void to_json(nlohmann::json& j, const AisLocalExtraction& v);
void readFields(FieldReader& r, AisLocalExtraction& v);
void to_json(nlohmann::json& j, const AisMetaSorting& v);
void readFields(FieldReader& r, AisMetaSorting& v);
void to_json(nlohmann::json& j, const AisShardCreation& v);
void readFields(FieldReader& r, AisShardCreation& v);
void to_json(nlohmann::json& j, const AisDsortMetrics& v);
void readFields(FieldReader& r, AisDsortMetrics& v);
void to_json(nlohmann::json& j, const AisDsortJobInfo& v);
void readFields(FieldReader& r, AisDsortJobInfo& v);

// What Tessera knows of one target's part of a dSort job.
struct DsortTargetPart {
    std::string jobId;
    std::string inputBck, outputBck, description;  // from the job's spec
    JobState jobState = JobState::Running;         // the whole job's
    std::string jobError;
    TargetJobStatus target;  // the target's part (phase, counters, times)
    // The target's dSort session counters (GET /v1/internal/dsort/ID/metrics:
    // extract.ms, sort.ms, create.ms, extract.shards, extract.records,
    // extract.bytes, extract.missing_shards, sort.duplicates, create.shards,
    // spill.records, spill.bytes, ...); {} when the target could not be asked.
    nlohmann::json counters = nlohmann::json::object();
    std::int64_t nowNs = 0;  // wall clock, for a running phase's elapsed time
};

// One target's JobInfo. Phases: extraction starts when the target's part
// started and lasts extract.ms; sorting follows for sort.ms; creation for
// create.ms. A phase without its duration yet is running when it is the
// target's current phase (elapsed: until now), else not started. Aborted:
// the job or the part was aborted or failed (its error in Metrics.errors);
// archived: the job ended.
AisDsortJobInfo aisDsortJobInfo(const DsortTargetPart& part);

// A target's answer to GET /v1/internal/dsort/ID/metrics: its session's
// counters, an object of named numbers (and the "sorter" flag). BadRequest
// for anything else (not JSON, not an object, a value that is an object,
// array, string or null).
Result<nlohmann::json> parseDsortCounters(std::string_view body);
// GET /v1/internal/dsort/metrics?ids=...: job id -> its counters, each as above.
Result<std::map<std::string, nlohmann::json>> parseDsortCountersById(std::string_view body);

// dsort.JobInfo.Aggregate, as AIStore's proxy merges the targets' entries
// of one job for the list: earliest start, latest finish (zero while any is
// zero), longest phase durations, aborted if any, archived if all, objects
// and bytes summed.
void aggregate(AisDsortJobInfo& into, const AisDsortJobInfo& other);

}  // namespace tessera::api
