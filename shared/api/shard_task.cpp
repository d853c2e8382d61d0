#include "shard_task.h"

#include "json_scan.h"
#include "json_shape.h"
#include "json_util.h"

#include <nlohmann/json.hpp>

namespace tessera::api {

void to_json(nlohmann::json& j, const ShardTask& v)
{
    auto shards = nlohmann::json::array();
    for (const auto& s : v.shards) {
        auto members = nlohmann::json::array();
        for (const auto& m : s.members) {
            auto e = nlohmann::json::array({m.object, m.size});
            if (!m.memberName.empty()) e.push_back(m.memberName);
            members.push_back(std::move(e));
        }
        shards.push_back({{"name", s.name}, {"members", std::move(members)}});
    }
    j = nlohmann::json{{"src_bck", v.srcBck},
                       {"dst_bck", v.dstBck},
                       {"mime", v.mime},
                       {"append", v.append},
                       {"continue_on_err", v.continueOnErr},
                       {"mtime", v.mtime},
                       {"shards", std::move(shards)}};
}

void from_json(const nlohmann::json& j, ShardTask& v)
{
    v.srcBck = j.at("src_bck").get<std::string>();
    v.dstBck = j.at("dst_bck").get<std::string>();
    v.mime = j.value("mime", std::string());
    v.append = j.value("append", false);
    v.continueOnErr = j.value("continue_on_err", false);
    v.mtime = j.value("mtime", std::int64_t{0});
    v.shards.clear();
    for (const auto& s : j.at("shards")) {
        ShardBuild b;
        b.name = s.at("name").get<std::string>();
        for (const auto& m : s.at("members")) {
            ShardMemberSource src;
            src.object = m.at(0).get<std::string>();
            src.size = m.at(1).get<std::int64_t>();
            if (m.size() > 2) src.memberName = m.at(2).get<std::string>();
            b.members.push_back(std::move(src));
        }
        v.shards.push_back(std::move(b));
    }
}

Result<ShardTask> parseShardTask(const nlohmann::json& j)
{
    try {
        return j.get<ShardTask>();
    } catch (const nlohmann::json::exception& e) {
        return Error::badRequest(std::string("invalid shard task: ") + e.what());
    }
}

std::string dumpShardTask(const ShardTask& v)
{
    std::size_t guess = 256 + v.srcBck.size() + v.dstBck.size() + v.mime.size();
    for (const auto& s : v.shards) {
        guess += 32 + s.name.size();
        for (const auto& m : s.members) guess += 28 + m.object.size() + m.memberName.size();
    }
    std::string out;
    out.reserve(guess);
    // Keys in the order a document dumps them (sorted).
    out += v.append ? "{\"append\":true" : "{\"append\":false";
    out += v.continueOnErr ? ",\"continue_on_err\":true" : ",\"continue_on_err\":false";
    out += ",\"dst_bck\":";
    appendJsonString(out, v.dstBck);
    out += ",\"mime\":";
    appendJsonString(out, v.mime);
    out += ",\"mtime\":";
    appendJsonInt(out, v.mtime);
    out += ",\"shards\":[";
    for (std::size_t i = 0; i < v.shards.size(); ++i) {
        const auto& s = v.shards[i];
        out += i == 0 ? "{\"members\":[" : ",{\"members\":[";
        for (std::size_t k = 0; k < s.members.size(); ++k) {
            const auto& m = s.members[k];
            out += k == 0 ? "[" : ",[";
            appendJsonString(out, m.object);
            out.push_back(',');
            appendJsonInt(out, m.size);
            if (!m.memberName.empty()) {
                out.push_back(',');
                appendJsonString(out, m.memberName);
            }
            out.push_back(']');
        }
        out += "],\"name\":";
        appendJsonString(out, s.name);
        out.push_back('}');
    }
    out += "],\"src_bck\":";
    appendJsonString(out, v.srcBck);
    out.push_back('}');
    return out;
}

namespace {

bool scanMember(detail::JsonScanner& s, ShardMemberSource& m)
{
    std::string_view text;
    if (!s.eat('[') || !s.str(text)) return false;
    m.object.assign(text);
    if (!s.eat(',') || !s.int64(m.size)) return false;
    if (s.eat(',')) {
        if (!s.str(text)) return false;
        m.memberName.assign(text);
    }
    return s.eat(']');
}

bool scanShard(detail::JsonScanner& s, ShardBuild& b, std::size_t& budget)
{
    if (!s.eat('{') || s.peek('}')) return false;
    bool named = false;
    bool listed = false;
    do {
        std::string_view key;
        if (!s.str(key) || !s.eat(':')) return false;
        if (key == "name") {
            std::string_view text;
            if (!s.str(text)) return false;
            b.name.assign(text);
            named = true;
        } else if (key == "members") {
            b.members.clear();
            // At most 4 values a member (the array and its items); beyond the
            // budget the full check names the limit.
            if (!s.array([&] { return budget >= 4 && (budget -= 4, scanMember(s, b.members.emplace_back())); })) {
                return false;
            }
            listed = true;
        } else {
            return false;
        }
    } while (s.eat(','));
    return named && listed && s.eat('}');
}

// True when `text` was scanned whole into `v`; false to fall back.
bool scanShardTask(std::string_view text, ShardTask& v, std::size_t budget)
{
    detail::JsonScanner s(text);
    if (!s.eat('{') || s.peek('}')) return false;
    bool src = false, dst = false, shards = false;
    do {
        std::string_view key, val;
        if (!s.str(key) || !s.eat(':')) return false;
        if (key == "src_bck" || key == "dst_bck" || key == "mime") {
            if (!s.str(val)) return false;
            (key == "src_bck" ? v.srcBck : key == "dst_bck" ? v.dstBck : v.mime).assign(val);
            src = src || key == "src_bck";
            dst = dst || key == "dst_bck";
        } else if (key == "append" || key == "continue_on_err") {
            if (!s.boolean(key == "append" ? v.append : v.continueOnErr)) return false;
        } else if (key == "mtime") {
            if (!s.int64(v.mtime)) return false;
        } else if (key == "shards") {
            v.shards.clear();
            // 3 values a shard: the shard, its name and its members.
            if (!s.array([&] { return budget >= 3 && (budget -= 3, scanShard(s, v.shards.emplace_back(), budget)); })) {
                return false;
            }
            shards = true;
        } else {
            return false;
        }
    } while (s.eat(','));
    return src && dst && shards && s.eat('}') && s.atEnd();
}

}  // namespace

Result<ShardTask> parseShardTaskText(std::string_view text, std::size_t maxValues)
{
    ShardTask fast;
    if (scanShardTask(text, fast, maxValues)) return fast;
    if (auto st = checkJsonShape(text, {JsonShape::Top::Object, 8, maxValues}, "shard task"); !st) return st.error();
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return Error::badRequest("malformed JSON in shard task");
    return parseShardTask(j);
}

}  // namespace tessera::api
