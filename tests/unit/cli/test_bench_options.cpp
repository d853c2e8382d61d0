// tessera bench's command line: what each mode needs, every limit, and the
// exact message for each malformed or contradictory combination.
#include "bench/bench_options.h"

#include <QTest>

using namespace tessera;
using namespace tessera::cli::bench;

namespace {
api::Result<BenchOptions> parse(std::initializer_list<const char*> words)
{
    std::vector<std::string> args;
    for (const char* w : words) args.emplace_back(w);
    return parseBenchOptions(args);
}
}  // namespace

class TestBenchOptions : public QObject {
    Q_OBJECT

private slots:
    void defaults()
    {
        auto o = parse({"put", "--bucket", "bench-b"});
        QVERIFY(o.ok());
        QCOMPARE(o->mode, BenchMode::Put);
        QCOMPARE(o->workers, 16u);
        QVERIFY(o->threads >= 1 && o->threads <= 16);
        QCOMPARE(o->count, std::uint64_t{0});
        QCOMPARE(o->duration.count(), 10000);
        QCOMPARE(o->minSize, std::uint64_t{1024});
        QCOMPARE(o->maxSize, std::uint64_t{1024});
        QVERIFY(o->keepalive);
        QVERIFY(!o->direct);
        QVERIFY(!o->verify);
    }

    void listProps()
    {
        auto o = parse({"list", "--bucket", "bench-b"});
        QVERIFY(o.ok());
        QCOMPARE(o->listProps, std::uint32_t{api::kPropName});
        o = parse({"list", "--bucket", "bench-b", "--props", "name,size", "--pagesize", "10000"});
        QVERIFY(o.ok());
        QCOMPARE(o->listProps, std::uint32_t{api::kPropName | api::kPropSize});
        QCOMPARE(o->pageSize, 10000u);
    }

    void everyKnob()
    {
        auto o = parse({"mixed",           "--bucket=bench-b",
                        "--prefix",        "p/",
                        "--workers",       "64",
                        "--threads",       "2",
                        "--count",         "5000",
                        "--min-size",      "1KiB",
                        "--max-size",      "1MiB",
                        "--pct-put",       "30",
                        "--count-objects", "100",
                        "--direct",        "--verify",
                        "--keepalive",     "off",
                        "--interval",      "500ms",
                        "--timeout",       "2s"});
        QVERIFY2(o.ok(), o.ok() ? "" : o.error().message.c_str());
        QCOMPARE(o->mode, BenchMode::Mixed);
        QCOMPARE(o->bucket, std::string("bench-b"));
        QCOMPARE(o->prefix, std::string("p/"));
        QCOMPARE(o->workers, 64u);
        QCOMPARE(o->threads, 2u);
        QCOMPARE(o->count, std::uint64_t{5000});
        QCOMPARE(o->minSize, std::uint64_t{1024});
        QCOMPARE(o->maxSize, std::uint64_t{1} << 20);
        QCOMPARE(o->pctPut, 30u);
        QCOMPARE(o->countObjects, std::uint64_t{100});
        QVERIFY(o->direct);
        QVERIFY(o->verify);
        QVERIFY(!o->keepalive);
        QCOMPARE(o->interval.count(), 500);
        QCOMPARE(o->timeout.count(), 2000);
    }

    void durations()
    {
        QCOMPARE(parse({"put", "--bucket", "bbb", "--duration", "2m"})->duration.count(), 120000);
        QCOMPARE(parse({"put", "--bucket", "bbb", "--duration", "1.5"})->duration.count(), 1500);
        QCOMPARE(parse({"put", "--bucket", "bbb", "--duration", "250ms"})->duration.count(), 250);
        QCOMPARE(parse({"put", "--bucket", "bbb", "--duration", "1h"})->duration.count(), 3600000);
    }

