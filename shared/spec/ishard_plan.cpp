#include "ishard_plan.h"

#include "archive/archive_writer.h"
#include "archive/member_name.h"
#include "brace_template.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <unordered_map>

namespace tessera::spec {

namespace {

struct Member {
    std::size_t index = 0;  // into the input
    std::string ext;
};

struct Sample {
    std::string key;
    std::vector<Member> members;
    std::uint64_t tarBytes = 0;
};

// A uniform integer in [0, bound) from the raw generator by rejection, so
// the result depends only on the generator's output (std::uniform_int_
// distribution's algorithm differs between standard libraries).
std::uint64_t uniformBelow(std::mt19937_64& rng, std::uint64_t bound)
{
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
    std::uint64_t x;
    do x = rng();
    while (x >= limit);
    return x % bound;
}

}  // namespace

api::Result<IshardPlan> planIshard(const std::vector<SourceObject>& objects, const IshardSpec& spec)
{
    auto tmpl = BraceTemplate::parse(spec.shardTemplate);
    if (!tmpl) return api::Error::badRequest("invalid ishard spec: /shard_template: " + tmpl.error().message);
    if (spec.order == SampleOrder::Shuffle && !spec.seed) {
        return api::Error::badRequest("invalid ishard spec: /sort: a shuffle needs a seed");
    }
    std::optional<std::regex> keyRe;
    if (!spec.sampleKeyPattern.empty()) {
        try {
            keyRe.emplace(spec.sampleKeyPattern, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            return api::Error::badRequest(std::string("invalid ishard spec: /sample_key_pattern: ") + e.what());
        }
    }

    // Group into samples, in order of first appearance.
    std::vector<Sample> samples;
    std::unordered_map<std::string, std::size_t> byKey;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        const auto& name = objects[i].name;
        std::string key, ext;
        if (keyRe) {
            std::smatch m;
            if (std::regex_search(name, m, *keyRe) && m[1].matched) {
                key = m[1].str();
                ext = name.substr(static_cast<std::size_t>(m.position(1) + m.length(1)));
            } else {
                key = name;
            }
        } else {
            key = std::string(archive::wdsKey(name));
            ext = std::string(archive::wdsExtension(name));
        }
        auto [it, fresh] = byKey.emplace(key, samples.size());
        if (fresh) samples.push_back(Sample{key, {}, 0});
        auto& s = samples[it->second];
        s.members.push_back({i, std::move(ext)});
        s.tarBytes += archive::tarMemberBytes(name, objects[i].size);
    }

    IshardPlan plan;
    plan.seed = spec.order == SampleOrder::Shuffle ? spec.seed : std::nullopt;
    auto warn = [&plan](std::string w) {
        if (plan.warnings.size() < IshardPlan::kMaxWarnings) plan.warnings.push_back(std::move(w));
        ++plan.warningCount;
    };

    // Missing extensions, judged in first-appearance order so an abort
    // names the same sample whatever the sort.
    if (!spec.sampleExts.empty() && spec.missingExt != MissingExtAction::Ignore) {
        std::vector<Sample> kept;
        kept.reserve(samples.size());
        for (auto& s : samples) {
            std::set<std::string_view> have;
            for (const auto& m : s.members) have.insert(m.ext);
            std::string lacks;
            for (const auto& e : spec.sampleExts) {
                if (!have.count(e)) lacks += (lacks.empty() ? "" : ", ") + e;
            }
            if (lacks.empty()) {
                kept.push_back(std::move(s));
                continue;
            }
            switch (spec.missingExt) {
            case MissingExtAction::Abort:
                return api::Error::badRequest("sample \"" + s.key + "\" has no " + lacks +
                                              " (missing_extension_action is abort)");
            case MissingExtAction::Warn:
                warn("sample \"" + s.key + "\" has no " + lacks);
                kept.push_back(std::move(s));
                break;
            case MissingExtAction::Exclude: ++plan.excludedSamples; break;
            case MissingExtAction::Ignore: break;
            }
        }
        samples = std::move(kept);
    }

    if (spec.order != SampleOrder::None) {
        std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.key < b.key; });
    }
    if (spec.order == SampleOrder::Shuffle && samples.size() > 1) {
        std::mt19937_64 rng(*spec.seed);
        for (std::size_t i = samples.size() - 1; i > 0; --i) {
            std::swap(samples[i], samples[uniformBelow(rng, i + 1)]);
        }
    }

    PlannedShard cur;
    cur.bytes = archive::kTarEndBytes;
    std::vector<std::size_t> firstShard;  // the shard index of each first sample
    auto cut = [&] {
        if (cur.samples == 0) return;
        plan.shards.push_back(std::move(cur));
        cur = PlannedShard{};
        cur.bytes = archive::kTarEndBytes;
    };
    for (auto& s : samples) {
        const bool full =
            spec.sampleCount > 0 ? cur.samples >= spec.sampleCount : cur.bytes + s.tarBytes > spec.shardSize;
        if (full) cut();
        std::sort(s.members.begin(), s.members.end(), [&](const Member& a, const Member& b) {
            if (a.ext != b.ext) return a.ext < b.ext;
            return objects[a.index].name < objects[b.index].name;
        });
        const bool listed = plan.firstSamples.size() < IshardPlan::kMaxFirstSamples;
        if (listed) {
            plan.firstSamples.push_back({s.key, {}, {}, 0});
            firstShard.push_back(plan.shards.size());
        }
        for (const auto& m : s.members) {
            cur.members.push_back(objects[m.index]);
            plan.inputBytes += objects[m.index].size;
            if (listed) {
                plan.firstSamples.back().files.push_back(objects[m.index].name);
                plan.firstSamples.back().bytes += objects[m.index].size;
            }
        }
        plan.objects += s.members.size();
        cur.objects += s.members.size();
        cur.bytes += s.tarBytes;
        ++cur.samples;
        ++plan.samples;
    }
    cut();

    if (plan.shards.size() > tmpl->count()) {
        return api::Error::badRequest("invalid ishard spec: /shard_template: \"" + spec.shardTemplate +
                                      "\" stands for " + std::to_string(tmpl->count()) + " name(s) but the plan has " +
                                      std::to_string(plan.shards.size()) + " shards");
    }
    for (std::size_t i = 0; i < plan.shards.size(); ++i) plan.shards[i].name = tmpl->at(i) + spec.ext;
    for (std::size_t i = 0; i < plan.firstSamples.size(); ++i)
        plan.firstSamples[i].shard = plan.shards[firstShard[i]].name;
    return plan;
}

