#pragma once
// AIStore's dSort spec as its clients and docs send it, turned into the
// form DsortSpec's checker reads (parseDsortSpec calls this first):
// - the older field names: "bck" for input_bck, "extension" for
//   input_extension (AIStore's WebDataset blog post; both forms at once is
//   an error);
// - printf-style output names: "shard-%d" (unpadded, up to 100,000,000
//   shards) and "shard-%06d" (zero-padded, up to 10^6 shards) become the
//   brace templates "shard-{0..99999999}" and "shard-{000000..999999}";
// - the whole RequestSpec that AIStore's Go API (api.StartDsort, ais start
//   dsort -f) marshals, zero values included: empty strings and zero
//   numbers mean "default" and are dropped, "dsorter_type" and
//   "ekm_file_sep" ("" or a tab) are read and have no effect, and the
//   "Config" object's duplicated_records and missing_shards apply when the
//   spec does not set them itself.

#include "api/result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace tessera::spec {

// The spec in Tessera's own form; BadRequest naming the field for a legacy
// form that cannot be read. A spec in Tessera's form comes back unchanged.
api::Result<nlohmann::json> normalizeAisDsortSpec(const nlohmann::json& spec);

// "shard-%06d" -> "shard-{000000..999999}"; a name without '%' comes back
// as it is; BadRequest for any other use of '%'.
api::Result<std::string> printfToBraceTemplate(const std::string& format);

}  // namespace tessera::spec
