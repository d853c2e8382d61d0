#include "etl_job.h"

#include "api/headers.h"
#include "api/hrw.h"
#include "api/http_error.h"
#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "archive/member_name.h"
#include "client/http_client.h"
#include "common/fd_io.h"
#include "etl_process.h"
#include "net/request_params.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

namespace tessera::daemon::etl {

namespace fs = std::filesystem;

namespace {

bool selectedMember(std::string_view name, const std::vector<std::string>& exts)
{
    if (exts.empty()) return true;
    const auto full = archive::wdsExtension(name);  // ".seg.png"
    const auto dot = name.rfind('.');
    const auto last = dot == std::string_view::npos ? std::string_view() : name.substr(dot);  // ".png"
    for (const auto& e : exts) {
        const std::string withDot = (!e.empty() && e[0] == '.') ? e : "." + e;
        if (full == withDot || last == withDot) return true;
    }
    return false;
}

std::string readAllFd(int fd, std::uint64_t size)
{
    std::string s(size, '\0');
    if (size > 0 && preadExact(fd, s.data(), size, 0) != 0) s.clear();
    return s;
}

}  // namespace

api::Result<std::unique_ptr<jobs::JobWork>> EtlJob::create(Env env, const nlohmann::json& args)
{
    auto a = api::readMessage<api::EtlJobArgs>(args, "etl-bck");
    if (!a) return a.error();
    auto job = std::unique_ptr<EtlJob>(new EtlJob(std::move(env), std::move(a.value())));
    job->m_pipeline = {job->m_args.msg.id};
    // The ETL must be usable here now: a job does not start to fail on every object.
    auto t = job->m_env.etl.find(job->m_args.msg.id);
    if (!t) return t.error();
    if ((*t)->spec().communication == api::EtlComm::HPull && job->m_args.msg.perSample) {
        return api::Error::badRequest(
            "per-sample shard ETL needs an io:// or hpush:// transformer (hpull:// reads "
            "whole objects by name)");
    }
    return std::unique_ptr<jobs::JobWork>(std::move(job));
}

std::vector<EtlJob::Item> EtlJob::scan(jobs::JobContext& ctx) const
{
    std::vector<Item> items;
    const auto& msg = m_args.msg;
    if (!msg.objnames.empty()) {
        for (const auto& name : msg.objnames) {
            auto obj = m_env.store.open(m_args.srcBucket, name);
            if (!obj) {
                const auto why = m_args.srcBucket + "/" + name + ": " + obj.error().message;
                if (msg.continueOnErr) ctx.addSkipped(why);
                else ctx.addError(why);
                continue;
            }
            items.push_back({name, static_cast<std::uint64_t>(obj->meta.size)});
        }
        return items;
    }
    const auto& mountpaths = m_env.store.options().mountpaths;
    for (std::size_t mp = 0; mp < mountpaths.size(); ++mp) {
        const fs::path root = m_env.store.bucketRoot(mp, m_args.srcBucket);
        std::error_code ec;
        std::size_t seen = 0;
        for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
             !ec && it != end; it.increment(ec)) {
            if ((++seen & 1023) == 0 && ctx.aborted()) return {};
            std::error_code fec;
            if (!it->is_regular_file(fec)) continue;
            auto name = it->path().lexically_relative(root).generic_string();
            if (!msg.prefix.empty() && name.compare(0, msg.prefix.size(), msg.prefix) != 0) continue;
            const auto size = it->file_size(fec);
            if (fec) continue;
            items.push_back({std::move(name), size});
        }
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.name < b.name; });
    return items;
}

api::Status EtlJob::run(jobs::JobContext& ctx)
{
    ctx.setPhase("scan");
    if (m_env.cache.smap()->tmap.empty()) return api::Error::unavailable("this target has no cluster map yet");
    const auto items = scan(ctx);
    if (ctx.aborted()) return {};
    std::uint64_t bytes = 0;
    for (const auto& it : items) bytes += it.size;
    ctx.setTotals(static_cast<std::int64_t>(items.size()), static_cast<std::int64_t>(bytes));
    ctx.setPhase("transform");
    auto t = m_env.etl.find(m_args.msg.id);
    const unsigned pool = t ? ((*t)->spec().poolSize != 0 ? (*t)->spec().poolSize : 2 * m_env.cores) : 1;
    // Twice the transformers: while one object is stored, the next is transformed.
    const unsigned workers = std::clamp<unsigned>(m_args.msg.numWorkers != 0 ? m_args.msg.numWorkers : 2 * pool, 1, 64);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&] {
        while (!ctx.aborted() && !failed) {
            const auto i = next.fetch_add(1);
            if (i >= items.size()) return;
            const auto& item = items[i];
            auto st = process(item, ctx);
            if (st) continue;
            const auto why = m_args.srcBucket + "/" + item.name + ": " + st.error().message;
            if (m_args.msg.continueOnErr) {
                ctx.addSkipped(why);
                continue;
            }
            ctx.addError(why);
            failed = true;  // without continue_on_err the first error ends the job
        }
    };
    std::vector<std::thread> threads;
    for (unsigned w = 1; w < workers && w < items.size(); ++w) threads.emplace_back(work);
    work();
    for (auto& th : threads) th.join();
    return {};
}

