#include "shard_build_job.h"

#include "api/checksum.h"

#include "api/headers.h"
#include "api/http_error.h"
#include "api/names.h"
#include "archive/archive_format.h"
#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "archive/tar_index.h"
#include "common/fd_io.h"
#include "net/request_params.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace tessera::daemon::jobs {

namespace {

// Reads a local object of `size` bytes into `buf` in one pread and checks it
// against the checksum it was stored with (Corruption when they differ).
api::Status readChecked(const target::OpenObject& obj, std::uint64_t size, std::vector<char>& buf,
                        const std::string& what)
{
    if (buf.size() < size) buf.resize(static_cast<std::size_t>(size));
    if (const int err = preadExact(obj.fd->get(), buf.data(), static_cast<std::size_t>(size), 0); err != 0) {
        return errnoError(err, "cannot read " + what);
    }
    if (obj.meta.checksumValue.empty()) return {};
    const auto got = api::xxhash64Hex(std::string_view(buf.data(), static_cast<std::size_t>(size)));
    if (got != obj.meta.checksumValue) {
        return api::Error::corruption(what + ": checksum mismatch: stored " + obj.meta.checksumValue +
                                      ", data hashes to " + got);
    }
    return {};
}

}  // namespace

ShardBuildJob::ShardBuildJob(const target::ObjectStore& store, const target::MetaCache& cache, std::string selfId,
                             std::chrono::milliseconds peerTimeout, std::string clusterKey, api::ShardTask task)
    : m_store(store), m_cache(cache), m_selfId(std::move(selfId)), m_peerTimeout(peerTimeout),
      m_clusterKey(std::move(clusterKey)), m_task(std::move(task))
{
}

api::Result<std::unique_ptr<JobWork>> ShardBuildJob::create(const target::ObjectStore& store,
                                                            const target::MetaCache& cache, std::string selfId,
                                                            std::chrono::milliseconds peerTimeout,
                                                            std::string clusterKey, const JobArgs& args)
{
    auto task = args.json() != nullptr ? api::parseShardTask(*args.json())
                                       : api::parseShardTaskText(args.text(), kMaxJobArgsValues);
    if (!task) return task.error();
    for (const auto* b : {&task->srcBck, &task->dstBck}) {
        if (auto st = api::validateBucketName(*b); !st) return st.error();
    }
    for (const auto& s : task->shards) {
        if (auto st = api::validateObjectName(s.name); !st) return st.error();
        if (auto f = archive::resolveFormat(s.name, task->mime); !f) return f.error();
        for (const auto& m : s.members) {
            if (auto st = api::validateObjectName(m.object); !st) return st.error();
        }
    }
    return std::unique_ptr<JobWork>(new ShardBuildJob(store, cache, std::move(selfId), peerTimeout,
                                                      std::move(clusterKey), std::move(task.value())));
}

