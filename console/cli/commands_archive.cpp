// tessera archive ls|get|put: a shard's members as if they were objects.
#include "api/json_util.h"
#include "arg_parser.h"
#include "commands.h"
#include "output.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace tessera::cli {

namespace fs = std::filesystem;

namespace {

std::pair<std::string, std::string> needShard(const std::string& arg) { return needBucketPath(arg, "SHARD"); }

}  // namespace

int cmdArchiveList(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError("archive ls needs BUCKET/SHARD");
    auto [bucket, shard] = needShard(args.positional[0]);
    auto client = ctx.makeClient();
    auto entries = client.listArchive(bucket, shard);
    if (!entries) return ctx.fail(entries.error());
    // listArchive walks every page, so what it returns is complete.
    const std::string prefix = shard + "/";
    std::uint64_t bytes = 0;
    std::size_t members = 0;
    nlohmann::json all = nlohmann::json::array();
    Table t({"MEMBER", "SIZE"});
    for (const auto& e : *entries) {
        if (!(e.flags & api::kEntryInArch)) continue;
        ++members;
        bytes += static_cast<std::uint64_t>(std::max<std::int64_t>(e.size, 0));
        const auto member = e.name.substr(prefix.size());
        all.push_back({{"name", member}, {"size", e.size}});
        t.add({member, std::to_string(e.size)});
    }
    if (ctx.json) {
        *ctx.out << api::dumpJson({{"shard", bucket + "/" + shard}, {"members", all}, {"complete", true}}) << "\n";
        return kExitOk;
    }
    if (members > 0) *ctx.out << t.render();
    *ctx.out << members << (members == 1 ? " member, " : " members, ") << formatBytes(bytes) << ", listing complete\n";
    return kExitOk;
}

int cmdArchiveGet(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--regex", "--mode", "--wdskey", "--mime"}, {});
    if (args.positional.empty()) throw UsageError("archive get needs BUCKET/SHARD");
    auto [bucket, shard] = needShard(args.positional[0]);
    client::ArchiveSelect sel;
    sel.mime = args.value("--mime");
    std::size_t outArg = 1;
    const bool regex = !args.value("--regex").empty();
    const bool wds = !args.value("--wdskey").empty();
    if (regex && wds) throw UsageError("--regex and --wdskey exclude each other");
    if (regex) {
        sel.regex = args.value("--regex");
        sel.mode = args.value("--mode", "regexp");
    } else if (wds) {
        if (!args.value("--mode").empty()) throw UsageError("--mode goes with --regex");
        sel.regex = args.value("--wdskey");
        sel.mode = "wdskey";
    } else {
        if (!args.value("--mode").empty()) throw UsageError("--mode goes with --regex");
        if (args.positional.size() < 2) throw UsageError("archive get needs MEMBER, --regex R or --wdskey KEY");
        sel.member = args.positional[1];
        outArg = 2;
    }
    if (args.positional.size() > outArg + 1) throw UsageError("too many arguments");
    // Default output: the member's file name, or SHARD-STEM.tar for a selection.
    std::string dest;
    if (args.positional.size() == outArg + 1) {
        dest = args.positional[outArg];
    } else if (!sel.member.empty()) {
        dest = fs::path(sel.member).filename().string();
    } else {
        dest = fs::path(shard).stem().string() + "-selection.tar";
    }
    auto client = ctx.makeClient();
    if (dest == "-") {
        client::Sink sink = [&](const char* d, std::size_t n) -> api::Status {
            ctx.out->write(d, static_cast<std::streamsize>(n));
            if (!*ctx.out) return api::Error::ioError("cannot write to stdout");
            return {};
        };
        auto r = client.getFromArchive(bucket, shard, sel, sink);
        if (!r) return ctx.fail(r.error());
        ctx.out->flush();
        return kExitOk;
    }
    std::error_code ec;
    if (fs::is_directory(dest, ec)) {
        dest = (fs::path(dest) / (sel.member.empty() ? fs::path(shard).stem().string() + "-selection.tar"
                                                     : fs::path(sel.member).filename().string()))
                   .string();
    }
    // Written whole or not at all: a temporary name renamed on success.
    const std::string tmp = dest + ".part";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) return ctx.fail(api::Error::ioError("cannot create " + tmp));
    std::uint64_t written = 0;
    client::Sink sink = [&](const char* d, std::size_t n) -> api::Status {
        if (std::fwrite(d, 1, n, f) != n) return api::Error::ioError("cannot write " + tmp);
        written += n;
        return {};
    };
    auto r = client.getFromArchive(bucket, shard, sel, sink);
    const bool closed = std::fclose(f) == 0;
    if (!r || !closed) {
        fs::remove(tmp, ec);
        return ctx.fail(r ? api::Error::ioError("cannot write " + dest) : r.error());
    }
    fs::rename(tmp, dest, ec);
    if (ec) {
        fs::remove(tmp, ec);
        return ctx.fail(api::Error::ioError("cannot rename into " + dest));
    }
    if (ctx.json) {
        *ctx.out << api::dumpJson({{"shard", bucket + "/" + shard}, {"file", dest}, {"size", written}}) << "\n";
    } else {
        *ctx.out << "wrote " << dest << " (" << formatBytes(written) << ")\n";
    }
    return kExitOk;
}

int cmdArchivePut(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--mime"}, {"--append"});
    // Only appending exists: a whole shard is uploaded with "tessera put".
    if (!args.has("--append")) throw UsageError("archive put needs --append (a whole shard goes with \"put\")");
    if (args.positional.size() != 3) throw UsageError("archive put --append needs FILE BUCKET/SHARD MEMBER");
    const auto& file = args.positional[0];
    auto [bucket, shard] = needShard(args.positional[1]);
    const auto& member = args.positional[2];
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return ctx.fail(api::Error::badRequest(file + " is not a regular file"));
    auto client = ctx.makeClient();
    auto r = client.appendFileToArchive(bucket, shard, member, file, args.value("--mime"));
    if (!r) return ctx.fail(r.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson({{"shard", bucket + "/" + shard},
                                   {"member", member},
                                   {"shard_size", r->size},
                                   {"version", r->version}})
                 << "\n";
    } else {
        *ctx.out << "appended " << member << " to " << bucket << "/" << shard << " (shard now "
                 << formatBytes(static_cast<std::uint64_t>(std::max<std::int64_t>(r->size, 0))) << ", version "
                 << r->version << ")\n";
    }
    return kExitOk;
}

}  // namespace tessera::cli
