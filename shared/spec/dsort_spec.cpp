#include "dsort_spec.h"

#include "api/names.h"
#include "brace_template.h"
#include "dsort_spec_legacy.h"
#include "size_string.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace tessera::spec {

namespace {

constexpr std::size_t kMaxEkmUrlBytes = 2048;

// http:// or https://, in any case.
bool isUrl(std::string_view text)
{
    const auto starts = [&](std::string_view scheme) {
        return text.size() > scheme.size() &&
               std::equal(scheme.begin(), scheme.end(), text.begin(),
                          [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
    };
    return starts("http://") || starts("https://");
}

constexpr std::size_t kMaxExtBytes = 64;
constexpr std::size_t kMaxObjnames = DsortSpec::kMaxInputShards;

const std::set<std::string, std::less<>> kFields = {"input_bck",
                                                    "input_format",
                                                    "input_extension",
                                                    "output_bck",
                                                    "output_format",
                                                    "output_extension",
                                                    "output_shard_size",
                                                    "algorithm",
                                                    "ekm_file",
                                                    "max_mem_usage",
                                                    "extract_concurrency_max_limit",
                                                    "create_concurrency_max_limit",
                                                    "duplicated_records",
                                                    "missing_shards",
                                                    "dry_run",
                                                    "description"};
const std::set<std::string, std::less<>> kAlgorithmFields = {"kind", "decreasing", "seed", "extension",
                                                             "content_key_type"};

std::optional<std::uint64_t> parseDecimal(std::string_view s)
{
    std::uint64_t out = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return out;
}

// A JSON whole number >= 0, whether it was parsed or built as signed.
std::optional<std::uint64_t> asUnsigned(const nlohmann::json& v)
{
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
    return std::nullopt;
}

class Checker : public SpecChecker {
public:
    using SpecChecker::SpecChecker;

    std::vector<FieldError> run(DsortSpec& s)
    {
        if (!checkObject(kFields)) return m_errors;
        bucket("input_bck", s.inputBck, true);
        bucket("output_bck", s.outputBck, false);
        if (s.outputBck.empty()) s.outputBck = s.inputBck;
        extension("input_extension", s.inputExtension, s.inputFormat);
        s.outputExtension = s.inputExtension;
        s.outputArchiveFormat = s.inputFormat;
        extension("output_extension", s.outputExtension, s.outputArchiveFormat);
        inputFormat(s);
        outputFormat(s);
        shardSize(s);
        algorithm(s);
        ekm(s);
        memory(s);
        concurrency("extract_concurrency_max_limit", s.extractConcurrency);
        concurrency("create_concurrency_max_limit", s.createConcurrency);
        policy("duplicated_records", s.duplicatedRecords);
        policy("missing_shards", s.missingShards);
        boolean("dry_run", s.dryRun);
        if (const auto* v = get("description")) {
            if (!v->is_string()) add("/description", "must be a string");
            else if (v->get<std::string>().size() > DsortSpec::kMaxDescriptionBytes) {
                add("/description", "longer than " + std::to_string(DsortSpec::kMaxDescriptionBytes) + " bytes");
            } else {
                s.description = v->get<std::string>();
            }
        }
        return m_errors;
    }

private:
    void extension(const char* key, std::string& out, archive::ArchiveFormat& format)
    {
        const auto* v = get(key);
        if (v == nullptr) return;
        const std::string ptr = std::string("/") + key;
        const std::string help = "must be a shard extension: .tar, .tgz, .tar.gz, .tar.lz4 or .zip";
        if (!v->is_string()) return add(ptr, help);
        const auto ext = v->get<std::string>();
        auto f = archive::formatFromName("x" + ext);
        const bool exact = f && (archive::formatExtension(*f) == ext || ext == ".tar.gz");
        if (!exact || ext.size() > kMaxExtBytes) return add(ptr, "\"" + ext + "\" " + help);
        out = ext;
        format = *f;
    }

    void inputFormat(DsortSpec& s)
    {
        const auto* v = get("input_format");
        const std::string help = "must be {\"template\":\"shard-{0000..0099}\"} or {\"objnames\":[\"a\",\"b\"]}";
        if (v == nullptr) return add("/input_format", "required: " + help);
        if (v->is_string()) return templ(*v, "/input_format", s);  // AIStore's older plain-string form
        if (!v->is_object()) return add("/input_format", help);
        for (const auto& [k, x] : v->items()) {
            if (k != "template" && k != "objnames") add("/input_format/" + k, "unknown field");
        }
        const auto* t = getIn(*v, "template");
        const auto* o = getIn(*v, "objnames");
        if ((t == nullptr) == (o == nullptr)) return add("/input_format", "give exactly one of template and objnames");
        if (t != nullptr) return templ(*t, "/input_format/template", s);
        if (!o->is_array() || o->empty()) return add("/input_format/objnames", "must be a non-empty list of names");
        if (o->size() > kMaxObjnames) {
            return add("/input_format/objnames", "more than " + std::to_string(kMaxObjnames) + " names");
        }
        std::set<std::string> seen;
        for (std::size_t i = 0; i < o->size(); ++i) {
            const auto ptr = "/input_format/objnames/" + std::to_string(i);
            const auto& e = (*o)[i];
            if (!e.is_string()) {
                add(ptr, "must be a string");
                continue;
            }
            const auto name = e.get<std::string>();
            if (auto st = api::validateObjectName(name + s.inputExtension); !st) {
                add(ptr, st.error().message);
                continue;
            }
            if (!seen.insert(name).second) {
                add(ptr, "\"" + name + "\" is listed twice");
                continue;
            }
            s.inputObjnames.push_back(name);
        }
    }

    void templ(const nlohmann::json& v, const std::string& ptr, DsortSpec& s)
    {
        if (!v.is_string()) return add(ptr, "must be a brace template such as \"shard-{0000..0099}\"");
        auto t = BraceTemplate::parse(v.get<std::string>());
        if (!t) return add(ptr, t.error().message);
        if (t->count() > DsortSpec::kMaxInputShards) {
            return add(ptr, "names " + std::to_string(t->count()) + " shards; at most " +
                                std::to_string(DsortSpec::kMaxInputShards) + " in one dSort");
        }
        if (auto st = api::validateObjectName(t->at(0) + s.inputExtension); !st) {
            return add(ptr,
                       "\"" + t->at(0) + s.inputExtension + "\" is not a valid object name: " + st.error().message);
        }
        s.inputTemplate = v.get<std::string>();
    }

    void outputFormat(DsortSpec& s)
    {
        if (const auto* v = get("output_format")) {
            if (!v->is_string())
                return add("/output_format", "must be a brace template such as \"out-{00000..99999}\"");
            s.outputFormat = v->get<std::string>();
        }
        auto t = BraceTemplate::parse(s.outputFormat);
        if (!t) return add("/output_format", t.error().message);
        if (!t->hasRanges())
            return add("/output_format", "must have a range such as {00000..99999}: it names many shards");
        if (auto st = api::validateObjectName(t->at(0) + s.outputExtension); !st) {
            add("/output_format",
                "\"" + t->at(0) + s.outputExtension + "\" is not a valid object name: " + st.error().message);
        }
    }

    void shardSize(DsortSpec& s)
    {
        const auto* v = get("output_shard_size");
        const std::string help =
            "must be a size such as \"100MB\" or \"256MiB\", a number of bytes, "
            "or a count of records such as \"1000 records\"";
        if (v == nullptr) return add("/output_shard_size", "required: " + help);
        if (auto n = asUnsigned(*v)) {
            s.outputShardSize = *n;
            if (s.outputShardSize == 0) add("/output_shard_size", "must be more than 0 bytes");
            return;
        }
        if (!v->is_string()) return add("/output_shard_size", help);
        std::string text = v->get<std::string>();
        for (const char* suffix : {"records", "record"}) {
            const std::string_view sv(text);
            const std::string_view suf(suffix);
            if (sv.size() > suf.size() && sv.substr(sv.size() - suf.size()) == suf) {
                auto num = sv.substr(0, sv.size() - suf.size());
                while (!num.empty() && num.back() == ' ') num.remove_suffix(1);
                auto n = parseDecimal(num);
                if (!n || *n == 0 || *n > DsortSpec::kMaxRecordsPerShard) {
                    return add("/output_shard_size", "\"" + text + "\": the count of records must be 1.." +
                                                         std::to_string(DsortSpec::kMaxRecordsPerShard));
                }
                s.outputShardRecords = *n;
                return;
            }
        }
        auto r = parseSize(text);
        if (!r) return add("/output_shard_size", r.error().message + " (" + help + ")");
        s.outputShardSize = *r;
    }

    void algorithm(DsortSpec& s)
    {
        const auto* v = get("algorithm");
        if (v == nullptr) return;
        if (!v->is_object()) return add("/algorithm", "must be an object such as {\"kind\":\"alphanumeric\"}");
        for (const auto& [k, x] : v->items()) {
            if (!kAlgorithmFields.count(k)) add("/algorithm/" + k, "unknown field");
        }
        auto& a = s.algorithm;
        const std::string kindHelp = "must be \"alphanumeric\", \"shuffle\", \"content\" or \"none\"";
        if (const auto* k = getIn(*v, "kind")) {
            const auto kind = k->is_string() ? k->get<std::string>() : std::string();
            if (kind == "alphanumeric" || (kind.empty() && k->is_string())) a.kind = DsortAlgorithmKind::Alphanumeric;
            else if (kind == "shuffle") a.kind = DsortAlgorithmKind::Shuffle;
            else if (kind == "content") a.kind = DsortAlgorithmKind::Content;
            else if (kind == "none") a.kind = DsortAlgorithmKind::None;
            else return add("/algorithm/kind", (k->is_string() ? "\"" + kind + "\" " : std::string()) + kindHelp);
        }
        if (const auto* d = getIn(*v, "decreasing")) {
            if (!d->is_boolean()) add("/algorithm/decreasing", "must be true or false");
            else if (d->get<bool>() && a.kind != DsortAlgorithmKind::Alphanumeric &&
                     a.kind != DsortAlgorithmKind::Content) {
                add("/algorithm/decreasing", "applies to the alphanumeric and content kinds only");
            } else {
                a.decreasing = d->get<bool>();
            }
        }
        if (const auto* sd = getIn(*v, "seed")) {
            const std::string help = "must be a decimal number below 2^64 (a string or a number)";
            std::optional<std::uint64_t> seed;
            if (asUnsigned(*sd)) seed = asUnsigned(*sd);
            else if (sd->is_string() && sd->get<std::string>().empty()) seed = std::nullopt;  // AIStore's "": pick one
            else if (sd->is_string()) {
                seed = parseDecimal(sd->get<std::string>());
                if (!seed) add("/algorithm/seed", "\"" + sd->get<std::string>() + "\" " + help);
            } else {
                add("/algorithm/seed", help);
            }
            if (seed && a.kind != DsortAlgorithmKind::Shuffle)
                add("/algorithm/seed", "applies to the shuffle kind only");
            else a.seed = seed;
        }
        const auto* ext = getIn(*v, "extension");
        const auto* type = getIn(*v, "content_key_type");
        if (a.kind != DsortAlgorithmKind::Content) {
            if (ext != nullptr) add("/algorithm/extension", "applies to the content kind only");
            if (type != nullptr) add("/algorithm/content_key_type", "applies to the content kind only");
            return;
        }
        if (ext == nullptr)
            add("/algorithm/extension", "required with kind content: the file holding the key, e.g. \".cls\"");
        else if (!ext->is_string()) add("/algorithm/extension", "must be a string such as \".cls\"");
        else {
            const auto e = ext->get<std::string>();
            if (e.size() < 2 || e[0] != '.' || e.size() > kMaxExtBytes || e.find('/') != std::string::npos) {
                add("/algorithm/extension",
                    "\"" + e + "\" must start with '.', have a name after it, no '/', at most 64 bytes");
            } else {
                a.extension = e;
            }
        }
        const std::string typeHelp = "must be \"int\", \"float\" or \"string\"";
        if (type == nullptr) add("/algorithm/content_key_type", "required with kind content: " + typeHelp);
        else {
            const auto t = type->is_string() ? type->get<std::string>() : std::string();
            if (t == "int") a.keyType = ContentKeyType::Int;
            else if (t == "float") a.keyType = ContentKeyType::Float;
            else if (t == "string") a.keyType = ContentKeyType::String;
            else add("/algorithm/content_key_type", (type->is_string() ? "\"" + t + "\" " : std::string()) + typeHelp);
        }
    }

    void ekm(DsortSpec& s)
    {
        const auto* v = get("ekm_file");
        if (v == nullptr) return;
        const std::string help =
            "must name an object in the cluster as \"bucket/object\" (or \"ais://bucket/object\")"
            " or be an http:// or https:// URL";
        if (!v->is_string()) return add("/ekm_file", help);
        std::string text = v->get<std::string>();
        if (text.empty()) return;
        if (s.algorithm.kind != DsortAlgorithmKind::Alphanumeric && s.algorithm.kind != DsortAlgorithmKind::None) {
            return add("/ekm_file", "places records by key: use it with algorithm kind alphanumeric or none");
        }
        if (isUrl(text)) {
            // Fetched by the proxy when the job starts (with its guard
            // against requests into the node's own networks).
            if (text.size() > kMaxEkmUrlBytes) return add("/ekm_file", "a URL of at most 2048 bytes");
            const auto rest = text.substr(text.find("://") + 3);
            if (rest.empty() || rest.front() == '/' ||
                std::any_of(text.begin(), text.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; })) {
                return add("/ekm_file", "\"" + text + "\" is not a URL with a host");
            }
            s.ekmFile = text;
            return;
        }
        if (text.rfind("ais://", 0) == 0) text = text.substr(6);
        const auto slash = text.find('/');
        if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) {
            return add("/ekm_file", "\"" + v->get<std::string>() + "\" " + help);
        }
        if (auto st = api::validateBucketName(text.substr(0, slash)); !st) return add("/ekm_file", st.error().message);
        if (auto st = api::validateObjectName(text.substr(slash + 1)); !st) return add("/ekm_file", st.error().message);
        s.ekmFile = text;
    }

    void memory(DsortSpec& s)
    {
        const auto* v = get("max_mem_usage");
        const std::string help = "must be a share of the target's memory such as \"70%\" or a size such as \"4GiB\"";
        if (v == nullptr) return;
        if (auto n = asUnsigned(*v)) {
            s.maxMemBytes = *n;
            s.maxMemPercent = 0;
            return;
        }
        if (!v->is_string()) return add("/max_mem_usage", help);
        const auto text = v->get<std::string>();
        if (!text.empty() && text.back() == '%') {
            const auto num = text.substr(0, text.size() - 1);
            char* end = nullptr;
            const double pct = std::strtod(num.c_str(), &end);
            if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(pct) || pct <= 0 || pct > 100) {
                return add("/max_mem_usage", "\"" + text + "\": a percentage must be more than 0 and at most 100");
            }
            s.maxMemPercent = pct;
            return;
        }
        auto r = parseSize(text, true);
        if (!r) return add("/max_mem_usage", r.error().message + " (" + help + ")");
        // 0 bytes: every record spills to disk.
        s.maxMemBytes = *r;
        s.maxMemPercent = 0;
    }

