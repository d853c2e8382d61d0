#include "shard_task.h"

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

}  // namespace tessera::api
