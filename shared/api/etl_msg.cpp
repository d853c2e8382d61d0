#include "etl_msg.h"

#include "spec/size_string.h"

#include <cctype>

namespace tessera::api {

std::string_view etlCommName(EtlComm c)
{
    switch (c) {
    case EtlComm::Io: return "io://";
    case EtlComm::HPush: return "hpush://";
    case EtlComm::HPull: return "hpull://";
    }
    return "io://";
}

std::optional<EtlComm> etlCommFromName(std::string_view s)
{
    for (auto c : {EtlComm::Io, EtlComm::HPush, EtlComm::HPull}) {
        const auto full = etlCommName(c);
        if (s == full || s == full.substr(0, full.size() - 3)) return c;
    }
    return std::nullopt;
}

Result<std::int64_t> parseDurationMs(std::string_view text)
{
    const auto bad = [&] {
        return Error::badRequest("\"" + std::string(text.substr(0, 40)) +
                                 "\" is not a duration (e.g. \"250ms\", \"30s\", \"1m30s\", \"2h\")");
    };
    if (text.empty() || text.size() > 32) return bad();
    double total = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t start = i;
        while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
        if (i == start) return bad();
        double value = 0;
        try {
            value = std::stod(std::string(text.substr(start, i - start)));
        } catch (...) {
            return bad();
        }
        std::size_t u = i;
        while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
        const auto unit = text.substr(u, i - u);
        double ms = 0;
        if (unit == "ms") ms = value;
        else if (unit == "s") ms = value * 1000;
        else if (unit == "m") ms = value * 60'000;
        else if (unit == "h") ms = value * 3'600'000;
        else if (unit == "us" || unit == "µs") ms = value / 1000;
        else if (unit == "ns") ms = value / 1e6;
        else return bad();
        total += ms;
    }
    if (total > 1e12) return bad();
    return static_cast<std::int64_t>(total);
}

std::string formatDurationMs(std::int64_t ms)
{
    if (ms % 3'600'000 == 0 && ms != 0) return std::to_string(ms / 3'600'000) + "h";
    if (ms % 60'000 == 0 && ms != 0) return std::to_string(ms / 60'000) + "m";
    if (ms % 1000 == 0 && ms != 0) return std::to_string(ms / 1000) + "s";
    return std::to_string(ms) + "ms";
}

namespace {

void readDuration(FieldReader& r, std::string_view key, std::int64_t& out, const nlohmann::json& j)
{
    r.ignore(key);
    if (!r.ok() || !j.is_object()) return;
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    if (!it->is_string()) return r.fail(r.pointerTo(key), "must be a duration string such as \"30s\"");
    auto ms = parseDurationMs(it->get_ref<const std::string&>());
    if (!ms) return r.fail(r.pointerTo(key), ms.error().message);
    out = *ms;
}

void readSize(FieldReader& r, std::string_view key, std::uint64_t& out, const nlohmann::json& j)
{
    r.ignore(key);
    if (!r.ok() || !j.is_object()) return;
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    if (it->is_string()) {
        auto n = spec::parseSize(it->get_ref<const std::string&>());
        if (!n) return r.fail(r.pointerTo(key), n.error().message);
        out = *n;
        return;
    }
    r.read(*it, r.pointerTo(key), out);
}

bool validName(const std::string& s)
{
    if (s.size() < 2 || s.size() > 32) return false;
    if (!std::islower(static_cast<unsigned char>(s[0])) && !std::isdigit(static_cast<unsigned char>(s[0]))) {
        return false;
    }
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (!(std::islower(u) || std::isdigit(u) || c == '-' || c == '_')) return false;
    }
    return true;
}

bool validEnvKey(const std::string& k)
{
    if (k.empty() || k.size() > 128 || std::isdigit(static_cast<unsigned char>(k[0]))) return false;
    for (char c : k) {
        const auto u = static_cast<unsigned char>(c);
        if (!(std::isalnum(u) || c == '_')) return false;
    }
    return true;
}

}  // namespace

