#pragma once
// A bucket's properties as AIStore sends them: HEAD /v1/buckets/<b> answers
// with AIStore's whole cmn.Bprops document (cmn/api.go) in ais-bucket-props,
// and Tessera's own properties that AIStore has no field for in
// tessera-bucket-props-ext.
//
// What Tessera does not implement is there at its neutral value:
// write_policy immediate/immediate (every write is immediate), checksum
// validate_cold_get/validate_obj_move/enable_read_range false, rate_limit
// disabled, ec.compression "never" with zero bundle/burst and disk_only
// false, chunks 0B (no chunking), mirror.burst_buffer 0, lru disabled,
// access "18446744073709551615" (all; Tessera's access control is its
// tokens), features "0", bid "0", versioning enabled with validate_warm_get
// and synchronize false (Tessera numbers every version).

#include "bmd.h"
#include "result.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::api {

inline constexpr std::string_view kHdrBucketPropsExt = "tessera-bucket-props-ext";  // JSON

// The two header values (ais-bucket-props, tessera-bucket-props-ext).
std::pair<std::string, std::string> aisBucketPropsHeaders(const BucketProps& props);

// Back to Tessera's properties from the two headers; `ext` may be empty
// (an AIStore cluster's answer: its defaults apply). BadRequest when the
// AIStore document is not one.
Result<BucketProps> parseAisBucketProps(std::string_view ais, std::string_view ext);

}  // namespace tessera::api