    void urlModes()
    {
        auto g = parse({"--url-get", "http://127.0.0.1:8081/f", "--workers", "64"});
        QVERIFY(g.ok());
        QCOMPARE(g->mode, BenchMode::UrlGet);
        QCOMPARE(g->url, std::string("http://127.0.0.1:8081/f"));
        auto p = parse({"--url-put", "http://127.0.0.1:8081/dir/", "--size", "1MiB"});
        QVERIFY(p.ok());
        QCOMPARE(p->mode, BenchMode::UrlPut);
        QCOMPARE(p->minSize, std::uint64_t{1} << 20);
        auto i = parse({"--url-get", "http://h:1/obj-{i}", "--count-objects", "10"});
        QVERIFY(i.ok());
        QCOMPARE(i->countObjects, std::uint64_t{10});
    }

    // Each malformed command line and the message that names the problem.
    void shardModes()
    {
        auto r = parse({"shard-read", "--bucket", "bbb", "--prefix", "tar/", "--direct", "--verify"});
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(r->mode, BenchMode::ShardRead);
        QVERIFY(r->countsSamples());
        QCOMPARE(r->prefix, std::string("tar/"));
        // Unlike get, the whole bucket is a valid set to read.
        auto l = parse({"loose-read", "--bucket", "bbb"});
        QVERIFY(l.ok());
        QCOMPARE(l->mode, BenchMode::LooseRead);
        auto s = parse({"shard-scan", "--dir", "/data/shards", "--workers", "2"});
        QVERIFY(s.ok());
        QCOMPARE(s->mode, BenchMode::ShardScan);
        QCOMPARE(s->dir, std::string("/data/shards"));
        QVERIFY(s->bucket.empty());
        QVERIFY(!parse({"get", "--bucket", "bbb", "--prefix", "p"})->countsSamples());
    }

