#include "object_list.h"

#include "headers.h"
#include "json_util.h"

#include <charconv>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace tessera::api {

Result<std::uint32_t> parseListProps(std::string_view csv)
{
    std::uint32_t out = kPropName;
    std::size_t start = 0;
    while (start <= csv.size()) {
        auto comma = csv.find(',', start);
        auto item = csv.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (item == "name") out |= kPropName;
        else if (item == "size") out |= kPropSize;
        else if (item == "checksum") out |= kPropChecksum;
        else if (item == "atime") out |= kPropAtime;
        else if (item == "version") out |= kPropVersion;
        else if (!item.empty()) {
            return Error::badRequest("unknown list property \"" + std::string(item) +
                                     "\" (expected name,size,checksum,atime,version)");
        }
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::string listPropsToString(std::uint32_t props)
{
    std::string s = "name";
    if (props & kPropSize) s += ",size";
    if (props & kPropChecksum) s += ",checksum";
    if (props & kPropAtime) s += ",atime";
    if (props & kPropVersion) s += ",version";
    return s;
}

namespace {
Result<std::uint32_t> parsePageSize(std::string_view s)
{
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
        return Error::badRequest("pagesize must be a non-negative integer");
    }
    if (v > kMaxPageSize) {
        return Error::badRequest("pagesize must not exceed " + std::to_string(kMaxPageSize));
    }
    return static_cast<std::uint32_t>(v == 0 ? kDefaultPageSize : v);
}
}  // namespace

Result<ListRequest> listRequestFromQuery(const QueryMap& query)
{
    ListRequest req;
    if (auto it = query.find(kQpPrefix); it != query.end()) req.prefix = it->second;
    if (auto it = query.find(kQpContinuationToken); it != query.end()) req.continuationToken = it->second;
    if (auto it = query.find(kQpPageSize); it != query.end()) {
        auto ps = parsePageSize(it->second);
        if (!ps) return ps.error();
        req.pageSize = *ps;
    }
    if (auto it = query.find(kQpProps); it != query.end()) {
        auto props = parseListProps(it->second);
        if (!props) return props.error();
        req.props = *props;
    }
    if (auto it = query.find(kQpFlags); it != query.end()) {
        std::uint64_t v = 0;
        const auto& s = it->second;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v > 0xffffffffu) {
            return Error::badRequest("flags must be a non-negative 32-bit integer");
        }
        // Other AIStore flags (cached, missing, ...) have no meaning here.
        req.flags = static_cast<std::uint32_t>(v) & kLsArchDir;
    }
    if (auto it = query.find(kQpArchive); it != query.end()) {
        if (it->second == "true" || it->second == "1") req.flags |= kLsArchDir;
        else if (it->second != "false" && it->second != "0") {
            return Error::badRequest("archive must be true or false");
        }
    }
    return req;
}

Result<ListRequest> listRequestFromJson(std::string_view body)
{
    auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return Error::badRequest("list objects: body must be a JSON object");
    }
    const nlohmann::json* v = &j;
    if (j.contains("action")) {
        if (!j["action"].is_string() || j["action"].get<std::string>() != "list") {
            return Error::badRequest("list objects: action must be \"list\"");
        }
        if (!j.contains("value") || !j["value"].is_object()) {
            return Error::badRequest("list objects: \"value\" must be an object");
        }
        v = &j["value"];
    }
    QueryMap q;
    for (const auto& [k, val] : v->items()) {
        if (k == "prefix" || k == "continuation_token" || k == "props") {
            if (!val.is_string()) return Error::badRequest("list objects: \"" + k + "\" must be a string");
            q[k] = val.get<std::string>();
        } else if (k == "pagesize") {
            if (!val.is_number_unsigned()) {
                return Error::badRequest("list objects: \"pagesize\" must be a non-negative integer");
            }
            q[k] = std::to_string(val.get<std::uint64_t>());
        } else if (k == "flags") {
            if (!val.is_number_unsigned()) {
                return Error::badRequest("list objects: \"flags\" must be a non-negative integer");
            }
            q[k] = std::to_string(val.get<std::uint64_t>());
        } else if (k == "uuid") {
            // accepted for AIStore compatibility; no effect
        } else {
            return Error::badRequest("list objects: unknown field \"" + k + "\"");
        }
    }
    return listRequestFromQuery(q);
}

QueryMap listRequestToQuery(const ListRequest& req)
{
    QueryMap q;
    if (!req.prefix.empty()) q[std::string(kQpPrefix)] = req.prefix;
    if (!req.continuationToken.empty()) q[std::string(kQpContinuationToken)] = req.continuationToken;
    q[std::string(kQpPageSize)] = std::to_string(req.pageSize);
    q[std::string(kQpProps)] = listPropsToString(req.props);
    if (req.flags != 0) q[std::string(kQpFlags)] = std::to_string(req.flags);
    return q;
}

void to_json(nlohmann::json& j, const ObjEntry& v)
{
    j = nlohmann::json{{"name", v.name}};
    if (v.size >= 0) j["size"] = v.size;
    if (!v.checksum.empty()) j["checksum"] = v.checksum;
    if (!v.atime.empty()) j["atime"] = v.atime;
    if (!v.version.empty()) j["version"] = v.version;
    if (v.flags != 0) j["flags"] = v.flags;
    if (!v.error.empty()) j["error"] = v.error;
}

void from_json(const nlohmann::json& j, ObjEntry& v)
{
    j.at("name").get_to(v.name);
    v.size = j.value("size", std::int64_t{-1});  // -1: not requested (props without size)
    v.checksum = j.value("checksum", std::string());
    v.atime = j.value("atime", std::string());
    v.version = j.value("version", std::string());
    v.flags = j.value("flags", std::uint32_t{0});
    v.error = j.value("error", std::string());
}

void to_json(nlohmann::json& j, const ObjectList& v)
{
    j = nlohmann::json{
        {"uuid", v.uuid}, {"continuation_token", v.continuationToken}, {"entries", v.entries}, {"flags", v.flags}};
}

void from_json(const nlohmann::json& j, ObjectList& v)
{
    v.uuid = j.value("uuid", std::string());
    j.at("continuation_token").get_to(v.continuationToken);
    if (j.contains("entries") && !j["entries"].is_null()) {
        j.at("entries").get_to(v.entries);
    }
    v.flags = j.value("flags", std::uint32_t{0});
}

Result<ObjectList> parseObjectList(std::string_view json) { return parseJsonAs<ObjectList>(json, "object list"); }

std::string formatRfc3339(std::int64_t unixNs)
{
    const std::time_t secs = static_cast<std::time_t>(unixNs / 1000000000);
    const auto nanos = static_cast<long>(unixNs % 1000000000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    const auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%09ldZ", nanos);
    return std::string(buf, n) + frac;
}

}  // namespace tessera::api
