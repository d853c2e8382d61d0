#pragma once
// Object metadata kept beside each object (an extended attribute on the
// object file) and returned by HEAD as headers.

#include "result.h"

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::api {

constexpr std::size_t kMaxCustomMdBytes = 4096;

struct ObjectMeta {
    std::int64_t size = 0;
    std::string checksumType = "xxhash";
    std::string checksumValue;  // 16 hex digits
    std::string version = "1";
    std::int64_t atimeNs = 0;
    std::map<std::string, std::string> custom;
    // The version's place in the total order of one object's versions: the
    // owning target's hybrid-clock time (ns) when the version was committed.
    // A copy delivered by a peer keeps it; of two copies the larger stamp
    // is the newer, whatever the version strings say. 0: unknown (metadata
    // written before stamps; the file's mtime stands in).
    std::int64_t stamp = 0;
    bool operator==(const ObjectMeta&) const = default;
};

void to_json(nlohmann::json& j, const ObjectMeta& v);
void from_json(const nlohmann::json& j, ObjectMeta& v);
Result<ObjectMeta> parseObjectMeta(std::string_view json);

// An object as an answer describes it: its metadata and the target that
// answered (HEAD, and the answers to PUT and GET). `size` is -1 when the
// answer did not say.
struct ObjectAttrs : ObjectMeta {
    ObjectAttrs() { size = -1; }
    explicit ObjectAttrs(ObjectMeta m, std::string loc = {}) : ObjectMeta(std::move(m)), location(std::move(loc)) {}
    std::string location;  // id of the target that answered
};

// The one codec between object metadata and HTTP headers (ais-size,
// ais-checksum-*, ais-version, ais-atime, ais-custom-md, ais-location and,
// for peers, tessera-version-stamp), used by the targets, the C++ client
// and the console.
using HeaderPairs = std::vector<std::pair<std::string, std::string>>;
// Appends them to `out` (a response's header list: no list of its own on
// the GET path).
void appendMetaHeaders(HeaderPairs& out, const ObjectMeta& m, std::string_view location, bool withStamp);
// ETag and Last-Modified as AIStore's targets send them (core/lom.go
// LOM.ETag): the custom "ETag" when the object has one, else
// "v1-<checksum>-<mtime in ns, base 36>", quoted; Last-Modified in HTTP's
// date format. The mtime is the version's commit stamp (its atime when the
// metadata predates stamps). Nothing without a checksum.
void appendHttpValidators(HeaderPairs& out, const ObjectMeta& m);
// `header(name)` returns a header's value ("" when absent; names are the
// lowercase ones above). Unreadable numbers are left at their defaults;
// without ais-size, Content-Length gives the size.
ObjectAttrs attrsFromHeaders(const std::function<std::string(std::string_view)>& header);

// "k1=v1,k2=v2" <-> map (the ais-custom-md header). Keys are [A-Za-z0-9_.-],
// values may not contain ',' or control characters; total size is bounded.
Result<std::map<std::string, std::string>> parseCustomMd(std::string_view header);
std::string formatCustomMd(const std::map<std::string, std::string>& md);

}  // namespace tessera::api
