#pragma once
// dSort's dry run (POST /v1/sort?dry_run=true): what a spec will do, computed
// without running it. The proxy lists the input shards with their members
// (the same archive order the job's extract phase reads) and hands them to
// previewDsort, which builds the records exactly as the job does (a run of
// members with one WebDataset key is a record; its size is its members as
// .tar members), then orders, cuts and places them with the job's own
// functions (orderRecords, cutShards, placeByEkm) and hrw. So for the shards
// it read, the plan's output names, owners and record counts are the job's.
//
// Bounded: the proxy reads the members of at most kMaxMembers entries; when
// it stops early `sampled` is set and the plan covers the shards it read
// (named by `read`), which a warning says. Lists in the answer are capped
// (kMaxListedShards output shards, kMaxFirstRecords records, 100 names of
// missing shards); the counts are always whole.
//
// Thread safety: pure functions over values.

#include "dsort_spec.h"

#include "api/result.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tessera::api {
class FieldReader;
}

namespace tessera::spec {

// One input shard as the proxy found it.
struct DsortPreviewInput {
    struct Member {
        std::string name;  // inside the shard
        std::uint64_t size = 0;
        std::optional<std::string> content;  // content algorithm: the key file's first bytes
    };
    std::string name;
    bool found = false;
    bool read = false;  // its members are below (not when the member budget ran out)
    std::string error;  // found but unreadable: why
    std::vector<Member> members;
};

struct DsortPreviewRecord {
    std::string key;
    std::string shard;  // the input shard
    std::uint64_t size = 0;
    std::uint32_t files = 0;
    bool operator==(const DsortPreviewRecord&) const = default;
};

struct DsortPreviewShard {
    std::string name;
    std::string target;  // the owner in the current cluster map
    std::uint64_t bytes = 0;
    std::uint64_t records = 0;
    bool operator==(const DsortPreviewShard&) const = default;
};

struct DsortPreview {
    static constexpr std::size_t kMaxMembers = 2'000'000;
    static constexpr std::size_t kMaxListedShards = 1000;
    static constexpr std::size_t kMaxFirstRecords = 50;
    static constexpr std::size_t kMaxNames = 100;

    std::uint64_t inputShards = 0;  // names the spec gives
    std::uint64_t found = 0;
    std::uint64_t read = 0;            // found shards whose members were read
    std::vector<std::string> missing;  // the first kMaxNames
    std::uint64_t missingCount = 0;
    bool sampled = false;
    std::uint64_t inputBytes = 0;  // the records read, as .tar members
    std::uint64_t records = 0;
    std::uint64_t duplicates = 0;                  // keys held by more than one record
    std::vector<DsortPreviewRecord> firstRecords;  // in output order
    std::uint64_t outputShards = 0;
    std::uint64_t outputBytes = 0;
    std::vector<DsortPreviewShard> shards;  // the first kMaxListedShards
    std::vector<std::string> warnings;
    bool willFail = false;  // a warning says the job would fail, and why
    bool operator==(const DsortPreview&) const = default;
};

void to_json(nlohmann::json& j, const DsortPreviewRecord& v);
void readFields(api::FieldReader& r, DsortPreviewRecord& v);
void to_json(nlohmann::json& j, const DsortPreviewShard& v);
void readFields(api::FieldReader& r, DsortPreviewShard& v);
void to_json(nlohmann::json& j, const DsortPreview& v);
void readFields(api::FieldReader& r, DsortPreview& v);

// The answer of POST /v1/sort?dry_run=true: the spec as it would run (a
// shuffle's seed filled in: starting this spec gives this plan) and the plan.
struct DsortDryRun {
    DsortSpec spec;
    DsortPreview plan;
};
void to_json(nlohmann::json& j, const DsortDryRun& v);
void readFields(api::FieldReader& r, DsortDryRun& v);

// The plan for `spec` (its seed set when it shuffles) over `inputs` (in the
// spec's input order), placed on `targetIds` (the cluster map's targets in
// the order the job is given them). `ekm` is the external key map's text or
// empty.
DsortPreview previewDsort(const DsortSpec& spec, const std::vector<DsortPreviewInput>& inputs, const std::string& ekm,
                          const std::vector<std::string>& targetIds);

}  // namespace tessera::spec
