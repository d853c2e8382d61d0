#pragma once
// What one target builds for an archive or ishard job: the shards it owns
// (HRW of dst_bck/shard name), each from source objects read locally or
// from their owners. Sent by the proxy in the job's args
// (POST /v1/internal/jobs {"id","kind":"archive"|"ishard","args":ShardTask}).
//   {"src_bck":"raw","dst_bck":"shards","mime":"","append":false,
//    "continue_on_err":false,"mtime":1700000000,
//    "shards":[{"name":"shard-000000.tar",
//               "members":[["train/0.cls",1],["train/0.png",290,"member name"],...]}]}
// A member is [object, size] or [object, size, member name]; size -1 when
// not known (archive jobs by list). The member name defaults to the object's.

#include "result.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

struct ShardMemberSource {
    std::string object;
    std::int64_t size = -1;
    std::string memberName;  // empty: the object's name
    const std::string& member() const { return memberName.empty() ? object : memberName; }
};

struct ShardBuild {
    std::string name;
    std::vector<ShardMemberSource> members;
};

struct ShardTask {
    std::string srcBck;
    std::string dstBck;
    std::string mime;     // "" = by each shard's name
    bool append = false;  // add to an existing shard (archive's append_to_arch)
    bool continueOnErr = false;
    std::int64_t mtime = 0;  // seconds; every member's modification time
    std::vector<ShardBuild> shards;
};

void to_json(nlohmann::json& j, const ShardTask& v);
void from_json(const nlohmann::json& j, ShardTask& v);
Result<ShardTask> parseShardTask(const nlohmann::json& j);

// The same JSON as dumpJson(to_json(task)), byte for byte, written directly:
// an ishard task lists up to a million members, and a document of them cost
// the proxy more than planning them.
std::string dumpShardTask(const ShardTask& task);
// Parses the text of a ShardTask. What dumpShardTask writes (in any key order
// or spacing, names of printable ASCII) is scanned straight into the struct;
// anything else goes through the full parser. Either way within `maxValues`
// JSON values (api::JsonShape's count) and 8 levels of nesting: BadRequest
// beyond, or for anything malformed.
Result<ShardTask> parseShardTaskText(std::string_view text, std::size_t maxValues);

}  // namespace tessera::api
