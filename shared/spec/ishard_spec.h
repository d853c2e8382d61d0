#pragma once
// The ishard spec: how a bucket (or a prefix of it) of loose files becomes
// WebDataset shards. The daemon validates a request with it and the console
// validates its form with the same code, so both name the same fields.
//
// JSON (every field but src_bck and dst_bck optional):
//   {"src_bck":"raw", "dst_bck":"shards", "prefix":"train/",
//    "shard_size":"16MiB"  |  "sample_count":1000,        (default: 16MiB)
//    "shard_template":"shard-{000000..999999}",             (the extension is appended)
//    "ext":".tar",                                          (.tar .tgz .tar.gz .tar.lz4 .zip)
//    "sample_key_pattern":"",                               ("" = WebDataset key, else a regex)
//    "sort":"alpha",                                        (alpha | shuffle[:SEED] | none)
//    "missing_extension_action":"ignore",                   (abort | warn | ignore | exclude)
//    "sample_exts":[".png",".cls"],                         (what every sample should have)
//    "dry_run":false}
// sample_key_pattern as a regex: ECMAScript, with exactly one capture
// group; the key of an object is what group 1 matched (first match in the
// name), its extension the rest of the name after the group. An object
// whose name does not match is a sample of its own (key = name, no extension).
//
// Thread safety: plain values.

#include "archive/archive_format.h"

#include "api/result.h"
#include "spec_checker.h"  // FieldError, describe()

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tessera::spec {

enum class SampleOrder { Alpha, Shuffle, None };
enum class MissingExtAction { Abort, Warn, Ignore, Exclude };

struct IshardSpec {
    static constexpr std::uint64_t kDefaultShardSize = std::uint64_t{16} << 20;
    static constexpr const char* kDefaultTemplate = "shard-{000000..999999}";
    static constexpr std::size_t kMaxSampleExts = 64;

    std::string srcBck;
    std::string dstBck;
    std::string prefix;
    std::uint64_t shardSize = kDefaultShardSize;  // bytes of a shard (estimated as tar); 0 with sampleCount
    std::uint64_t sampleCount = 0;                // samples per shard; 0: cut by shardSize
    std::string shardTemplate = kDefaultTemplate;
    std::string ext = ".tar";                                     // appended to every shard name
    archive::ArchiveFormat format = archive::ArchiveFormat::Tar;  // the one ext names
    std::string sampleKeyPattern;                                 // empty: WebDataset key
    SampleOrder order = SampleOrder::Alpha;
    std::optional<std::uint64_t> seed;  // shuffle; unset: the proxy picks one
    MissingExtAction missingExt = MissingExtAction::Ignore;
    std::vector<std::string> sampleExts;  // with the dot, e.g. ".png"
    bool dryRun = false;
};

std::string_view sampleOrderName(SampleOrder o);
std::string_view missingExtActionName(MissingExtAction a);

// Every problem of the JSON, each naming its field; empty when the spec is
// good (then fromJson succeeds).
std::vector<FieldError> validateIshardSpec(const nlohmann::json& j);
// The spec, or a BadRequest whose message lists the field errors as
// "/pointer: message; ...".
api::Result<IshardSpec> parseIshardSpec(const nlohmann::json& j);
api::Result<IshardSpec> parseIshardSpec(std::string_view json);
// Writes back the canonical JSON (sizes in bytes, "shuffle:SEED" when a seed is set).
void to_json(nlohmann::json& j, const IshardSpec& v);

}  // namespace tessera::spec
