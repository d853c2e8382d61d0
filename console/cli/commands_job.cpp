// Jobs: start, list, show, wait for, abort.

#include "api/json_util.h"
#include "arg_parser.h"
#include "commands.h"
#include "job_wait.h"
#include "output.h"

#include <chrono>
#include <ctime>
#include <ostream>
#include <thread>

namespace tessera::cli {

namespace {

std::string progressText(const api::JobProgress& p)
{
    std::string s = std::to_string(p.objectsDone) + "/" + (p.objectsTotal < 0 ? "?" : std::to_string(p.objectsTotal)) +
                    " objects, " + formatBytes(p.bytesDone) + "/" +
                    (p.bytesTotal < 0 ? "?" : formatBytes(static_cast<std::uint64_t>(p.bytesTotal)));
    if (p.errors > 0) s += ", " + std::to_string(p.errors) + " error(s)";
    for (const auto& [name, n] : p.counters) s += ", " + name + " " + std::to_string(n);
    return s;
}

std::string when(std::int64_t ns)
{
    if (ns == 0) return "-";
    std::time_t t = static_cast<std::time_t>(ns / 1'000'000'000);
    char buf[32];
    std::strftime(buf, sizeof buf, "%H:%M:%S", std::localtime(&t));
    return buf;
}

void printJob(CliContext& ctx, const api::JobStatus& st)
{
    if (ctx.json) {
        *ctx.out << api::dumpJson(st) << "\n";
        return;
    }
    *ctx.out << st.id << " (" << st.kind << "): " << api::jobStateName(st.state) << ", phase " << st.phase << ", "
             << progressText(st.progress) << "\n";
    *ctx.out << "started " << when(st.startNs) << ", ended " << when(st.endNs) << "\n";
    if (!st.error.empty()) *ctx.out << "error: " << st.error << "\n";
    Table t({"TARGET", "STATE", "PHASE", "PROGRESS", "ERROR"});
    for (const auto& [id, ts] : st.targets) {
        t.add({id, std::string(api::jobStateName(ts.state)), ts.phase, progressText(ts.progress), ts.error});
    }
    *ctx.out << t.render();
}

std::string oneArg(const ParsedArgs& args, const char* what)
{
    if (args.positional.size() != 1) throw UsageError(std::string("expected one ") + what);
    return args.positional.front();
}

}  // namespace

int cmdJobStart(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--bucket"}, {});
    const auto kind = oneArg(args, "job kind");
    auto client = ctx.makeClient();
    // reprotect and scrub take one bucket (all without it).
    nlohmann::json jobArgs = nlohmann::json::object();
    if (!args.value("--bucket").empty()) jobArgs = api::BucketJobArgs{args.value("--bucket")};
    auto st = client.startJob(kind, jobArgs);
    if (!st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson(*st) << "\n";
    else *ctx.out << "started " << st->id << " on " << st->targets.size() << " target(s)\n";
    return kExitOk;
}

int cmdJobList(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("job ls takes no arguments");
    auto client = ctx.makeClient();
    auto jobs = client.listJobs();
    if (!jobs) return ctx.fail(jobs.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(*jobs) << "\n";
        return kExitOk;
    }
    Table t({"ID", "KIND", "STATE", "PHASE", "PROGRESS", "STARTED", "ENDED"});
    for (const auto& j : *jobs) {
        t.add({j.id, j.kind, std::string(api::jobStateName(j.state)), j.phase, progressText(j.progress),
               when(j.startNs), when(j.endNs)});
    }
    *ctx.out << t.render();
    if (jobs->empty()) *ctx.out << "no jobs\n";
    return kExitOk;
}

int cmdJobShow(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    const auto id = oneArg(args, "job id");
    auto client = ctx.makeClient();
    auto st = client.job(id);
    if (!st) return ctx.fail(st.error());
    printJob(ctx, *st);
    return kExitOk;
}

int waitForJob(CliContext& ctx, client::Client& client, const std::string& id, std::uint64_t timeoutSec)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSec);
    bool progressShown = false;
    while (true) {
        auto st = client.job(id);
        if (!st) return ctx.fail(st.error());
        if (api::isFinal(st->state)) {
            // The progress line ends with the final figures, not the last polled ones.
            if (progressShown) {
                *ctx.err << "\r" << api::jobStateName(st->state) << ": " << progressText(st->progress) << "   \n";
            }
            printJob(ctx, *st);
            return st->state == api::JobState::Finished ? kExitOk : kExitFailed;
        }
        if (!ctx.json) {
            *ctx.err << "\r" << st->phase << ": " << progressText(st->progress) << "   " << std::flush;
            progressShown = true;
        }
        if (timeoutSec > 0 && std::chrono::steady_clock::now() >= deadline) {
            *ctx.err << "\nerror: job " << id << " still running after " << timeoutSec << " s\n";
            return kExitFailed;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

int cmdJobWait(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--timeout"}, {});
    const auto id = oneArg(args, "job id");
    const auto timeoutSec = args.number("--timeout", 0);  // 0: no limit
    auto client = ctx.makeClient();
    return waitForJob(ctx, client, id, timeoutSec);
}

int cmdJobAbort(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    const auto id = oneArg(args, "job id");
    auto client = ctx.makeClient();
    auto st = client.abortJob(id);
    if (!st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson(*st) << "\n";
    else *ctx.out << "abort requested for " << id << " (" << api::jobStateName(st->state) << ")\n";
    return kExitOk;
}

}  // namespace tessera::cli
