// The live feed (shared/api/feed.h): every message the console and the CLI
// decode with decodeFeedMessage (the envelope and each type's payload:
// snapshot, metrics with the nodes' rates, smap, bmd, buckets, event, job,
// subscribed, error), and the request a client sends to change its session.
// An accepted message, its payload written with to_json and wrapped by
// appendFeedEnvelope as the proxy does, decodes to the same message.

#include "fuzz_check.h"

#include "api/feed.h"

#include <type_traits>
#include <variant>

using namespace tessera;

namespace {

// The `data` the proxy would send for a payload. A type this build does not
// know carries no payload: its data goes out again as it came.
nlohmann::json dataOf(const api::FeedPayload& payload, const nlohmann::json& original)
{
    return std::visit(
        [&](const auto& v) -> nlohmann::json {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, api::UnknownFeedMessage>) {
                return original;
            } else {
                return nlohmann::json(v);
            }
        },
        payload);
}

// What the decoder derives from the envelope rather than from `data`.
void checkDerived(const api::FeedMessage& m, std::string_view text)
{
    const std::string doc(text);
    if (const auto* s = std::get_if<api::FeedSnapshot>(&m.payload); s && s->metrics) {
        FUZZ_CHECK(s->metrics->fromSnapshot && s->metrics->tsMs == m.tsMs, doc);
    }
    if (const auto* u = std::get_if<api::MetricsUpdate>(&m.payload)) {
        FUZZ_CHECK(!u->fromSnapshot && u->tsMs == m.tsMs, doc);
        const auto totals = api::clusterTotals(u->nodes);
        FUZZ_CHECK(static_cast<std::size_t>(totals.nodes) == u->nodes.size() && totals.stale <= totals.nodes, doc);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);

    if (const auto msg = api::decodeFeedMessage(text)) {
        checkDerived(*msg, text);
        const auto parsed = nlohmann::json::parse(text);
        const auto first = dataOf(msg->payload, parsed.contains("data") ? parsed.at("data") : nlohmann::json::object());
        std::string envelope;
        api::appendFeedEnvelope(envelope, msg->type, msg->seq, msg->tsMs, api::dumpJson(first));
        const auto again = api::decodeFeedMessage(envelope);
        FUZZ_CHECK(again, "the written envelope does not decode: " + fuzz::errorText(again) + " in " + envelope);
        FUZZ_CHECK(again->type == msg->type && again->seq == msg->seq && again->tsMs == msg->tsMs, envelope);
        FUZZ_CHECK(again->payload.index() == msg->payload.index(), envelope);
        const auto second = dataOf(again->payload, first);
        FUZZ_CHECK(first == second, envelope + " read back as " + api::dumpJson(second));
    } else {
        FUZZ_CHECK(msg.kind() == api::ErrorKind::BadRequest, fuzz::errorText(msg));
    }

    // A client's subscription change, as the proxy reads it.
    if (const auto req = api::parseMessage<api::FeedRequest>(text, "feed request")) {
        const auto written = api::dumpJson(nlohmann::json(*req));
        const auto again = api::parseMessage<api::FeedRequest>(written, "feed request");
        FUZZ_CHECK(again && *again == *req, written + " " + fuzz::errorText(again));
    } else {
        FUZZ_CHECK(req.kind() == api::ErrorKind::BadRequest, fuzz::errorText(req));
    }
    return 0;
}
