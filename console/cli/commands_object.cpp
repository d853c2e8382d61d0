#include "api/json_util.h"
#include "api/object_meta.h"
#include "arg_parser.h"
#include "commands.h"
#include "output.h"
#include "uploader.h"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tessera::cli {

namespace fs = std::filesystem;

namespace {
std::pair<std::string, std::string> needObject(const std::string& arg)
{
    auto [bucket, name] = splitBucketPath(arg);
    if (bucket.empty() || name.empty()) throw UsageError("expected BUCKET/NAME, got \"" + arg + "\"");
    return {bucket, name};
}

nlohmann::json attrsJson(const std::string& bucket, const std::string& name, const client::ObjectAttrs& a)
{
    return {{"bucket", bucket},         {"name", name},       {"size", a.size},
            {"checksum_type", a.checksumType}, {"checksum", a.checksumValue}, {"version", a.version},
            {"atime", a.atimeNs},       {"custom", a.custom}, {"location", a.location}};
}
}  // namespace

int cmdPut(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--workers"}, {"--verify", "--via-proxy"});
    if (args.positional.size() != 2) throw UsageError("put needs FILE|DIR and BUCKET[/NAME]");
    const fs::path src = args.positional[0];
    auto [bucket, dest] = splitBucketPath(args.positional[1]);
    if (bucket.empty()) throw UsageError("missing BUCKET");
    const auto workers = static_cast<unsigned>(args.number("--workers", 8));
    if (workers == 0 || workers > 256) throw UsageError("--workers must be 1..256");

    std::error_code ec;
    std::vector<UploadItem> items;
    if (fs::is_directory(src, ec)) {
        // Object names: DEST/relative/path (DEST may be empty).
        for (auto it = fs::recursive_directory_iterator(src, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (!it->is_regular_file(ec)) continue;
            auto rel = fs::relative(it->path(), src, ec).generic_string();
            std::string name = dest.empty() ? rel : dest + (dest.back() == '/' ? "" : "/") + rel;
            items.push_back({it->path().string(), name, static_cast<std::uint64_t>(it->file_size(ec))});
        }
        if (ec) {
            *ctx.err << "error: cannot walk " << src.string() << ": " << ec.message() << "\n";
            return kExitFailed;
        }
        std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.objectName < b.objectName; });
    } else if (fs::is_regular_file(src, ec)) {
        std::string name = dest.empty() ? src.filename().string() : dest;
        if (!dest.empty() && dest.back() == '/') name = dest + src.filename().string();
        items.push_back({src.string(), name, static_cast<std::uint64_t>(fs::file_size(src, ec))});
    } else {
        *ctx.err << "error: " << src.string() << " is not a file or directory\n";
        return kExitFailed;
    }

    // Bulk uploads go straight to the owning targets unless asked otherwise.
    Uploader up(ctx.endpoint, bucket, workers, args.has("--verify"), !args.has("--via-proxy"), *ctx.err,
                ::isatty(STDERR_FILENO) != 0);
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
        for (const auto& [n, m] : res.failures) *ctx.err << "failed: " << n << ": " << m << "\n";
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
    std::string dest = args.positional.size() == 2 ? args.positional[1] : fs::path(name).filename().string();
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
        *ctx.out << "wrote " << dest << " (" << formatBytes(static_cast<std::uint64_t>(std::max<std::int64_t>(r->size, 0)))
                 << ")\n";
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
    auto client = ctx.makeClient();
    int rc = kExitOk;
    for (const auto& a : args.positional) {
        auto [bucket, name] = needObject(a);
        auto st = client.deleteObject(bucket, name);
        if (!st) {
            *ctx.err << "error: " << a << ": " << st.error().message << "\n";
            rc = kExitFailed;
        } else if (!ctx.json) {
            *ctx.out << "deleted " << a << "\n";
        }
    }
    return rc;
}

}  // namespace tessera::cli
