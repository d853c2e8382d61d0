#pragma once
// What a target keeps beside one slice of an erasure-coded object: the
// object's version (its ObjectMeta: size, checksum, version, stamp, custom
// metadata), which slice it is, the code (D, P), the slice size and the
// xxhash64 of the slice's bytes. Stored as JSON in the slice file's extended
// attribute, and sent between targets as headers (the object's own ais-*
// headers with its stamp, plus the tessera-ec-* ones below).

#include "headers.h"
#include "object_meta.h"
#include "result.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace tessera::api {

inline constexpr std::string_view kHdrSliceIndex = "tessera-ec-index";
inline constexpr std::string_view kHdrSliceData = "tessera-ec-data";
inline constexpr std::string_view kHdrSliceParity = "tessera-ec-parity";
inline constexpr std::string_view kHdrSliceSize = "tessera-ec-slice-size";
inline constexpr std::string_view kHdrSliceChecksum = "tessera-ec-slice-checksum";
// In a HEAD of a slice: the stamp of the whole copy the target also keeps.
inline constexpr std::string_view kHdrCopyStamp = "tessera-ec-copy-stamp";
// In the owner's answer to an ensure (POST): "true" when the name is deleted.
inline constexpr std::string_view kHdrDeleted = "tessera-ec-deleted";
// The extended attribute of a slice file.
inline constexpr const char* kSliceXattr = "user.tessera.ec";

struct SliceMeta {
    ObjectMeta object;  // the version the slice belongs to
    int index = 0;      // 0..D-1 data, D..D+P-1 parity
    int data = 0;       // D
    int parity = 0;     // P
    std::uint64_t sliceSize = 0;
    std::string sliceChecksum;  // xxhash64 (16 hex digits) of the slice's bytes
    bool operator==(const SliceMeta&) const = default;
};

void to_json(nlohmann::json& j, const SliceMeta& v);
void from_json(const nlohmann::json& j, SliceMeta& v);
// Parses and checks (see validate) the stored JSON.
Result<SliceMeta> parseSliceMeta(std::string_view json);
// BadRequest unless D and P are in range, the index is below D + P, the
// slice size is ceil(object size / D), both checksums are 16 hex digits and
// the stamp is positive.
Status validate(const SliceMeta& m);

// The headers that describe a slice (the object's metadata with its stamp).
void appendSliceHeaders(HeaderPairs& out, const SliceMeta& m, std::string_view location);
// The slice a request or an answer describes; BadRequest when a header is
// missing or the whole does not validate.
Result<SliceMeta> sliceFromHeaders(const std::function<std::string(std::string_view)>& header);

}  // namespace tessera::api
