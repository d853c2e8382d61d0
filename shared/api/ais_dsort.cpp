#include "ais_dsort.h"

#include "json_util.h"

#include <algorithm>

namespace tessera::api {

namespace {

void phaseToJson(nlohmann::json& j, const AisDsortPhase& p)
{
    j["started_time"] = p.started;
    j["end_time"] = p.ended;
    j["elapsed"] = p.elapsedNs;
    j["running"] = p.running;
    j["finished"] = p.finished;
}

void readPhase(FieldReader& r, AisDsortPhase& p)
{
    r.required("started_time", p.started)
        .required("end_time", p.ended)
        .required("elapsed", p.elapsedNs)
        .required("running", p.running)
        .required("finished", p.finished);
}

void putStats(nlohmann::json& j, const char* key, const std::optional<AisTimeStats>& s)
{
    if (s) j[key] = *s;
}

std::int64_t counter(const nlohmann::json& c, const char* key)
{
    auto it = c.find(key);
    if (it == c.end() || !it->is_number_integer()) return 0;
    return it->get<std::int64_t>();
}

bool has(const nlohmann::json& c, const char* key)
{
    auto it = c.find(key);
    return it != c.end() && it->is_number_integer();
}

AisBck bck(const std::string& name) { return AisBck{name, "ais", "", ""}; }

// Where the target's part is: 0 extract, 1 sort, 2 create, 3 past create.
int phaseIndex(const TargetJobStatus& t)
{
    if (t.phase == "sort") return 1;
    if (t.phase == "create") return 2;
    if (t.phase == "done") return 3;  // waiting for its peers
    return 0;
}

}  // namespace

void to_json(nlohmann::json& j, const AisBck& v)
{
    j = {{"name", v.name}, {"provider", v.provider}, {"namespace", {{"uuid", v.nsUuid}, {"name", v.nsName}}}};
}

namespace {
struct AisNs {
    std::string uuid, name;
};
void readFields(FieldReader& r, AisNs& v) { r.required("uuid", v.uuid).required("name", v.name); }
}  // namespace

void readFields(FieldReader& r, AisBck& v)
{
    AisNs ns;
    r.required("name", v.name).required("provider", v.provider).required("namespace", ns);
    v.nsUuid = ns.uuid;
    v.nsName = ns.name;
}

void to_json(nlohmann::json& j, const AisTimeStats& v)
{
    j = {{"total_ms", v.totalMs}, {"count", v.count}, {"min_ms", v.minMs}, {"max_ms", v.maxMs}, {"avg_ms", v.avgMs}};
}

void readFields(FieldReader& r, AisTimeStats& v)
{
    r.required("total_ms", v.totalMs)
        .required("count", v.count)
        .required("min_ms", v.minMs)
        .required("max_ms", v.maxMs)
        .required("avg_ms", v.avgMs);
}

void to_json(nlohmann::json& j, const AisLocalExtraction& v)
{
    j = nlohmann::json::object();
    phaseToJson(j, v.phase);
    j["total_count"] = v.totalCount;
    j["extracted_count"] = v.extractedCount;
    j["extracted_size"] = v.extractedSize;
    j["extracted_record_count"] = v.extractedRecordCount;
    j["extracted_to_disk_count"] = v.extractedToDiskCount;
    j["extracted_to_disk_size"] = v.extractedToDiskSize;
}

void readFields(FieldReader& r, AisLocalExtraction& v)
{
    readPhase(r, v.phase);
    r.required("total_count", v.totalCount)
        .required("extracted_count", v.extractedCount)
        .required("extracted_size", v.extractedSize)
        .required("extracted_record_count", v.extractedRecordCount)
        .required("extracted_to_disk_count", v.extractedToDiskCount)
        .required("extracted_to_disk_size", v.extractedToDiskSize);
}

void to_json(nlohmann::json& j, const AisMetaSorting& v)
{
    j = nlohmann::json::object();
    phaseToJson(j, v.phase);
    putStats(j, "sent_stats", v.sentStats);
    putStats(j, "recv_stats", v.recvStats);
}

void readFields(FieldReader& r, AisMetaSorting& v)
{
    readPhase(r, v.phase);
    r.optional("sent_stats", v.sentStats).optional("recv_stats", v.recvStats);
}

void to_json(nlohmann::json& j, const AisShardCreation& v)
{
    j = nlohmann::json::object();
    phaseToJson(j, v.phase);
    j["to_create"] = v.toCreate;
    j["created_count"] = v.createdCount;
    j["moved_shard_count"] = v.movedShardCount;
    putStats(j, "req_stats", v.reqStats);
    putStats(j, "resp_stats", v.respStats);
}

void readFields(FieldReader& r, AisShardCreation& v)
{
    readPhase(r, v.phase);
    r.required("to_create", v.toCreate)
        .required("created_count", v.createdCount)
        .required("moved_shard_count", v.movedShardCount)
        .optional("req_stats", v.reqStats)
        .optional("resp_stats", v.respStats);
}

void to_json(nlohmann::json& j, const AisDsortMetrics& v)
{
    j = nlohmann::json::object();
    if (v.extraction) j["local_extraction"] = *v.extraction;
    if (v.sorting) j["meta_sorting"] = *v.sorting;
    if (v.creation) j["shard_creation"] = *v.creation;
    if (!v.description.empty()) j["description"] = v.description;
    if (!v.warnings.empty()) j["warnings"] = v.warnings;
    if (!v.errors.empty()) j["errors"] = v.errors;
    j["aborted"] = v.aborted;
    j["archived"] = v.archived;
}

void readFields(FieldReader& r, AisDsortMetrics& v)
{
    r.optional("local_extraction", v.extraction)
        .optional("meta_sorting", v.sorting)
        .optional("shard_creation", v.creation)
        .optional("description", v.description)
        .optional("warnings", v.warnings)
        .optional("errors", v.errors)
        .required("aborted", v.aborted)
        .required("archived", v.archived);
}

void to_json(nlohmann::json& j, const AisDsortJobInfo& v)
{
    j = {{"id", v.id},
         {"src-bck", v.srcBck},
         {"dst-bck", v.dstBck},
         {"started_time", v.started},
         {"finish_time", v.finished}};
    if (v.extractedDurationNs != 0) j["started_meta_sorting"] = v.extractedDurationNs;
    if (v.sortingDurationNs != 0) j["started_shard_creation"] = v.sortingDurationNs;
    if (v.creationDurationNs != 0) j["finished_shard_creation"] = v.creationDurationNs;
    j["loc-objs"] = v.objs;
    j["loc-bytes"] = v.bytes;
    j["Metrics"] = v.metrics ? nlohmann::json(*v.metrics) : nlohmann::json();
    j["aborted"] = v.aborted;
    j["archived"] = v.archived;
}

void readFields(FieldReader& r, AisDsortJobInfo& v)
{
    r.required("id", v.id)
        .required("src-bck", v.srcBck)
        .required("dst-bck", v.dstBck)
        .required("started_time", v.started)
        .required("finish_time", v.finished)
        .optional("started_meta_sorting", v.extractedDurationNs)
        .optional("started_shard_creation", v.sortingDurationNs)
        .optional("finished_shard_creation", v.creationDurationNs)
        .required("loc-objs", v.objs)
        .required("loc-bytes", v.bytes)
        .optional("Metrics", v.metrics)
        .required("aborted", v.aborted)
        .required("archived", v.archived);
}

AisDsortJobInfo aisDsortJobInfo(const DsortTargetPart& p)
{
    const auto& t = p.target;
    const auto& c = p.counters;
    constexpr std::int64_t kMs = 1'000'000;
    const bool partRunning = t.state == JobState::Running;
    const int current = phaseIndex(t);

    // Each phase: where it starts, whether it is done (its duration known).
    AisDsortPhase phases[3];
    const char* durations[3] = {"extract.ms", "sort.ms", "create.ms"};
    std::int64_t at = t.startNs;
    for (int i = 0; i < 3; ++i) {
        auto& ph = phases[i];
        if (has(c, durations[i])) {
            ph.started = {at};
            ph.elapsedNs = counter(c, durations[i]) * kMs;
            ph.ended = {at + ph.elapsedNs};
            ph.finished = true;
            at = ph.ended.unixNs;
        } else if (t.state == JobState::Finished) {
            // Done, its counters gone (the target restarted since): the
            // phases are over, their split unknown.
            ph.started = {at};
            ph.ended = {i == 2 ? std::max(t.endNs, at) : at};
            ph.elapsedNs = ph.ended.unixNs - at;
            ph.finished = true;
            at = ph.ended.unixNs;
        } else if (i == current && t.startNs != 0) {
            ph.started = {at};
            if (partRunning) {
                ph.running = true;
                ph.elapsedNs = std::max<std::int64_t>(p.nowNs - at, 0);
            } else {
                // Stopped in this phase (aborted, failed): it ended with the part.
                ph.ended = {t.endNs};
                ph.elapsedNs = std::max<std::int64_t>(t.endNs - at, 0);
            }
            break;
        } else {
            break;
        }
    }

    AisLocalExtraction ex;
    ex.phase = phases[0];
    const auto shards = has(c, "extract.shards")
                            ? counter(c, "extract.shards")
                            : (current == 0 ? std::max<std::int64_t>(t.progress.objectsTotal, 0) : 0);
    ex.totalCount = {shards};
    ex.extractedCount = {ex.phase.finished ? shards - counter(c, "extract.missing_shards")
                                           : (current == 0 ? static_cast<std::int64_t>(t.progress.objectsDone) : 0)};
    ex.extractedSize = {has(c, "extract.bytes") ? counter(c, "extract.bytes")
                                                : (current == 0 ? static_cast<std::int64_t>(t.progress.bytesDone) : 0)};
    ex.extractedRecordCount = {counter(c, "extract.records")};
    // Tessera spills records (not whole shards) when memory runs short.
    ex.extractedToDiskCount = {counter(c, "spill.records")};
    ex.extractedToDiskSize = {counter(c, "spill.bytes")};

    AisMetaSorting so;
    so.phase = phases[1];

    AisShardCreation cr;
    cr.phase = phases[2];
    const auto toCreate = has(c, "create.shards")
                              ? counter(c, "create.shards")
                              : (current == 2 ? std::max<std::int64_t>(t.progress.objectsTotal, 0) : 0);
    cr.toCreate = {toCreate};
    cr.createdCount = {cr.phase.finished ? toCreate
                                         : (current == 2 ? static_cast<std::int64_t>(t.progress.objectsDone) : 0)};
    cr.movedShardCount = {0};

    AisDsortMetrics m;
    m.extraction = ex;
    m.sorting = so;
    m.creation = cr;
    m.description = p.description;
    if (const auto missing = counter(c, "extract.missing_shards"); missing > 0) {
        m.warnings.push_back(std::to_string(missing) + " input shard(s) missing");
    }
    if (const auto dups = counter(c, "sort.duplicates"); dups > 0) {
        m.warnings.push_back(std::to_string(dups) + " duplicated record(s)");
    }
    if (!t.error.empty()) m.errors.push_back(t.error);
    if (!p.jobError.empty() && p.jobError != t.error) m.errors.push_back(p.jobError);
    const auto stopped = [](JobState s) { return s == JobState::Aborted || s == JobState::Failed; };
    m.aborted = stopped(t.state) || stopped(p.jobState);
    m.archived = isFinal(p.jobState);

    AisDsortJobInfo j;
    j.id = p.jobId;
    j.srcBck = bck(p.inputBck);
    j.dstBck = bck(p.outputBck.empty() ? p.inputBck : p.outputBck);
    j.started = ex.phase.started;
    j.finished = cr.phase.ended;
    j.extractedDurationNs = ex.phase.elapsedNs;
    j.sortingDurationNs = so.phase.elapsedNs;
    j.creationDurationNs = cr.phase.elapsedNs;
    j.objs = ex.extractedCount;
    j.bytes = ex.extractedSize;
    j.aborted = m.aborted;
    j.archived = m.archived;
    j.metrics = std::move(m);
    return j;
}

void aggregate(AisDsortJobInfo& j, const AisDsortJobInfo& o)
{
    // startTime: the earlier, a zero one giving way.
    if (j.started.unixNs == 0 || (o.started.unixNs != 0 && o.started.unixNs < j.started.unixNs)) j.started = o.started;
    // stopTime: zero (unknown) wins, else the later.
    if (j.finished.unixNs != 0 && (o.finished.unixNs == 0 || o.finished.unixNs > j.finished.unixNs)) {
        j.finished = o.finished;
    }
    j.extractedDurationNs = std::max(j.extractedDurationNs, o.extractedDurationNs);
    j.sortingDurationNs = std::max(j.sortingDurationNs, o.sortingDurationNs);
    j.creationDurationNs = std::max(j.creationDurationNs, o.creationDurationNs);
    j.aborted = j.aborted || o.aborted;
    j.archived = j.archived && o.archived;
    j.objs.value += o.objs.value;
    j.bytes.value += o.bytes.value;
}

namespace {

Status checkCounters(const nlohmann::json& j, const std::string& what)
{
    if (!j.is_object()) return Error::badRequest(what + ": not an object");
    for (const auto& [k, v] : j.items()) {
        if (!v.is_number() && !v.is_boolean()) return Error::badRequest(what + ": \"" + k + "\" is not a number");
    }
    return {};
}

}  // namespace

Result<nlohmann::json> parseDsortCounters(std::string_view body)
{
    auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded()) return Error::badRequest("dSort counters: malformed JSON");
    if (auto st = checkCounters(j, "dSort counters"); !st) return st.error();
    return j;
}

Result<std::map<std::string, nlohmann::json>> parseDsortCountersById(std::string_view body)
{
    auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded()) return Error::badRequest("dSort counters: malformed JSON");
    if (!j.is_object()) return Error::badRequest("dSort counters: not an object of job ids");
    std::map<std::string, nlohmann::json> out;
    for (auto& [id, counters] : j.items()) {
        if (auto st = checkCounters(counters, "dSort counters of " + id); !st) return st.error();
        out[id] = std::move(counters);
    }
    return out;
}

}  // namespace tessera::api
