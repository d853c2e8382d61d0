#pragma once
// Jobs on the wire: every long operation (rebalance today; archive, ishard,
// dSort and ETL to come) runs as a job with an id, a kind, a state, a phase
// and progress counters, on every target in parallel, coordinated by the
// proxy. A target reports its part (TargetJobStatus); the proxy sums them
// into the job's status (JobStatus).

#include "result.h"
#include "wire.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::api {

enum class JobState { Running, Finished, Aborted, Failed };
std::string_view jobStateName(JobState s);
std::optional<JobState> jobStateFromName(std::string_view s);
inline bool isFinal(JobState s) { return s != JobState::Running; }

struct JobProgress {
    std::uint64_t objectsDone = 0;
    std::int64_t objectsTotal = -1;  // -1 while not known (a scan still running)
    std::uint64_t bytesDone = 0;
    std::int64_t bytesTotal = -1;
    std::uint64_t errors = 0;  // items that failed; the job goes on
    // What a kind counts besides (JSON: counters, absent when empty), summed
    // over targets: a scrub's checked/corrupt/repaired/unrepairable, a
    // reprotect's copies_sent.
    std::map<std::string, std::uint64_t> counters;
};

struct TargetJobStatus {
    std::string id;  // the job's
    std::string kind;
    std::string target;  // daemon id
    JobState state = JobState::Running;
    std::string phase;
    JobProgress progress;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;  // 0 while running
    std::string error;
};

struct JobStatus {
    std::string id;
    std::string kind;
    JobState state = JobState::Running;
    std::string phase;     // the least advanced target's
    JobProgress progress;  // summed over targets (a total is -1 while any target's is)
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::string error;
    bool abortRequested = false;
    std::map<std::string, TargetJobStatus> targets;
};

void to_json(nlohmann::json& j, const JobProgress& v);
void from_json(const nlohmann::json& j, JobProgress& v);
void to_json(nlohmann::json& j, const TargetJobStatus& v);
void from_json(const nlohmann::json& j, TargetJobStatus& v);
void to_json(nlohmann::json& j, const JobStatus& v);
void from_json(const nlohmann::json& j, JobStatus& v);

// POST /v1/jobs: a client starts a job of a kind; `args` is the kind's own
// (an object; absent is {}).
struct JobStart {
    std::string kind;
    nlohmann::json args = nlohmann::json::object();
};

// POST /v1/internal/jobs: the proxy starts a target's part of a job (the
// id is the proxy's, `args` this target's share).
struct JobEnvelope {
    std::string id;
    std::string kind;
    nlohmann::json args = nlohmann::json::object();
};

// Args of the `reprotect` and `scrub` jobs (POST /v1/jobs, and the same to
// each target): one bucket, or every bucket when absent.
//   reprotect: every object gets the copies its bucket's mirror conf asks
//              for, and copies no longer asked for are dropped.
//   scrub:     every copy is read and its checksum verified; a damaged copy
//              is replaced from a good one when the bucket is mirrored.
struct BucketJobArgs {
    std::optional<std::string> bucket;
};

void to_json(nlohmann::json& j, const BucketJobArgs& v);
void readFields(FieldReader& r, BucketJobArgs& v);

// A target's args of a `rebalance` (the proxy's, whatever the client sent):
// the cluster map version the job was started with. A target with an older
// map refuses to start (503) and fetches the map: a rebalance planned on a
// map that missed a decommission would keep objects its target no longer
// owns, and the proxy would then remove the target with them.
struct RebalanceArgs {
    std::int64_t smapVersion = 0;  // JSON: smap_version (absent: 0, no check)
};

void to_json(nlohmann::json& j, const RebalanceArgs& v);
void readFields(FieldReader& r, RebalanceArgs& v);

void to_json(nlohmann::json& j, const JobStart& v);
void readFields(FieldReader& r, JobStart& v);
void to_json(nlohmann::json& j, const JobEnvelope& v);
void readFields(FieldReader& r, JobEnvelope& v);

// A JobEnvelope whose args are already JSON text (an ishard task lists up to
// a million members): {"id":ID,"kind":KIND,"args":ARGS}, in that order.
std::string dumpJobEnvelope(std::string_view id, std::string_view kind, std::string_view argsJson);
struct JobEnvelopeText {
    std::string id;
    std::string kind;
    std::string_view args;  // the args' text, not checked: its kind parses it
};
// True when `body` has dumpJobEnvelope's layout (ids and kinds of printable
// ASCII without escapes); false for anything else, which is then parsed as
// a JobEnvelope (whose answer and errors stand).
bool splitJobEnvelope(std::string_view body, JobEnvelopeText& out);

Result<TargetJobStatus> parseTargetJobStatus(std::string_view json);
Result<JobStatus> parseJobStatus(std::string_view json);

}  // namespace tessera::api
