#pragma once
// Merging the targets' pages of one list-objects call into the page the
// proxy answers. Each target sends its names after the token in name order
// up to its own continuation token; with the archive flag every shard is
// followed by its members ("shard.tar/member", kEntryInArch). A member
// stays attached to its shard: the page is ordered by (object name, member
// order), never by the member entry's full name (which could sort among
// other objects: "a.tar-x" < "a.tar/m"), and it is cut between objects only,
// so the continuation token is always an object name.
//
// Pure function: no I/O, testable without a cluster.

#include "api/object_list.h"
#include "api/object_list_raw.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::proxy {

// `pageSize` counts objects; a shard's members come with it whatever their
// number. An entry listed by two targets (a copy a placement change left
// behind) is listed once, with the members of the first target's copy;
// in an erasure-coded bucket's stand-in pages (ObjEntry::stamp) the newest
// entry wins, and a name whose newest entry is a deletion
// (kEntryStatusDeleted) is left out. Stamps are not passed on.
api::ObjectList mergeListPages(std::vector<api::ObjectList> pages, std::uint32_t pageSize);

// The same merge over pages kept as the targets' text (api::RawObjectList,
// which has no stand-in stamps), written as the JSON answer: the text
// dumpObjectList writes for mergeListPages' page with this `uuid`, the
// chosen entries' bytes copied as the targets sent them.
std::string mergeRawListPages(const std::vector<api::RawObjectList>& pages, std::uint32_t pageSize,
                              std::string_view uuid);

// How many names the proxy asks each of `targets` targets for, to answer a
// page of `pageSize` (0: the default): the even share plus a margin, at most
// the page itself. HRW spreads names evenly: a target's count among the
// page's names varies by about sqrt(share), so the margin is the smaller of
// 4 x sqrt(share) + 16 and a quarter of the share + 16. A target short of
// its share makes the page shorter, never wrong (mergeListPages).
std::uint32_t perTargetPageSize(std::uint32_t pageSize, std::uint32_t targets);

}  // namespace tessera::daemon::proxy