    void concurrency(const char* key, unsigned& out)
    {
        const auto* v = get(key);
        if (v == nullptr) return;
        const auto ptr = std::string("/") + key;
        const auto n = asUnsigned(*v);
        if (!n || *n > DsortSpec::kMaxConcurrency) {
            return add(ptr, "must be a whole number 0.." + std::to_string(DsortSpec::kMaxConcurrency) +
                                " (0: the default, " + std::to_string(DsortSpec::kDefaultConcurrency) + ")");
        }
        out = *n == 0 ? DsortSpec::kDefaultConcurrency : static_cast<unsigned>(*n);
    }

    void policy(const char* key, DsortPolicy& out)
    {
        const auto* v = get(key);
        if (v == nullptr) return;
        const auto ptr = std::string("/") + key;
        const std::string help = "must be \"ignore\", \"warn\" or \"abort\"";
        const auto p = v->is_string() ? v->get<std::string>() : std::string();
        if (p == "ignore" || (p.empty() && v->is_string())) out = DsortPolicy::Ignore;
        else if (p == "warn") out = DsortPolicy::Warn;
        else if (p == "abort") out = DsortPolicy::Abort;
        else add(ptr, (v->is_string() ? "\"" + p + "\" " : std::string()) + help);
    }
};

}  // namespace

