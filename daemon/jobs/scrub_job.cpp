#include "scrub_job.h"

#include "api/hrw.h"
#include "client/http_client.h"
#include "target/copy_transfer.h"

#include <filesystem>
#include <vector>

namespace tessera::daemon::jobs {

namespace fs = std::filesystem;

namespace {

struct Item {
    std::size_t mountpath = 0;
    std::string bucket;
    std::string name;
    std::uint64_t size = 0;
};

std::string itemName(const Item& it) { return it.bucket + "/" + it.name; }

}  // namespace

ScrubJob::ScrubJob(const target::ObjectStore& store, target::MetaCache& cache, std::string selfId,
                   std::chrono::milliseconds peerTimeout, std::string clusterKey, std::string bucket)
    : m_store(store), m_cache(cache), m_selfId(std::move(selfId)), m_peerTimeout(peerTimeout),
      m_clusterKey(std::move(clusterKey)), m_bucket(std::move(bucket))
{
}

api::Status ScrubJob::run(JobContext& ctx)
{
    ctx.setPhase("scan");
    const auto bmd = m_cache.bmd();
    if (!m_bucket.empty() && bmd->find(m_bucket) == nullptr) {
        return api::Error::notFound("bucket \"" + m_bucket + "\" does not exist");
    }
    const auto& mountpaths = m_store.options().mountpaths;
    std::vector<Item> items;
    std::uint64_t totalBytes = 0;
    std::size_t seen = 0;
    for (std::size_t mp = 0; mp < mountpaths.size(); ++mp) {
        if (auto chk = m_store.checkMountpath(mp); !chk) {
            ctx.addError(chk.error().message);  // its copies cannot be read: not scrubbed
            continue;
        }
        std::error_code ec;
        for (fs::directory_iterator b(mountpaths[mp] + "/buckets", ec), end; !ec && b != end; b.increment(ec)) {
            const std::string bucket = b->path().filename().string();
            if (!m_bucket.empty() && bucket != m_bucket) continue;
            if (bmd->find(bucket) == nullptr) continue;
            std::error_code wec;
            for (fs::recursive_directory_iterator it(b->path(), fs::directory_options::skip_permission_denied, wec), e;
                 !wec && it != e; it.increment(wec)) {
                if ((++seen & 1023) == 0 && ctx.aborted()) return {};
                std::error_code fec;
                if (!it->is_regular_file(fec)) continue;
                Item item{mp, bucket, it->path().lexically_relative(b->path()).generic_string(), it->file_size(fec)};
                if (fec) continue;  // deleted while scanning
                totalBytes += item.size;
                items.push_back(std::move(item));
            }
        }
    }
    ctx.setTotals(static_cast<std::int64_t>(items.size()), static_cast<std::int64_t>(totalBytes));
    ctx.setPhase("verify");

    client::HttpClient::Options o;
    o.connectTimeout = m_peerTimeout;
    o.ioTimeout = std::max(m_peerTimeout, std::chrono::milliseconds(60000));
    o.followRedirects = false;
    o.retriesOn503 = 0;
    client::HttpClient http(o);
    for (const auto& it : items) {
        if (ctx.aborted()) return {};
        auto obj = m_store.openAt(it.mountpath, it.bucket, it.name);
        if (!obj) {
            if (obj.kind() == api::ErrorKind::NotFound) ctx.addDone(1, it.size);  // deleted meanwhile
            else ctx.addError(itemName(it) + ": " + obj.error().message);
            continue;
        }
        ctx.addCount("checked");
        auto st = m_store.verify(*obj);
        if (st) {
            ctx.addDone(1, it.size);
            continue;
        }
        if (st.kind() != api::ErrorKind::Corruption) {
            ctx.addError(itemName(it) + ": " + st.error().message);
            continue;
        }
        ctx.addCount("corrupt");
        // A good copy of the same version from another holder replaces it.
        const auto smap = m_cache.smap();
        const auto* props = m_cache.bmd()->find(it.bucket);
        std::vector<target::CopyPeer> holders;
        for (const auto* h : api::copyTargets(*smap, props, it.bucket, it.name)) {
            if (h->id != m_selfId && !h->away()) holders.push_back({h->id, h->publicNet.url});
        }
        if (holders.empty() || m_store.mountpathFor(it.bucket, it.name) != it.mountpath) {
            ctx.addCount("unrepairable");
            ctx.addError(itemName(it) + ": " + st.error().message +
                         (holders.empty() ? "; no other copy to repair it from" : "; it is on the wrong mountpath"));
            continue;
        }
        target::CopyTransfer copies(http, m_clusterKey, smap->version);
        std::string why;
        bool repaired = false;
        for (const auto& from : holders) {
            target::PutParams params;
            params.expectedChecksum = obj->meta.checksumValue;  // the good bytes hash to the stored checksum
            params.custom = obj->meta.custom;
            params.transferStamp = obj->meta.stamp;
            params.transferVersion = obj->meta.version;
            params.repair = true;
            auto w = m_store.beginPut(it.bucket, it.name, std::move(params));
            if (!w) {
                why = w.error().message;
                break;
            }
            auto& writer = **w;
            auto got = copies.fetch(from, {it.bucket, it.name},
                                    [&writer](const char* p, std::size_t n) { return writer.write(p, n); });
            if (!got) {
                why = got.error().message;
                continue;
            }
            auto committed = writer.commit();
            if (committed || writer.superseded()) {  // superseded: a newer version replaced it meanwhile
                repaired = true;
                break;
            }
            why = "copy from target " + from.id + ": " + committed.error().message;
        }
        if (repaired) {
            ctx.addCount("repaired");
            ctx.addDone(1, it.size);
        } else {
            ctx.addCount("unrepairable");
            ctx.addError(itemName(it) + ": " + st.error().message + "; repair failed: " + why);
        }
    }
    return {};
}

}  // namespace tessera::daemon::jobs
