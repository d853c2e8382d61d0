#pragma once
// AIStore's xaction messages (NVIDIA/aistore 583e772), as its clients send
// and decode them, for Tessera's jobs (/v1/jobs):
//   GET /v1/cluster?what=qryxstats   body xact.QueryMsg  -> xact.MultiSnap
//       (api.QueryXactionSnaps, `ais show job`, SDK Job.get_details/wait)
//   GET /v1/cluster?what=status      body xact.QueryMsg  -> nl.Status
//       (api.GetOneXactionStatus/WaitForXactionIC, `ais wait`, SDK Job.status/wait)
//   GET /v1/cluster?what=status_all  body xact.QueryMsg  -> []nl.Status
//   GET /v1/cluster?what=running_all body xact.QueryMsg  -> ["kind[id]", ...]
//   PUT /v1/cluster {"action":"start"|"stop","value":xact.ArgsMsg}
//       (api.StartXaction/AbortXaction, `ais start`/`ais stop`, SDK Job.start/abort)
//
// A Tessera job is one xaction with one snap per target taking part (its
// TargetJobStatus). Kinds keep Tessera's names, which are AIStore's for
// dsort, rebalance, archive and etl-bck; ishard, scrub and reprotect have no
// AIStore xaction and keep theirs. What Tessera does not track is at
// AIStore's neutral value: empty buckets, no control message, glob.id 0,
// in/out counters 0 (a job's objects and bytes are the target's loc-*).
#include "ais_dsort.h"  // AisBck
#include "ais_go_types.h"
#include "job.h"
#include "wire.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

// xact.ArgsMsg (PUT, no JSON tags: "ID", "Kind", "DaemonID", "Bck",
// "Buckets", "Timeout", "flags", "Force", "OnlyRunning") and xact.QueryMsg
// (GET: "id", "kind", "node", "bck", "buckets", "show_active") in one: Go
// matches object keys to field names without regard to case, and the Python
// SDK sends ArgsMsg's names in a QueryMsg body, so both are read by their
// names in any case. Any other field is refused; an empty body is all
// defaults.
struct AisXactArgs {
    std::string id;
    std::string kind;
    std::string node;  // DaemonID / node
    std::optional<AisBck> bck;
    std::vector<AisBck> buckets;
    std::int64_t timeoutNs = 0;
    std::uint32_t flags = 0;
    bool force = false;
    bool onlyRunning = false;  // OnlyRunning / show_active
    bool operator==(const AisXactArgs&) const = default;
};
// Written as xact.QueryMsg (what the Go client sends with a query).
void to_json(nlohmann::json& j, const AisXactArgs& v);
Result<AisXactArgs> readAisXactArgs(const nlohmann::json& j, std::string_view what);
Result<AisXactArgs> parseAisXactArgs(std::string_view body, std::string_view what);

// core.Stats: every field `,string`.
struct AisXactStats {
    GoIntString locObjs, locBytes, outObjs, outBytes, inObjs, inBytes;
    bool operator==(const AisXactStats&) const = default;
};
void to_json(nlohmann::json& j, const AisXactStats& v);
void readFields(FieldReader& r, AisXactStats& v);

// core.Snap (core/xaction_wire.go). `ext` is always null (deprecated in
// AIStore, kept in its JSON); `ctlmsg` omitted when empty.
struct AisXactSnap {
    GoTime startTime, endTime;  // end: Go's zero time while running
    AisBck bck, srcBck, dstBck;
    std::string id, kind, ctlMsg, abortErr, err;
    GoIntString packed;  // glob.id
    AisXactStats stats;
    bool aborted = false;
    bool idle = false;
    bool operator==(const AisXactSnap&) const = default;
};
void to_json(nlohmann::json& j, const AisXactSnap& v);
void readFields(FieldReader& r, AisXactSnap& v);

// xact.MultiSnap: target id -> that target's snaps.
using AisMultiSnap = std::map<std::string, std::vector<AisXactSnap>>;

// nl.Status (nl/listener.go): end_time in Unix nanoseconds, 0 while running.
struct AisXactStatus {
    std::string kind, uuid, err;
    std::int64_t endTime = 0;
    bool aborted = false;
    bool idle = false;  // is_idle, omitted when false
    bool operator==(const AisXactStatus&) const = default;
};
void to_json(nlohmann::json& j, const AisXactStatus& v);
void readFields(FieldReader& r, AisXactStatus& v);

// A bucket-less zero cmn.Bck, as Go writes an unset one.
AisBck aisNoBck();

// One target's snap of a job: times and counters are the target's, the
// state the target's (a failed part is aborted with its error, as AIStore
// aborts a failing xaction); a part that ended is idle.
AisXactSnap aisXactSnap(const JobStatus& job, const TargetJobStatus& part);
// The job's notification status: end_time once every target ended; an
// aborted or failed job is aborted with its error.
AisXactStatus aisXactStatus(const JobStatus& job);
// xact.Cname: "kind[id]".
std::string aisXactName(const JobStatus& job);
// Whether the job is one the query selects: id and kind when given, running
// only when asked (show_active / OnlyRunning). The node is matched per snap.
bool aisXactSelects(const AisXactArgs& q, const JobStatus& job);

}  // namespace tessera::api
