#pragma once
// The archive action (AIStore's ArchiveMsg): many objects of one bucket
// into one shard, as the body of `POST /v1/buckets/SRC`
//   {"action":"archive","value":{...}}
// or the args of `POST /v1/jobs {"kind":"archive","args":{...,"src_bck":"SRC"}}`.
//   archname         the shard's name in to_bck (its extension gives the format unless mime)
//   mime             "tar", "tgz", "tar.lz4", "zip", ... (archive_format.h); "" = by name
//   to_bck           {"name":"DST"} or "DST"; default the source bucket
//   objnames         the objects, in shard order; or
//   template         a brace template naming them ("img-{0000..0999}.jpg")
//   append_to_arch   add to an existing shard (created when missing)
//   include_src_bck  members are named SRC/object instead of object
//   continue_on_err  a missing or unreadable source is skipped (counted
//                    in the job's errors) instead of failing the job
// At most kMaxArchiveObjects objects in one action.

#include "result.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace tessera::api {

inline constexpr std::uint64_t kMaxArchiveObjects = 100'000;

struct ArchiveMsg {
    std::string srcBck;
    std::string toBck;  // filled with srcBck when the request has none
    std::string archName;
    std::string mime;
    std::vector<std::string> objNames;
    std::string templ;
    bool appendToArch = false;
    bool includeSrcBck = false;
    bool continueOnErr = false;
};

// From the action's "value" (srcBck from the URL, or from "src_bck" when
// `srcBck` is empty). BadRequest naming the field: "/archname: required".
// Names are checked (bucket and object name rules), the list or template
// is checked for presence and count, not expanded.
Result<ArchiveMsg> parseArchiveMsg(const nlohmann::json& value, const std::string& srcBck);

void to_json(nlohmann::json& j, const ArchiveMsg& v);

}  // namespace tessera::api
