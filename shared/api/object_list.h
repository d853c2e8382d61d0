#pragma once
// List-objects request and result (AIStore's LsoMsg / LsoResult shapes).

#include "result.h"
#include "uri.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

constexpr std::uint32_t kDefaultPageSize = 1000;
constexpr std::uint32_t kMaxPageSize = 10000;

// Properties a listing may return besides the name.
enum ListProp : std::uint32_t {
    kPropName = 1u << 0,
    kPropSize = 1u << 1,
    kPropChecksum = 1u << 2,
    kPropAtime = 1u << 3,
    kPropVersion = 1u << 4,
};

// ListRequest::flags (AIStore's LsoMsg flags; only these are understood).
// LsArchDir: every shard in the page is followed by its members.
constexpr std::uint32_t kLsArchDir = 1u << 3;

// ObjEntry::flags (AIStore's LsoEnt flags where AIStore defines the bit).
constexpr std::uint32_t kEntryInArch = 1u << 7;     // a member "shard.tar/member"
constexpr std::uint32_t kEntryIsArchive = 1u << 9;  // a shard listed with its members
// Tessera: the shard's members could not be listed; ObjEntry::error says why.
constexpr std::uint32_t kEntryArchError = 1u << 12;

struct ListRequest {
    std::string prefix;
    std::uint32_t pageSize = kDefaultPageSize;    // JSON: pagesize; 0 means default
    std::string continuationToken;                // JSON: continuation_token; names > token
    std::uint32_t props = kPropName | kPropSize;  // JSON: props, "name,size,..."
    std::uint32_t flags = 0;                      // JSON/query: flags (kLsArchDir); query archive=true too
    // Query stand_in_for=id,id (the proxy to the targets of an erasure-coded
    // bucket): these owners are away, so each target also lists the names
    // they own from the slices it keeps (ids sorted, no duplicates). At most
    // kMaxStandInFor ids.
    std::vector<std::string> standInFor;
};
inline constexpr std::size_t kMaxStandInFor = 64;

struct ObjEntry {
    std::string name;
    std::int64_t size = 0;  // -1 when the listing did not ask for sizes
    std::string checksum;   // xxhash64 hex
    std::string atime;      // RFC 3339, UTC
    std::string version;
    std::uint32_t flags = 0;  // kEntry* bits
    std::string error;        // with kEntryArchError: why the members are not listed
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

std::string formatRfc3339(std::int64_t unixNs);

}  // namespace tessera::api