nlohmann::json planToJson(const IshardPlan& plan, bool withMembers)
{
    auto shards = nlohmann::json::array();
    for (const auto& s : plan.shards) {
        nlohmann::json js{{"name", s.name}, {"samples", s.samples}, {"objects", s.objects}, {"bytes", s.bytes}};
        if (withMembers) {
            auto m = nlohmann::json::array();
            for (const auto& o : s.members) m.push_back(nlohmann::json::array({o.name, o.size}));
            js["members"] = std::move(m);
        }
        shards.push_back(std::move(js));
    }
    nlohmann::json j{{"shards", std::move(shards)},
                     {"samples", plan.samples},
                     {"objects", plan.objects},
                     {"input_bytes", plan.inputBytes},
                     {"excluded_samples", plan.excludedSamples},
                     {"warning_count", plan.warningCount},
                     {"warnings", plan.warnings}};
    if (plan.seed) j["seed"] = *plan.seed;
    auto first = nlohmann::json::array();
    for (const auto& f : plan.firstSamples) {
        first.push_back({{"key", f.key}, {"shard", f.shard}, {"files", f.files}, {"bytes", f.bytes}});
    }
    j["first_samples"] = std::move(first);
    return j;
}

api::Result<IshardPlan> planFromJson(const nlohmann::json& j)
{
    try {
        IshardPlan p;
        for (const auto& js : j.at("shards")) {
            PlannedShard s;
            s.name = js.at("name").get<std::string>();
            s.samples = js.at("samples").get<std::uint64_t>();
            s.objects = js.value("objects", std::uint64_t{0});
            s.bytes = js.at("bytes").get<std::uint64_t>();
            if (js.contains("members")) {
                for (const auto& m : js["members"])
                    s.members.push_back({m.at(0).get<std::string>(), m.at(1).get<std::uint64_t>()});
            }
            p.shards.push_back(std::move(s));
        }
        p.samples = j.at("samples").get<std::uint64_t>();
        p.objects = j.at("objects").get<std::uint64_t>();
        p.inputBytes = j.at("input_bytes").get<std::uint64_t>();
        p.excludedSamples = j.value("excluded_samples", std::uint64_t{0});
        p.warningCount = j.value("warning_count", std::uint64_t{0});
        p.warnings = j.value("warnings", std::vector<std::string>{});
        if (j.contains("seed")) p.seed = j["seed"].get<std::uint64_t>();
        if (j.contains("first_samples")) {
            for (const auto& f : j["first_samples"]) {
                p.firstSamples.push_back({f.at("key").get<std::string>(), f.at("shard").get<std::string>(),
                                          f.at("files").get<std::vector<std::string>>(),
                                          f.at("bytes").get<std::uint64_t>()});
            }
        }
        return p;
    } catch (const nlohmann::json::exception& e) {
        return api::Error::badRequest(std::string("unreadable ishard plan: ") + e.what());
    }
}

void to_json(nlohmann::json& j, const IshardDryRun& v)
{
    j = nlohmann::json{{"dry_run", true}, {"spec", v.spec}, {"plan", planToJson(v.plan, false)}};
}

api::Result<IshardDryRun> parseIshardDryRun(std::string_view body)
{
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return api::Error::badRequest("ishard dry run: not a JSON object");
    if (j.value("dry_run", false) != true) return api::Error::badRequest("ishard dry run: /dry_run must be true");
    if (!j.contains("spec") || !j.contains("plan"))
        return api::Error::badRequest("ishard dry run: spec and plan required");
    auto s = parseIshardSpec(j["spec"]);
    if (!s) return api::Error::badRequest("ishard dry run: /spec: " + s.error().message);
    auto p = planFromJson(j["plan"]);
    if (!p) return api::Error::badRequest("ishard dry run: /plan: " + p.error().message);
    return IshardDryRun{std::move(*s), std::move(*p)};
}

}  // namespace tessera::spec
