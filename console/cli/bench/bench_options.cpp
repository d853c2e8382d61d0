#include "bench_options.h"

#include "api/names.h"
#include "arg_parser.h"
#include "client/http_client.h"
#include "spec/size_string.h"

#include <charconv>
#include <cmath>
#include <thread>

namespace tessera::cli::bench {

namespace {

api::Error bad(std::string m) { return api::Error::badRequest(std::move(m)); }

constexpr const char* kModeList = "put, get, mixed, list, shard-read, loose-read, shard-scan, file-put";

// "10s", "500ms", "2m", "1h", or a bare number of seconds.
api::Result<std::chrono::milliseconds> parseDuration(const std::string& opt, const std::string& s)
{
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || !std::isfinite(v) || v < 0) {
        return bad(opt + ": bad duration \"" + s + "\" (e.g. 500ms, 10s, 2m)");
    }
    const std::string unit(p, s.data() + s.size());
    double ms = 0;
    if (unit.empty() || unit == "s") ms = v * 1000;
    else if (unit == "ms") ms = v;
    else if (unit == "m") ms = v * 60'000;
    else if (unit == "h") ms = v * 3'600'000;
    else return bad(opt + ": bad duration unit in \"" + s + "\" (ms, s, m or h)");
    if (ms > std::chrono::duration_cast<std::chrono::milliseconds>(kMaxDuration).count()) {
        return bad(opt + " must be at most 24h");
    }
    return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

api::Result<std::uint64_t> size(const std::string& opt, const std::string& s)
{
    auto v = spec::parseSize(s);
    if (!v) return bad(opt + ": " + v.error().message);
    if (*v > kMaxObjectSize) return bad(opt + " must be at most 4GiB");
    return *v;
}

api::Result<BenchMode> parseMode(const std::string& s)
{
    if (s == "put") return BenchMode::Put;
    if (s == "get") return BenchMode::Get;
    if (s == "mixed") return BenchMode::Mixed;
    if (s == "list") return BenchMode::List;
    if (s == "url-get") return BenchMode::UrlGet;
    if (s == "url-put") return BenchMode::UrlPut;
    if (s == "shard-read") return BenchMode::ShardRead;
    if (s == "loose-read") return BenchMode::LooseRead;
    if (s == "shard-scan") return BenchMode::ShardScan;
    if (s == "file-put") return BenchMode::FilePut;
    return bad("unknown mode \"" + s + "\" (" + std::string(kModeList) + ", or --url-get/--url-put URL)");
}

api::Result<BenchOptions> parse(const std::vector<std::string>& words)
{
    const auto args = parseArgs(
        words, {"--workers",  "--threads", "--duration",  "--count",         "--interval", "--size",     "--min-size",
                "--max-size", "--bucket",  "--prefix",    "--count-objects", "--pct-put",  "--pagesize", "--url-get",
                "--url-put",  "--timeout", "--keepalive", "--dir",           "--fsync",    "--dirs",     "--props"},
        {"--direct", "--verify", "--no-keepalive"});
    BenchOptions o;

    const bool urlGet = args.options.count("--url-get") > 0;
    const bool urlPut = args.options.count("--url-put") > 0;
    if (urlGet && urlPut) return bad("--url-get and --url-put exclude each other");
    if (urlGet || urlPut) {
        if (!args.positional.empty()) return bad("no MODE with --url-get/--url-put");
        o.mode = urlGet ? BenchMode::UrlGet : BenchMode::UrlPut;
        o.url = args.value(urlGet ? "--url-get" : "--url-put");
        auto u = client::parseUrl(o.url);
        const std::string flag = urlGet ? "--url-get" : "--url-put";
        if (!u) return bad(flag + " needs an http:// or https:// URL, got \"" + o.url + "\"");
        o.tls.enabled = u->tls;
        for (const char* opt : {"--bucket", "--prefix", "--pct-put", "--pagesize", "--props", "--fsync", "--dirs"}) {
            if (args.options.count(opt)) return bad(std::string(opt) + " does not apply to --url-get/--url-put");
        }
        if (args.has("--direct")) return bad("--direct does not apply to --url-get/--url-put");
        if (args.has("--verify")) return bad("--verify needs a Tessera checksum header: not with a URL");
        if (args.options.count("--dir")) return bad("--dir applies to shard-scan and file-put");
    } else {
        if (args.positional.empty()) return bad("missing MODE (" + std::string(kModeList) + ")");
        if (args.positional.size() > 1) return bad("unexpected argument \"" + args.positional[1] + "\"");
        auto m = parseMode(args.positional[0]);
        if (!m || *m == BenchMode::UrlGet || *m == BenchMode::UrlPut) {
            return bad("unknown mode \"" + args.positional[0] + "\" (" + std::string(kModeList) + ")");
        }
        o.mode = *m;
        if (o.local()) {
            // Local: shards from a folder (shard-scan) or files into one
            // (file-put), no cluster.
            const std::string name = benchModeName(o.mode);
            o.dir = args.value("--dir");
            if (o.dir.empty()) {
                return bad(name + (o.mode == BenchMode::ShardScan ? " needs --dir DIR (a folder of shard files)"
                                                                  : " needs --dir DIR (the folder to write files in)"));
            }
            for (const char* opt :
                 {"--bucket", "--prefix", "--pct-put", "--pagesize", "--props", "--count-objects", "--keepalive"}) {
                if (args.options.count(opt)) return bad(std::string(opt) + " does not apply to " + name);
            }
            for (const char* opt : {"--direct", "--verify", "--no-keepalive"}) {
                if (args.has(opt)) return bad(std::string(opt) + " does not apply to " + name);
            }
        } else if (args.options.count("--dir")) {
            return bad("--dir applies to shard-scan and file-put");
        }
        if (args.options.count("--fsync")) {
            if (o.mode != BenchMode::FilePut) return bad("--fsync applies to file-put");
            const auto v = args.value("--fsync");
            if (v == "on" || v == "true") o.fsync = true;
            else if (v == "off" || v == "false") o.fsync = false;
            else return bad("--fsync is on or off, got \"" + v + "\"");
        }
        if (args.options.count("--dirs")) {
            if (o.mode != BenchMode::FilePut) return bad("--dirs applies to file-put");
            const auto n = args.number("--dirs", 0);
            if (n == 0 || n > kMaxFileDirs) return bad("--dirs must be 1.." + std::to_string(kMaxFileDirs));
            o.dirs = static_cast<unsigned>(n);
        }
        o.bucket = args.value("--bucket");
        if (o.bucket.empty() && !o.local()) return bad("--bucket is required");
        if (!o.bucket.empty()) {
            // Said here: the cluster's answer to the first call (a HEAD) has no body to say why.
            if (auto st = api::validateBucketName(o.bucket); !st) return bad("--bucket: " + st.error().message);
        }
        o.prefix = args.value("--prefix");
        o.direct = args.has("--direct");
        o.verify = args.has("--verify");
    }

    o.workers = static_cast<unsigned>(std::min<std::uint64_t>(args.number("--workers", o.workers), kMaxWorkers + 1));
    if (o.workers == 0 || o.workers > kMaxWorkers) return bad("--workers must be 1.." + std::to_string(kMaxWorkers));
    o.threads = static_cast<unsigned>(std::min<std::uint64_t>(args.number("--threads", 0), kMaxThreads + 1));
    if (o.threads > kMaxThreads) return bad("--threads must be 1.." + std::to_string(kMaxThreads));
    if (o.threads == 0) {
        // file-put's operations block their thread (fdatasync): one thread
        // per worker, up to the limit, so that they wait together.
        o.threads = o.mode == BenchMode::FilePut
                        ? std::min(o.workers, kMaxThreads)
                        : std::max(1u, std::min(o.workers, std::thread::hardware_concurrency()));
    }
    o.threads = std::min(o.threads, o.workers);

    const bool hasCount = args.options.count("--count") > 0;
    const bool hasDuration = args.options.count("--duration") > 0;
    if (hasCount && hasDuration) return bad("--count and --duration exclude each other");
    if (hasCount) {
        o.count = args.number("--count", 0);
        if (o.count == 0) return bad("--count must be at least 1");
    }
    if (hasDuration) {
        auto d = parseDuration("--duration", args.value("--duration"));
        if (!d) return d.error();
        if (d->count() < 100) return bad("--duration must be at least 100ms");
        o.duration = *d;
    }
    if (args.options.count("--interval")) {
        auto d = parseDuration("--interval", args.value("--interval"));
        if (!d) return d.error();
        if (*d < kMinInterval) return bad("--interval must be at least 100ms");
        o.interval = *d;
    }
    if (args.options.count("--timeout")) {
        auto d = parseDuration("--timeout", args.value("--timeout"));
        if (!d) return d.error();
        if (d->count() < 100) return bad("--timeout must be at least 100ms");
        o.timeout = *d;
    }

    const bool hasSize = args.options.count("--size") > 0;
    const bool hasMin = args.options.count("--min-size") > 0;
    const bool hasMax = args.options.count("--max-size") > 0;
    if (hasSize && (hasMin || hasMax)) return bad("--size excludes --min-size/--max-size");
    if (hasMin != hasMax) return bad("--min-size and --max-size go together");
    if (hasSize) {
        auto s = size("--size", args.value("--size"));
        if (!s) return s.error();
        o.minSize = o.maxSize = *s;
    } else if (hasMin) {
        auto lo = size("--min-size", args.value("--min-size"));
        if (!lo) return lo.error();
        auto hi = size("--max-size", args.value("--max-size"));
        if (!hi) return hi.error();
        if (*lo > *hi) return bad("--min-size is larger than --max-size");
        o.minSize = *lo;
        o.maxSize = *hi;
    }
    const bool sizeGiven = hasSize || hasMin;
    if (sizeGiven && (o.mode == BenchMode::List || o.mode == BenchMode::UrlGet || o.countsSamples())) {
        return bad("--size does not apply to " + std::string(benchModeName(o.mode)));
    }

    if (args.options.count("--count-objects")) {
        if (o.mode != BenchMode::Get && o.mode != BenchMode::Mixed && o.mode != BenchMode::UrlGet) {
            return bad("--count-objects applies to get, mixed and --url-get");
        }
        if (o.mode == BenchMode::UrlGet && o.url.find("{i}") == std::string::npos) {
            return bad("--count-objects with --url-get needs {i} in the URL");
        }
        o.countObjects = args.number("--count-objects", 0);
        if (o.countObjects == 0 || o.countObjects > kMaxCountObjects) {
            return bad("--count-objects must be 1.." + std::to_string(kMaxCountObjects));
        }
    }
    if ((o.mode == BenchMode::Get || o.mode == BenchMode::Mixed) && o.countObjects == 0 && o.prefix.empty()) {
        return bad(std::string(benchModeName(o.mode)) +
                   " reads objects that exist: give --prefix of existing objects, or --count-objects N to "
                   "PUT N objects first");
    }
    if (args.options.count("--pct-put")) {
        if (o.mode != BenchMode::Mixed) return bad("--pct-put applies to mixed");
        o.pctPut = static_cast<unsigned>(std::min<std::uint64_t>(args.number("--pct-put", 50), 101));
        if (o.pctPut > 100) return bad("--pct-put must be 0..100");
    }
    if (args.options.count("--pagesize")) {
        if (o.mode != BenchMode::List) return bad("--pagesize applies to list");
        const auto p = args.number("--pagesize", 0);
        if (p == 0 || p > 10000) return bad("--pagesize must be 1..10000");
        o.pageSize = static_cast<std::uint32_t>(p);
    }
    if (args.options.count("--props")) {
        if (o.mode != BenchMode::List) return bad("--props applies to list");
        auto p = api::parseListProps(args.value("--props"));
        if (!p) return bad("--props: " + p.error().message);
        o.listProps = *p;
    }
    if (o.mode == BenchMode::List && o.direct) return bad("--direct does not apply to list (the proxy merges targets)");
    if (o.verify && o.mode != BenchMode::Get && o.mode != BenchMode::Mixed && o.mode != BenchMode::ShardRead &&
        o.mode != BenchMode::LooseRead) {
        return bad("--verify applies to get, mixed, shard-read and loose-read");
    }
    if (args.has("--no-keepalive")) o.keepalive = false;
    if (args.options.count("--keepalive")) {
        const auto v = args.value("--keepalive");
        if (v == "on" || v == "true") o.keepalive = true;
        else if (v == "off" || v == "false") o.keepalive = false;
        else return bad("--keepalive is on or off, got \"" + v + "\"");
        if (args.has("--no-keepalive")) return bad("--keepalive and --no-keepalive exclude each other");
    }
    return o;
}

}  // namespace

const char* benchModeName(BenchMode mode)
{
    switch (mode) {
    case BenchMode::Put: return "put";
    case BenchMode::Get: return "get";
    case BenchMode::Mixed: return "mixed";
    case BenchMode::List: return "list";
    case BenchMode::UrlGet: return "url-get";
    case BenchMode::UrlPut: return "url-put";
    case BenchMode::ShardRead: return "shard-read";
    case BenchMode::LooseRead: return "loose-read";
    case BenchMode::ShardScan: return "shard-scan";
    case BenchMode::FilePut: return "file-put";
    }
    return "?";
}

api::Result<BenchOptions> parseBenchOptions(const std::vector<std::string>& args)
{
    // parseArgs and ParsedArgs::number report with UsageError, the CLI's
    // convention; here every failure is a value.
    try {
        return parse(args);
    } catch (const UsageError& e) {
        return bad(e.what());
    }
}

}  // namespace tessera::cli::bench