api::Status ShardBuildJob::run(JobContext& ctx)
{
    ctx.setPhase("build");
    std::int64_t bytes = 0;
    std::int64_t objects = 0;
    for (const auto& s : m_task.shards) {
        for (const auto& m : s.members) bytes = (bytes < 0 || m.size < 0) ? -1 : bytes + m.size;
        objects += static_cast<std::int64_t>(s.members.size());
    }
    ctx.setTotals(objects, bytes);
    // Shards are built kBuildLanes at a time (lane i takes shards i, i + lanes,
    // ...), each lane with its own fetcher and client: one shard at a time left
    // a core idle while the writer waited on its sources, and a target given
    // more shards than its peers finished last.
    const auto lanes = std::min<std::size_t>(kBuildLanes, m_task.shards.size());
    std::vector<api::Status> results(lanes);
    std::atomic<bool> failed{false};
    auto lane = [&](std::size_t i) {
        std::vector<SourceFetcher::Item> items;
        for (std::size_t k = i; k < m_task.shards.size(); k += lanes) {
            for (const auto& m : m_task.shards[k].members) items.push_back({m_task.srcBck, m.object, m.size});
        }
        SourceFetcher::Options fo;
        fo.peerTimeout = m_peerTimeout;
        fo.clusterKey = m_clusterKey;
        SourceFetcher fetcher(m_store, m_cache, m_selfId, std::move(items), ctx, fo);
        client::HttpClient::Options ho;
        ho.connectTimeout = m_peerTimeout;
        ho.ioTimeout = std::max(m_peerTimeout, std::chrono::milliseconds(60000));
        client::HttpClient http(ho);
        for (std::size_t k = i; k < m_task.shards.size(); k += lanes) {
            if (ctx.aborted() || failed.load()) return;
            const auto& shard = m_task.shards[k];
            if (auto st = buildShard(shard, fetcher, http, ctx); !st) {
                results[i] = api::Error{st.kind(), m_task.dstBck + "/" + shard.name + ": " + st.error().message, {}};
                failed = true;
                return;
            }
        }
    };
    std::vector<std::thread> others;
    for (std::size_t i = 1; i < lanes; ++i) others.emplace_back(lane, i);
    if (lanes > 0) lane(0);
    for (auto& t : others) t.join();
    for (auto& r : results) {
        if (!r) return r;
    }
    return {};
}

