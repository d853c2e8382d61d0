// Job status (shared/api/job.h) as targets report their part to the proxy
// (TargetJobStatus) and as the proxy answers GET /v1/jobs/{id} and the
// feed's `job` messages and GET /v1/jobs (JobStatus). Each accepted status reads back equal
// from what its to_json writes; a refusal is a BadRequest, never an
// exception.

#include "fuzz_check.h"

#include "api/feed.h"
#include "api/job.h"

using namespace tessera;

namespace {

// A state's wire name reads back as that state, and only the four names do.
void checkState(api::JobState s)
{
    const auto name = api::jobStateName(s);
    const auto again = api::jobStateFromName(name);
    FUZZ_CHECK(again && *again == s, std::string(name));
}

void checkProgress(const api::JobProgress& p, const std::string& doc)
{
    // Counters are absent on the wire when empty (job.h): a reader that
    // finds none has the same progress as one that finds {}.
    const nlohmann::json j = p;
    FUZZ_CHECK(j.contains("counters") == !p.counters.empty(), doc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);

    if (const auto t = api::parseTargetJobStatus(text)) {
        FUZZ_JSON_ROUND_TRIP(*t, api::parseTargetJobStatus);
        checkState(t->state);
        checkProgress(t->progress, api::dumpJson(nlohmann::json(*t)));
    } else {
        FUZZ_CHECK(t.kind() == api::ErrorKind::BadRequest, fuzz::errorText(t));
    }

    if (const auto s = api::parseJobStatus(text)) {
        FUZZ_JSON_ROUND_TRIP(*s, api::parseJobStatus);
        const auto doc = api::dumpJson(nlohmann::json(*s));
        checkState(s->state);
        checkProgress(s->progress, doc);
        // Every target's part is itself a status a target could have sent.
        for (const auto& [id, part] : s->targets) {
            FUZZ_JSON_ROUND_TRIP(part, api::parseTargetJobStatus);
            checkState(part.state);
            checkProgress(part.progress, doc);
        }
    } else {
        FUZZ_CHECK(s.kind() == api::ErrorKind::BadRequest, fuzz::errorText(s));
    }

    // GET /v1/jobs, as the CLI and the console read it.
    if (const auto list = api::decodeJobList(text)) {
        for (const auto& s : *list) FUZZ_JSON_ROUND_TRIP(s, api::parseJobStatus);
    } else {
        FUZZ_CHECK(list.kind() == api::ErrorKind::BadRequest, fuzz::errorText(list));
    }
    return 0;
}
