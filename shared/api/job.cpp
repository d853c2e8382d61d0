#include "job.h"

#include "names.h"

#include "json_scan.h"
#include "json_util.h"
#include "json_whole_numbers.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tessera::api {

std::string_view jobStateName(JobState s)
{
    switch (s) {
    case JobState::Running: return "running";
    case JobState::Finished: return "finished";
    case JobState::Aborted: return "aborted";
    case JobState::Failed: return "failed";
    }
    return "failed";
}

std::optional<JobState> jobStateFromName(std::string_view s)
{
    for (auto st : {JobState::Running, JobState::Finished, JobState::Aborted, JobState::Failed}) {
        if (jobStateName(st) == s) return st;
    }
    return std::nullopt;
}

namespace {
JobState stateFrom(const nlohmann::json& j)
{
    auto st = jobStateFromName(j.get<std::string>());
    if (!st) throw std::invalid_argument("unknown job state " + j.dump());
    return *st;
}
}  // namespace

void to_json(nlohmann::json& j, const JobProgress& v)
{
    j = {{"objects_done", v.objectsDone},
         {"objects_total", v.objectsTotal},
         {"bytes_done", v.bytesDone},
         {"bytes_total", v.bytesTotal},
         {"errors", v.errors}};
    if (!v.counters.empty()) j["counters"] = v.counters;
}

void from_json(const nlohmann::json& j, JobProgress& v)
{
    v.objectsDone = j.value("objects_done", std::uint64_t{0});
    v.objectsTotal = j.value("objects_total", std::int64_t{-1});
    v.bytesDone = j.value("bytes_done", std::uint64_t{0});
    v.bytesTotal = j.value("bytes_total", std::int64_t{-1});
    v.errors = j.value("errors", std::uint64_t{0});
    if (auto it = j.find("counters"); it != j.end()) it->get_to(v.counters);
    else v.counters.clear();
}

void to_json(nlohmann::json& j, const TargetJobStatus& v)
{
    j = {{"id", v.id},       {"kind", v.kind},         {"target", v.target},      {"state", jobStateName(v.state)},
         {"phase", v.phase}, {"progress", v.progress}, {"started_ns", v.startNs}, {"ended_ns", v.endNs}};
    if (!v.error.empty()) j["error"] = v.error;
}

void from_json(const nlohmann::json& j, TargetJobStatus& v)
{
    j.at("id").get_to(v.id);
    j.at("kind").get_to(v.kind);
    j.at("target").get_to(v.target);
    v.state = stateFrom(j.at("state"));
    v.phase = j.value("phase", std::string());
    if (j.contains("progress")) j.at("progress").get_to(v.progress);
    v.startNs = j.value("started_ns", std::int64_t{0});
    v.endNs = j.value("ended_ns", std::int64_t{0});
    v.error = j.value("error", std::string());
}

void to_json(nlohmann::json& j, const JobStatus& v)
{
    j = {{"id", v.id},
         {"kind", v.kind},
         {"state", jobStateName(v.state)},
         {"phase", v.phase},
         {"progress", v.progress},
         {"started_ns", v.startNs},
         {"ended_ns", v.endNs},
         {"abort_requested", v.abortRequested},
         {"targets", v.targets}};
    if (!v.error.empty()) j["error"] = v.error;
}

void from_json(const nlohmann::json& j, JobStatus& v)
{
    j.at("id").get_to(v.id);
    j.at("kind").get_to(v.kind);
    v.state = stateFrom(j.at("state"));
    v.phase = j.value("phase", std::string());
    if (j.contains("progress")) j.at("progress").get_to(v.progress);
    v.startNs = j.value("started_ns", std::int64_t{0});
    v.endNs = j.value("ended_ns", std::int64_t{0});
    v.abortRequested = j.value("abort_requested", false);
    v.error = j.value("error", std::string());
    v.targets.clear();
    if (j.contains("targets")) {
        for (const auto& [id, t] : j.at("targets").items()) v.targets[id] = t.get<TargetJobStatus>();
    }
}

