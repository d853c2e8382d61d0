// `tessera demo fashion-mnist`: Debian's Fashion-MNIST as WebDataset samples,
// uploaded as loose objects, then sharded by an ishard job.

#include "api/json_util.h"
#include "api/object_list.h"
#include "arg_parser.h"
#include "commands.h"
#include "demo/fashion_mnist.h"
#include "output.h"
#include "spec/size_string.h"
#include "uploader.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <thread>
#include <unistd.h>

namespace tessera::cli {

namespace fs = std::filesystem;

namespace {

// Creates the bucket when missing; true when it already holds objects.
api::Result<bool> prepareBucket(client::Client& client, const std::string& bucket)
{
    if (auto props = client.bucketProps(bucket); props) {
        api::ListRequest one;
        one.pageSize = 1;
        auto page = client.listObjects(bucket, one);
        if (!page) return page.error();
        return !page->entries.empty();
    } else if (props.kind() != api::ErrorKind::NotFound) {
        return props.error();
    }
    auto created = client.createBucket(bucket);
    if (!created) return created.error();
    return false;
}

// The samples of `raw` into shards of `sharded` (alpha order, every
// sample with its .png, .cls and .json), waiting for the job.
api::Result<api::JobStatus> shard(CliContext& ctx, client::Client& client, const std::string& raw,
                                  const std::string& sharded, std::uint64_t shardSize)
{
    spec::IshardSpec s;
    s.srcBck = raw;
    s.dstBck = sharded;
    s.shardSize = shardSize;
    s.order = spec::SampleOrder::Alpha;
    s.missingExt = spec::MissingExtAction::Abort;
    s.sampleExts = {".cls", ".json", ".png"};
    auto st = client.startIshard(s);
    if (!st) return st.error();
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    while (true) {
        auto now = client.job(st->id);
        if (!now) return now.error();
        if (api::isFinal(now->state)) {
            if (tty) *ctx.err << "\n";
            return now;
        }
        if (tty) {
            *ctx.err << "\rsharding: " << now->progress.objectsDone << "/"
                     << (now->progress.objectsTotal < 0 ? std::string("?") : std::to_string(now->progress.objectsTotal))
                     << " objects   " << std::flush;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

}  // namespace

int cmdDemoFashionMnist(CliContext& ctx)
{
    auto args =
        parseArgs(ctx.args, {"--source", "--bucket", "--limit", "--workers", "--out", "--shard-bucket", "--shard-size"},
                  {"--force", "--no-shard"});
    if (!args.positional.empty()) throw UsageError("demo fashion-mnist takes no positional arguments");
    const auto source = args.value("--source", demo::kFashionMnistDir);
    const auto bucket = args.value("--bucket", "fashion-mnist-raw");
    const auto sharded = args.value("--shard-bucket", "fashion-mnist");
    const auto limit = args.number("--limit", 0);
    const auto workers = args.number("--workers", 16);
    if (workers < 1 || workers > 256) throw UsageError("--workers must be 1..256");
    auto shardSize = spec::parseSize(args.value("--shard-size", "10MiB"));
    if (!shardSize) throw UsageError("--shard-size: " + shardSize.error().message);
    const bool force = args.has("--force");
    const bool doShard = !args.has("--no-shard");

    auto client = ctx.makeClient();
    auto rawLoaded = prepareBucket(client, bucket);
    if (!rawLoaded) return ctx.fail(rawLoaded.error());
    bool shardedLoaded = false;
    if (doShard) {
        auto s = prepareBucket(client, sharded);
        if (!s) return ctx.fail(s.error());
        shardedLoaded = *s;
    }
    if (*rawLoaded && !force) {
        if (!doShard || shardedLoaded) {
            *ctx.out << "bucket \"" << bucket << "\" already holds objects"
                     << (doShard ? " and \"" + sharded + "\" its shards" : std::string()) << "; nothing to do "
                     << "(--force loads again)\n";
            return kExitOk;
        }
        // Loaded but not sharded (an interrupted first run): shard only.
        *ctx.out << "bucket \"" << bucket << "\" already holds objects; sharding them into \"" << sharded << "\"\n";
        auto job = shard(ctx, client, bucket, sharded, *shardSize);
        if (!job) return ctx.fail(job.error());
        if (ctx.json) {
            *ctx.out << api::dumpJson({{"bucket", bucket}, {"shard_bucket", sharded}, {"shard_job", *job}}) << "\n";
        } else {
            *ctx.out << "ishard " << job->id << ": " << api::jobStateName(job->state) << ", "
                     << job->progress.objectsDone << " objects into \"" << sharded << "\"\n";
        }
        return job->state == api::JobState::Finished ? kExitOk : kExitFailed;
    }

    // Convert into files (a temporary directory unless --out), then upload
    // them with the parallel uploader, straight to the owning targets.
    const bool keep = !args.value("--out").empty();
    std::string dir = args.value("--out");
    if (!keep) {
        std::string tmpl = (fs::temp_directory_path() / "tessera-fmnist-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr)
            return ctx.fail(api::Error::ioError("cannot create a temporary directory"));
        dir = tmpl;
    }
    std::vector<UploadItem> items;
    auto summary =
        demo::convertFashionMnist(source, limit, [&](const std::string& name, const std::string& bytes) -> api::Status {
            const fs::path path = fs::path(dir) / name;
            std::error_code ec;
            fs::create_directories(path.parent_path(), ec);
            std::ofstream f(path, std::ios::binary | std::ios::trunc);
            f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
            if (!f) return api::Error::ioError("cannot write " + path.string());
            items.push_back({path.string(), name, bytes.size()});
            return {};
        });
    if (!summary) {
        if (!keep) fs::remove_all(dir);
        return ctx.fail(summary.error());
    }
    // Straight to the targets, unless a token is sent (see cmdPut).
    Uploader up(ctx.endpoint, bucket, static_cast<unsigned>(workers), false, ctx.token.empty(), *ctx.err,
                ::isatty(STDERR_FILENO) != 0);
    up.setClientOptions(ctx.clientOptions());
    auto res = up.run(items);
    if (!keep) fs::remove_all(dir);
    // Shards only from a complete upload (ishard would abort on a sample
    // missing a file anyway), and always after --force: the raw objects changed.
    std::optional<api::Result<api::JobStatus>> job;
    if (doShard && res.failures.empty() && (!shardedLoaded || force)) {
        job.emplace(shard(ctx, client, bucket, sharded, *shardSize));
    }
    const bool jobOk = !job || (*job && (*job)->state == api::JobState::Finished);
    if (ctx.json) {
        nlohmann::json doc{{"bucket", bucket},
                           {"samples", summary->samples},
                           {"objects", res.objects},
                           {"bytes", res.bytes},
                           {"seconds", res.seconds},
                           {"per_class", summary->perClass},
                           {"failed", res.failures.size()}};
        if (job && *job) doc["shard_job"] = **job;
        if (job) doc["shard_bucket"] = sharded;
        if (job && !*job) doc["shard_error"] = job->error().message;
        *ctx.out << api::dumpJson(doc) << "\n";
    } else {
        *ctx.out << summary->samples << " samples (" << summary->files << " objects, " << formatBytes(summary->bytes)
                 << ") converted; " << res.objects << " uploaded to \"" << bucket << "\" in " << res.seconds << " s\n";
        for (std::size_t c = 0; c < demo::kFashionClasses.size(); ++c) {
            *ctx.out << "  " << c << " " << demo::kFashionClasses[c] << ": " << summary->perClass[c] << "\n";
        }
        for (std::size_t i = 0; i < res.failures.size() && i < 10; ++i) {
            *ctx.err << "failed: " << res.failures[i].first << ": " << res.failures[i].second << "\n";
        }
        if (job && *job) {
            *ctx.out << "ishard " << (*job)->id << ": " << api::jobStateName((*job)->state) << ", "
                     << (*job)->progress.objectsDone << " objects into \"" << sharded << "\""
                     << ((*job)->error.empty() ? "" : ": " + (*job)->error) << "\n";
        } else if (job) {
            *ctx.err << "error: sharding into \"" << sharded << "\": " << job->error().message << "\n";
        }
    }
    return res.failures.empty() && jobOk ? kExitOk : kExitFailed;
}

}  // namespace tessera::cli
