#pragma once
// The dSort spec, after AIStore's: which shards to read, how to order their
// records, and how to cut them into new shards. The daemon validates a
// request with it and the console validates its form with the same code, so
// both name the same fields (JSON pointers such as "/algorithm/seed").
//
// JSON (input_bck, input_format and output_shard_size are required):
//   {"input_bck":"raw", "output_bck":"sorted",               (output_bck: default input_bck)
//    "input_format":{"template":"shard-{0000..0099}"}  |  {"objnames":["a","b"]},
//    "input_extension":".tar",                               (appended to every input name)
//    "output_format":"out-{00000..99999}",                   (default "shard-{00000..99999}")
//    "output_extension":".tgz",                              (default: input_extension; converts)
//    "output_shard_size":"100MB" | "256MiB" | 1048576 | "1000 records",
//    "algorithm":{"kind":"alphanumeric","decreasing":false}
//               |{"kind":"shuffle","seed":"42"}              (seed: a decimal number, string or number)
//               |{"kind":"content","extension":".cls","content_key_type":"int"}
//               |{"kind":"none"},                             (default alphanumeric)
//    "ekm_file":"bucket/object.json" | "https://host/ekm.json", (external key map: an object in the
//                                                              cluster, or a URL the proxy fetches)
//    "max_mem_usage":"70%" | "4GiB",                          (record bytes held in memory per target)
//    "extract_concurrency_max_limit":4, "create_concurrency_max_limit":4,
//    "duplicated_records":"ignore|warn|abort", "missing_shards":"ignore|warn|abort",
//    "dry_run":false, "description":"..."}
// A record is a WebDataset sample: the consecutive files of a shard that
// share a key (archive::wdsKey). Sizes and templates use the shared parsers
// (size_string.h, brace_template.h).
//
// Thread safety: plain values.

#include "ishard_spec.h"  // FieldError, describe()

#include "archive/archive_format.h"

#include "api/result.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tessera::spec {

enum class DsortAlgorithmKind { Alphanumeric, Shuffle, Content, None };
enum class ContentKeyType { Int, Float, String };
enum class DsortPolicy { Ignore, Warn, Abort };

struct DsortAlgorithm {
    DsortAlgorithmKind kind = DsortAlgorithmKind::Alphanumeric;
    bool decreasing = false;            // alphanumeric and content
    std::optional<std::uint64_t> seed;  // shuffle; unset: the proxy picks one
    std::string extension;              // content: the file whose bytes are the key, e.g. ".cls"
    ContentKeyType keyType = ContentKeyType::Int;
};

struct DsortSpec {
    static constexpr const char* kDefaultOutputFormat = "shard-{00000..99999}";
    static constexpr std::uint64_t kMaxInputShards = 100'000;
    static constexpr std::uint64_t kMaxRecordsPerShard = 100'000'000;
    static constexpr unsigned kMaxConcurrency = 64;
    static constexpr unsigned kDefaultConcurrency = 4;
    static constexpr std::size_t kMaxDescriptionBytes = 1024;

    std::string inputBck;
    std::string outputBck;      // filled with inputBck when absent
    std::string inputTemplate;  // one of inputTemplate / inputObjnames
    std::vector<std::string> inputObjnames;
    std::string inputExtension = ".tar";
    archive::ArchiveFormat inputFormat = archive::ArchiveFormat::Tar;
    std::string outputFormat = kDefaultOutputFormat;
    std::string outputExtension;  // filled with inputExtension when absent
    archive::ArchiveFormat outputArchiveFormat = archive::ArchiveFormat::Tar;
    std::uint64_t outputShardSize = 0;     // bytes of a shard, estimated as .tar; 0 with outputShardRecords
    std::uint64_t outputShardRecords = 0;  // records per shard; 0: cut by outputShardSize
    DsortAlgorithm algorithm;
    std::string ekmFile;  // "bucket/object", or an http(s):// URL (ekmIsUrl()); empty: none
    static constexpr double kDefaultMemPercent = 80;
    double maxMemPercent = kDefaultMemPercent;  // of the target's physical memory; 0: maxMemBytes applies
    std::uint64_t maxMemBytes = 0;              // with maxMemPercent 0 (0 bytes: every record spills)
    unsigned extractConcurrency = kDefaultConcurrency;
    unsigned createConcurrency = kDefaultConcurrency;
    DsortPolicy duplicatedRecords = DsortPolicy::Ignore;
    DsortPolicy missingShards = DsortPolicy::Ignore;
    bool dryRun = false;
    std::string description;

    // The input shards' object names, in order (template expanded, extension
    // appended); BadRequest past kMaxInputShards.
    api::Result<std::vector<std::string>> inputNames() const;
    // The ekm_file's bucket and object.
    std::pair<std::string, std::string> ekmObject() const;
    // The ekm_file is a URL the proxy fetches (AIStore's form), not an object.
    bool ekmIsUrl() const;
    // The in-memory budget on a target with `physicalBytes` of memory.
    std::uint64_t memoryBudget(std::uint64_t physicalBytes) const;
};

std::string_view dsortAlgorithmName(DsortAlgorithmKind k);
std::string_view contentKeyTypeName(ContentKeyType t);
std::string_view dsortPolicyName(DsortPolicy p);

// Every problem of the JSON, each naming its field; empty when the spec is good.
std::vector<FieldError> validateDsortSpec(const nlohmann::json& j);
// The spec, or a BadRequest whose message lists the field errors.
api::Result<DsortSpec> parseDsortSpec(const nlohmann::json& j);
api::Result<DsortSpec> parseDsortSpec(std::string_view json);

// The canonical JSON (sizes in bytes, every field present, seed as a string);
// parseDsortSpec reads it back to the same spec.
void to_json(nlohmann::json& j, const DsortSpec& v);

}  // namespace tessera::spec
