// dSort from the command line (AIStore's /v1/sort): start from a spec file,
// stdin or SRC DST shortcuts, show one job live or every job, wait, abort,
// remove a finished one.

#include "api/json_util.h"
#include "arg_parser.h"
#include "commands.h"
#include "output.h"
#include "spec/dsort_spec.h"
#include "spec_file.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace tessera::cli {

namespace {

constexpr std::size_t kMaxSpecBytes = 1 << 20;

std::string seconds(std::int64_t startNs, std::int64_t endNs)
{
    if (startNs == 0) return "-";
    const auto end =
        endNs != 0
            ? endNs
            : std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                  .count();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(end - startNs) / 1e9);
    return buf;
}

std::string counts(const api::JobProgress& p)
{
    std::string s = std::to_string(p.objectsDone);
    if (p.objectsTotal >= 0) s += "/" + std::to_string(p.objectsTotal);
    s += " (" + formatBytes(p.bytesDone);
    if (p.bytesTotal > 0) s += "/" + formatBytes(static_cast<std::uint64_t>(p.bytesTotal));
    return s + ")";
}

std::string metric(const nlohmann::json& m, const char* key)
{
    auto it = m.find(key);
    if (it == m.end() || it->is_null()) return "-";
    if (it->is_number()) return std::to_string(it->get<std::int64_t>());
    return it->dump();
}

void printStatus(CliContext& ctx, const client::Client::DsortStatus& st)
{
    if (ctx.json) {
        nlohmann::json j = st.job;
        j["metrics"] = st.metrics;
        *ctx.out << api::dumpJson(j) << "\n";
        return;
    }
    const auto& job = st.job;
    *ctx.out << job.id << ": " << api::jobStateName(job.state) << ", phase " << job.phase << ", elapsed "
             << seconds(job.startNs, job.endNs) << "\n";
    if (!job.error.empty()) *ctx.out << "error: " << job.error << "\n";
    Table t({"TARGET", "STATE", "PHASE", "DONE/TOTAL (BYTES)", "EXTRACT ms", "SORT ms", "CREATE ms", "RECORDS",
             "SPILLED", "NOTE"});
    for (const auto& [tid, ts] : job.targets) {
        const auto m = st.metrics.contains(tid) ? st.metrics[tid] : nlohmann::json::object();
        std::string note = m.value("sorter", false) ? "sorter" : "";
        if (!ts.error.empty() && ts.state != api::JobState::Running) note += (note.empty() ? "" : "; ") + ts.error;
        t.add({tid, std::string(api::jobStateName(ts.state)), ts.phase, counts(ts.progress), metric(m, "extract.ms"),
               metric(m, "sort.ms"), metric(m, "create.ms"), metric(m, "extract.records"), metric(m, "spill.records"),
               note});
    }
    *ctx.out << t.render();
}