api::Result<std::vector<std::string>> DsortSpec::inputNames() const
{
    std::vector<std::string> out;
    if (!inputTemplate.empty()) {
        auto t = BraceTemplate::parse(inputTemplate);
        if (!t) return api::Error::badRequest("invalid dsort spec: /input_format/template: " + t.error().message);
        auto names = t->expand(kMaxInputShards);
        if (!names)
            return api::Error::badRequest("invalid dsort spec: /input_format/template: " + names.error().message);
        out = std::move(names.value());
    } else {
        out = inputObjnames;
    }
    for (auto& n : out) n += inputExtension;
    return out;
}

bool DsortSpec::ekmIsUrl() const { return isUrl(ekmFile); }

std::pair<std::string, std::string> DsortSpec::ekmObject() const
{
    const auto slash = ekmFile.find('/');
    if (slash == std::string::npos) return {};
    return {ekmFile.substr(0, slash), ekmFile.substr(slash + 1)};
}

std::uint64_t DsortSpec::memoryBudget(std::uint64_t physicalBytes) const
{
    if (maxMemPercent > 0)
        return static_cast<std::uint64_t>(static_cast<double>(physicalBytes) * maxMemPercent / 100.0);
    return maxMemBytes;
}

std::string_view dsortAlgorithmName(DsortAlgorithmKind k)
{
    switch (k) {
    case DsortAlgorithmKind::Alphanumeric: return "alphanumeric";
    case DsortAlgorithmKind::Shuffle: return "shuffle";
    case DsortAlgorithmKind::Content: return "content";
    case DsortAlgorithmKind::None: return "none";
    }
    return "alphanumeric";
}

