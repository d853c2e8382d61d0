#pragma once
// The ishard planner: a pure function from the source objects (name, size)
// and the spec to the ordered list of shards to build, each with its
// samples' files in order. No I/O, so the proxy, a dry run, the console and
// the tests all see the same plan for the same input.
//
// Rules:
// - A sample is the set of objects sharing a key (IshardSpec's key rule); it
//   is never split across shards, and its files stay together, ordered by
//   extension (then name).
// - Samples are ordered by key (alpha), by a seeded Fisher–Yates shuffle of
//   the alpha order (shuffle: std::mt19937_64 and our own shuffle, so every
//   build gives the same order for a seed), or by first appearance in the
//   input (none).
// - By size: a shard is cut when the next sample would take its estimated
//   .tar size (members' tarMemberBytes + the end marker) past shard_size; a
//   sample larger than shard_size alone gets a shard of its own. By count:
//   every sample_count samples.
// - Missing extensions (sample_exts): abort fails the plan naming the
//   sample and what it lacks; warn keeps it and reports; exclude drops it
//   and counts it; ignore does nothing.
// - Shard i is named shard_template.at(i) + ext; a template with fewer names
//   than shards is a BadRequest on /shard_template.

#include "ishard_spec.h"

#include "api/result.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace tessera::spec {

struct SourceObject {
    std::string name;
    std::uint64_t size = 0;
};

struct PlannedShard {
    std::string name;
    std::uint64_t samples = 0;
    std::uint64_t objects = 0;          // = members.size() when the members are there
    std::uint64_t bytes = 0;            // estimated size as .tar (exact for ustar names)
    std::vector<SourceObject> members;  // in shard order; member name = object name
};

// A sample as the plan groups it: its key, the shard it goes to, its files
// in shard order and their bytes.
struct PlannedSample {
    std::string key;
    std::string shard;
    std::vector<std::string> files;
    std::uint64_t bytes = 0;
    bool operator==(const PlannedSample&) const = default;
};
struct IshardPlan {
    static constexpr std::size_t kMaxWarnings = 100;  // listed; warningCount counts all
    static constexpr std::size_t kMaxFirstSamples = 50;

    std::vector<PlannedShard> shards;
    std::uint64_t samples = 0;          // in the shards
    std::uint64_t objects = 0;          // in the shards
    std::uint64_t inputBytes = 0;       // of those objects
    std::uint64_t excludedSamples = 0;  // dropped by missing_extension_action exclude
    std::uint64_t warningCount = 0;
    std::vector<std::string> warnings;        // the first kMaxWarnings
    std::optional<std::uint64_t> seed;        // the shuffle's
    std::vector<PlannedSample> firstSamples;  // the first kMaxFirstSamples, in shard order
};

// `objects` are the source objects under the prefix, in listing order.
// A shuffle needs spec.seed set (the proxy picks one when the user did not).
api::Result<IshardPlan> planIshard(const std::vector<SourceObject>& objects, const IshardSpec& spec);

// The shard's members in JSON as [[name,size],...]; `withMembers` false
// leaves them out (a dry run's summary).
nlohmann::json planToJson(const IshardPlan& plan, bool withMembers);
api::Result<IshardPlan> planFromJson(const nlohmann::json& j);

// The answer of POST /v1/ishard?dry_run=true: the spec as it would run (a
// shuffle's seed filled in) and the plan without members.
struct IshardDryRun {
    IshardSpec spec;
    IshardPlan plan;
};
void to_json(nlohmann::json& j, const IshardDryRun& v);
api::Result<IshardDryRun> parseIshardDryRun(std::string_view body);

}  // namespace tessera::spec
