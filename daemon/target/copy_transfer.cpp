#include "copy_transfer.h"

#include "api/headers.h"
#include "api/http_error.h"
#include "object_store.h"

#include <algorithm>

namespace tessera::daemon::target {

std::string CopyTransfer::url(const CopyPeer& peer, const api_util::ObjectRef& ref) const
{
    return peer.url + api_util::objectTarget(ref, {{std::string(api::kQpCopy), "true"}}, m_smapVersion);
}

api::Status CopyTransfer::send(const CopyPeer& to, const api_util::ObjectRef& ref, const api::ObjectMeta& meta, int fd)
{
    return put(url(to, ref), to, ref, meta, fd);
}

api::Status CopyTransfer::sendToOwner(const CopyPeer& owner, const api_util::ObjectRef& ref,
                                      const api::ObjectMeta& meta, int fd)
{
    return put(owner.url + api_util::objectTarget(ref, {{std::string(api::kQpRebalance), "true"}}, m_smapVersion),
               owner, ref, meta, fd);
}

api::Status CopyTransfer::put(const std::string& target, const CopyPeer& to, const api_util::ObjectRef& ref,
                              const api::ObjectMeta& meta, int fd)
{
    (void)ref;
    client::Headers headers;
    headers.emplace_back(std::string(api::kHdrClusterKey), m_clusterKey);
    headers.emplace_back(std::string(api::kHdrVersionStamp), std::to_string(meta.stamp));
    headers.emplace_back(std::string(api::kHdrVersion), meta.version);
    if (!meta.checksumValue.empty()) {
        headers.emplace_back(std::string(api::kHdrChecksumType), meta.checksumType);
        headers.emplace_back(std::string(api::kHdrChecksumValue), meta.checksumValue);
    }
    if (!meta.custom.empty()) headers.emplace_back(std::string(api::kHdrCustomMd), api::formatCustomMd(meta.custom));
    // The descriptor's file, whatever name it has now: this version even if
    // the object was replaced meanwhile.
    auto r =
        m_http.send(client::Method::Put, target, client::Body::file("/proc/self/fd/" + std::to_string(fd)), headers);
    if (!r) {
        if (client::failedBeforeSending(r.error())) {
            return api::Error::unavailable("copy to target " + to.id + " (" + to.url +
                                           ") failed: " + r.error().message + " (nothing was sent)");
        }
        // The holder may have stored it before the connection failed.
        return api::Error::unavailable("copy to target " + to.id + " (" + to.url + ") failed: " + r.error().message +
                                       " (it may keep the copy until the next rebalance: the outcome is unknown)");
    }
    // A 200 alone proves nothing: the holder names the version it keeps.
    const bool superseded = r->isSuccess() && r->header("tessera-transfer") == "superseded";
    const bool confirmed = r->isSuccess() &&
                           r->header(std::string(api::kHdrVersionStamp)) == std::to_string(meta.stamp) &&
                           r->header(std::string(api::kHdrChecksumValue)) == meta.checksumValue;
    if (superseded || confirmed) return {};
    auto e = r->isSuccess() ? api::Error::unavailable("it did not confirm the copy")
                            : api::errorFromResponse(r->status, r->body);
    e.message = "copy to target " + to.id + " (" + to.url + ") failed: " + e.message;
    if (e.kind != api::ErrorKind::Corruption) e.kind = api::ErrorKind::Unavailable;
    return e;
}

api::Result<CopyTransfer::State> CopyTransfer::stateAt(const CopyPeer& at, const api_util::ObjectRef& ref)
{
    auto r = m_http.send(client::Method::Head, url(at, ref), client::Body::none(),
                         {{std::string(api::kHdrClusterKey), m_clusterKey}});
    if (!r) return api::Error::unavailable("target " + at.id + " (" + at.url + "): " + r.error().message);
    State st;
    if (r->status == 404) {
        const auto tomb = r->header(std::string(api::kHdrTombstone));
        if (!tomb.empty()) {
            try {
                st.tombstone = std::stoll(tomb);
            } catch (const std::exception&) {
                return api::Error::unavailable("target " + at.id + " sent an unreadable tombstone stamp");
            }
        }
        return st;
    }
    if (!r->isSuccess()) {
        return api::Error::unavailable("target " + at.id + " (" + at.url + ") answered HTTP " +
                                       std::to_string(r->status) + " for the copy");
    }
    st.meta = api::attrsFromHeaders([&](std::string_view n) { return r->header(n); });
    st.stamp = st.meta.stamp;
    return st;
}

api::Result<api::ObjectMeta> CopyTransfer::fetch(const CopyPeer& from, const api_util::ObjectRef& ref,
                                                 const client::Sink& sink)
{
    std::map<std::string, std::string> got;
    auto r = m_http.send(client::Method::Get, url(from, ref), client::Body::none(),
                         {{std::string(api::kHdrClusterKey), m_clusterKey}}, &sink);
    if (!r) return api::Error::unavailable("target " + from.id + " (" + from.url + "): " + r.error().message);
    if (!r->isSuccess()) {
        auto e = api::errorFromResponse(r->status, r->body);
        e.message = "target " + from.id + " (" + from.url + "): " + e.message;
        return e;
    }
    api::ObjectMeta meta = api::attrsFromHeaders([&](std::string_view n) { return r->header(n); });
    return meta;
}

api::Result<bool> CopyTransfer::remove(const CopyPeer& at, const api_util::ObjectRef& ref, std::int64_t stamp)
{
    auto r = m_http.send(client::Method::Delete, url(at, ref), client::Body::none(),
                         {{std::string(api::kHdrClusterKey), m_clusterKey},
                          {std::string(api::kHdrVersionStamp), std::to_string(stamp)}});
    if (!r) {
        return api::Error::unavailable(
            "target " + at.id + " (" + at.url + "): " + r.error().message +
            (client::failedBeforeSending(r.error()) ? " (nothing was sent)" : " (the outcome is unknown)"));
    }
    // Conflict: the copy there is newer than the deletion; it stays.
    if (r->status == 409) return true;
    if (r->isSuccess()) return r->header(std::string(api::kHdrRemoved)) == "true";
    auto e = api::errorFromResponse(r->status, r->body);
    e.message = "removing the copy on target " + at.id + " (" + at.url + "): " + e.message;
    e.kind = api::ErrorKind::Unavailable;
    return e;
}

api::Result<ReconcileOutcome> reconcileCopies(const ObjectStore& store, CopyTransfer& copies,
                                              const api_util::ObjectRef& ref, const std::vector<CopyPeer>& holders)
{
    ReconcileOutcome out;
    // The newest state: a version (with a stamp) or a deletion (a tombstone).
    struct Newest {
        std::int64_t stamp = 0;
        bool deleted = false;
        int holder = -1;  // -1: this target
    } newest;
    const auto take = [&newest](std::optional<std::int64_t> stamp, bool deleted, int holder) {
        if (stamp && *stamp > newest.stamp) newest = {*stamp, deleted, holder};
    };
    std::optional<std::int64_t> hereStamp;
    {
        auto here = store.open(ref.bucket, ref.name);
        if (!here && here.kind() != api::ErrorKind::NotFound) return here.error();
        if (here) hereStamp = here->meta.stamp;
    }
    take(hereStamp, false, -1);
    if (!hereStamp) take(store.tombstone(ref.bucket, ref.name), true, -1);
    std::vector<CopyTransfer::State> states;
    states.reserve(holders.size());
    for (std::size_t i = 0; i < holders.size(); ++i) {
        auto st = copies.stateAt(holders[i], ref);
        if (!st) return st.error();
        take(st->stamp, false, static_cast<int>(i));
        if (!st->stamp) take(st->tombstone, true, static_cast<int>(i));
        states.push_back(std::move(*st));
    }
    if (newest.stamp == 0) return out;  // nothing of it anywhere
    if (newest.holder >= 0) {
        const auto& from = holders[static_cast<std::size_t>(newest.holder)];
        if (newest.deleted) {
            auto st = store.removeCopy(ref.bucket, ref.name, newest.stamp);
            if (!st && st.kind() != api::ErrorKind::Conflict) return st.error();  // Conflict: newer here since
        } else {
            const auto& meta = states[static_cast<std::size_t>(newest.holder)].meta;
            auto w = store.beginPut(ref.bucket, ref.name, PutParams::copyOf(meta));
            if (!w) return w.error();
            auto& writer = **w;
            auto got = copies.fetch(from, ref, [&writer](const char* p, std::size_t n) { return writer.write(p, n); });
            if (!got) return got.error();
            auto committed = writer.commit();
            if (!committed && !writer.superseded()) return committed.error();
        }
        out.tookFromHolder = true;
    }
    // Every holder behind gets the newest state.
    for (std::size_t i = 0; i < holders.size(); ++i) {
        const auto& st = states[i];
        const auto has = st.stamp ? st.stamp : st.tombstone;
        if (static_cast<int>(i) == newest.holder || (has && *has >= newest.stamp)) continue;
        if (newest.deleted) {
            if (auto r = copies.remove(holders[i], ref, newest.stamp); !r) return r.error();
        } else {
            auto src = store.open(ref.bucket, ref.name);
            if (!src) return src.error();
            if (src->meta.stamp < newest.stamp) continue;  // deleted or replaced meanwhile: that change goes on
            if (auto r = copies.send(holders[i], ref, src->meta, src->fd->get()); !r) return r.error();
        }
        ++out.holdersUpdated;
    }
    return out;
}

}  // namespace tessera::daemon::target
