#pragma once
// Highest-random-weight placement: an object lives on the target (and, inside
// it, on the mountpath) whose xxhash64(key, seed = xxhash64(id)) is largest.
// This is the only placement function; proxy, targets and clients share it.
// Only placement targets take part (Snode::placement(): a decommissioning
// target owns nothing); an away one does, it keeps owning its objects.

#include "bmd.h"
#include "smap.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

// "bucket/object": the key hashed for placement.
std::string objectUname(std::string_view bucket, std::string_view object);

std::uint64_t hrwWeight(std::string_view id, std::string_view key);

// Target that owns `uname`, or nullptr when the map has no placement targets.
const Snode* hrwTarget(const Smap& smap, std::string_view uname);

// The first `n` targets of `uname`'s HRW order (the owner first), whatever
// their state (away or not); fewer when the map has fewer placement targets.
std::vector<const Snode*> hrwTargets(const Smap& smap, std::string_view uname, std::size_t n);

// The targets that hold a copy of bucket/object: the owner first, then, for
// a bucket mirrored across targets, the next ones in HRW order. `props`
// may be null (the owner alone).
std::vector<const Snode*> copyTargets(const Smap& smap, const BucketProps* props, std::string_view bucket,
                                      std::string_view object);

// The targets of an erasure-coded bucket's object: the owner first (the
// whole object), then the holders of slices 0..D+P-1, one each (the first P
// of them keep whole copies of objects below ec.objsize_limit). Empty when
// the bucket is not erasure coded.
std::vector<const Snode*> ecTargets(const Smap& smap, const BucketProps* props, std::string_view bucket,
                                    std::string_view object);

// The targets that can serve a read of bucket/object, the owner first:
// ecTargets for an erasure-coded bucket, else copyTargets.
std::vector<const Snode*> readTargets(const Smap& smap, const BucketProps* props, std::string_view bucket,
                                      std::string_view object);

// Index into `ids` of the winner; ids must not be empty.
std::size_t hrwIndex(const std::vector<std::string>& ids, std::string_view key);

}  // namespace tessera::api
