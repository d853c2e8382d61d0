#include "ais_xaction.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace tessera::api {

namespace {

// Go's encoding/json matches a key to a field name ignoring case; both
// messages' names, lower-cased, to the one this reader knows them by.
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kArgsKeys = {{
    {"id", "id"},
    {"kind", "kind"},
    {"daemonid", "node"},  // ArgsMsg.DaemonID
    {"node", "node"},      // QueryMsg.DaemonID `json:"node"`
    {"bck", "bck"},
    {"buckets", "buckets"},
    {"timeout", "timeout"},
    {"flags", "flags"},
    {"force", "force"},
    {"onlyrunning", "show_active"},  // ArgsMsg.OnlyRunning
    {"show_active", "show_active"},  // QueryMsg.OnlyRunning
}};

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

void readArgs(FieldReader& r, AisXactArgs& v)
{
    std::optional<AisBck> bck;
    r.optional("id", v.id)
        .optional("kind", v.kind)
        .optional("node", v.node)
        .optional("bck", bck)
        .optional("buckets", v.buckets)
        .optional("timeout", v.timeoutNs)
        .optional("flags", v.flags)
        .optional("force", v.force)
        .optional("show_active", v.onlyRunning);
    // Go sends an unset cmn.Bck as one with empty fields.
    if (bck && !bck->name.empty()) v.bck = std::move(bck);
}

}  // namespace

void to_json(nlohmann::json& j, const AisXactArgs& v)
{
    j = {{"show_active", v.onlyRunning}, {"bck", v.bck ? *v.bck : aisNoBck()}, {"id", v.id}, {"kind", v.kind}};
    if (!v.node.empty()) j["node"] = v.node;
    if (!v.buckets.empty()) j["buckets"] = v.buckets;
}

Result<AisXactArgs> readAisXactArgs(const nlohmann::json& j, std::string_view what)
{
    if (j.is_null()) return AisXactArgs{};
    if (!j.is_object()) return Error::badRequest(std::string(what) + ": must be a JSON object");
    nlohmann::json canon = nlohmann::json::object();
    for (const auto& [key, value] : j.items()) {
        const auto l = lower(key);
        const auto it = std::find_if(kArgsKeys.begin(), kArgsKeys.end(), [&](const auto& k) { return k.first == l; });
        canon[it == kArgsKeys.end() ? key : std::string(it->second)] = value;
    }
    AisXactArgs out;
    FieldReader r(canon, "");
    readArgs(r, out);
    if (auto st = r.finish(); !st) return Error::badRequest(std::string(what) + ": " + st.error().message);
    return out;
}

Result<AisXactArgs> parseAisXactArgs(std::string_view body, std::string_view what)
{
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return AisXactArgs{};
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded()) return Error::badRequest(std::string(what) + ": malformed JSON");
    return readAisXactArgs(j, what);
}

void to_json(nlohmann::json& j, const AisXactStats& v)
{
    j = {{"loc-objs", v.locObjs},   {"loc-bytes", v.locBytes}, {"out-objs", v.outObjs},
         {"out-bytes", v.outBytes}, {"in-objs", v.inObjs},     {"in-bytes", v.inBytes}};
}

void readFields(FieldReader& r, AisXactStats& v)
{
    r.required("loc-objs", v.locObjs)
        .required("loc-bytes", v.locBytes)
        .required("out-objs", v.outObjs)
        .required("out-bytes", v.outBytes)
        .required("in-objs", v.inObjs)
        .required("in-bytes", v.inBytes);
}

void to_json(nlohmann::json& j, const AisXactSnap& v)
{
    j = {{"ext", nullptr},
         {"start-time", v.startTime},
         {"end-time", v.endTime},
         {"bck", v.bck},
         {"src-bck", v.srcBck},
         {"dst-bck", v.dstBck},
         {"id", v.id},
         {"kind", v.kind},
         {"abort-err", v.abortErr},
         {"err", v.err},
         {"glob.id", v.packed},
         {"stats", v.stats},
         {"aborted", v.aborted},
         {"is_idle", v.idle}};
    if (!v.ctlMsg.empty()) j["ctlmsg"] = v.ctlMsg;
}

void readFields(FieldReader& r, AisXactSnap& v)
{
    r.ignore("ext")
        .required("start-time", v.startTime)
        .required("end-time", v.endTime)
        .required("bck", v.bck)
        .required("src-bck", v.srcBck)
        .required("dst-bck", v.dstBck)
        .required("id", v.id)
        .required("kind", v.kind)
        .optional("ctlmsg", v.ctlMsg)
        .required("abort-err", v.abortErr)
        .required("err", v.err)
        .required("glob.id", v.packed)
        .required("stats", v.stats)
        .required("aborted", v.aborted)
        .required("is_idle", v.idle);
}

void to_json(nlohmann::json& j, const AisXactStatus& v)
{
    j = {{"kind", v.kind}, {"uuid", v.uuid}, {"err", v.err}, {"end_time", v.endTime}, {"aborted", v.aborted}};
    if (v.idle) j["is_idle"] = true;
}

void readFields(FieldReader& r, AisXactStatus& v)
{
    r.required("kind", v.kind)
        .required("uuid", v.uuid)
        .required("err", v.err)
        .required("end_time", v.endTime)
        .required("aborted", v.aborted)
        .optional("is_idle", v.idle);
}

AisBck aisNoBck()
{
    AisBck b;
    b.provider.clear();
    return b;
}

AisXactSnap aisXactSnap(const JobStatus& job, const TargetJobStatus& part)
{
    AisXactSnap s;
    s.startTime.unixNs = part.startNs != 0 ? part.startNs : job.startNs;
    s.bck = s.srcBck = s.dstBck = aisNoBck();
    s.id = job.id;
    s.kind = job.kind;
    const bool ended = isFinal(part.state);
    if (ended) s.endTime.unixNs = part.endNs != 0 ? part.endNs : job.endNs;
    if (part.state == JobState::Aborted || part.state == JobState::Failed) {
        s.aborted = true;
        s.abortErr = !part.error.empty() ? part.error : (!job.error.empty() ? job.error : "aborted");
    }
    s.stats.locObjs.value = static_cast<std::int64_t>(part.progress.objectsDone);
    s.stats.locBytes.value = static_cast<std::int64_t>(part.progress.bytesDone);
    s.idle = ended;
    return s;
}

AisXactStatus aisXactStatus(const JobStatus& job)
{
    AisXactStatus st;
    st.kind = job.kind;
    st.uuid = job.id;
    if (isFinal(job.state)) {
        // A final job has its end time; 1 ns keeps "ended" for one that lacks it.
        st.endTime = job.endNs != 0 ? job.endNs : 1;
        st.idle = true;
    }
    if (job.state == JobState::Aborted || job.state == JobState::Failed) {
        st.aborted = true;
        st.err = !job.error.empty() ? job.error : "aborted";
    }
    return st;
}

std::string aisXactName(const JobStatus& job) { return job.kind + "[" + job.id + "]"; }

bool aisXactSelects(const AisXactArgs& q, const JobStatus& job)
{
    if (!q.id.empty() && q.id != job.id) return false;
    if (!q.kind.empty() && q.kind != job.kind) return false;
    if (q.onlyRunning && isFinal(job.state)) return false;
    return true;
}

}  // namespace tessera::api
