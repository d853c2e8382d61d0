#pragma once
// dSort's messages between the proxy and the targets, and among targets.
//
//   proxy -> target  POST /v1/internal/jobs, kind "dsort": args DsortJobArgs
//   target -> peers  POST /v1/internal/dsort/{id}/fail      DsortFailure
//   sorter -> peers  POST /v1/internal/dsort/{id}/assign    [DsortAssignment]
// (The records a target sends the sorter are spec::recordsToJson's.)

#include "result.h"
#include "wire.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tessera::api {

// A target taking part in a job. JSON: [id, url].
struct DsortPeer {
    std::string id;
    std::string url;
    bool operator==(const DsortPeer&) const = default;
};

// An input shard and its place in the job's input order. JSON: [position, name].
struct DsortInput {
    std::uint64_t position = 0;
    std::string name;
    bool operator==(const DsortInput&) const = default;
};

// One target's part of a dSort job.
struct DsortJobArgs {
    nlohmann::json spec;             // the spec as the proxy completed it (a shuffle's seed is set)
    std::vector<DsortPeer> peers;    // every target of the job, in one order
    std::uint32_t self = 0;          // this target's index in peers
    std::uint32_t sorter = 0;        // the index of the target that sorts
    std::vector<DsortInput> inputs;  // the input shards this target owns
    std::string ekm;                 // the external key map's text, when the spec names one
    bool operator==(const DsortJobArgs&) const = default;
};

// A target that failed tells its peers so the whole job stops at once.
struct DsortFailure {
    std::string target;
    std::string error;
    bool operator==(const DsortFailure&) const = default;
};

// One output shard to create: its name and its records, in order.
struct DsortAssignedRecord {
    std::uint32_t owner = 0;  // index of the target holding it
    std::uint64_t index = 0;  // in that target's record store
    std::uint64_t size = 0;   // estimated .tar bytes (to size pull batches)
    bool operator==(const DsortAssignedRecord&) const = default;
};
struct DsortAssignment {
    std::string name;
    std::vector<DsortAssignedRecord> records;  // JSON: [[owner, index, size], ...]
    std::uint64_t bytes = 0;                   // estimated as .tar
    bool operator==(const DsortAssignment&) const = default;
};

void to_json(nlohmann::json& j, const DsortPeer& v);
void from_json(const nlohmann::json& j, DsortPeer& v);
void to_json(nlohmann::json& j, const DsortInput& v);
void from_json(const nlohmann::json& j, DsortInput& v);
void to_json(nlohmann::json& j, const DsortJobArgs& v);
// Also checks that self and sorter are indices into peers and that the
// input names are valid object names.
void readFields(FieldReader& r, DsortJobArgs& v);
void to_json(nlohmann::json& j, const DsortFailure& v);
void readFields(FieldReader& r, DsortFailure& v);

// The assignment list is the largest dSort message (one entry per output
// record), so it is coded by hand as arrays, not through FieldReader.
nlohmann::json assignmentsToJson(const std::vector<DsortAssignment>& shards);
// `peers`: the job's number of targets (an owner must be an index below it).
Result<std::vector<DsortAssignment>> assignmentsFromJson(const nlohmann::json& j, std::size_t peers);

}  // namespace tessera::api