void to_json(nlohmann::json& j, const EtlSpec& v)
{
    j = nlohmann::json{{"name", v.name},
                       {"communication", etlCommName(v.communication)},
                       {"command", v.command},
                       {"env", v.env},
                       {"init_timeout", formatDurationMs(v.initTimeoutMs)},
                       {"obj_timeout", formatDurationMs(v.objTimeoutMs)},
                       {"max_output_size", v.maxOutputSize},
                       {"pool_size", v.poolSize},
                       {"memory_limit", v.memoryLimit},
                       {"framing", v.framed ? "length" : "none"}};
}

void readFields(FieldReader& r, EtlSpec& v)
{
    std::string comm = std::string(etlCommName(v.communication));
    std::optional<nlohmann::json> initTimeout, objTimeout, maxOutput, memLimit;
    std::string framing = v.framed ? "length" : "none";
    r.required("name", v.name)
        .optional("communication", comm)
        .required("command", v.command)
        .optional("env", v.env)
        .optional("pool_size", v.poolSize)
        .optional("init_timeout", initTimeout)
        .optional("obj_timeout", objTimeout)
        .optional("max_output_size", maxOutput)
        .optional("memory_limit", memLimit)
        .optional("framing", framing);
    if (!r.ok()) return;
    if (framing == "length") v.framed = true;
    else if (framing == "none") v.framed = false;
    else return r.fail(r.pointerTo("framing"), "must be \"none\" (a process per object) or \"length\"");
    if (auto c = etlCommFromName(comm)) v.communication = *c;
    else r.fail(r.pointerTo("communication"), "must be io://, hpush:// or hpull://");
    nlohmann::json raw = nlohmann::json::object();
    if (initTimeout) raw["init_timeout"] = *initTimeout;
    if (objTimeout) raw["obj_timeout"] = *objTimeout;
    if (maxOutput) raw["max_output_size"] = *maxOutput;
    if (memLimit) raw["memory_limit"] = *memLimit;
    readDuration(r, "init_timeout", v.initTimeoutMs, raw);
    readDuration(r, "obj_timeout", v.objTimeoutMs, raw);
    readSize(r, "max_output_size", v.maxOutputSize, raw);
    readSize(r, "memory_limit", v.memoryLimit, raw);
}

Status validateEtlSpec(const EtlSpec& s)
{
    const auto bad = [](const std::string& field, const std::string& msg) {
        return Error::badRequest("etl: /" + field + ": " + msg);
    };
    if (!validName(s.name)) {
        return bad("name", "\"" + s.name.substr(0, 40) +
                               "\" is not a valid ETL name (2 to 32 characters: lowercase letters, digits, '-', '_'; "
                               "starting with a letter or digit)");
    }
    if (s.command.empty()) return bad("command", "must name the executable (argv, not a shell string)");
    if (s.command.size() > etl_limits::kMaxCommandArgs) {
        return bad("command", "more than " + std::to_string(etl_limits::kMaxCommandArgs) + " arguments");
    }
    for (std::size_t i = 0; i < s.command.size(); ++i) {
        const auto& a = s.command[i];
        if (a.size() > etl_limits::kMaxArgBytes || a.find('\0') != std::string::npos) {
            return bad("command/" + std::to_string(i), "longer than 4096 bytes or holds a NUL byte");
        }
    }
    if (s.command[0].empty()) return bad("command/0", "must not be empty");
    if (s.command[0].find(' ') != std::string::npos && s.command.size() == 1) {
        return bad("command/0",
                   "is one string with spaces: give the program and its arguments as separate items "
                   "(no shell runs it)");
    }
    if (s.env.size() > etl_limits::kMaxEnv) return bad("env", "more than 64 variables");
    for (const auto& [k, val] : s.env) {
        if (!validEnvKey(k)) return bad("env/" + k, "is not a valid variable name");
        if (k.rfind("TESSERA_", 0) == 0) return bad("env/" + k, "TESSERA_* variables are set by the node");
        if (val.size() > etl_limits::kMaxArgBytes || val.find('\0') != std::string::npos) {
            return bad("env/" + k, "longer than 4096 bytes or holds a NUL byte");
        }
    }
    if (s.initTimeoutMs < 100 || s.initTimeoutMs > etl_limits::kMaxInitTimeoutMs) {
        return bad("init_timeout", "must be between 100ms and 10m");
    }
    if (s.objTimeoutMs < 10 || s.objTimeoutMs > etl_limits::kMaxObjTimeoutMs) {
        return bad("obj_timeout", "must be between 10ms and 1h");
    }
    if (s.maxOutputSize == 0 || s.maxOutputSize > etl_limits::kMaxOutputSize) {
        return bad("max_output_size", "must be between 1 byte and 16GiB");
    }
    if (s.poolSize > etl_limits::kMaxPoolSize) return bad("pool_size", "must be at most 256");
    if (s.memoryLimit < (std::uint64_t{16} << 20)) return bad("memory_limit", "must be at least 16MiB");
    if (s.framed && s.communication != EtlComm::Io) return bad("framing", "applies to io:// transformers only");
    return {};
}

