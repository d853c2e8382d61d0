#pragma once
// List-objects request and result (AIStore's LsoMsg / LsoResult shapes).

#include "result.h"
#include "uri.h"

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

constexpr std::uint32_t kDefaultPageSize = 1000;
constexpr std::uint32_t kMaxPageSize = 10000;

// Properties a listing may return besides the name (AIStore's GetProps*
// names, api/apc/lsmsg.go). The ones after kPropCustom are accepted and
// have nothing to add here: "cached" and "status" are in every entry's
// flags, "ec", "chunked", "last-modified" and "etag" are not listed.
enum ListProp : std::uint32_t {
    kPropName = 1u << 0,
    kPropSize = 1u << 1,
    kPropChecksum = 1u << 2,
    kPropAtime = 1u << 3,
    kPropVersion = 1u << 4,
    kPropCopies = 1u << 5,
    kPropLocation = 1u << 6,
    kPropCustom = 1u << 7,
    kPropCached = 1u << 8,
    kPropStatus = 1u << 9,
    kPropEc = 1u << 10,
    kPropChunked = 1u << 11,
    kPropLastModified = 1u << 12,
    kPropEtag = 1u << 13,
};

// ListRequest::flags (AIStore's LsoMsg flags; only these are understood,
// the others are accepted and have no effect).
// LsArchDir: every shard in the page is followed by its members.
constexpr std::uint32_t kLsArchDir = 1u << 3;
// LsNameOnly: names only, whatever `props` says.
constexpr std::uint32_t kLsNameOnly = 1u << 4;

// ObjEntry::flags (AIStore's LsoEnt flags where AIStore defines the bit).
constexpr std::uint32_t kEntryIsCached = 1u << 6;   // present in the cluster: every object Tessera lists
constexpr std::uint32_t kEntryInArch = 1u << 7;     // a member "shard.tar/member"
constexpr std::uint32_t kEntryIsArchive = 1u << 9;  // a shard listed with its members
// Tessera: the shard's members could not be listed; ObjEntry::error says why.
constexpr std::uint32_t kEntryArchError = 1u << 12;
// The low bits are the entry's status (AIStore's EntryStatusMask); status
// 3 is AIStore's ObjStatusDeleted. Only a target's stand-in page (see
// ListRequest::standInFor) holds such an entry: a deletion this target
// recorded of an away owner's name, which the proxy weighs against the
// other targets' entries for that name (ObjEntry::stamp) and never sends on.
constexpr std::uint32_t kEntryStatusMask = (1u << 5) - 1;
constexpr std::uint32_t kEntryStatusDeleted = 3;

// AIStore's LsoMsg (api/apc/lsmsg.go). AIStore's clients send every field,
// "flags" as a decimal string; Tessera's own send the query form.
struct ListRequest {
    std::string prefix;
    std::uint32_t pageSize = kDefaultPageSize;    // JSON: pagesize; 0 means default
    std::string continuationToken;                // JSON: continuation_token; names > token
    std::uint32_t props = kPropName | kPropSize;  // JSON: props, "name,size,..."; "" is name,size
    std::uint32_t flags = 0;                      // JSON/query: flags (kLsArchDir); query archive=true too
    // JSON: start_after: names > start_after on the first page. Parsing
    // folds it into continuationToken when that is empty, so the targets
    // and the pages that follow only see the token.
    std::string startAfter;
    // JSON: time_format, a Go time layout for atime (api::formatGoTime);
    // empty means AIStore's default, RFC822 ("02 Jan 06 15:04 MST", UTC).
    std::string timeFormat;
    // JSON: target: list only this target's objects (a target id).
    std::string target;
    // JSON/query: uuid: ties the pages of one listing together (AIStore's
    // clients send back the first page's). The proxy answers it, or a new
    // one on a first page; nothing is kept under it.
    std::string uuid;
    // Query stand_in_for=id,id (the proxy to the targets of an erasure-coded
    // bucket): these owners are away, so each target also lists the names
    // they own from the slices it keeps (ids sorted, no duplicates). At most
    // kMaxStandInFor ids.
    std::vector<std::string> standInFor;
};
inline constexpr std::size_t kMaxStandInFor = 64;