std::string_view contentKeyTypeName(ContentKeyType t)
{
    switch (t) {
    case ContentKeyType::Int: return "int";
    case ContentKeyType::Float: return "float";
    case ContentKeyType::String: return "string";
    }
    return "int";
}

std::string_view dsortPolicyName(DsortPolicy p)
{
    switch (p) {
    case DsortPolicy::Ignore: return "ignore";
    case DsortPolicy::Warn: return "warn";
    case DsortPolicy::Abort: return "abort";
    }
    return "ignore";
}

std::vector<FieldError> validateDsortSpec(const nlohmann::json& spec)
{
    auto j = normalizeAisDsortSpec(spec);
    if (!j) {
        // "invalid dsort spec: /field: why" -> {"/field", "why"}
        std::string_view m = j.error().message;
        constexpr std::string_view kPrefix = "invalid dsort spec: ";
        if (m.starts_with(kPrefix)) m.remove_prefix(kPrefix.size());
        const auto colon = m.find(": ");
        if (colon == std::string_view::npos) return {FieldError{"", std::string(m)}};
        return {FieldError{std::string(m.substr(0, colon)), std::string(m.substr(colon + 2))}};
    }
    DsortSpec s;
    return Checker(*j).run(s);
}

api::Result<DsortSpec> parseDsortSpec(const nlohmann::json& spec)
{
    // AIStore's older names and printf-style output names first.
    auto j = normalizeAisDsortSpec(spec);
    if (!j) return j.error();
    DsortSpec s;
    auto errors = Checker(*j).run(s);
    if (!errors.empty()) return api::Error::badRequest("invalid dsort spec: " + describe(errors));
    return s;
}