Result<TargetJobStatus> parseTargetJobStatus(std::string_view json)
{
    try {
        // Every number of a status is whole; nlohmann casts a float that does
        // not fit (started_ns 1e300, found by fuzz_job_status) with undefined
        // behaviour.
        return parseWholeNumberJsonAs<TargetJobStatus>(json, "job status");
    } catch (const std::exception& e) {
        return Error::badRequest(std::string("invalid job status: ") + e.what());
    }
}

Result<JobStatus> parseJobStatus(std::string_view json)
{
    try {
        return parseWholeNumberJsonAs<JobStatus>(json, "job status");
    } catch (const std::exception& e) {
        return Error::badRequest(std::string("invalid job status: ") + e.what());
    }
}

}  // namespace tessera::api

namespace tessera::api {

void to_json(nlohmann::json& j, const JobStart& v) { j = nlohmann::json{{"kind", v.kind}, {"args", v.args}}; }

void readFields(FieldReader& r, JobStart& v)
{
    r.required("kind", v.kind).optional("args", v.args);
    if (r.ok() && !v.args.is_object()) r.fail(r.pointerTo("args"), "must be a JSON object");
}

void to_json(nlohmann::json& j, const JobEnvelope& v)
{
    j = nlohmann::json{{"id", v.id}, {"kind", v.kind}, {"args", v.args}};
}

void readFields(FieldReader& r, JobEnvelope& v)
{
    r.required("id", v.id).required("kind", v.kind).optional("args", v.args);
    if (r.ok() && !v.args.is_object()) r.fail(r.pointerTo("args"), "must be a JSON object");
}

std::string dumpJobEnvelope(std::string_view id, std::string_view kind, std::string_view argsJson)
{
    std::string out;
    out.reserve(argsJson.size() + id.size() + kind.size() + 32);
    out += "{\"id\":";
    appendJsonString(out, id);
    out += ",\"kind\":";
    appendJsonString(out, kind);
    out += ",\"args\":";
    out += argsJson;
    out.push_back('}');
    return out;
}

bool splitJobEnvelope(std::string_view body, JobEnvelopeText& out)
{
    detail::JsonScanner s(body);
    std::string_view key, id, kind;
    if (!s.eat('{') || !s.str(key) || key != "id" || !s.eat(':') || !s.str(id)) return false;
    if (!s.eat(',') || !s.str(key) || key != "kind" || !s.eat(':') || !s.str(kind)) return false;
    if (!s.eat(',') || !s.str(key) || key != "args" || !s.eat(':') || !s.peek('{')) return false;
    auto args = s.rest();
    const auto trim = [&args] {
        while (!args.empty() &&
               (args.back() == ' ' || args.back() == '\n' || args.back() == '\r' || args.back() == '\t')) {
            args.remove_suffix(1);
        }
    };
    trim();
    if (args.size() < 3 || args.back() != '}') return false;  // "{}" and the envelope's own '}'
    args.remove_suffix(1);
    trim();
    out.id.assign(id);
    out.kind.assign(kind);
    out.args = args;
    return true;
}

void to_json(nlohmann::json& j, const BucketJobArgs& v)
{
    j = nlohmann::json::object();
    if (v.bucket) j["bucket"] = *v.bucket;
}

void readFields(FieldReader& r, BucketJobArgs& v)
{
    r.optional("bucket", v.bucket);
    if (r.ok() && v.bucket) {
        if (auto st = validateBucketName(*v.bucket); !st) r.fail(r.pointerTo("bucket"), st.error().message);
    }
}

void to_json(nlohmann::json& j, const RebalanceArgs& v) { j = nlohmann::json{{"smap_version", v.smapVersion}}; }

void readFields(FieldReader& r, RebalanceArgs& v) { r.optional("smap_version", v.smapVersion); }

}  // namespace tessera::api
