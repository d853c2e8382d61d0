#include "core/feed_message.h"

#include "api/json_util.h"

#include <nlohmann/json.hpp>

namespace tessera::console {

namespace {

using nlohmann::json;

BucketSummary bucketFrom(const json& j)
{
    BucketSummary b;
    j.at("name").get_to(b.name);
    b.provider = j.value("provider", std::string("ais"));
    if (j.contains("objects")) {
        b.objects = j.at("objects").get<std::uint64_t>();
    }
    if (j.contains("bytes")) {
        b.bytes = j.at("bytes").get<std::uint64_t>();
    }
    return b;
}

std::vector<BucketSummary> bucketsFrom(const json& j)
{
    std::vector<BucketSummary> out;
    if (j.is_array()) {
        for (const auto& b : j) {
            out.push_back(bucketFrom(b));
        }
    }
    return out;
}

MetricsUpdate metricsFrom(const json& data, std::int64_t tsMs)
{
    MetricsUpdate m;
    m.tsMs = tsMs;
    m.intervalMs = data.value("interval_ms", 0);
    if (data.contains("nodes")) {
        data.at("nodes").get_to(m.nodes);
    }
    if (data.contains("cluster")) {
        const auto& c = data.at("cluster");
        m.cluster.nodes = c.value("nodes", 0);
        m.cluster.stale = c.value("stale", 0);
        if (c.contains("ops")) {
            for (std::size_t i = 0; i < api::kOpKinds; ++i) {
                const std::string name(api::kOpNames[i]);
                if (c.at("ops").contains(name)) {
                    c.at("ops").at(name).get_to(m.cluster.ops[i]);
                }
            }
        }
    }
    return m;
}

FeedSnapshot snapshotFrom(const json& data, std::int64_t tsMs)
{
    FeedSnapshot s;
    data.at("smap").get_to(s.smap);
    s.bmdVersion = data.value("bmd_version", std::int64_t{0});
    if (data.contains("buckets")) {
        s.buckets = bucketsFrom(data.at("buckets"));
    }
    if (data.contains("jobs")) {
        data.at("jobs").get_to(s.jobs);
    }
    if (data.contains("metrics") && data.at("metrics").is_object() && !data.at("metrics").empty()) {
        s.metrics = metricsFrom(data.at("metrics"), tsMs);
        s.metrics->fromSnapshot = true;
    }
    if (data.contains("events")) {
        data.at("events").get_to(s.events);
    }
    return s;
}

FeedPayload payloadFrom(const std::string& type, const json& data, std::int64_t tsMs)
{
    if (type == "snapshot") {
        return snapshotFrom(data, tsMs);
    }
    if (type == "metrics") {
        return metricsFrom(data, tsMs);
    }
    if (type == "smap") {
        return data.get<api::Smap>();
    }
    if (type == "bmd") {
        return BmdUpdate{data.value("version", std::int64_t{0}), bucketsFrom(data.value("buckets", json::array()))};
    }
    if (type == "event") {
        return data.get<api::ClusterEvent>();
    }
    if (type == "job") {
        return data.get<api::JobStatus>();
    }
    if (type == "subscribed") {
        return Subscribed{data.value("topics", std::vector<std::string>{}), data.value("interval_ms", 0)};
    }
    if (type == "error") {
        return FeedError{data.value("message", std::string())};
    }
    return UnknownFeedMessage{};
}

} // namespace

// GCC 12 at -O2 reports a false -Wmaybe-uninitialized when a std::variant of
// aggregates is moved into Result (the same family as GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
api::Result<FeedMessage> decodeFeedMessage(std::string_view text)
{
    const auto j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return api::Error::badRequest("a feed message is a JSON object");
    }
    try {
        auto type = j.at("type").get<std::string>();
        const auto seq = j.at("seq").get<std::int64_t>();
        const auto tsMs = j.value("ts", std::int64_t{0});
        auto payload = payloadFrom(type, j.contains("data") ? j.at("data") : json::object(), tsMs);
        return FeedMessage{std::move(type), seq, tsMs, std::move(payload)};
    } catch (const json::exception& e) {
        return api::Error::badRequest(std::string("malformed feed message: ") + e.what());
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

api::Result<std::vector<api::JobStatus>> decodeJobList(std::string_view text)
{
    return api::parseJsonAs<std::vector<api::JobStatus>>(text, "job list");
}

} // namespace tessera::console
