#include "object_list.h"
#include "object_list_scan.h"

#include "headers.h"
#include "json_util.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace tessera::api {

namespace {
struct PropName {
    std::string_view name;
    std::uint32_t bit;
};
// AIStore's GetProps* names (api/apc/lsmsg.go), in AIStore's order.
constexpr PropName kPropNames[] = {
    {"name", kPropName},
    {"size", kPropSize},
    {"checksum", kPropChecksum},
    {"atime", kPropAtime},
    {"version", kPropVersion},
    {"cached", kPropCached},
    {"status", kPropStatus},
    {"copies", kPropCopies},
    {"ec", kPropEc},
    {"custom", kPropCustom},
    {"location", kPropLocation},
    {"chunked", kPropChunked},
    {"last-modified", kPropLastModified},
    {"etag", kPropEtag},
};
}  // namespace

Result<std::uint32_t> parseListProps(std::string_view csv)
{
    // AIStore: an empty props is "name,size" (apc.JoinProps, and the
    // targets' NormalizeNameSizeDflt for an ais bucket).
    if (csv.find_first_not_of(' ') == std::string_view::npos) return std::uint32_t{kPropName | kPropSize};
    std::uint32_t out = kPropName;
    std::size_t start = 0;
    while (start <= csv.size()) {
        auto comma = csv.find(',', start);
        auto item = csv.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (!item.empty()) {
            const auto* p = std::find_if(std::begin(kPropNames), std::end(kPropNames),
                                         [&](const PropName& n) { return n.name == item; });
            if (p == std::end(kPropNames)) {
                return Error::badRequest("unknown list property \"" + std::string(item) +
                                         "\" (expected name,size,checksum,atime,version,cached,status,copies,ec,"
                                         "custom,location,chunked,last-modified,etag)");
            }
            out |= p->bit;
        }
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::string listPropsToString(std::uint32_t props)
{
    std::string s = "name";
    for (const auto& p : kPropNames) {
        if (p.bit != kPropName && (props & p.bit)) s += "," + std::string(p.name);
    }
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
        req.flags = static_cast<std::uint32_t>(v) & (kLsArchDir | kLsNameOnly);
        if (req.flags & kLsNameOnly) req.props = kPropName;
    }
    if (auto it = query.find(kQpTimeFormat); it != query.end()) {
        if (it->second.size() > 128) return Error::badRequest("time_format must be at most 128 characters");
        req.timeFormat = it->second;
    }
    if (auto it = query.find(kQpTarget); it != query.end()) {
        if (it->second.size() > 128) return Error::badRequest("target must be a target id of at most 128 characters");
        req.target = it->second;
    }
    if (auto it = query.find(kQpUuid); it != query.end()) {
        if (it->second.size() > 128) return Error::badRequest("uuid must be at most 128 characters");
        req.uuid = it->second;
    }
    if (auto it = query.find(kQpStartAfter); it != query.end()) {
        req.startAfter = it->second;
        if (req.continuationToken.empty()) req.continuationToken = req.startAfter;
    }
    if (auto it = query.find(kQpStandInFor); it != query.end()) {
        std::string_view rest = it->second;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            const auto id = rest.substr(0, comma);
            if (id.empty() || id.size() > 128)
                return Error::badRequest("stand_in_for: target ids must be 1..128 characters, comma-separated");
            req.standInFor.emplace_back(id);
            if (req.standInFor.size() > kMaxStandInFor) {
                return Error::badRequest("stand_in_for: at most " + std::to_string(kMaxStandInFor) + " target ids");
            }
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
        std::sort(req.standInFor.begin(), req.standInFor.end());
        req.standInFor.erase(std::unique(req.standInFor.begin(), req.standInFor.end()), req.standInFor.end());
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
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(body);
    } catch (const nlohmann::json::exception& e) {
        // The library's own words after its "[json.exception...] " tag: a
        // number too large for any type is "number overflow parsing '1e400'".
        std::string what = e.what();
        if (auto tag = what.find("] "); tag != std::string::npos) what = what.substr(tag + 2);
        return Error::badRequest("list objects: malformed JSON body: " + what);
    }
    if (!j.is_object()) return Error::badRequest("list objects: body must be a JSON object");
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
    // AIStore's LsoMsg, field by field (api/apc/lsmsg.go): "flags" is
    // `json:"flags,string"` (a decimal string; a number is taken too, as
    // Tessera's clients sent it), "hdr" only matters for remote buckets.
    QueryMap q;
    for (const auto& [k, val] : v->items()) {
        if (k == "prefix" || k == "continuation_token" || k == "props" || k == "time_format" || k == "start_after" ||
            k == "target" || k == "uuid") {
            if (val.is_null()) continue;
            if (!val.is_string()) return Error::badRequest("list objects: \"" + k + "\" must be a string");
            q[k] = val.get<std::string>();
        } else if (k == "pagesize") {
            if (!val.is_number_unsigned()) {
                return Error::badRequest("list objects: \"pagesize\" must be a non-negative integer");
            }
            q[k] = std::to_string(val.get<std::uint64_t>());
        } else if (k == "flags") {
            if (val.is_string()) q[k] = val.get<std::string>();
            else if (val.is_number_unsigned()) q[k] = std::to_string(val.get<std::uint64_t>());
            else
                return Error::badRequest(
                    "list objects: \"flags\" must be a non-negative integer or its decimal string");
        } else if (k == "hdr") {
            if (!val.is_null() && !val.is_object()) return Error::badRequest("list objects: \"hdr\" must be an object");
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
    if (!req.timeFormat.empty()) q[std::string(kQpTimeFormat)] = req.timeFormat;
    if (!req.target.empty()) q[std::string(kQpTarget)] = req.target;
    if (!req.startAfter.empty()) q[std::string(kQpStartAfter)] = req.startAfter;
    if (!req.uuid.empty()) q[std::string(kQpUuid)] = req.uuid;
    if (!req.standInFor.empty()) {
        std::string ids;
        for (const auto& id : req.standInFor) ids += (ids.empty() ? "" : ",") + id;
        q[std::string(kQpStandInFor)] = ids;
    }
    return q;
}

void to_json(nlohmann::json& j, const ObjEntry& v)
{
    j = nlohmann::json{{"name", v.name}};
    if (v.size >= 0) j["size"] = std::to_string(v.size);  // AIStore: `size,string`
    if (!v.checksum.empty()) j["checksum"] = v.checksum;
    if (!v.atime.empty()) j["atime"] = v.atime;
    if (!v.version.empty()) j["version"] = v.version;
    if (!v.location.empty()) j["location"] = v.location;
    if (!v.custom.empty()) j["custom-md"] = v.custom;
    if (v.copies != 0) j["copies"] = v.copies;
    if (v.flags != 0) j["flags"] = v.flags;
    if (!v.error.empty()) j["error"] = v.error;
    if (v.stamp > 0) j["stamp"] = v.stamp;
}

namespace {
// "123" (AIStore) or 123 (older Tessera pages) -> 123; anything else throws
// like nlohmann's own get<> does.
std::int64_t sizeFromJson(const nlohmann::json& s)
{
    if (s.is_number_unsigned() && s.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) {
        return s.get<std::int64_t>();
    }
    if (s.is_number())
        throw nlohmann::json::type_error::create(302, "an entry's \"size\" must be a decimal string", &s);
    const auto& text = s.get_ref<const std::string&>();
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v < 0) {
        throw nlohmann::json::type_error::create(302, "an entry's \"size\" must be a decimal string", &s);
    }
    return v;
}
}  // namespace

void from_json(const nlohmann::json& j, ObjEntry& v)
{
    j.at("name").get_to(v.name);
    v.size = j.contains("size") ? sizeFromJson(j.at("size")) : -1;  // -1: not requested (props without size)
    v.checksum = j.value("checksum", std::string());
    v.atime = j.value("atime", std::string());
    v.version = j.value("version", std::string());
    v.location = j.value("location", std::string());
    v.custom = j.value("custom-md", std::string());
    v.copies = j.value("copies", 0);
    v.flags = j.value("flags", std::uint32_t{0});
    v.error = j.value("error", std::string());
    v.stamp = j.value("stamp", std::int64_t{0});
    if (v.stamp < 0) throw nlohmann::json::type_error::create(302, "an entry's \"stamp\" must not be negative", &j);
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

// Appends `s` as a JSON string the way api::dumpJson writes it: ASCII and
// valid UTF-8 as they are, '"', '\\' and control characters escaped; text
// that is not valid UTF-8 goes through nlohmann for its replacement rule.
void appendJsonString(std::string& out, std::string_view s)
{
    static constexpr char kHex[] = "0123456789abcdef";
    const auto start = out.size();
    out.push_back('"');
    std::size_t plain = 0;  // start of the run not yet copied
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') continue;
        if (c >= 0x80) {
            // Beyond ASCII: written whole by nlohmann (valid UTF-8 as it is).
            out.resize(start);
            out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            return;
        }
        out.append(s.data() + plain, i - plain);
        plain = i + 1;
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
        }
    }
    out.append(s.data() + plain, s.size() - plain);
    out.push_back('"');
}

namespace {

// SAX handler filling an ObjectList: the page's top-level fields and its
// entries; values of unknown fields (of any shape) are skipped.
class ObjectListSax : public nlohmann::json_sax<nlohmann::json> {
public:
    // `textSize`: the page's length, to size the entries vector once.
    ObjectListSax(ObjectList& out, std::size_t textSize) : m_out(out), m_textSize(textSize) {}

    std::string error;
    bool sawToken = false;

    bool null() override { return scalar(Kind::Null, {}, 0); }
    bool boolean(bool) override { return scalar(Kind::Other, {}, 0); }
    // A negative integer: no field of a page takes one.
    bool number_integer(number_integer_t) override { return scalar(Kind::Int, {}, 0); }
    bool number_unsigned(number_unsigned_t v) override { return scalar(Kind::Uint, {}, v); }
    bool number_float(number_float_t, const string_t&) override { return scalar(Kind::Other, {}, 0); }
    bool string(string_t& v) override { return scalar(Kind::String, v, 0); }
    bool binary(binary_t&) override { return scalar(Kind::Other, {}, 0); }

    bool start_object(std::size_t) override
    {
        ++m_depth;
        if (m_skip > 0) {
            ++m_skip;
            return true;
        }
        if (m_depth == 1) return true;  // the page itself
        if (m_depth == 2 && m_key == "entries") return fail("\"entries\" must be an array");
        if (m_depth == 3 && m_inEntries) {
            m_out.entries.emplace_back();
            m_out.entries.back().size = -1;  // absent: the listing did not ask for sizes
            m_entryHasName = false;
            return true;
        }
        return beginSkip();
    }
    bool end_object() override
    {
        --m_depth;
        if (m_skip > 0) return --m_skip, true;
        if (m_depth == 2 && m_inEntries && !m_entryHasName) return fail("an entry has no \"name\"");
        return true;
    }
    bool start_array(std::size_t) override
    {
        ++m_depth;
        if (m_skip > 0) return ++m_skip, true;
        if (m_depth == 2 && m_key == "entries") {
            m_inEntries = true;
            // An entry takes at least 11 bytes ({"name":""}); a listing
            // entry with a name (and maybe a size) rarely takes less than 32.
            m_out.entries.reserve(std::min<std::size_t>(m_textSize / 32, kMaxPageSize * 4));
            return true;
        }
        if (m_depth == 1) return fail("not an object");
        if (m_depth == 3 && m_inEntries) return fail("an entry must be an object");
        return beginSkip();
    }
    bool end_array() override
    {
        --m_depth;
        if (m_skip > 0) return --m_skip, true;
        if (m_depth == 1) m_inEntries = false;
        return true;
    }
    bool key(string_t& k) override
    {
        if (m_skip == 0) m_key = k;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override
    {
        if (error.empty()) error = "malformed JSON in object list";
        return false;
    }

private:
    enum class Kind { Null, Int, Uint, String, Other };

    bool fail(std::string why)
    {
        error = "invalid object list: " + std::move(why);
        return false;
    }
    // The value of an unknown field is an object or array: skip it whole.
    bool beginSkip()
    {
        m_skip = 1;
        return true;
    }

    bool scalar(Kind kind, std::string_view s, std::uint64_t u)
    {
        if (m_skip > 0) return true;
        if (m_depth == 0) return fail("not an object");
        if (m_depth == 1) {
            if (m_key == "continuation_token") {
                if (kind != Kind::String) return fail("\"continuation_token\" must be a string");
                m_out.continuationToken.assign(s);
                sawToken = true;
            } else if (m_key == "uuid") {
                if (kind == Kind::String) m_out.uuid.assign(s);
                else if (kind != Kind::Null) return fail("\"uuid\" must be a string");
            } else if (m_key == "flags") {
                if (kind == Kind::Uint && u <= 0xffffffffu) m_out.flags = static_cast<std::uint32_t>(u);
                else if (kind != Kind::Null) return fail("\"flags\" must be an unsigned 32-bit integer");
            } else if (m_key == "entries") {
                if (kind != Kind::Null) return fail("\"entries\" must be an array");
            }
            return true;
        }
        if (m_depth == 2 && m_inEntries) return fail("an entry must be an object");
        if (m_depth != 3 || !m_inEntries) return true;
        auto& e = m_out.entries.back();
        if (m_key == "name") {
            if (kind != Kind::String) return fail("an entry's \"name\" must be a string");
            e.name.assign(s);
            m_entryHasName = true;
        } else if (m_key == "size") {
            // AIStore writes a decimal string; older Tessera pages a number.
            std::int64_t v = 0;
            if (kind == Kind::String) {
                auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
                if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 0) {
                    return fail("an entry's \"size\" must be a decimal string");
                }
                e.size = v;
            } else if (kind == Kind::Uint && u <= static_cast<std::uint64_t>(INT64_MAX)) {
                e.size = static_cast<std::int64_t>(u);
            } else {
                // A negative number (nlohmann reads the others as unsigned)
                // is no size: a page written back would leave it out.
                return fail("an entry's \"size\" must be a decimal string");
            }
        } else if (m_key == "checksum" || m_key == "atime" || m_key == "version" || m_key == "error" ||
                   m_key == "location" || m_key == "custom-md") {
            if (kind != Kind::String) return fail("an entry's \"" + m_key + "\" must be a string");
            (m_key == "checksum"    ? e.checksum
             : m_key == "atime"     ? e.atime
             : m_key == "version"   ? e.version
             : m_key == "location"  ? e.location
             : m_key == "custom-md" ? e.custom
                                    : e.error)
                .assign(s);
        } else if (m_key == "copies") {
            if (kind != Kind::Uint || u > 32767) return fail("an entry's \"copies\" must be an integer 0..32767");
            e.copies = static_cast<int>(u);
        } else if (m_key == "flags") {
            if (kind != Kind::Uint || u > 0xffffffffu) return fail("an entry's \"flags\" must be an unsigned integer");
            e.flags = static_cast<std::uint32_t>(u);
        } else if (m_key == "stamp") {
            if (kind != Kind::Uint || u > static_cast<std::uint64_t>(INT64_MAX)) {
                return fail("an entry's \"stamp\" must be an integer 0..2^63-1");
            }
            e.stamp = static_cast<std::int64_t>(u);
        }
        return true;
    }

    ObjectList& m_out;
    std::size_t m_textSize = 0;
    int m_depth = 0;
    int m_skip = 0;  // > 0: inside an unknown field's object/array, this deep
    bool m_inEntries = false;
    bool m_entryHasName = false;
    std::string m_key;
};

}  // namespace

Result<ObjectList> parseObjectList(std::string_view json)
{
    ObjectList out;
    if (detail::scanObjectList(json, out)) return out;
    out = ObjectList{};
    ObjectListSax sax(out, json.size());
    const bool ok =
        nlohmann::json::sax_parse(json.begin(), json.end(), &sax, nlohmann::json::input_format_t::json, true);
    if (!ok || !sax.error.empty()) {
        return Error::badRequest(sax.error.empty() ? "malformed JSON in object list" : sax.error);
    }
    if (!sax.sawToken) return Error::badRequest("invalid object list: \"continuation_token\" is missing");
    return out;
}

std::string dumpObjectList(const ObjectList& list)
{
    // Keys in the order nlohmann's std::map keeps them (sorted), so the text
    // equals dumpJson(json(list)).
    std::string out;
    std::size_t guess = 96 + list.continuationToken.size() + list.uuid.size();
    for (const auto& e : list.entries)
        guess += e.name.size() + e.checksum.size() + e.atime.size() + e.location.size() + e.custom.size() + 48;
    out.reserve(guess);
    out += "{\"continuation_token\":";
    appendJsonString(out, list.continuationToken);
    out += ",\"entries\":[";
    bool first = true;
    for (const auto& e : list.entries) {
        out += first ? "{" : ",{";
        first = false;
        bool comma = false;
        const auto field = [&](const char* name) {
            if (comma) out.push_back(',');
            comma = true;
            out.push_back('"');
            out += name;
            out += "\":";
        };
        if (!e.atime.empty()) field("atime"), appendJsonString(out, e.atime);
        if (!e.checksum.empty()) field("checksum"), appendJsonString(out, e.checksum);
        if (e.copies != 0) field("copies"), appendJsonInt(out, e.copies);
        if (!e.custom.empty()) field("custom-md"), appendJsonString(out, e.custom);
        if (!e.error.empty()) field("error"), appendJsonString(out, e.error);
        if (e.flags != 0) field("flags"), appendJsonInt(out, e.flags);
        if (!e.location.empty()) field("location"), appendJsonString(out, e.location);
        field("name"), appendJsonString(out, e.name);
        if (e.size >= 0) field("size"), out.push_back('"'), appendJsonInt(out, e.size), out.push_back('"');
        if (e.stamp > 0) field("stamp"), appendJsonInt(out, e.stamp);
        if (!e.version.empty()) field("version"), appendJsonString(out, e.version);
        out.push_back('}');
    }
    out += "],\"flags\":";
    appendJsonInt(out, list.flags);
    out += ",\"uuid\":";
    appendJsonString(out, list.uuid);
    out.push_back('}');
    return out;
}

std::string customMdToLso(const std::map<std::string, std::string>& md)
{
    std::string out = "[";
    for (const auto& [k, v] : md) {
        if (out.size() > 1) out.push_back(' ');
        out += k;
        out.push_back(':');
        out += v;
    }
    out.push_back(']');
    return out;
}

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