api::Status ShardBuildJob::buildShard(const api::ShardBuild& shard, SourceFetcher& fetcher, client::HttpClient& http,
                                      JobContext& ctx)
{
    const auto format = archive::resolveFormat(shard.name, m_task.mime);
    if (!format) return format.error();
    auto put = m_store.beginPut(m_task.dstBck, shard.name, {});
    if (!put) return put.error();
    auto& out = **put;
    const archive::DataSink toPut = [&out](const char* d, std::size_t n) { return out.write(d, n); };

    // The old shard first, when appending to one that exists.
    std::optional<target::OpenObject> old;
    if (m_task.append) {
        auto o = m_store.open(m_task.dstBck, shard.name);
        if (o) old = std::move(o.value());
        else if (o.kind() != api::ErrorKind::NotFound) return o.error();
    }
    const std::string oldName = m_task.dstBck + "/" + shard.name;
    if (old && *format == archive::ArchiveFormat::Tar) {
        // Members up to the end-of-archive marker, byte for byte.
        auto index = archive::TarIndex::build(old->fd->get(), old->meta.size, m_limits);
        if (!index) return index.error();
        if (auto st = copyRange(old->fd->get(), 0, index->endOffset(), toPut, "cannot read " + oldName); !st) return st;
    }
    auto writer = archive::ArchiveWriter::create(*format, toPut);
    if (!writer) return writer.error();
    auto& aw = **writer;
    if (old && *format != archive::ArchiveFormat::Tar) {
        auto reader = archive::ArchiveReader::openFd(old->fd->get(), old->meta.size, *format, m_limits);
        if (!reader) return reader.error();
        while (true) {
            auto m = (*reader)->next();
            if (!m) return m.error();
            if (!m->has_value()) break;
            if (auto st = aw.begin((*m)->name, (*m)->size, (*m)->mtime); !st) return st;
            if (auto st = (*reader)->readData([&aw](const char* d, std::size_t n) { return aw.write(d, n); }); !st) {
                return st;
            }
        }
    }

    std::size_t written = 0;
    std::vector<char> localBuf;  // a small local source's bytes, reused
    for (const auto& member : shard.members) {
        if (ctx.aborted()) return {};  // the work file goes with `put`
        auto f = fetcher.next();
        if (!f) return {};  // aborted
        const auto what = m_task.srcBck + "/" + member.object;
        if (!f->status) {
            if (m_task.continueOnErr) {
                ctx.addSkipped(f->status.error().message);
                ctx.addDone(1, 0);
                continue;
            }
            return f->status;
        }
        const auto& name = member.member();
        std::uint64_t size = 0;
        if (f->local && static_cast<std::uint64_t>(f->local->meta.size) <= SourceFetcher::kMaxInMemory) {
            // A small one is read once, checked, then added: bad bytes never
            // get a new checksum (with continue-on-error the shard goes on
            // without them).
            size = static_cast<std::uint64_t>(f->local->meta.size);
            if (auto st = readChecked(*f->local, size, localBuf, what); !st) {
                if (st.kind() == api::ErrorKind::Corruption && m_task.continueOnErr) {
                    ctx.addSkipped(st.error().message);
                    ctx.addDone(1, 0);
                    continue;
                }
                return st;
            }
            if (auto st = aw.add(name, std::string_view(localBuf.data(), size), m_task.mtime); !st) return st;
        } else if (f->local) {
            // Checked before a byte goes into the shard (with continue-on-error
            // the shard goes on without it): bad bytes never get a new checksum.
            if (auto st = m_store.verify(*f->local); !st) {
                const api::Error e{st.kind(), what + ": " + st.error().message, {}};
                if (st.kind() == api::ErrorKind::Corruption && m_task.continueOnErr) {
                    ctx.addSkipped(e.message);
                    ctx.addDone(1, 0);
                    continue;
                }
                return e;
            }
            size = f->local->meta.size;
            if (auto st = aw.begin(name, size, m_task.mtime); !st) return st;
            auto st = copyRange(
                f->local->fd->get(), 0, size, [&aw](const char* d, std::size_t n) { return aw.write(d, n); },
                "cannot read " + what);
            if (!st) return st;
        } else if (!f->streamLater) {
            size = f->data.size();
            if (auto st = aw.add(name, f->data, m_task.mtime); !st) return st;
        } else {
            // Too large to buffer: its size first, then its bytes straight
            // into the archive; a size that changed in between fails.
            const auto smapVersion = m_cache.smap()->version;
            const auto url = f->ownerUrl + api_util::objectTarget({m_task.srcBck, member.object}, {}, smapVersion);
            const client::Headers node{{std::string(api::kHdrClusterKey), m_clusterKey}};
            auto head = http.send(client::Method::Head, url, {}, node);
            if (!head) return head.error();
            if (!head->isSuccess()) return api::errorFromResponse(head->status, head->body);
            auto sizeText = head->header(api::kHdrSize);
            if (sizeText.empty()) sizeText = head->header("content-length");
            try {
                size = std::stoull(sizeText);
            } catch (const std::exception&) {
                return api::Error::unavailable("no size for " + what + " from its owner");
            }
            if (auto st = aw.begin(name, size, m_task.mtime); !st) return st;
            std::uint64_t got = 0;
            api::Xxh64Stream hash;
            client::Sink sink = [&](const char* d, std::size_t n) -> api::Status {
                got += n;
                if (got > size) return api::Error::conflict(what + " changed while it was archived");
                hash.update(d, n);
                return aw.write(d, n);
            };
            auto r = http.send(client::Method::Get, url, {}, node, &sink);
            if (!r) return r.error();
            if (!r->isSuccess()) return api::errorFromResponse(r->status, r->body);
            if (got != size) return api::Error::conflict(what + " changed while it was archived");
            // Streamed straight into the shard: a mismatch fails the whole
            // shard (its work file is dropped), continue-on-error or not.
            if (const auto stored = r->header(std::string(api::kHdrChecksumValue));
                !stored.empty() && hash.hex() != stored) {
                return api::Error::corruption("object " + what + " is corrupted: stored checksum " + stored +
                                              ", its bytes hash to " + hash.hex());
            }
        }
        ++written;
        ctx.addDone(1, size);
    }
    if (written == 0 && !old && !shard.members.empty()) {
        return api::Error::notFound("no source object could be read; nothing was written");
    }
    if (auto st = aw.finish(); !st) return st;
    auto committed = out.commit();
    if (!committed) return committed.error();
    return {};
}

}  // namespace tessera::daemon::jobs