// Polls until the job ends, progress on stderr; kExitOk only when it finished.
int waitDsort(CliContext& ctx, client::Client& client, const std::string& id, std::uint64_t timeoutSec)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSec);
    bool shown = false;
    while (true) {
        auto st = client.dsortStatus(id);
        if (!st) return ctx.fail(st.error());
        if (api::isFinal(st->job.state)) {
            if (shown) *ctx.err << "\n";
            printStatus(ctx, *st);
            return st->job.state == api::JobState::Finished ? kExitOk : kExitFailed;
        }
        if (!ctx.json) {
            *ctx.err << "\r" << st->job.phase << ": " << counts(st->job.progress) << ", " << seconds(st->job.startNs, 0)
                     << "   " << std::flush;
            shown = true;
        }
        if (timeoutSec > 0 && std::chrono::steady_clock::now() >= deadline) {
            *ctx.err << "\nerror: dsort " << id << " still running after " << timeoutSec << " s\n";
            return kExitFailed;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

}  // namespace

int cmdDsortStart(CliContext& ctx)
{
    // AIStore's -f SPEC is --spec SPEC here.
    auto argv = ctx.args;
    for (auto& a : argv) {
        if (a == "-f") a = "--spec";
    }
    auto args = parseArgs(argv,
                          {"--spec", "--input", "--input-ext", "--output", "--output-ext", "--shard-size",
                           "--algorithm", "--seed", "--description"},
                          {"--wait", "--dry-run"});
    if (args.positional.size() == 1 || args.positional.size() > 2) throw UsageError("expected SRC DST (or neither)");
    const std::string file = args.value("--spec");
    nlohmann::json j = nlohmann::json::object();
    if (!file.empty()) {
        j = readSpecFile(file, "dsort", kMaxSpecBytes);
    }
    if (args.positional.size() == 2) {
        j["input_bck"] = args.positional[0];
        j["output_bck"] = args.positional[1];
    }
    if (!args.value("--input").empty()) j["input_format"] = {{"template", args.value("--input")}};
    if (!args.value("--input-ext").empty()) j["input_extension"] = args.value("--input-ext");
    if (!args.value("--output").empty()) j["output_format"] = args.value("--output");
    if (!args.value("--output-ext").empty()) j["output_extension"] = args.value("--output-ext");
    if (!args.value("--shard-size").empty()) j["output_shard_size"] = args.value("--shard-size");
    if (!args.value("--algorithm").empty()) j["algorithm"]["kind"] = args.value("--algorithm");
    if (!args.value("--seed").empty()) j["algorithm"]["seed"] = args.value("--seed");
    if (!args.value("--description").empty()) j["description"] = args.value("--description");
    if (args.has("--dry-run")) j["dry_run"] = true;
    if (file.empty() && args.positional.empty())
        throw UsageError("give -f SPEC.json|SPEC.yaml (or -) or SRC DST with --input");
    // The same validation as the proxy's, before anything is sent.
    auto s = spec::parseDsortSpec(j);
    if (!s) throw UsageError(s.error().message);
    auto client = ctx.makeClient();
    auto id = client.startDsort(j);
    if (!id) return ctx.fail(id.error());
    if (!args.has("--wait")) {
        if (ctx.json) *ctx.out << api::dumpJson(nlohmann::json{{"id", *id}}) << "\n";
        else *ctx.out << *id << "\n";
        return kExitOk;
    }
    if (!ctx.json) *ctx.err << "started " << *id << "\n";
    return waitDsort(ctx, client, *id, 0);
}

int cmdDsortShow(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--refresh"}, {"--once"});
    if (args.positional.size() > 1) throw UsageError("expected at most one job id");
    auto client = ctx.makeClient();
    if (args.positional.empty()) {
        auto list = client.listDsorts();
        if (!list) return ctx.fail(list.error());
        if (ctx.json) {
            *ctx.out << api::dumpJson(nlohmann::json(*list)) << "\n";
            return kExitOk;
        }
        Table t({"ID", "STATE", "PHASE", "DONE/TOTAL (BYTES)", "ELAPSED", "ERROR"});
        for (const auto& j : *list) {
            t.add({j.id, std::string(api::jobStateName(j.state)), j.phase, counts(j.progress),
                   seconds(j.startNs, j.endNs), j.error});
        }
        *ctx.out << t.render();
        return kExitOk;
    }
    const auto refreshMs = args.number("--refresh", 1000);
    if (refreshMs < 100 || refreshMs > 60000) throw UsageError("--refresh must be 100..60000 milliseconds");
    // On a terminal the table is redrawn in place; otherwise each refresh is
    // printed after the last.
    const bool terminal = ctx.out == &std::cout && ::isatty(STDOUT_FILENO) == 1;
    bool first = true;
    while (true) {
        auto st = client.dsortStatus(args.positional[0]);
        if (!st) return ctx.fail(st.error());
        const bool last = args.has("--once") || ctx.json || api::isFinal(st->job.state);
        if (terminal && !first && !ctx.json) *ctx.out << "\033[H\033[2J";
        printStatus(ctx, *st);
        if (last) return kExitOk;
        if (!terminal) *ctx.out << "\n";
        *ctx.out << std::flush;
        first = false;
        std::this_thread::sleep_for(std::chrono::milliseconds(refreshMs));
    }
}

int cmdDsortWait(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--timeout"}, {});
    if (args.positional.size() != 1) throw UsageError("expected the dsort job id");
    auto client = ctx.makeClient();
    return waitDsort(ctx, client, args.positional[0], args.number("--timeout", 0));
}

int cmdDsortAbort(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError("expected the dsort job id");
    auto client = ctx.makeClient();
    auto st = client.abortDsort(args.positional[0]);
    if (!st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson(*st) << "\n";
    else *ctx.out << "abort requested for " << st->id << " (" << api::jobStateName(st->state) << ")\n";
    return kExitOk;
}

int cmdDsortRemove(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError("expected the dsort job id");
    auto client = ctx.makeClient();
    if (auto st = client.removeDsort(args.positional[0]); !st) return ctx.fail(st.error());
    if (!ctx.json) *ctx.out << "removed " << args.positional[0] << "\n";
    else *ctx.out << api::dumpJson(nlohmann::json{{"removed", args.positional[0]}}) << "\n";
    return kExitOk;
}

}  // namespace tessera::cli
