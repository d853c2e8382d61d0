#include "slice_meta.h"

#include "bmd.h"
#include "headers.h"
#include "json_util.h"
#include "json_whole_numbers.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace tessera::api {

namespace {

bool isHex16(std::string_view s)
{
    if (s.size() != 16) return false;
    for (char c : s) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

template <typename T>
bool parseNumber(std::string_view s, T& out)
{
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

void to_json(nlohmann::json& j, const SliceMeta& v)
{
    j = nlohmann::json{{"object", v.object}, {"index", v.index},          {"data", v.data},
                       {"parity", v.parity}, {"slice_size", v.sliceSize}, {"slice_checksum", v.sliceChecksum}};
}

void from_json(const nlohmann::json& j, SliceMeta& v)
{
    j.at("object").get_to(v.object);
    j.at("index").get_to(v.index);
    j.at("data").get_to(v.data);
    j.at("parity").get_to(v.parity);
    j.at("slice_size").get_to(v.sliceSize);
    j.at("slice_checksum").get_to(v.sliceChecksum);
}

api::Result<SliceMeta> parseSliceMeta(std::string_view json)
{
    auto m = api::parseWholeNumberJsonAs<SliceMeta>(json, "slice metadata");
    if (!m) return m.error();
    if (auto st = validate(*m); !st) return api::Error::corruption("stored slice metadata: " + st.error().message);
    return m;
}

api::Status validate(const SliceMeta& m)
{
    if (m.data < 1 || m.data > EcConf::kMaxData || m.parity < 1 || m.parity > EcConf::kMaxParity) {
        return api::Error::badRequest("slice code " + std::to_string(m.data) + "+" + std::to_string(m.parity) +
                                      " is out of range (data 1.." + std::to_string(EcConf::kMaxData) + ", parity 1.." +
                                      std::to_string(EcConf::kMaxParity) + ")");
    }
    if (m.index < 0 || m.index >= m.data + m.parity) {
        return api::Error::badRequest("slice index " + std::to_string(m.index) + " is out of range 0.." +
                                      std::to_string(m.data + m.parity - 1));
    }
    if (m.object.size < 0) return api::Error::badRequest("the object size of a slice is negative");
    const auto size = static_cast<std::uint64_t>(m.object.size);
    const auto d = static_cast<std::uint64_t>(m.data);
    if (m.sliceSize != size / d + (size % d != 0 ? 1 : 0)) {
        return api::Error::badRequest("slice size " + std::to_string(m.sliceSize) + " does not match an object of " +
                                      std::to_string(size) + " bytes in " + std::to_string(m.data) + " data slices");
    }
    if (!isHex16(m.sliceChecksum) || !isHex16(m.object.checksumValue)) {
        return api::Error::badRequest("a slice needs the xxhash64 of the slice and of the object (16 hex digits)");
    }
    if (m.object.stamp <= 0) return api::Error::badRequest("a slice needs the positive version stamp of its object");
    return {};
}

void appendSliceHeaders(api::HeaderPairs& out, const SliceMeta& m, std::string_view location)
{
    api::appendMetaHeaders(out, m.object, location, true);
    out.emplace_back(std::string(kHdrSliceIndex), std::to_string(m.index));
    out.emplace_back(std::string(kHdrSliceData), std::to_string(m.data));
    out.emplace_back(std::string(kHdrSliceParity), std::to_string(m.parity));
    out.emplace_back(std::string(kHdrSliceSize), std::to_string(m.sliceSize));
    out.emplace_back(std::string(kHdrSliceChecksum), m.sliceChecksum);
}

api::Result<SliceMeta> sliceFromHeaders(const std::function<std::string(std::string_view)>& header)
{
    SliceMeta m;
    const auto attrs = api::attrsFromHeaders(header);
    m.object = static_cast<const api::ObjectMeta&>(attrs);
    if (header(api::kHdrSize).empty()) return api::Error::badRequest("a slice needs the object's ais-size");
    if (!parseNumber(header(kHdrSliceIndex), m.index) || !parseNumber(header(kHdrSliceData), m.data) ||
        !parseNumber(header(kHdrSliceParity), m.parity) || !parseNumber(header(kHdrSliceSize), m.sliceSize)) {
        return api::Error::badRequest("a slice needs numeric " + std::string(kHdrSliceIndex) + ", " +
                                      std::string(kHdrSliceData) + ", " + std::string(kHdrSliceParity) + " and " +
                                      std::string(kHdrSliceSize) + " headers");
    }
    m.sliceChecksum = header(kHdrSliceChecksum);
    if (auto st = validate(m); !st) return st.error();
    return m;
}

}  // namespace tessera::api
