#include "feed.h"

#include "json_util.h"
#include "json_whole_numbers.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

namespace tessera::api {

namespace {

using nlohmann::json;

// The types payloadFrom reads.
constexpr std::string_view kFeedTypes[] = {feed_type::kSnapshot, feed_type::kMetrics,    feed_type::kSmap,
                                           feed_type::kBmd,      feed_type::kBuckets,    feed_type::kEvent,
                                           feed_type::kJob,      feed_type::kSubscribed, feed_type::kError};

BucketSummary bucketFrom(const json& j)
{
    BucketSummary b;
    j.at("name").get_to(b.name);
    b.provider = j.value("provider", std::string("ais"));
    if (j.contains("props")) {
        b.props = j.at("props").get<BucketProps>();
    }
    b.usageScannedNs = j.value("usage_scanned_ns", std::int64_t{0});
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
            for (std::size_t i = 0; i < kOpKinds; ++i) {
                const std::string name(kOpNames[i]);
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
        return data.get<Smap>();
    }
    if (type == "bmd") {
        return BmdUpdate{data.value("version", std::int64_t{0}), bucketsFrom(data.value("buckets", json::array()))};
    }
    if (type == "buckets") {
        return BucketsUpdate{bucketsFrom(data.at("buckets"))};
    }
    if (type == "event") {
        return data.get<ClusterEvent>();
    }
    if (type == "job") {
        return data.get<JobStatus>();
    }
    if (type == "subscribed") {
        return Subscribed{data.value("topics", std::vector<std::string>{}), data.value("interval_ms", 0)};
    }
    if (type == "error") {
        return FeedError{data.value("message", std::string())};
    }
    return UnknownFeedMessage{};
}

}  // namespace

void to_json(json& j, const BucketSummary& v)
{
    j = json{{"name", v.name}, {"provider", v.provider}};
    if (v.props) j["props"] = *v.props;
    if (v.objects) j["objects"] = *v.objects;
    if (v.bytes) j["bytes"] = *v.bytes;
    if (v.objects || v.bytes) j["usage_scanned_ns"] = v.usageScannedNs;
}

void to_json(json& j, const ClusterTotals& v)
{
    json ops = json::object();
    for (std::size_t i = 0; i < kOpKinds; ++i) ops[std::string(kOpNames[i])] = v.ops[i];
    j = json{{"ops", std::move(ops)}, {"nodes", v.nodes}, {"stale", v.stale}};
}

void to_json(json& j, const MetricsUpdate& v)
{
    j = json{{"interval_ms", v.intervalMs}, {"nodes", v.nodes}, {"cluster", v.cluster}};
}

void to_json(json& j, const FeedSnapshot& v)
{
    j = json{{"smap", v.smap},
             {"bmd_version", v.bmdVersion},
             {"buckets", v.buckets},
             {"jobs", v.jobs},
             {"metrics", v.metrics ? json(*v.metrics) : json::object()},
             {"events", v.events}};
}

void to_json(json& j, const BmdUpdate& v) { j = json{{"version", v.version}, {"buckets", v.buckets}}; }

void to_json(json& j, const BucketsUpdate& v) { j = json{{"buckets", v.buckets}}; }

void to_json(json& j, const Subscribed& v) { j = json{{"topics", v.topics}, {"interval_ms", v.intervalMs}}; }

void to_json(json& j, const FeedError& v) { j = json{{"message", v.message}}; }

void to_json(json& j, const FeedRequest& v)
{
    j = json::object();
    if (v.subscribe) j["subscribe"] = *v.subscribe;
    if (v.intervalMs) j["interval_ms"] = *v.intervalMs;
}

void readFields(FieldReader& r, FeedRequest& v)
{
    r.optional("subscribe", v.subscribe).optional("interval_ms", v.intervalMs);
}

void appendFeedEnvelope(std::string& out, std::string_view type, std::int64_t seq, std::int64_t tsMs,
                        std::string_view dataJson)
{
    // The proxy's types are feed_type's, but the type is escaped all the
    // same: whatever type a client reads it can write back (a quote in one
    // made text no reader accepts; found by fuzz_feed).
    out.append("{\"type\":").append(dumpJson(json(std::string(type)))).append(",\"seq\":").append(std::to_string(seq));
    out.append(",\"ts\":").append(std::to_string(tsMs)).append(",\"data\":");
    out.append(dataJson.empty() ? std::string_view("null") : dataJson).append("}");
}

ClusterTotals clusterTotals(const std::vector<NodeMetrics>& nodes)
{
    // GET/PUT/HEAD/DELETE are served by targets; listings are answered (and
    // counted once) by the proxy, which asks every target for a page.
    std::vector<NodeMetrics> targets;
    const NodeMetrics* proxy = nullptr;
    ClusterTotals out;
    for (const auto& n : nodes) {
        ++out.nodes;
        if (n.stale) {
            ++out.stale;
            continue;
        }
        if (n.role == kRoleTarget) targets.push_back(n);
        else if (proxy == nullptr) proxy = &n;
    }
    out.ops = sumRates(targets);
    const auto lst = static_cast<std::size_t>(OpKind::List);
    out.ops[lst] = proxy != nullptr ? proxy->ops[lst] : OpRates{};
    return out;
}

// GCC 12 at -O2 reports a false -Wmaybe-uninitialized when a std::variant of
// aggregates is moved into Result (the same family as GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
Result<FeedMessage> decodeFeedMessage(std::string_view text)
{
    const auto j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return Error::badRequest("a feed message is a JSON object");
    }
    try {
        auto type = j.at("type").get<std::string>();
        static const json kNoData = json::object();
        const auto& data = j.contains("data") ? j.at("data") : kNoData;
        // The feed's numbers are whole but for the nodes' rates and
        // percentages: nlohmann casts a float read into an integer field with
        // undefined behaviour when it does not fit ("interval_ms":1e300,
        // found by fuzz_feed). The data of a type this build does not read
        // is not checked: a newer proxy's message is skipped, not refused
        // (the console takes a refused message for a lost one).
        const bool known = std::find(std::begin(kFeedTypes), std::end(kFeedTypes), type) != std::end(kFeedTypes);
        if (j.at("seq").is_number_float() || (j.contains("ts") && j.at("ts").is_number_float()) ||
            (known && hasFloatOutside(data, {"ops_s", "bytes_s", "errors_s", "aborts_s", "interval_s", "cpu_percent",
                                             "used_percent"}))) {
            return Error::badRequest("malformed feed message: a number that is not a whole number");
        }
        const auto seq = j.at("seq").get<std::int64_t>();
        const auto tsMs = j.value("ts", std::int64_t{0});
        auto payload = payloadFrom(type, data, tsMs);
        return FeedMessage{std::move(type), seq, tsMs, std::move(payload)};
    } catch (const std::exception& e) {  // nlohmann's, and a job's unknown state (found by fuzz_feed)
        return Error::badRequest(std::string("malformed feed message: ") + e.what());
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

Result<std::vector<JobStatus>> decodeJobList(std::string_view text)
{
    try {
        return parseWholeNumberJsonAs<std::vector<JobStatus>>(text, "job list");
    } catch (const std::exception& e) {  // a job's unknown state (found by fuzz_job_status)
        return Error::badRequest(std::string("invalid job list: ") + e.what());
    }
}

}  // namespace tessera::api
