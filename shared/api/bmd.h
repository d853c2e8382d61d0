#pragma once
// Bucket metadata (BMD): every bucket and its properties, versioned. The
// proxy owns it; targets hold copies.

#include "result.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace tessera::api {

struct ChecksumConf {
    std::string type = "xxhash";   // only "xxhash" is supported
    bool validateWarmGet = false;  // JSON: validate_warm_get; verify on every GET
    bool operator==(const ChecksumConf&) const = default;
};

// Copies of every object of the bucket (JSON: mirror). `copies` counts the
// object itself: 2 is the object and one copy. With `acrossTargets` the
// copies live on the first `copies` targets of the name's HRW order (the
// owner first), so that a whole target can die; without it, on the owner's
// first `copies` mountpaths in HRW order.
struct MirrorConf {
    bool enabled = false;
    std::int32_t copies = 1;     // 1..kMaxCopies
    bool acrossTargets = false;  // JSON: across_targets
    // Set by the proxy, read-only: some objects may have fewer copies than
    // the conf asks (copies were raised, or the targets changed) until a
    // rebalance or reprotect job finishes without errors.
    bool pending = false;
    static constexpr std::int32_t kMaxCopies = 8;
    // How many targets hold each object: `copies` when mirrored across
    // targets, else 1.
    std::size_t targetCopies() const { return enabled && acrossTargets ? static_cast<std::size_t>(copies) : 1; }
    // How many mountpaths of one target hold each object.
    std::size_t mountpathCopies() const { return enabled && !acrossTargets ? static_cast<std::size_t>(copies) : 1; }
    bool operator==(const MirrorConf&) const = default;
};

// Erasure coding of every object of the bucket (JSON: ec). An object of
// at least `objsizeLimit` bytes stays whole on its owner (the first target
// of its HRW order) and is cut into `dataSlices` D data and `paritySlices`
// P parity slices kept on the next D + P targets, one each; a smaller one is
// copied whole to the next P targets. Either way any P targets may be lost.
// Excludes mirroring; needs D + P + 1 targets (the proxy checks both).
struct EcConf {
    bool enabled = false;
    std::int32_t dataSlices = 2;                          // D, JSON data_slices: 1..kMaxData
    std::int32_t paritySlices = 1;                        // P, JSON parity_slices: 1..kMaxParity
    std::int64_t objsizeLimit = std::int64_t{256} << 10;  // JSON objsize_limit: 0..kMaxObjsizeLimit
    // Set by the cluster, read-only: objects written before the conf was
    // enabled (or before a placement change) may lack slices or copies
    // until a rebalance or reprotect job finishes without errors.
    bool pending = false;
    static constexpr std::int32_t kMaxData = 16;
    static constexpr std::int32_t kMaxParity = 8;
    static constexpr std::int64_t kMaxObjsizeLimit = std::int64_t{1} << 30;
    // How many targets an object's protection involves: the owner and D + P.
    std::size_t targets() const { return enabled ? static_cast<std::size_t>(dataSlices + paritySlices + 1) : 1; }
    // True when an object of `size` bytes is cut into slices (else copied whole).
    bool sliced(std::int64_t size) const { return enabled && size >= objsizeLimit; }
    bool operator==(const EcConf&) const = default;
};

struct BucketProps {
    std::string provider = "ais";
    std::int64_t created = 0;  // unix ns
    ChecksumConf checksum;
    MirrorConf mirror;
    EcConf ec;
    bool operator==(const BucketProps&) const = default;
};

struct Bmd {
    std::int64_t version = 0;
    std::string uuid;
    std::map<std::string, BucketProps> buckets;  // JSON: buckets

    const BucketProps* find(std::string_view name) const;
};

// A bucket as listed by GET /v1/buckets (AIStore's cmn.Bck shape).
struct BucketRef {
    std::string name;
    std::string provider = "ais";
};

void to_json(nlohmann::json& j, const ChecksumConf& v);
void from_json(const nlohmann::json& j, ChecksumConf& v);
void to_json(nlohmann::json& j, const MirrorConf& v);
void from_json(const nlohmann::json& j, MirrorConf& v);
void to_json(nlohmann::json& j, const EcConf& v);
void from_json(const nlohmann::json& j, EcConf& v);
void to_json(nlohmann::json& j, const BucketProps& v);
void from_json(const nlohmann::json& j, BucketProps& v);
void to_json(nlohmann::json& j, const Bmd& v);
void from_json(const nlohmann::json& j, Bmd& v);
void to_json(nlohmann::json& j, const BucketRef& v);
void from_json(const nlohmann::json& j, BucketRef& v);

Result<Bmd> parseBmd(std::string_view json);
Result<BucketProps> parseBucketProps(std::string_view json);

// Applies a partial props update ({"checksum":{"validate_warm_get":true}},
// {"mirror":{"enabled":true,"copies":2,"across_targets":true}},
// {"ec":{"enabled":true,"data_slices":4,"parity_slices":2,"objsize_limit":0}})
// to `props`. Unknown fields, wrong types and values out of range are
// BadRequest; nothing changes then. `mirror.pending` and `ec.pending` are
// read-only. (What depends on the cluster — mirror and ec together, enough
// targets — the proxy checks.)
Status applyPropsUpdate(BucketProps& props, const nlohmann::json& update);

}  // namespace tessera::api
