#include "api/json_util.h"
#include "api/object_meta.h"
#include "arg_parser.h"
#include "commands.h"
#include "output.h"
#include "uploader.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tessera::cli {

namespace fs = std::filesystem;

namespace {
std::pair<std::string, std::string> needObject(const std::string& arg) { return needBucketPath(arg, "NAME"); }

nlohmann::json attrsJson(const std::string& bucket, const std::string& name, const client::ObjectAttrs& a)
{
    return {{"bucket", bucket},
            {"name", name},
            {"size", a.size},
            {"checksum_type", a.checksumType},
            {"checksum", a.checksumValue},
            {"version", a.version},
            {"atime", a.atimeNs},
            {"custom", a.custom},
            {"location", a.location}};
}
}  // namespace

int cmdPut(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--workers", "--prefix"}, {"--verify", "--via-proxy"});
    if (args.positional.size() != 2) throw UsageError("put needs FILE|DIR and BUCKET[/NAME]");
    const fs::path src = args.positional[0];
    auto [bucket, dest] = splitBucketPath(args.positional[1]);
    if (bucket.empty()) throw UsageError("missing BUCKET");
    const auto workers = static_cast<unsigned>(args.number("--workers", 8));
    if (workers == 0 || workers > 256) throw UsageError("--workers must be 1..256");
    // --prefix is prepended verbatim to every object name ("img/" or "run1-").
    const std::string prefix = args.value("--prefix");

    std::error_code ec;
    std::vector<UploadItem> items;
    if (fs::is_directory(src, ec)) {
        // Object names: PREFIX + DEST/ + the path below DIR, '/'-separated.
        // lexically_relative, not fs::relative: the latter resolves symlinks
        // and would name a linked file after its target.
        const std::string base = dest.empty() || dest.back() == '/' ? dest : dest + "/";
        for (auto it = fs::recursive_directory_iterator(src, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            std::error_code fileEc;
            if (!it->is_regular_file(fileEc)) continue;  // directories, sockets, dangling links
            const auto size = it->file_size(fileEc);
            if (fileEc) continue;
            const auto rel = it->path().lexically_relative(src).generic_string();
            items.push_back({it->path().string(), prefix + base + rel, static_cast<std::uint64_t>(size)});
        }
        if (ec) {
            *ctx.err << "error: cannot walk " << src.string() << ": " << ec.message() << "\n";
            return kExitFailed;
        }
        std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.objectName < b.objectName; });
    } else if (fs::is_regular_file(src, ec)) {
        std::string name = dest.empty() ? src.filename().string() : dest;
        if (!dest.empty() && dest.back() == '/') name = dest + src.filename().string();
        const auto size = fs::file_size(src, ec);
        if (ec) {
            *ctx.err << "error: cannot read " << src.string() << ": " << ec.message() << "\n";
            return kExitFailed;
        }
        items.push_back({src.string(), prefix + name, static_cast<std::uint64_t>(size)});
    } else {
        *ctx.err << "error: " << src.string() << " is not a file or directory\n";
        return kExitFailed;
    }

    // One request first: a missing bucket or an unreachable cluster is one
    // clear error, not the same failure once per file.
    {
        auto client = ctx.makeClient();
        auto props = client.bucketProps(bucket);
        if (!props) return ctx.fail(props.error());
    }

    // Bulk uploads go straight to the owning targets unless asked otherwise.
    // With a token the uploads go through the proxy: a target takes only an
    // admin's token directly, anyone's through the proxy's signed redirect.
    Uploader up(ctx.endpoint, bucket, workers, args.has("--verify"), !args.has("--via-proxy") && ctx.token.empty(),
                *ctx.err, ::isatty(STDERR_FILENO) != 0);
    up.setClientOptions(ctx.clientOptions());
    auto res = up.run(items);
    const double rate = res.seconds > 0 ? static_cast<double>(res.bytes) / res.seconds : 0;
    if (ctx.json) {
        nlohmann::json failures = nlohmann::json::array();
        for (const auto& [n, m] : res.failures) failures.push_back({{"name", n}, {"error", m}});
        *ctx.out << api::dumpJson({{"bucket", bucket},
                                   {"uploaded", res.objects},
                                   {"bytes", res.bytes},
                                   {"seconds", res.seconds},
                                   {"failed", failures}})
                 << "\n";
    } else {
        constexpr std::size_t kShownFailures = 20;
        for (std::size_t i = 0; i < res.failures.size() && i < kShownFailures; ++i) {
            *ctx.err << "failed: " << res.failures[i].first << ": " << res.failures[i].second << "\n";
        }
        if (res.failures.size() > kShownFailures) {
            *ctx.err << "... and " << res.failures.size() - kShownFailures << " more failures (--json lists all)\n";
        }
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.2f", res.seconds);
        *ctx.out << "uploaded " << res.objects << " object(s), " << formatBytes(res.bytes) << " in " << secs << " s ("
                 << formatRate(rate) << "), " << res.failures.size() << " failed\n";
    }
    return res.failures.empty() ? kExitOk : kExitFailed;
}