api::Result<DsortSpec> parseDsortSpec(std::string_view json)
{
    auto j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded()) return api::Error::badRequest("invalid dsort spec: malformed JSON");
    return parseDsortSpec(j);
}

void to_json(nlohmann::json& j, const DsortSpec& v)
{
    nlohmann::json input = nlohmann::json::object();
    if (!v.inputTemplate.empty()) input["template"] = v.inputTemplate;
    else input["objnames"] = v.inputObjnames;
    nlohmann::json algo{{"kind", dsortAlgorithmName(v.algorithm.kind)}};
    if (v.algorithm.decreasing) algo["decreasing"] = true;
    if (v.algorithm.seed) algo["seed"] = std::to_string(*v.algorithm.seed);
    if (v.algorithm.kind == DsortAlgorithmKind::Content) {
        algo["extension"] = v.algorithm.extension;
        algo["content_key_type"] = contentKeyTypeName(v.algorithm.keyType);
    }
    j = nlohmann::json{{"input_bck", v.inputBck},
                       {"output_bck", v.outputBck},
                       {"input_format", input},
                       {"input_extension", v.inputExtension},
                       {"output_format", v.outputFormat},
                       {"output_extension", v.outputExtension},
                       {"algorithm", algo},
                       {"extract_concurrency_max_limit", v.extractConcurrency},
                       {"create_concurrency_max_limit", v.createConcurrency},
                       {"duplicated_records", dsortPolicyName(v.duplicatedRecords)},
                       {"missing_shards", dsortPolicyName(v.missingShards)},
                       {"dry_run", v.dryRun},
                       {"description", v.description}};
    if (v.outputShardRecords > 0) j["output_shard_size"] = std::to_string(v.outputShardRecords) + " records";
    else j["output_shard_size"] = v.outputShardSize;
    if (!v.ekmFile.empty()) j["ekm_file"] = v.ekmFile;
    if (v.maxMemPercent > 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g%%", v.maxMemPercent);
        j["max_mem_usage"] = buf;
    } else {
        j["max_mem_usage"] = std::to_string(v.maxMemBytes);  // a size string in bytes ("0": spill everything)
    }
}

}  // namespace tessera::spec
