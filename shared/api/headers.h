#pragma once
// HTTP header and query-parameter names on the wire (AIStore-compatible
// where AIStore defines one).

#include <cstdint>
#include <string_view>

namespace tessera::api {

inline constexpr std::string_view kHdrChecksumType = "ais-checksum-type";
inline constexpr std::string_view kHdrChecksumValue = "ais-checksum-value";
inline constexpr std::string_view kHdrVersion = "ais-version";
inline constexpr std::string_view kHdrAtime = "ais-atime";  // unix nanoseconds
inline constexpr std::string_view kHdrSize = "ais-size";
inline constexpr std::string_view kHdrName = "ais-name";
inline constexpr std::string_view kHdrPresent = "ais-present";    // HEAD object: "true" (AIStore's ObjectProps.present)
inline constexpr std::string_view kHdrLocation = "ais-location";  // target id that served the request
inline constexpr std::string_view kHdrCustomMd = "ais-custom-md";        // "k1=v1,k2=v2"
inline constexpr std::string_view kHdrBucketProps = "ais-bucket-props";  // JSON
inline constexpr std::string_view kHdrSmapVersion = "ais-smap-version";
// Tessera: how a shard read found its .tar offset index ("memory", "file",
// "built") or that it read without one ("none").
inline constexpr std::string_view kHdrArchiveIndex = "tessera-archive-index";

// The cluster's shared secret on node-to-node control calls (join,
// keepalive, metadata push): see Config::clusterKeyFile.
inline constexpr std::string_view kHdrClusterKey = "tessera-cluster-key";
// The version stamp of an object copy a peer delivers (rebalance): the
// owner's hybrid-clock time of the write, which orders the versions of one
// object across targets (see ObjectMeta::stamp).
inline constexpr std::string_view kHdrVersionStamp = "tessera-version-stamp";
// A copy's HEAD (?copy=true) that finds none: the stamp of the name's
// tombstone there, when it has one (the name was deleted, or a write that
// was not acknowledged was taken back).
inline constexpr std::string_view kHdrTombstone = "tessera-tombstone";
// In the answer to a DELETE of a copy or a slice between targets: "true" when
// the target had one (the owner that lost its own copy then answers 200).
inline constexpr std::string_view kHdrRemoved = "tessera-removed";

// Bodies up to this size are sent without `Expect: 100-continue`, and a
// server that answers before reading one (a redirect) reads and drops it to
// keep the connection: client and server must agree on the number.
inline constexpr std::uint64_t kSmallBodyBytes = 64 * 1024;

// HTTP field names compare without regard to ASCII case.
constexpr bool sameFieldName(std::string_view a, std::string_view b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
        const char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
        if (x != y) return false;
    }
    return true;
}

// Query parameters.
// AIStore's clients ask for listings in msgpack (Accept: application/msgpack).
inline constexpr std::string_view kMimeMsgpack = "application/msgpack";
// True when an Accept header value names msgpack.
inline bool acceptsMsgpack(std::string_view accept) { return accept.find(kMimeMsgpack) != std::string_view::npos; }

inline constexpr std::string_view kQpWhat = "what";
inline constexpr std::string_view kQpSmapVersion = "smap_version";
inline constexpr std::string_view kQpPrefix = "prefix";
inline constexpr std::string_view kQpPageSize = "pagesize";
inline constexpr std::string_view kQpContinuationToken = "continuation_token";
inline constexpr std::string_view kQpProps = "props";
inline constexpr std::string_view kQpFlags = "flags";              // list: AIStore LsoMsg flags
inline constexpr std::string_view kQpArchive = "archive";          // list: Tessera's archive=true, the same as flags=8
inline constexpr std::string_view kQpTimeFormat = "time_format";   // list: AIStore LsoMsg time_format (a Go layout)
inline constexpr std::string_view kQpUuid = "uuid";                // list: AIStore LsoMsg uuid
inline constexpr std::string_view kQpStartAfter = "start_after";   // list: AIStore LsoMsg start_after
inline constexpr std::string_view kQpTarget = "target";            // list: AIStore LsoMsg target (SID)
inline constexpr std::string_view kQpStandInFor = "stand_in_for";  // list (proxy to targets): away owners' ids
// Shards (AIStore): one member, several members, how to match, the format.
inline constexpr std::string_view kQpArchPath = "archpath";
inline constexpr std::string_view kQpArchRegx = "archregx";
inline constexpr std::string_view kQpArchMode = "archmode";
inline constexpr std::string_view kQpArchMime = "archmime";
// A copy of a mirrored object, between the targets that hold its copies:
// PUT stores the delivered version (with the cluster key), GET and HEAD read
// the copy here, DELETE removes it and records the deletion.
inline constexpr std::string_view kQpCopy = "copy";
// A peer delivering a copy of an existing version to its owner, with
// kHdrVersionStamp and kHdrVersion: the owner keeps whichever copy is newer,
// and answers 200 with `tessera-transfer: superseded` when it keeps its own.
inline constexpr std::string_view kQpRebalance = "rebalance";
// GET: the object (or the archpath member) through an ETL, or a pipeline of
// ETLs (etl_name first, then each of etl_pipeline, comma-separated).
inline constexpr std::string_view kQpEtlName = "etl_name";
inline constexpr std::string_view kQpEtlArgs = "etl_args";
inline constexpr std::string_view kQpEtlPipeline = "etl_pipeline";

}  // namespace tessera::api
