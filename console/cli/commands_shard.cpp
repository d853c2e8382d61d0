// Shard-creating jobs from the command line: `archive bucket` (one shard
// from many objects) and `ishard` (a bucket of loose files into WebDataset
// shards, or the plan of it with --dry-run).

#include "api/archive_msg.h"
#include "api/json_util.h"
#include "arg_parser.h"
#include "commands.h"
#include "job_wait.h"
#include "output.h"
#include "spec/ishard_spec.h"
#include "spec_file.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace tessera::cli {

namespace {

constexpr std::size_t kMaxSpecBytes = 1 << 20;

std::vector<std::string> splitCsv(const std::string& s)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        auto comma = s.find(',', start);
        if (comma == std::string::npos) comma = s.size();
        if (comma > start) out.push_back(s.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

// Prints the started job, then waits for it when asked.
int started(CliContext& ctx, client::Client& client, const api::Result<api::JobStatus>& st, bool wait)
{
    if (!st) return ctx.fail(st.error());
    if (!wait) {
        if (ctx.json) *ctx.out << api::dumpJson(*st) << "\n";
        else *ctx.out << "started " << st->id << " on " << st->targets.size() << " target(s)\n";
        return kExitOk;
    }
    if (!ctx.json) *ctx.err << "started " << st->id << " on " << st->targets.size() << " target(s)\n";
    return waitForJob(ctx, client, st->id, 0);
}

}  // namespace

int cmdArchiveBucket(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--template", "--list", "--mime"},
                          {"--append", "--include-src-bck", "--continue-on-err", "--wait"});
    if (args.positional.size() != 2) throw UsageError("expected SRC and DST/SHARD");
    const auto [dst, shard] = splitBucketPath(args.positional[1]);
    if (shard.empty()) throw UsageError("the destination must be DST_BUCKET/SHARD_NAME");
    const bool hasTemplate = !args.value("--template").empty();
    const bool hasList = !args.value("--list").empty();
    if (hasTemplate == hasList) throw UsageError("give --template T or --list a,b,c (one of them)");
    nlohmann::json value{{"archname", shard},
                         {"to_bck", {{"name", dst}}},
                         {"mime", args.value("--mime")},
                         {"append_to_arch", args.has("--append")},
                         {"include_src_bck", args.has("--include-src-bck")},
                         {"continue_on_err", args.has("--continue-on-err")}};
    if (hasTemplate) value["template"] = args.value("--template");
    else value["objnames"] = splitCsv(args.value("--list"));
    // The same checks as the proxy's, before anything is sent.
    auto msg = api::parseArchiveMsg(value, args.positional[0]);
    if (!msg) throw UsageError(msg.error().message);
    auto client = ctx.makeClient();
    return started(ctx, client, client.startArchive(*msg), args.has("--wait"));
}

int cmdIshard(CliContext& ctx)
{
    auto argv = ctx.args;
    for (auto& a : argv) {
        if (a == "-f") a = "--spec";
    }
    auto args = parseArgs(argv,
                          {"--spec", "--shard-size", "--sample-count", "--template", "--ext", "--sort", "--missing-ext",
                           "--expect", "--key-pattern"},
                          {"--dry-run", "--wait"});
    // A spec file (JSON or YAML), which SRC DST and the options override.
    nlohmann::json j = nlohmann::json::object();
    if (!args.value("--spec").empty()) j = readSpecFile(args.value("--spec"), "ishard", kMaxSpecBytes);
    if (args.positional.size() == 2) {
        const auto [src, prefix] = splitBucketPath(args.positional[0]);
        j["src_bck"] = src;
        j["dst_bck"] = args.positional[1];
        if (!prefix.empty()) j["prefix"] = prefix;
    } else if (!args.positional.empty() || args.value("--spec").empty()) {
        throw UsageError("expected SRC[/PREFIX] and DST (or -f SPEC)");
    }
    if (!args.value("--shard-size").empty()) j["shard_size"] = args.value("--shard-size");
    if (!args.value("--sample-count").empty()) j["sample_count"] = args.number("--sample-count", 0);
    if (!args.value("--template").empty()) j["shard_template"] = args.value("--template");
    if (!args.value("--ext").empty()) j["ext"] = args.value("--ext");
    if (!args.value("--sort").empty()) j["sort"] = args.value("--sort");
    if (!args.value("--missing-ext").empty()) j["missing_extension_action"] = args.value("--missing-ext");
    if (!args.value("--expect").empty()) j["sample_exts"] = splitCsv(args.value("--expect"));
    if (!args.value("--key-pattern").empty()) j["sample_key_pattern"] = args.value("--key-pattern");
    auto s = spec::parseIshardSpec(j);
    if (!s) throw UsageError(s.error().message);
    auto client = ctx.makeClient();
    if (!args.has("--dry-run")) return started(ctx, client, client.startIshard(*s), args.has("--wait"));

    auto plan = client.ishardDryRun(*s);
    if (!plan) return ctx.fail(plan.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(spec::planToJson(*plan, false)) << "\n";
        return kExitOk;
    }
    Table t({"SHARD", "SAMPLES", "OBJECTS", "SIZE (as .tar)"});
    for (const auto& sh : plan->shards) {
        t.add({sh.name, std::to_string(sh.samples), std::to_string(sh.objects), formatBytes(sh.bytes)});
    }
    *ctx.out << t.render();
    *ctx.out << plan->shards.size() << " shard(s), " << plan->samples << " sample(s), " << plan->objects
             << " object(s), " << formatBytes(plan->inputBytes) << " of input";
    if (plan->seed) *ctx.out << ", shuffle seed " << *plan->seed;
    *ctx.out << "\n";
    if (plan->excludedSamples > 0) *ctx.out << plan->excludedSamples << " sample(s) excluded (missing extensions)\n";
    for (const auto& w : plan->warnings) *ctx.out << "warning: " << w << "\n";
    if (plan->warningCount > plan->warnings.size()) {
        *ctx.out << "... and " << (plan->warningCount - plan->warnings.size()) << " more warning(s)\n";
    }
    *ctx.out << "dry run: nothing was started\n";
    return kExitOk;
}

}  // namespace tessera::cli