api::Status EtlJob::process(const Item& item, jobs::JobContext& ctx) const
{
    auto obj = m_env.store.open(m_args.srcBucket, item.name);
    if (!obj) return obj.error();
    const auto size = static_cast<std::uint64_t>(obj->meta.size);
    api::Result<EtlOutput> out = api::Error::internal("unset");
    std::string dstName;
    if (m_args.msg.perSample) {
        out = transformShard(item, *obj, ctx);
        dstName = item.name;
    } else {
        EtlInput in;
        in.fd = obj->fd->get();
        in.offset = 0;
        in.length = size;
        in.bucket = m_args.srcBucket;
        in.name = item.name;
        in.cancelled = [&ctx] { return ctx.aborted(); };
        out = m_env.etl.transform(m_pipeline, in, {});
        dstName = api::mapExtension(item.name, m_args.msg.ext);
    }
    if (!out) return out.error();
    if (!m_args.msg.dryRun) {
        if (auto st = store(dstName, *out); !st) return st;
    }
    ctx.addDone(1, size);
    return {};
}

api::Result<EtlOutput> EtlJob::transformShard(const Item& item, const target::OpenObject& obj,
                                              jobs::JobContext& ctx) const
{
    const auto format = archive::formatFromName(item.name);
    if (!format) {
        return api::Error::badRequest("not a shard (per-sample ETL reads .tar, .tgz, .tar.gz, .tar.lz4 and .zip)");
    }
    auto reader =
        archive::ArchiveReader::openFd(obj.fd->get(), static_cast<std::uint64_t>(obj.meta.size), *format, m_env.limits);
    if (!reader) return reader.error();
    auto memfd = makeOutputFile("etl-shard");
    if (!memfd) return memfd.error();
    const int outFd = memfd->get();
    std::uint64_t written = 0;
    auto writer = archive::ArchiveWriter::create(*format, [outFd, &written](const char* p, std::size_t n) {
        if (const int e = writeAll(outFd, p, n); e != 0) return api::Status(errnoError(e, "cannot buffer the shard"));
        written += n;
        return api::Status{};
    });
    if (!writer) return writer.error();
    while (true) {
        auto member = (*reader)->next();
        if (!member) return member.error();
        if (!member->has_value()) break;
        const auto& info = **member;
        auto data = (*reader)->readAll();
        if (!data) return data.error();
        if (!selectedMember(info.name, m_args.msg.sampleExt)) {
            if (auto st = (*writer)->add(info.name, *data, info.mtime); !st) return st.error();
            continue;
        }
        EtlInput in;
        in.bytes = *data;
        in.bucket = m_args.srcBucket;
        in.name = item.name + "/" + info.name;
        in.wholeObject = false;
        in.cancelled = [&ctx] { return ctx.aborted(); };
        auto out = m_env.etl.transform(m_pipeline, in, {});
        if (!out) return api::Error{out.error().kind, info.name + ": " + out.error().message, out.error().causedBy};
        const auto bytes = readAllFd(out->fd->get(), out->size);
        if (bytes.size() != out->size) return api::Error::ioError("cannot read the transformer's output");
        const auto name = api::mapExtension(info.name, m_args.msg.ext);
        if (auto st = (*writer)->add(name, bytes, info.mtime); !st) return st.error();
    }
    if (auto st = (*writer)->finish(); !st) return st.error();
    return EtlOutput{std::make_shared<UniqueFd>(std::move(memfd.value())), written};
}

api::Status EtlJob::store(const std::string& name, const EtlOutput& out) const
{
    const auto smap = m_env.cache.smap();
    const auto* owner = api::hrwTarget(*smap, api::objectUname(m_args.dstBucket, name));
    if (owner == nullptr) return api::Error::unavailable("no targets in the cluster map");
    if (owner->id == m_env.selfId) {
        auto w = m_env.store.beginPut(m_args.dstBucket, name, target::PutParams{});
        if (!w) return w.error();
        auto& writer = **w;
        if (auto st = copyRange(
                out.fd->get(), 0, out.size, [&writer](const char* p, std::size_t n) { return writer.write(p, n); },
                "cannot read the transformed object");
            !st) {
            return st;
        }
        auto meta = writer.commit();
        if (!meta) return meta.error();
        return {};
    }
    if (owner->away()) {
        return api::Error::unavailable("target " + owner->id + ", which owns " + m_args.dstBucket + "/" + name +
                                       ", is " + (owner->inMaintenance() ? "in maintenance" : "away"));
    }
    client::HttpClient::Options o;
    o.connectTimeout = m_env.peerTimeout;
    o.ioTimeout = std::max(m_env.peerTimeout, std::chrono::milliseconds(60000));
    o.followRedirects = false;
    o.retriesOn503 = 2;
    thread_local std::unique_ptr<client::HttpClient> http;
    if (!http || http->options().ioTimeout != o.ioTimeout) http = std::make_unique<client::HttpClient>(o);
    const auto url = owner->publicNet.url + api_util::objectTarget({m_args.dstBucket, name}, {}, smap->version);
    auto r = http->send(client::Method::Put, url, client::Body::file("/proc/self/fd/" + std::to_string(out.fd->get())),
                        {{std::string(api::kHdrClusterKey), m_env.clusterKey}});
    if (!r) return api::Error::unavailable("cannot store on " + owner->id + ": " + r.error().message);
    if (!r->isSuccess()) {
        auto e = api::errorFromResponse(r->status, r->body);
        return api::Error{e.kind, "storing on " + owner->id + ": " + e.message, e.causedBy};
    }
    return {};
}

}  // namespace tessera::daemon::etl