    void filePut()
    {
        auto f = parse({"file-put", "--dir", "/data/files", "--workers", "64", "--size", "4KiB"});
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().message.c_str());
        QCOMPARE(f->mode, BenchMode::FilePut);
        QVERIFY(f->local());
        QVERIFY(f->fsync);
        QCOMPARE(f->dirs, 1u);
        QCOMPARE(f->minSize, std::uint64_t{4096});
        // Its operations block on the disk: a thread per worker.
        QCOMPARE(f->threads, 64u);
        auto g = parse({"file-put", "--dir", "/d", "--workers", "300", "--fsync", "off", "--dirs", "2"});
        QVERIFY(g.ok());
        QVERIFY(!g->fsync);
        QCOMPARE(g->dirs, 2u);
        QCOMPARE(g->threads, kMaxThreads);
        QCOMPARE(parse({"file-put", "--dir", "/d", "--workers", "64", "--threads", "4"})->threads, 4u);
        QVERIFY(!parse({"put", "--bucket", "bbb"})->local());
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const auto row = [](const char* tag, QStringList args, const char* message) {
            QTest::newRow(tag) << args << QString(message);
        };
        row("no mode", {"--bucket", "bbb"},
            "missing MODE (put, get, mixed, list, shard-read, loose-read, shard-scan, file-put)");
        row("bad mode", {"copy", "--bucket", "bbb"},
            "unknown mode \"copy\" (put, get, mixed, list, shard-read, loose-read, shard-scan, file-put)");
        row("two modes", {"put", "get", "--bucket", "bbb"}, "unexpected argument \"get\"");
        row("no bucket", {"put"}, "--bucket is required");
        row("bad bucket", {"put", "--bucket", "bl"},
            "--bucket: invalid bucket name \"bl\": must be 3 to 63 characters long");
        row("unknown option", {"put", "--bucket", "bbb", "--fast"}, "unknown option --fast");
        row("missing value", {"put", "--bucket"}, "--bucket needs a value");
        row("workers 0", {"put", "--bucket", "bbb", "--workers", "0"}, "--workers must be 1..4096");
        row("workers big", {"put", "--bucket", "bbb", "--workers", "5000"}, "--workers must be 1..4096");
        row("workers text", {"put", "--bucket", "bbb", "--workers", "many"},
            "--workers needs a non-negative integer, got \"many\"");
        row("threads big", {"put", "--bucket", "bbb", "--threads", "1000"}, "--threads must be 1..256");
        row("count and duration", {"put", "--bucket", "bbb", "--count", "5", "--duration", "1s"},
            "--count and --duration exclude each other");
        row("count 0", {"put", "--bucket", "bbb", "--count", "0"}, "--count must be at least 1");
        row("duration unit", {"put", "--bucket", "bbb", "--duration", "5y"},
            "--duration: bad duration unit in \"5y\" (ms, s, m or h)");
        row("duration text", {"put", "--bucket", "bbb", "--duration", "soon"},
            "--duration: bad duration \"soon\" (e.g. 500ms, 10s, 2m)");
        row("duration short", {"put", "--bucket", "bbb", "--duration", "10ms"}, "--duration must be at least 100ms");
        row("duration long", {"put", "--bucket", "bbb", "--duration", "25h"}, "--duration must be at most 24h");
        row("interval short", {"put", "--bucket", "bbb", "--interval", "50ms"}, "--interval must be at least 100ms");
        row("size bad", {"put", "--bucket", "bbb", "--size", "3Q"},
            "--size: size \"3Q\": unknown unit \"Q\" (examples: 4096, 100MB, 16MiB, 1.5GiB)");
        row("size huge", {"put", "--bucket", "bbb", "--size", "5GiB"}, "--size must be at most 4GiB");
        row("size and min", {"put", "--bucket", "bbb", "--size", "1KiB", "--min-size", "1"},
            "--size excludes --min-size/--max-size");
        row("min alone", {"put", "--bucket", "bbb", "--min-size", "1KiB"}, "--min-size and --max-size go together");
        row("min > max", {"put", "--bucket", "bbb", "--min-size", "2KiB", "--max-size", "1KiB"},
            "--min-size is larger than --max-size");
        row("get nothing to read", {"get", "--bucket", "bbb"},
            "get reads objects that exist: give --prefix of existing objects, or --count-objects N to PUT N "
            "objects first");
        row("count-objects 0", {"get", "--bucket", "bbb", "--count-objects", "0"},
            "--count-objects must be 1..10000000");
        row("count-objects put", {"put", "--bucket", "bbb", "--count-objects", "5"},
            "--count-objects applies to get, mixed and --url-get");
        row("pct-put get", {"get", "--bucket", "bbb", "--prefix", "p", "--pct-put", "5"}, "--pct-put applies to mixed");
        row("pct-put 101", {"mixed", "--bucket", "bbb", "--prefix", "p", "--pct-put", "101"},
            "--pct-put must be 0..100");
        row("pagesize get", {"get", "--bucket", "bbb", "--prefix", "p", "--pagesize", "5"},
            "--pagesize applies to list");
        row("pagesize big", {"list", "--bucket", "bbb", "--pagesize", "10001"}, "--pagesize must be 1..10000");
        row("props get", {"get", "--bucket", "bbb", "--prefix", "p", "--props", "size"}, "--props applies to list");
        row("props unknown", {"list", "--bucket", "bbb", "--props", "name,colour"},
            "--props: unknown list property \"colour\" (expected name,size,checksum,atime,version,cached,status,"
            "copies,ec,custom,location,chunked,last-modified,etag)");
        row("list direct", {"list", "--bucket", "bbb", "--direct"},
            "--direct does not apply to list (the proxy merges targets)");
        row("list size", {"list", "--bucket", "bbb", "--size", "1KiB"}, "--size does not apply to list");
        row("verify put", {"put", "--bucket", "bbb", "--verify"},
            "--verify applies to get, mixed, shard-read and loose-read");
        row("shard-read size", {"shard-read", "--bucket", "bbb", "--size", "1KiB"},
            "--size does not apply to shard-read");
        row("loose-read count-objects", {"loose-read", "--bucket", "bbb", "--count-objects", "5"},
            "--count-objects applies to get, mixed and --url-get");
        row("scan no dir", {"shard-scan"}, "shard-scan needs --dir DIR (a folder of shard files)");
        row("files no dir", {"file-put"}, "file-put needs --dir DIR (the folder to write files in)");
        row("files bucket", {"file-put", "--dir", "/tmp", "--bucket", "bbb"}, "--bucket does not apply to file-put");
        row("files verify", {"file-put", "--dir", "/tmp", "--verify"}, "--verify does not apply to file-put");
        row("fsync value", {"file-put", "--dir", "/tmp", "--fsync", "sometimes"},
            "--fsync is on or off, got \"sometimes\"");
        row("fsync put", {"put", "--bucket", "bbb", "--fsync", "on"}, "--fsync applies to file-put");
        row("fsync url", {"--url-put", "http://a:1/", "--fsync", "on"},
            "--fsync does not apply to --url-get/--url-put");
        row("dirs 0", {"file-put", "--dir", "/tmp", "--dirs", "0"}, "--dirs must be 1..256");
        row("dirs big", {"file-put", "--dir", "/tmp", "--dirs", "257"}, "--dirs must be 1..256");
        row("dirs get", {"get", "--bucket", "bbb", "--prefix", "p", "--dirs", "2"}, "--dirs applies to file-put");
        row("scan bucket", {"shard-scan", "--dir", "/tmp", "--bucket", "bbb"}, "--bucket does not apply to shard-scan");
        row("scan direct", {"shard-scan", "--dir", "/tmp", "--direct"}, "--direct does not apply to shard-scan");
        row("dir elsewhere", {"shard-read", "--bucket", "bbb", "--dir", "/tmp"},
            "--dir applies to shard-scan and file-put");
        row("dir url", {"--url-get", "http://a:1/", "--dir", "/tmp"}, "--dir applies to shard-scan and file-put");
        row("keepalive value", {"put", "--bucket", "bbb", "--keepalive", "maybe"},
            "--keepalive is on or off, got \"maybe\"");
        row("two urls", {"--url-get", "http://a:1/", "--url-put", "http://a:1/"},
            "--url-get and --url-put exclude each other");
        row("url ftp", {"--url-get", "ftp://a/"}, "--url-get needs an http:// or https:// URL, got \"ftp://a/\"");
        row("url and mode", {"get", "--url-get", "http://a:1/"}, "no MODE with --url-get/--url-put");
        row("url bucket", {"--url-get", "http://a:1/", "--bucket", "bbb"},
            "--bucket does not apply to --url-get/--url-put");
        row("url verify", {"--url-get", "http://a:1/", "--verify"},
            "--verify needs a Tessera checksum header: not with a URL");
        row("url direct", {"--url-put", "http://a:1/", "--direct"}, "--direct does not apply to --url-get/--url-put");
        row("url count-objects no {i}", {"--url-get", "http://a:1/f", "--count-objects", "3"},
            "--count-objects with --url-get needs {i} in the URL");
    }

    // An https:// URL makes the run speak TLS (the CA comes from the CLI's --ca-file).
    void httpsUrlSpeaksTls()
    {
        auto o = parse({"--url-get", "https://a:8443/x"});
        QVERIFY(o.ok());
        QVERIFY(o->tls.enabled);
        auto plain = parse({"--url-get", "http://a:80/x"});
        QVERIFY(plain.ok());
        QVERIFY(!plain->tls.enabled);
    }

    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        std::vector<std::string> words;
        for (const auto& a : args) words.push_back(a.toStdString());
        auto o = parseBenchOptions(words);
        QVERIFY(!o.ok());
        QCOMPARE(o.kind(), api::ErrorKind::BadRequest);
        QCOMPARE(QString::fromStdString(o.error().message), message);
    }
};

QTEST_APPLESS_MAIN(TestBenchOptions)
#include "test_bench_options.moc"
