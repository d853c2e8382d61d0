// List-objects requests (query and JSON body) and listing pages (the
// hand-written codec of shared/api/object_list.h, which must agree with
// nlohmann's to_json byte for byte).

#include "fuzz_check.h"

#include "api/object_list.h"
#include "api/object_list_raw.h"

using namespace tessera;

namespace {

bool sameRequest(const api::ListRequest& a, const api::ListRequest& b)
{
    return a.prefix == b.prefix && a.pageSize == b.pageSize && a.continuationToken == b.continuationToken &&
           a.props == b.props && a.flags == b.flags && a.standInFor == b.standInFor;
}

void checkRequest(const api::ListRequest& req)
{
    FUZZ_CHECK(req.pageSize <= api::kMaxPageSize, std::to_string(req.pageSize));
    FUZZ_CHECK(req.standInFor.size() <= api::kMaxStandInFor, std::to_string(req.standInFor.size()));
    const auto query = api::listRequestToQuery(req);
    const auto again = api::listRequestFromQuery(query);
    FUZZ_CHECK(again && sameRequest(*again, req), api::buildQuery(query) + " " + fuzz::errorText(again));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);

    if (const auto req = api::listRequestFromJson(text)) checkRequest(*req);
    if (const auto query = api::parseQuery(text)) {
        if (const auto req = api::listRequestFromQuery(*query)) checkRequest(*req);
    }
    if (const auto props = api::parseListProps(text)) {
        const auto again = api::parseListProps(api::listPropsToString(*props));
        FUZZ_CHECK(again && *again == *props, api::listPropsToString(*props));
    }

    if (const auto page = api::parseObjectList(text)) {
        const auto written = api::dumpObjectList(*page);
        // The fast writer writes what nlohmann writes.
        FUZZ_CHECK(written == api::dumpJson(nlohmann::json(*page)), written);
        const auto again = api::parseObjectList(written);
        FUZZ_CHECK(again && again->entries == page->entries && again->uuid == page->uuid &&
                       again->continuationToken == page->continuationToken && again->flags == page->flags,
                   written);
    }
    // The proxy's pass-through scan takes only the writer's exact form: a
    // page it takes is read by the parser and written back byte for byte,
    // with the same names and flags it found.
    api::RawObjectList raw;
    raw.body = std::string(text);
    if (api::scanRawObjectList(raw)) {
        const auto page = api::parseObjectList(text);
        FUZZ_CHECK(page.ok(), "taken raw, refused by the parser: " + fuzz::errorText(page));
        FUZZ_CHECK(api::dumpObjectList(*page) == text, api::dumpObjectList(*page));
        FUZZ_CHECK(page->entries.size() == raw.entries.size(), std::to_string(raw.entries.size()));
        for (std::size_t i = 0; i < raw.entries.size(); ++i) {
            FUZZ_CHECK(
                raw.name(raw.entries[i]) == page->entries[i].name && raw.entries[i].flags == page->entries[i].flags,
                page->entries[i].name);
        }
        FUZZ_CHECK(raw.continuationToken() == page->continuationToken, page->continuationToken);
    }
    return 0;
}