// AIStore's LsoEnt (cmn/objlist.go). JSON: "size" is a decimal string
// (`size,string`), written whenever sizes were asked for (AIStore leaves a
// 0 out; a Go or Python client reads both as 0); msgpack: short keys.
struct ObjEntry {
    std::string name;
    std::int64_t size = 0;  // -1 when the listing did not ask for sizes
    std::string checksum;   // xxhash64 hex
    std::string atime;      // formatted with the request's time_format
    std::string version;
    std::uint32_t flags = 0;  // kEntry* bits
    // With kEntryArchError: why the members are not listed. Tessera's own
    // field (AIStore has none); only in such an entry.
    std::string error;
    std::string location;  // JSON: location, "t[<target id>]:<mountpath>"
    std::string custom;    // JSON: custom-md, "[k1:v1 k2:v2]" (keys sorted)
    int copies = 0;        // 0: not asked for
    // Tessera's own, between a target and the proxy only: in a stand-in
    // page, the stamp of the version (or deletion, kEntryStatusDeleted)
    // this target keeps of an away owner's name; the newest one across the
    // targets is what the name is. 0: not given (JSON: left out).
    std::int64_t stamp = 0;
    bool operator==(const ObjEntry&) const = default;
};

struct ObjectList {
    std::string uuid;
    std::string continuationToken;  // empty: the listing is complete
    std::vector<ObjEntry> entries;
    std::uint32_t flags = 0;
};

// "name,size,checksum" -> bitmask; unknown names are BadRequest.
Result<std::uint32_t> parseListProps(std::string_view csv);
std::string listPropsToString(std::uint32_t props);

// From query parameters (prefix, pagesize, continuation_token, props,
// flags, archive=true);
// validates ranges (pagesize 0..10000).
Result<ListRequest> listRequestFromQuery(const QueryMap& query);
// From an AIStore-style body {"action":"list","value":{...}} or a bare value.
Result<ListRequest> listRequestFromJson(std::string_view body);
QueryMap listRequestToQuery(const ListRequest& req);

void to_json(nlohmann::json& j, const ObjEntry& v);
void from_json(const nlohmann::json& j, ObjEntry& v);
void to_json(nlohmann::json& j, const ObjectList& v);
void from_json(const nlohmann::json& j, ObjectList& v);

// The wire form of a listing page, both ways, without a JSON document in
// between (a page of 10,000 names is parsed and written several times on
// its way from the targets through the proxy to the client). The text is
// the same as nlohmann::json(list) dumps with api::dumpJson; the parser
// accepts what from_json accepts (unknown fields are skipped) and returns
// BadRequest for malformed or mistyped input.
Result<ObjectList> parseObjectList(std::string_view json);
std::string dumpObjectList(const ObjectList& list);

// The msgpack form AIStore's clients ask for with Accept:
// application/msgpack (cmn/objlist_gen.go): a map with the keys "UUID",
// "ContinuationToken", "Entries" and "Flags"; each entry a map with the
// short keys n, cs, a, v, t, m, s, c, f (empty and zero ones left out,
// like msgp's omitempty), the size an integer. The same content as the JSON.
std::string dumpObjectListMsgpack(const ObjectList& list);
// Reads that form back (the C++ client and the tests); BadRequest for
// anything else, unknown keys included.
Result<ObjectList> parseObjectListMsgpack(std::string_view bytes);

// AIStore's LsoEnt custom string: "[k1:v1 k2:v2]", keys in order.
std::string customMdToLso(const std::map<std::string, std::string>& md);

std::string formatRfc3339(std::int64_t unixNs);

}  // namespace tessera::api