int cmdGet(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.empty() || args.positional.size() > 2) throw UsageError("get needs BUCKET/NAME [FILE|-]");
    auto [bucket, name] = needObject(args.positional[0]);
    const std::string baseName = fs::path(name).filename().string();
    std::string dest = args.positional.size() == 2 ? args.positional[1] : baseName;
    if (dest != "-") {
        std::error_code ec;
        if (fs::is_directory(dest, ec)) dest = (fs::path(dest) / baseName).string();
        if (baseName.empty() && (args.positional.size() == 1 || fs::is_directory(args.positional[1], ec))) {
            throw UsageError("\"" + name + "\" has no file name; give FILE");
        }
    }
    auto client = ctx.makeClient();
    if (dest == "-") {
        client::Sink sink = [&](const char* d, std::size_t n) -> api::Status {
            ctx.out->write(d, static_cast<std::streamsize>(n));
            if (!*ctx.out) return api::Error::ioError("cannot write to stdout");
            return {};
        };
        auto r = client.getToSink(bucket, name, sink);
        if (!r) return ctx.fail(r.error());
        ctx.out->flush();
        return kExitOk;
    }
    auto r = client.getToFile(bucket, name, dest);
    if (!r) return ctx.fail(r.error());
    if (ctx.json) {
        auto j = attrsJson(bucket, name, *r);
        j["file"] = dest;
        *ctx.out << api::dumpJson(j) << "\n";
    } else {
        *ctx.out << "wrote " << dest << " ("
                 << formatBytes(static_cast<std::uint64_t>(std::max<std::int64_t>(r->size, 0))) << ")\n";
    }
    return kExitOk;
}

int cmdCat(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError("cat needs BUCKET/NAME");
    ctx.args = {args.positional[0], "-"};
    return cmdGet(ctx);
}

int cmdHead(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError("head needs BUCKET/NAME");
    auto [bucket, name] = needObject(args.positional[0]);
    auto client = ctx.makeClient();
    auto r = client.headObject(bucket, name);
    if (!r) return ctx.fail(r.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(attrsJson(bucket, name, *r)) << "\n";
        return kExitOk;
    }
    Table t({"PROPERTY", "VALUE"});
    t.add({"name", bucket + "/" + name});
    t.add({"size", std::to_string(r->size) + " (" + formatBytes(static_cast<std::uint64_t>(r->size)) + ")"});
    t.add({"checksum", r->checksumType + " " + r->checksumValue});
    t.add({"version", r->version});
    t.add({"atime", api::formatRfc3339(r->atimeNs)});
    t.add({"target", r->location});
    if (!r->custom.empty()) t.add({"custom", api::formatCustomMd(r->custom)});
    *ctx.out << t.render();
    return kExitOk;
}

int cmdRemove(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.empty()) throw UsageError("rm needs at least one BUCKET/NAME");
    std::vector<std::pair<std::string, std::string>> objects;
    for (const auto& a : args.positional) objects.push_back(needObject(a));  // all checked before any is deleted
    auto client = ctx.makeClient();
    nlohmann::json deleted = nlohmann::json::array();
    nlohmann::json failed = nlohmann::json::array();
    for (std::size_t i = 0; i < objects.size(); ++i) {
        const auto& [bucket, name] = objects[i];
        const auto& arg = args.positional[i];
        auto st = client.deleteObject(bucket, name);
        if (!st) {
            std::string message = st.error().message;
            if (!st.error().causedBy.empty()) message += " (" + st.error().causedBy + ")";
            *ctx.err << "error: " << arg << ": " << message << "\n";
            failed.push_back({{"name", arg}, {"error", message}});
            continue;
        }
        deleted.push_back(arg);
        if (!ctx.json) *ctx.out << "deleted " << arg << "\n";
    }
    if (ctx.json) *ctx.out << api::dumpJson({{"deleted", deleted}, {"failed", failed}}) << "\n";
    return failed.empty() ? kExitOk : kExitFailed;
}

}  // namespace tessera::cli
