// ETL: init, list, show, logs, start, stop, remove; transform one object;
// transform a bucket into another (an etl-bck / etl-listrange job).

#include "api/json_util.h"
#include "arg_parser.h"
#include "commands.h"
#include "job_wait.h"
#include "output.h"
#include "spec_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tessera::cli {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxSpecBytes = 64 << 10;

std::string oneName(const ParsedArgs& args)
{
    if (args.positional.size() != 1) throw UsageError("expected one ETL name");
    return args.positional.front();
}

void printInfo(CliContext& ctx, const api::EtlInfo& info)
{
    if (ctx.json) {
        *ctx.out << api::dumpJson(nlohmann::json(info)) << "\n";
        return;
    }
    *ctx.out << info.name << " (" << info.communication << "): " << info.stage << ", " << info.objectsIn
             << " object(s) in, " << formatBytes(info.bytesIn) << " in, " << formatBytes(info.bytesOut) << " out, "
             << info.errors << " error(s)\n";
    if (info.spec) {
        std::string argv;
        for (const auto& a : info.spec->command) argv += (argv.empty() ? "" : " ") + a;
        *ctx.out << "command: " << argv << "\n";
        *ctx.out << "obj_timeout " << api::formatDurationMs(info.spec->objTimeoutMs) << ", init_timeout "
                 << api::formatDurationMs(info.spec->initTimeoutMs) << ", max_output_size "
                 << formatBytes(info.spec->maxOutputSize) << ", pool_size "
                 << (info.spec->poolSize == 0 ? std::string("auto") : std::to_string(info.spec->poolSize))
                 << (info.spec->framed ? ", framing length (long-lived processes)" : "") << "\n";
    }
    if (!info.targets.empty()) {
        Table t({"TARGET", "STAGE", "OBJECTS", "IN", "OUT", "ERRORS", "RESTARTS", "LAST ERROR"});
        for (const auto& [id, s] : info.targets) {
            t.add({id, s.stage, std::to_string(s.objectsIn), formatBytes(s.bytesIn), formatBytes(s.bytesOut),
                   std::to_string(s.errors), std::to_string(s.restarts),
                   s.lastErrors.empty() ? s.error : s.lastErrors.back()});
        }
        *ctx.out << t.render();
    }
    for (const auto& [id, why] : info.unreachable) *ctx.out << "target " << id << " did not answer: " << why << "\n";
}

}  // namespace

int cmdEtlInit(CliContext& ctx)
{
    // Everything after "--" is the transformer's argv.
    std::vector<std::string> own, command;
    bool rest = false;
    for (const auto& a : ctx.args) {
        if (!rest && a == "--") {
            rest = true;
            continue;
        }
        (rest ? command : own).push_back(a == "-f" && !rest ? "--spec" : a);
    }
    auto args = parseArgs(own,
                          {"--spec", "--name", "--comm", "--obj-timeout", "--init-timeout", "--max-output", "--pool",
                           "--env", "--framing"},
                          {});
    if (!args.positional.empty())
        throw UsageError("unexpected " + args.positional.front() + " (the command goes after --)");
    nlohmann::json j = nlohmann::json::object();
    if (!args.value("--spec").empty()) {
        j = readSpecFile(args.value("--spec"), "etl", kMaxSpecBytes);
    }
    if (!args.value("--name").empty()) j["name"] = args.value("--name");
    if (!args.value("--comm").empty()) j["communication"] = args.value("--comm");
    if (!args.value("--obj-timeout").empty()) j["obj_timeout"] = args.value("--obj-timeout");
    if (!args.value("--init-timeout").empty()) j["init_timeout"] = args.value("--init-timeout");
    if (!args.value("--max-output").empty()) j["max_output_size"] = args.value("--max-output");
    if (!args.value("--pool").empty()) j["pool_size"] = args.number("--pool", 0);
    if (!args.value("--framing").empty()) j["framing"] = args.value("--framing");
    if (auto it = args.options.find("--env"); it != args.options.end()) {
        for (const auto& kv : it->second) {
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) throw UsageError("--env takes NAME=VALUE, got \"" + kv + "\"");
            j["env"][kv.substr(0, eq)] = kv.substr(eq + 1);
        }
    }
    if (!command.empty()) j["command"] = command;
    if (!j.contains("name") || !j.contains("command")) {
        throw UsageError("give -f SPEC.json, or --name NAME -- COMMAND [ARG...]");
    }
    // The same checks as the proxy's, before anything is sent.
    auto spec = api::readEtlSpec(j);
    if (!spec) throw UsageError(spec.error().message);
    auto client = ctx.makeClient();
    auto info = client.etlInit(*spec);
    if (!info) return ctx.fail(info.error());
    printInfo(ctx, *info);
    return kExitOk;
}

int cmdEtlList(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("etl ls takes no arguments");
    auto client = ctx.makeClient();
    auto list = client.etlList();
    if (!list) return ctx.fail(list.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(nlohmann::json(*list)) << "\n";
        return kExitOk;
    }
    Table t({"NAME", "COMM", "STAGE", "OBJECTS", "IN", "OUT", "ERRORS"});
    for (const auto& e : *list) {
        t.add({e.name, e.communication, e.stage, std::to_string(e.objectsIn), formatBytes(e.bytesIn),
               formatBytes(e.bytesOut), std::to_string(e.errors)});
    }
    *ctx.out << t.render();
    if (list->empty()) *ctx.out << "no ETLs\n";
    return kExitOk;
}

int cmdEtlShow(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    auto client = ctx.makeClient();
    auto info = client.etlShow(oneName(args));
    if (!info) return ctx.fail(info.error());
    printInfo(ctx, *info);
    return kExitOk;
}

