#include "ishard_plan.h"

#include "archive/archive_writer.h"
#include "archive/member_name.h"
#include "brace_template.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <span>
#include <string_view>
#include <unordered_map>

namespace tessera::spec {

namespace {

// A sample: its key and its files, a range of `Grouping::members`. Keys
// and extensions are views into the input's names (which outlive the plan's
// making), so grouping 1M names allocates per sample at most a map node.
struct Sample {
    std::string_view key;
    std::size_t first = 0;  // into Grouping::members
    std::size_t count = 0;
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

    // Group into samples, in order of first appearance. Names come in
    // listing order, so a sample's files mostly follow each other: the last
    // key is compared before the map is asked.
    std::vector<Sample> samples;
    std::vector<std::size_t> sampleOf(objects.size());
    std::vector<std::string_view> extOf(objects.size());
    {
        std::unordered_map<std::string_view, std::size_t> byKey;
        std::string_view lastKey;
        std::size_t last = 0;
        for (std::size_t i = 0; i < objects.size(); ++i) {
            const std::string_view name = objects[i].name;
            std::string_view key = name;
            if (keyRe) {
                std::smatch m;
                if (std::regex_search(objects[i].name, m, *keyRe) && m[1].matched) {
                    const auto end = static_cast<std::size_t>(m.position(1) + m.length(1));
                    key = name.substr(static_cast<std::size_t>(m.position(1)), static_cast<std::size_t>(m.length(1)));
                    extOf[i] = name.substr(end);
                }
            } else {
                key = archive::wdsKey(name);
                extOf[i] = archive::wdsExtension(name);
            }
            if (samples.empty() || key != lastKey) {
                auto [it, fresh] = byKey.emplace(key, samples.size());
                if (fresh) samples.push_back(Sample{key, 0, 0, 0});
                lastKey = key;
                last = it->second;
            }
            sampleOf[i] = last;
            ++samples[last].count;
            samples[last].tarBytes += archive::tarMemberBytes(name, objects[i].size);
        }
    }
    // Each sample's files in input order, the samples one after another.
    std::vector<std::size_t> members(objects.size());
    {
        std::size_t next = 0;
        for (auto& s : samples) {
            s.first = next;
            next += s.count;
        }
        std::vector<std::size_t> fill(samples.size(), 0);
        for (std::size_t i = 0; i < objects.size(); ++i) {
            const auto s = sampleOf[i];
            members[samples[s].first + fill[s]++] = i;
        }
    }
    const auto filesOf = [&members](const Sample& s) {
        return std::span<std::size_t>(members).subspan(s.first, s.count);
    };

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
        for (const auto& s : samples) {
            const auto files = filesOf(s);
            std::string lacks;
            for (const auto& e : spec.sampleExts) {
                if (std::none_of(files.begin(), files.end(), [&](std::size_t i) { return extOf[i] == e; }))
                    lacks += (lacks.empty() ? "" : ", ") + e;
            }
            if (lacks.empty()) {
                kept.push_back(s);
                continue;
            }
            switch (spec.missingExt) {
            case MissingExtAction::Abort:
                return api::Error::badRequest("sample \"" + std::string(s.key) + "\" has no " + lacks +
                                              " (missing_extension_action is abort)");
            case MissingExtAction::Warn:
                warn("sample \"" + std::string(s.key) + "\" has no " + lacks);
                kept.push_back(s);
                break;
            case MissingExtAction::Exclude: ++plan.excludedSamples; break;
            case MissingExtAction::Ignore: break;
            }
        }
        samples = std::move(kept);
    }

    // A listing comes in name order, so its samples mostly are in key order
    // already: checked first (one pass), sorted only when not.
    const auto byKeyOrder = [](const Sample& a, const Sample& b) { return a.key < b.key; };
    if (spec.order != SampleOrder::None && !std::is_sorted(samples.begin(), samples.end(), byKeyOrder)) {
        std::sort(samples.begin(), samples.end(), byKeyOrder);
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
    for (const auto& s : samples) {
        const bool full =
            spec.sampleCount > 0 ? cur.samples >= spec.sampleCount : cur.bytes + s.tarBytes > spec.shardSize;
        if (full) cut();
        const auto files = filesOf(s);
        std::sort(files.begin(), files.end(), [&](std::size_t a, std::size_t b) {
            if (extOf[a] != extOf[b]) return extOf[a] < extOf[b];
            return objects[a].name < objects[b].name;
        });
        const bool listed = plan.firstSamples.size() < IshardPlan::kMaxFirstSamples;
        if (listed) {
            plan.firstSamples.push_back({std::string(s.key), {}, {}, 0});
            firstShard.push_back(plan.shards.size());
        }
        for (const auto i : files) {
            cur.members.push_back(objects[i]);
            plan.inputBytes += objects[i].size;
            if (listed) {
                plan.firstSamples.back().files.push_back(objects[i].name);
                plan.firstSamples.back().bytes += objects[i].size;
            }
        }
        plan.objects += s.count;
        cur.objects += s.count;
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