Result<EtlSpec> parseEtlSpec(std::string_view body)
{
    auto spec = parseMessage<EtlSpec>(body, "etl");
    if (!spec) return spec.error();
    if (auto st = validateEtlSpec(*spec); !st) return st.error();
    return spec;
}

Result<EtlSpec> readEtlSpec(const nlohmann::json& j)
{
    auto spec = readMessage<EtlSpec>(j, "etl");
    if (!spec) return spec.error();
    if (auto st = validateEtlSpec(*spec); !st) return st.error();
    return spec;
}

void to_json(nlohmann::json& j, const EtlEntry& v)
{
    j = nlohmann::json{{"spec", v.spec}, {"stage", v.stage}, {"created_ns", v.createdNs}};
}

void readFields(FieldReader& r, EtlEntry& v)
{
    r.required("spec", v.spec).required("stage", v.stage).optional("created_ns", v.createdNs);
    if (r.ok() && v.stage != etl_stage::kRunning && v.stage != etl_stage::kStopped) {
        r.fail(r.pointerTo("stage"), "must be running or stopped");
    }
}

void to_json(nlohmann::json& j, const EtlMd& v) { j = nlohmann::json{{"version", v.version}, {"etls", v.etls}}; }

void readFields(FieldReader& r, EtlMd& v) { r.required("version", v.version).optional("etls", v.etls); }

void to_json(nlohmann::json& j, const EtlTargetState& v)
{
    j = nlohmann::json{
        {"name", v.name},     {"target", v.target},        {"stage", v.stage},           {"pid", v.pid},
        {"port", v.port},     {"objects_in", v.objectsIn}, {"bytes_in", v.bytesIn},      {"bytes_out", v.bytesOut},
        {"errors", v.errors}, {"restarts", v.restarts},    {"last_errors", v.lastErrors}};
    if (!v.error.empty()) j["error"] = v.error;
}

void readFields(FieldReader& r, EtlTargetState& v)
{
    r.required("name", v.name)
        .required("target", v.target)
        .required("stage", v.stage)
        .optional("error", v.error)
        .optional("pid", v.pid)
        .optional("port", v.port)
        .optional("objects_in", v.objectsIn)
        .optional("bytes_in", v.bytesIn)
        .optional("bytes_out", v.bytesOut)
        .optional("errors", v.errors)
        .optional("restarts", v.restarts)
        .optional("last_errors", v.lastErrors);
}