int cmdEtlLogs(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--target"}, {});
    auto client = ctx.makeClient();
    auto logs = client.etlLogs(oneName(args), args.value("--target"));
    if (!logs) return ctx.fail(logs.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(nlohmann::json(*logs)) << "\n";
        return kExitOk;
    }
    for (const auto& l : *logs) {
        *ctx.out << "== target " << l.target << "\n" << l.log;
        if (!l.log.empty() && l.log.back() != '\n') *ctx.out << "\n";
    }
    return kExitOk;
}

int cmdEtlStart(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    auto client = ctx.makeClient();
    auto info = client.etlStart(oneName(args));
    if (!info) return ctx.fail(info.error());
    printInfo(ctx, *info);
    return kExitOk;
}

int cmdEtlStop(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    auto client = ctx.makeClient();
    auto info = client.etlStop(oneName(args));
    if (!info) return ctx.fail(info.error());
    printInfo(ctx, *info);
    return kExitOk;
}

int cmdEtlRemove(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    const auto name = oneName(args);
    auto client = ctx.makeClient();
    auto st = client.etlRemove(name);
    if (!st) return ctx.fail(st.error());
    if (!ctx.json) *ctx.out << "removed " << name << "\n";
    return kExitOk;
}

int cmdEtlObject(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--args", "--pipeline", "--archpath"}, {});
    if (args.positional.size() < 2 || args.positional.size() > 3) {
        throw UsageError("etl object needs ETL BUCKET/NAME [FILE|-]");
    }
    std::vector<std::string> pipeline{args.positional[0]};
    std::stringstream more(args.value("--pipeline"));
    for (std::string item; std::getline(more, item, ',');) {
        if (item.empty()) throw UsageError("--pipeline: an empty ETL name");
        pipeline.push_back(item);
    }
    auto [bucket, name] = needBucketPath(args.positional[1], "NAME");
    const std::string dest = args.positional.size() == 3 ? args.positional[2] : "-";
    auto client = ctx.makeClient();
    if (dest == "-") {
        client::Sink sink = [&](const char* d, std::size_t n) -> api::Status {
            ctx.out->write(d, static_cast<std::streamsize>(n));
            if (!*ctx.out) return api::Error::ioError("cannot write to stdout");
            return {};
        };
        auto r = client.getTransformed(bucket, name, pipeline, args.value("--args"), sink, args.value("--archpath"));
        if (!r) return ctx.fail(r.error());
        ctx.out->flush();
        return kExitOk;
    }
    // Into FILE.part, renamed once complete: a failed transform leaves no file.
    const std::string part = dest + ".part";
    std::ofstream f(part, std::ios::binary | std::ios::trunc);
    if (!f) return ctx.fail(api::Error::ioError("cannot write " + part));
    std::uint64_t written = 0;
    client::Sink sink = [&](const char* d, std::size_t n) -> api::Status {
        f.write(d, static_cast<std::streamsize>(n));
        written += n;
        if (!f) return api::Error::ioError("cannot write " + part);
        return {};
    };
    auto r = client.getTransformed(bucket, name, pipeline, args.value("--args"), sink, args.value("--archpath"));
    f.close();
    std::error_code ec;
    if (!r || !f) {
        fs::remove(part, ec);
        return ctx.fail(r ? api::Error::ioError("cannot write " + part) : r.error());
    }
    fs::rename(part, dest, ec);
    if (ec) return ctx.fail(api::Error::ioError("cannot rename " + part + " to " + dest, ec.message()));
    if (!ctx.json) *ctx.out << "wrote " << dest << " (" << formatBytes(written) << ")\n";
    return kExitOk;
}

int cmdEtlBucket(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--prefix", "--template", "--list", "--ext", "--sample-ext", "--workers"},
                          {"--per-sample", "--dry-run", "--continue-on-error", "--wait"});
    if (args.positional.size() != 3) throw UsageError("etl bucket needs ETL SRC DST");
    api::EtlBucketMsg msg;
    msg.id = args.positional[0];
    msg.prefix = args.value("--prefix");
    msg.templ = args.value("--template");
    if (!args.value("--list").empty()) {
        std::stringstream names(args.value("--list"));
        for (std::string n; std::getline(names, n, ',');) {
            if (!n.empty()) msg.objnames.push_back(n);
        }
    }
    if (auto it = args.options.find("--ext"); it != args.options.end()) {
        for (const auto& m : it->second) {
            const auto colon = m.find(':');
            if (colon == std::string::npos || colon == 0 || colon + 1 == m.size()) {
                throw UsageError("--ext takes FROM:TO, such as png:jpg");
            }
            msg.ext[m.substr(0, colon)] = m.substr(colon + 1);
        }
    }
    if (auto it = args.options.find("--sample-ext"); it != args.options.end()) msg.sampleExt = it->second;
    msg.perSample = args.has("--per-sample");
    msg.dryRun = args.has("--dry-run");
    msg.continueOnErr = args.has("--continue-on-error");
    msg.numWorkers = static_cast<std::uint32_t>(args.number("--workers", 0));
    if (!msg.prefix.empty() && (!msg.templ.empty() || !msg.objnames.empty())) {
        throw UsageError("--prefix excludes --template and --list");
    }
    auto client = ctx.makeClient();
    auto st = client.etlBucket(args.positional[1], args.positional[2], msg);
    if (!st) return ctx.fail(st.error());
    if (!args.has("--wait")) {
        if (ctx.json) *ctx.out << api::dumpJson(nlohmann::json{{"id", st->id}}) << "\n";
        else *ctx.out << st->id << "\n";
        return kExitOk;
    }
    if (!ctx.json) *ctx.err << "started " << st->id << "\n";
    return waitForJob(ctx, client, st->id, 0);
}

}  // namespace tessera::cli
