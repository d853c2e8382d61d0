// Typed control messages read with api::parseMessage (shared/api/wire.h):
// action messages and their values, ETL specs and ETL job arguments. Each
// accepted message, written with its to_json, reads back equal.

#include "fuzz_check.h"

#include "api/action_msg.h"
#include "api/etl_msg.h"

using namespace tessera;

namespace {

template <typename T>
void roundTrip(std::string_view text, const char* what)
{
    const auto v = api::parseMessage<T>(text, what);
    if (!v) {
        FUZZ_CHECK(v.kind() == api::ErrorKind::BadRequest, fuzz::errorText(v));
        return;
    }
    const auto written = api::dumpJson(nlohmann::json(*v));
    const auto again = api::parseMessage<T>(written, what);
    FUZZ_CHECK(again && *again == *v, written + " " + fuzz::errorText(again));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);

    if (const auto msg = api::parseActionMsg(text)) {
        const auto written = api::dumpJson(nlohmann::json(*msg));
        const auto again = api::parseActionMsg(written);
        FUZZ_CHECK(again && *again == *msg, written + " " + fuzz::errorText(again));
        // The value as each action reads it: refused or read, never thrown.
        (void)api::parseRemoveNode(msg->value);
        (void)api::parseNodeMaintenance(msg->value);
    }
    // A spec the node accepts (types and validation) is accepted again as
    // written.
    if (const auto spec = api::parseEtlSpec(text)) {
        const auto written = api::dumpJson(nlohmann::json(*spec));
        const auto again = api::parseEtlSpec(written);
        FUZZ_CHECK(again && *again == *spec, written + " " + fuzz::errorText(again));
    }
    roundTrip<api::ActionMsg>(text, "action");
    roundTrip<api::RemoveNode>(text, "remove node");
    roundTrip<api::NodeMaintenance>(text, "maintenance");
    roundTrip<api::ClusterActionReply>(text, "cluster action reply");
    roundTrip<api::EtlSpec>(text, "etl spec");
    roundTrip<api::EtlBucketMsg>(text, "etl bucket");
    roundTrip<api::EtlJobArgs>(text, "etl job");
    roundTrip<api::EtlMd>(text, "etl md");

    if (const auto ms = api::parseDurationMs(text)) {
        const auto written = api::formatDurationMs(*ms);
        const auto again = api::parseDurationMs(written);
        FUZZ_CHECK(again && *again == *ms, written);
    }
    return 0;
}
