#pragma once
// The pure steps of dSort's sort phase: ordering records by the spec's
// algorithm, finding duplicated keys, cutting the ordered records into
// output shards by size or count, and placing them by an external key map.
// No I/O: the designated target, the tests and the console all get the same
// answer for the same records.
//
// Rules:
// - alphanumeric: by key (byte order), decreasing when asked; equal keys
//   (duplicates kept by the "ignore"/"warn" policies) by input position.
// - shuffle: the alphanumeric order, then a Fisher–Yates shuffle driven by
//   std::mt19937_64(seed) with our own uniform draw, so a seed gives the same
//   order on every build and whatever target extracted which record.
// - content: by the content key (the bytes of the record's file with the
//   algorithm's extension, surrounding whitespace trimmed) read as int64,
//   double or string; ties by key. A key that does not parse is a
//   BadRequest naming the record.
// - none: input order (input shard position, then position in the shard).
// - Cutting by size: a shard is closed when the next record would take its
//   estimated .tar size (members' tarMemberBytes + the end marker) past the
//   bound; a record bigger than the bound alone gets a shard of its own; a
//   record is never split. By count: every N records.
// - Shard i is named output_format.at(i) + output_extension; a template with
//   fewer names than shards is a BadRequest on /output_format.
// - EKM: a JSON object {"<shard name format>": ["<key regex>", ...], ...};
//   a record goes to the first entry (in file order) one of whose regexes
//   is found in its key (ECMAScript, search); records of an entry keep the
//   given order. A format with "%d" (or "%0Nd") numbers the shards of its
//   entry from 0 and is cut by the size bound; without one all its records
//   go to one shard. The extension is appended. A record that matches no
//   entry is a BadRequest naming it.
//
// Thread safety: pure functions over values.

#include "dsort_spec.h"

#include "api/result.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <regex>
#include <string>
#include <vector>

namespace tessera::spec {

struct DsortRecord {
    std::string key;
    std::string contentKey;        // content algorithm only
    std::uint32_t owner = 0;       // index of the target holding it (the job's target list)
    std::uint64_t index = 0;       // its index in the owner's record store
    std::uint64_t shardIndex = 0;  // position of its input shard in the input list
    std::uint64_t seq = 0;         // position in that shard
    std::uint64_t size = 0;        // its files as .tar members (headers and padding included)
    std::uint32_t files = 0;
};

struct DsortOutputShard {
    std::string name;
    std::vector<std::size_t> records;  // indices into the ordered records
    std::uint64_t bytes = 0;           // estimated as .tar, end marker included
};

struct EkmEntry {
    std::string format;                 // shard name, maybe with %d
    std::vector<std::string> patterns;  // as written
    std::vector<std::regex> regexes;
};

// Orders `records` in place.
api::Status orderRecords(std::vector<DsortRecord>& records, const DsortAlgorithm& algorithm);

// Keys held by more than one record, sorted; at most `limit` of them, and
// `count` set to how many there are.
std::vector<std::string> duplicateKeys(const std::vector<DsortRecord>& records, std::size_t limit, std::size_t& count);

// Cuts ordered records into shards named by the spec's output_format.
api::Result<std::vector<DsortOutputShard>> cutShards(const std::vector<DsortRecord>& ordered, const DsortSpec& spec);

// Parses an external key map; BadRequest naming the entry ("/ekm_file: ...").
api::Result<std::vector<EkmEntry>> parseEkm(std::string_view json);
// Places ordered records by the map (see the rules above).
api::Result<std::vector<DsortOutputShard>> placeByEkm(const std::vector<DsortRecord>& ordered,
                                                      const std::vector<EkmEntry>& ekm, const DsortSpec& spec);

// Records on the wire: [[key, contentKey, owner, index, shardIndex, seq, size, files], ...].
nlohmann::json recordsToJson(const std::vector<DsortRecord>& records);
api::Result<std::vector<DsortRecord>> recordsFromJson(const nlohmann::json& j);

}  // namespace tessera::spec
