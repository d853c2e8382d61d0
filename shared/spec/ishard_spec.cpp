#include "ishard_spec.h"

#include "api/names.h"
#include "brace_template.h"
#include "size_string.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

namespace tessera::spec {

namespace {

constexpr std::size_t kMaxPrefixBytes = 1024;
constexpr std::size_t kMaxPatternBytes = 1024;
constexpr std::size_t kMaxExtBytes = 64;
constexpr std::uint64_t kMaxSampleCount = 100'000'000;

const std::set<std::string, std::less<>> kFields = {"src_bck",      "dst_bck",
                                                    "prefix",       "shard_size",
                                                    "sample_count", "shard_template",
                                                    "ext",          "sample_key_pattern",
                                                    "sort",         "missing_extension_action",
                                                    "sample_exts",  "dry_run"};

// Collects errors while filling the spec: each check names its field.
class Checker : public SpecChecker {
public:
    using SpecChecker::SpecChecker;

    std::vector<FieldError> run(IshardSpec& s)
    {
        if (!checkObject(kFields)) return m_errors;
        bucket("src_bck", s.srcBck, true);
        bucket("dst_bck", s.dstBck, true);
        if (const auto* v = get("prefix")) {
            if (!v->is_string()) add("/prefix", "must be a string");
            else if (v->get<std::string>().size() > kMaxPrefixBytes) add("/prefix", "longer than 1024 bytes");
            else s.prefix = v->get<std::string>();
        }
        sizes(s);
        shardNames(s);
        keyPattern(s);
        order(s);
        missing(s);
        boolean("dry_run", s.dryRun);
        return m_errors;
    }

private:
    void sizes(IshardSpec& s)
    {
        const auto* size = get("shard_size");
        const auto* count = get("sample_count");
        if (size != nullptr && count != nullptr) {
            add("/sample_count", "give shard_size or sample_count, not both");
            return;
        }
        if (size != nullptr) {
            if (size->is_number_unsigned()) {
                s.shardSize = size->get<std::uint64_t>();
                if (s.shardSize == 0) add("/shard_size", "must be more than 0 bytes");
            } else if (size->is_string()) {
                auto r = parseSize(size->get<std::string>());
                if (!r) add("/shard_size", r.error().message);
                else s.shardSize = *r;
            } else {
                add("/shard_size", "must be a size such as \"16MiB\" or a number of bytes");
            }
        }
        if (count != nullptr) {
            if (!count->is_number_unsigned() || count->get<std::uint64_t>() == 0 ||
                count->get<std::uint64_t>() > kMaxSampleCount) {
                add("/sample_count", "must be a whole number of samples, 1.." + std::to_string(kMaxSampleCount));
            } else {
                s.sampleCount = count->get<std::uint64_t>();
                s.shardSize = 0;
            }
        }
    }

    void shardNames(IshardSpec& s)
    {
        if (const auto* v = get("ext")) {
            if (!v->is_string()) {
                add("/ext", "must be a string: .tar, .tgz, .tar.gz, .tar.lz4 or .zip");
            } else {
                const auto ext = v->get<std::string>();
                auto f = archive::formatFromName("x" + ext);
                const bool exact = f && (archive::formatExtension(*f) == ext || ext == ".tar.gz");
                if (!exact)
                    add("/ext", "\"" + ext + "\" is not a shard extension: .tar, .tgz, .tar.gz, .tar.lz4 or .zip");
                else {
                    s.ext = ext;
                    s.format = *f;
                }
            }
        }
        if (const auto* v = get("shard_template")) {
            if (!v->is_string())
                return add("/shard_template", "must be a brace template such as \"shard-{0000..9999}\"");
            s.shardTemplate = v->get<std::string>();
        }
        auto t = BraceTemplate::parse(s.shardTemplate);
        if (!t) return add("/shard_template", t.error().message);
        if (auto st = api::validateObjectName(t->at(0) + s.ext); !st) {
            add("/shard_template", "\"" + t->at(0) + s.ext + "\" is not a valid object name: " + st.error().message);
        }
    }

    void keyPattern(IshardSpec& s)
    {
        const auto* v = get("sample_key_pattern");
        if (v == nullptr) return;
        if (!v->is_string()) return add("/sample_key_pattern", "must be a string (empty: the WebDataset key)");
        const auto p = v->get<std::string>();
        if (p.size() > kMaxPatternBytes) return add("/sample_key_pattern", "longer than 1024 bytes");
        if (p.empty() || p == "wds") return;
        try {
            std::regex re(p, std::regex::ECMAScript);
            if (re.mark_count() != 1) {
                return add("/sample_key_pattern",
                           "must have exactly one capture group (the key); it has " + std::to_string(re.mark_count()));
            }
        } catch (const std::regex_error& e) {
            return add("/sample_key_pattern", std::string("not a valid regular expression: ") + e.what());
        }
        s.sampleKeyPattern = p;
    }