void to_json(nlohmann::json& j, const EtlInfo& v)
{
    j = nlohmann::json{
        {"name", v.name},        {"communication", v.communication}, {"stage", v.stage},  {"objects_in", v.objectsIn},
        {"bytes_in", v.bytesIn}, {"bytes_out", v.bytesOut},          {"errors", v.errors}};
    if (v.spec) j["spec"] = *v.spec;
    if (!v.targets.empty()) j["targets"] = v.targets;
    if (!v.unreachable.empty()) j["unreachable"] = v.unreachable;
}

void readFields(FieldReader& r, EtlInfo& v)
{
    r.required("name", v.name)
        .required("communication", v.communication)
        .required("stage", v.stage)
        .optional("objects_in", v.objectsIn)
        .optional("bytes_in", v.bytesIn)
        .optional("bytes_out", v.bytesOut)
        .optional("errors", v.errors)
        .optional("spec", v.spec)
        .optional("targets", v.targets)
        .optional("unreachable", v.unreachable);
}

void to_json(nlohmann::json& j, const EtlLog& v) { j = nlohmann::json{{"target", v.target}, {"log", v.log}}; }

void readFields(FieldReader& r, EtlLog& v) { r.required("target", v.target).required("log", v.log); }

void to_json(nlohmann::json& j, const EtlBucketMsg& v)
{
    j = nlohmann::json{{"id", v.id}};
    if (!v.prefix.empty()) j["prefix"] = v.prefix;
    if (!v.templ.empty()) j["template"] = v.templ;
    if (!v.objnames.empty()) j["objnames"] = v.objnames;
    if (!v.ext.empty()) j["ext"] = v.ext;
    if (v.dryRun) j["dry_run"] = true;
    if (v.continueOnErr) j["continue_on_err"] = true;
    if (v.numWorkers != 0) j["num_workers"] = v.numWorkers;
    if (v.perSample) j["per_sample"] = true;
    if (!v.sampleExt.empty()) j["sample_ext"] = v.sampleExt;
}

void readFields(FieldReader& r, EtlBucketMsg& v)
{
    r.required("id", v.id)
        .optional("prefix", v.prefix)
        .optional("template", v.templ)
        .optional("objnames", v.objnames)
        .optional("ext", v.ext)
        .optional("dry_run", v.dryRun)
        .optional("continue_on_err", v.continueOnErr)
        .optional("num_workers", v.numWorkers)
        .optional("per_sample", v.perSample)
        .optional("sample_ext", v.sampleExt)
        // AIStore's TCBMsg fields with no meaning here.
        .ignore("request_timeout")
        .ignore("force")
        .ignore("latest-ver")
        .ignore("sync")
        .ignore("prepend");
    if (!r.ok()) return;
    if (v.numWorkers > 64) r.fail(r.pointerTo("num_workers"), "must be at most 64");
    for (const auto& [from, to] : v.ext) {
        if (from.empty() || to.empty() || from.find('/') != std::string::npos || to.find('/') != std::string::npos) {
            r.fail(r.pointerTo("ext"), "maps an extension to an extension, without slashes: {\"png\":\"jpg\"}");
            break;
        }
    }
}

void to_json(nlohmann::json& j, const EtlJobArgs& v)
{
    j = nlohmann::json{{"src_bucket", v.srcBucket}, {"dst_bucket", v.dstBucket}, {"msg", v.msg}};
}

void readFields(FieldReader& r, EtlJobArgs& v)
{
    r.required("src_bucket", v.srcBucket).required("dst_bucket", v.dstBucket).required("msg", v.msg);
}

std::string mapExtension(const std::string& name, const std::map<std::string, std::string>& ext)
{
    if (ext.empty()) return name;
    const auto slash = name.rfind('/');
    const auto dot = name.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return name;
    auto it = ext.find(name.substr(dot + 1));
    if (it == ext.end()) {
        // ".png" written with its dot
        it = ext.find(name.substr(dot));
        if (it == ext.end()) return name;
    }
    auto to = it->second;
    if (!to.empty() && to[0] == '.') to.erase(0, 1);
    return name.substr(0, dot + 1) + to;
}

}  // namespace tessera::api
