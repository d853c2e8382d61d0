// tessera bench: wires the options, the setup the mode needs (bucket, the
// objects to read, the cluster map), the load generator and the report.
#include "bench/bench_connection.h"
#include "bench/bench_options.h"
#include "bench/bench_report.h"
#include "bench/bench_workload.h"
#include "bench/file_put.h"
#include "bench/load_generator.h"
#include "bench/shard_tally.h"
#include "commands.h"
#include "spec/size_string.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <ostream>
#include <sys/stat.h>

namespace tessera::cli {

namespace {

using namespace bench;

// PUTs `count` objects named prefix + "obj-%08u" with the run's workers and
// sizes, quietly: the objects get and mixed then read.
api::Status preload(const BenchOptions& options, const HostPort& endpoint, const api::Smap* smap)
{
    BenchOptions put = options;
    put.mode = BenchMode::Put;
    put.count = options.countObjects;
    put.verify = false;
    const BenchWorkload workload(put, endpoint, smap, {});
    const auto totals = LoadGenerator(put, workload).run([](const IntervalSample&) {});
    const auto& c = totals.counters[static_cast<std::size_t>(OpKind::Put)];
    if (c.errors > 0 || c.ops != options.countObjects) {
        return api::Error::ioError("preloading " + std::to_string(options.countObjects) +
                                       " objects: " + std::to_string(c.errors) + " PUTs failed",
                                   totals.errorSamples.empty() ? "" : totals.errorSamples.front());
    }
    return {};
}

int runBench(CliContext& ctx, const BenchOptions& options, const BenchWorkload& workload, const std::string& target,
             const std::string& setup)
{
    BenchReport report(options, *ctx.out, ctx.json);
    report.begin(target, setup);
    const auto totals = LoadGenerator(options, workload).run([&](const IntervalSample& s) { report.interval(s); });
    report.summary(totals);
    std::uint64_t errors = 0, ops = 0;
    for (const auto& c : totals.counters) {
        errors += c.errors;
        ops += c.ops;
    }
    const bool neverStarted = ops == 0 && !totals.errorSamples.empty();
    return errors == 0 && !neverStarted ? kExitOk : kExitFailed;
}

}  // namespace

int cmdBench(CliContext& ctx)
{
    auto parsed = parseBenchOptions(ctx.args);
    if (!parsed) throw UsageError(parsed.error().message);
    const BenchOptions& options = *parsed;
    // https:// endpoints: the CLI's --ca-file / --insecure, checked before the run.
    parsed.value().tls.caFile = ctx.tls.caFile;
    parsed.value().tls.insecure = ctx.tls.insecure;
    const auto checkTls = [&] {
        if (!options.tls.enabled) return;
        if (auto tls = makeTlsContext(options.tls.caFile, options.tls.insecure); !tls)
            throw UsageError(tls.error().message);
    };

    if (options.mode == BenchMode::UrlGet || options.mode == BenchMode::UrlPut) {
        checkTls();
        const BenchWorkload workload(options);
        std::string setup;
        if (options.countObjects > 0) {
            setup = "{i} takes " + std::to_string(options.countObjects) + " values, 00000000.." +
                    BenchWorkload::indexedName("", options.countObjects - 1).substr(4);
        }
        return runBench(ctx, options, workload, options.url, setup);
    }
    if (options.mode == BenchMode::FilePut) {
        struct stat st {};
        if (::stat(options.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
            throw UsageError("--dir " + options.dir + " is not a directory");
        }
        for (unsigned i = 0; i < options.dirs; ++i) {
            const std::string dir = options.dir + "/" + BenchWorkload::fileDir(i);
            const std::string work = dir + "/" + std::string(kFileWorkDir);
            for (const auto& d : {dir, work}) {
                if (::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) {
                    *ctx.err << "error: cannot create " << d << ": " << std::strerror(errno) << "\n";
                    return kExitFailed;
                }
            }
        }
        const std::string setup = "files written under " + options.dir + " in " + std::to_string(options.dirs) +
                                  " folder(s) as a target commits objects (" +
                                  (options.fsync ? "fdatasync, rename, folder fsync" : "no fsync") +
                                  "); they are left there";
        const BenchWorkload workload(options);
        return runBench(ctx, options, workload, options.dir, setup);
    }
    if (options.mode == BenchMode::ShardScan) {
        auto shards = loadShardDir(options.dir, kMaxScanBytes);
        if (!shards) throw UsageError(shards.error().message);
        std::uint64_t bytes = 0;
        for (const auto& s : *shards) bytes += s.data.size();
        const std::string setup = "parsing " + std::to_string(shards->size()) + " shards (" + spec::formatSize(bytes) +
                                  ") from memory with libarchive";
        const BenchWorkload workload(options, std::move(shards.value()));
        return runBench(ctx, options, workload, options.dir, setup);
    }

    auto url = client::parseUrl(ctx.endpoint);
    if (!url) throw UsageError("bench needs an http:// or https:// endpoint, got \"" + ctx.endpoint + "\"");
    parsed.value().tls.enabled = url->tls;
    checkTls();
    const HostPort endpoint{url->host, url->port};
    // The session's token goes to the cluster's endpoints (auth on).
    if (!ctx.token.empty()) parsed.value().authorization = "Bearer " + ctx.token;
    auto client = ctx.makeClient();

    const bool writes = options.mode == BenchMode::Put || options.mode == BenchMode::Mixed || options.countObjects > 0;
    std::string setup;
    auto props = client.bucketProps(options.bucket);
    if (!props) {
        if (props.kind() != api::ErrorKind::NotFound || !writes) return ctx.fail(props.error());
        if (auto st = client.createBucket(options.bucket); !st) return ctx.fail(st.error());
        setup = "created bucket " + options.bucket + "\n";
    }

    std::unique_ptr<api::Smap> smap;
    if (options.direct) {
        auto s = client.smap();
        if (!s) return ctx.fail(s.error());
        if (s->tmap.empty()) {
            *ctx.err << "error: the cluster map has no targets\n";
            return kExitFailed;
        }
        smap = std::make_unique<api::Smap>(std::move(s.value()));
    }

    std::vector<std::string> pool;
    if (options.countObjects > 0) {
        if (auto st = preload(options, endpoint, smap.get()); !st) return ctx.fail(st.error());
        for (std::uint64_t i = 0; i < options.countObjects; ++i) {
            pool.push_back(BenchWorkload::indexedName(options.prefix, i));
        }
        setup += "PUT " + std::to_string(options.countObjects) + " objects of " + spec::formatSize(options.minSize) +
                 (options.fixedSize() ? "" : ".." + spec::formatSize(options.maxSize)) + " first (" + pool.front() +
                 (pool.size() > 1 ? ".." + pool.back() : "") + ")";
    } else if (options.mode == BenchMode::Get || options.mode == BenchMode::Mixed ||
               options.mode == BenchMode::ShardRead || options.mode == BenchMode::LooseRead) {
        auto names = client.listAll(options.bucket, options.prefix, api::kPropName);
        if (!names) return ctx.fail(names.error());
        if (names->empty()) {
            *ctx.err << "error: no objects under " << options.bucket << "/" << options.prefix << " to read"
                     << (options.mode == BenchMode::ShardRead || options.mode == BenchMode::LooseRead
                             ? "\n"
                             : " (--count-objects N PUTs some first)\n");
            return kExitFailed;
        }
        for (auto& e : *names) {
            if (options.mode == BenchMode::ShardRead && !archive::formatFromName(e.name)) {
                *ctx.err << "error: " << options.bucket << "/" << e.name
                         << " is not a shard (.tar, .tgz, .tar.gz, .tar.lz4, .zip); narrow it out with --prefix\n";
                return kExitFailed;
            }
            pool.push_back(std::move(e.name));
        }
        setup += "reading " + std::to_string(pool.size()) + " existing objects under " + options.bucket + "/" +
                 options.prefix;
    }

    const BenchWorkload workload(options, endpoint, smap.get(), std::move(pool));
    return runBench(ctx, options, workload, ctx.endpoint + " bucket " + options.bucket, setup);
}

}  // namespace tessera::cli