    void order(IshardSpec& s)
    {
        const auto* v = get("sort");
        if (v == nullptr) return;
        const std::string help = "must be \"alpha\", \"shuffle\", \"shuffle:SEED\" (a decimal number) or \"none\"";
        if (!v->is_string()) return add("/sort", help);
        const auto o = v->get<std::string>();
        if (o == "alpha") s.order = SampleOrder::Alpha;
        else if (o == "none") s.order = SampleOrder::None;
        else if (o == "shuffle") s.order = SampleOrder::Shuffle;
        else if (o.rfind("shuffle:", 0) == 0) {
            const auto num = std::string_view(o).substr(8);
            std::uint64_t seed = 0;
            auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), seed);
            if (num.empty() || ec != std::errc() || p != num.data() + num.size()) {
                return add("/sort", "seed \"" + std::string(num) + "\" is not a decimal number below 2^64");
            }
            s.order = SampleOrder::Shuffle;
            s.seed = seed;
        } else {
            add("/sort", "\"" + o + "\" " + help);
        }
    }

    void missing(IshardSpec& s)
    {
        if (const auto* v = get("missing_extension_action")) {
            const std::string help = "must be \"abort\", \"warn\", \"ignore\" or \"exclude\"";
            if (!v->is_string()) add("/missing_extension_action", help);
            else {
                const auto a = v->get<std::string>();
                if (a == "abort") s.missingExt = MissingExtAction::Abort;
                else if (a == "warn") s.missingExt = MissingExtAction::Warn;
                else if (a == "ignore") s.missingExt = MissingExtAction::Ignore;
                else if (a == "exclude") s.missingExt = MissingExtAction::Exclude;
                else add("/missing_extension_action", "\"" + a + "\" " + help);
            }
        }
        if (const auto* v = get("sample_exts")) {
            if (!v->is_array()) return add("/sample_exts", "must be a list of extensions such as [\".png\",\".cls\"]");
            if (v->size() > IshardSpec::kMaxSampleExts) {
                return add("/sample_exts", "more than " + std::to_string(IshardSpec::kMaxSampleExts) + " extensions");
            }
            std::set<std::string> seen;
            for (std::size_t i = 0; i < v->size(); ++i) {
                const auto& e = (*v)[i];
                const auto ptr = "/sample_exts/" + std::to_string(i);
                if (!e.is_string()) {
                    add(ptr, "must be a string");
                    continue;
                }
                const auto ext = e.get<std::string>();
                if (ext.size() < 2 || ext[0] != '.' || ext.size() > kMaxExtBytes ||
                    ext.find('/') != std::string::npos) {
                    add(ptr, "\"" + ext + "\" must start with '.', have a name after it, no '/', and at most 64 bytes");
                    continue;
                }
                if (!seen.insert(ext).second) {
                    add(ptr, "\"" + ext + "\" is listed twice");
                    continue;
                }
                s.sampleExts.push_back(ext);
            }
        }
        if (s.missingExt != MissingExtAction::Ignore && s.sampleExts.empty() && get("sample_exts") == nullptr) {
            add("/sample_exts", "required with missing_extension_action \"" +
                                    std::string(missingExtActionName(s.missingExt)) +
                                    "\": the extensions every sample has");
        }
    }
};

}  // namespace

std::string_view sampleOrderName(SampleOrder o)
{
    switch (o) {
    case SampleOrder::Alpha: return "alpha";
    case SampleOrder::Shuffle: return "shuffle";
    case SampleOrder::None: return "none";
    }
    return "alpha";
}

std::string_view missingExtActionName(MissingExtAction a)
{
    switch (a) {
    case MissingExtAction::Abort: return "abort";
    case MissingExtAction::Warn: return "warn";
    case MissingExtAction::Ignore: return "ignore";
    case MissingExtAction::Exclude: return "exclude";
    }
    return "ignore";
}

std::vector<FieldError> validateIshardSpec(const nlohmann::json& j)
{
    IshardSpec s;
    return Checker(j).run(s);
}

api::Result<IshardSpec> parseIshardSpec(const nlohmann::json& j)
{
    IshardSpec s;
    auto errors = Checker(j).run(s);
    if (!errors.empty()) return api::Error::badRequest("invalid ishard spec: " + describe(errors));
    return s;
}

api::Result<IshardSpec> parseIshardSpec(std::string_view json)
{
    auto j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded()) return api::Error::badRequest("invalid ishard spec: malformed JSON");
    return parseIshardSpec(j);
}

void to_json(nlohmann::json& j, const IshardSpec& v)
{
    j = nlohmann::json{{"src_bck", v.srcBck},
                       {"dst_bck", v.dstBck},
                       {"prefix", v.prefix},
                       {"shard_template", v.shardTemplate},
                       {"ext", v.ext},
                       {"sample_key_pattern", v.sampleKeyPattern},
                       {"missing_extension_action", missingExtActionName(v.missingExt)},
                       {"sample_exts", v.sampleExts},
                       {"dry_run", v.dryRun}};
    if (v.sampleCount > 0) j["sample_count"] = v.sampleCount;
    else j["shard_size"] = v.shardSize;
    std::string order(sampleOrderName(v.order));
    if (v.order == SampleOrder::Shuffle && v.seed) order += ":" + std::to_string(*v.seed);
    j["sort"] = order;
}

}  // namespace tessera::spec
