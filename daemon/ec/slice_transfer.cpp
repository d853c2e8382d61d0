#include "slice_transfer.h"

#include "api/headers.h"
#include "api/http_error.h"
#include "api/paths.h"

namespace tessera::daemon::ec {

std::string SliceTransfer::url(const target::CopyPeer& peer, const api_util::ObjectRef& ref) const
{
    return peer.url + api::path::internalEcSlice(ref.bucket, ref.name);
}

api::Error SliceTransfer::failed(const target::CopyPeer& peer, const std::string& what, api::Error e)
{
    e.message = what + " on target " + peer.id + " (" + peer.url + ") failed: " + e.message;
    if (e.kind != api::ErrorKind::Corruption) e.kind = api::ErrorKind::Unavailable;
    return e;
}

api::Status SliceTransfer::send(const target::CopyPeer& to, const api_util::ObjectRef& ref, const SliceMeta& meta,
                                int fd)
{
    api::HeaderPairs pairs;
    appendSliceHeaders(pairs, meta, "");
    client::Headers headers(pairs.begin(), pairs.end());
    headers.emplace_back(std::string(api::kHdrClusterKey), m_clusterKey);
    const auto what = "slice " + std::to_string(meta.index) + " of " + ref.bucket + "/" + ref.name;
    auto r = m_http.send(client::Method::Put, url(to, ref), client::Body::file("/proc/self/fd/" + std::to_string(fd)),
                         headers);
    if (!r) {
        auto e = r.error();
        // A holder that was reached may have stored the slice before the
        // connection failed.
        e.message += client::failedBeforeSending(e) ? " (nothing was sent)" : " (the outcome is unknown)";
        return failed(to, "sending " + what, e);
    }
    if (!r->isSuccess()) return failed(to, "sending " + what, api::errorFromResponse(r->status, r->body));
    // A 200 alone proves nothing: the holder names what it keeps.
    if (r->header("tessera-transfer") == "superseded") return {};
    if (r->header(std::string(api::kHdrVersionStamp)) != std::to_string(meta.object.stamp) ||
        r->header(std::string(kHdrSliceChecksum)) != meta.sliceChecksum) {
        return failed(to, "sending " + what, api::Error::unavailable("it did not confirm the slice"));
    }
    return {};
}

api::Result<Holding> SliceTransfer::probe(const target::CopyPeer& at, const api_util::ObjectRef& ref)
{
    auto r = m_http.send(client::Method::Head, url(at, ref), client::Body::none(),
                         {{std::string(api::kHdrClusterKey), m_clusterKey}});
    if (!r) return failed(at, "asking for " + ref.bucket + "/" + ref.name, r.error());
    if (r->status == 404) {
        Holding none;
        if (const auto t = r->header(std::string(api::kHdrTombstone)); !t.empty()) {
            try {
                none.tombstone = std::stoll(t);
            } catch (const std::exception&) {
                return failed(at, "asking for " + ref.bucket + "/" + ref.name,
                              api::Error::badRequest("unreadable " + std::string(api::kHdrTombstone)));
            }
        }
        return none;
    }
    if (!r->isSuccess()) {
        return failed(at, "asking for " + ref.bucket + "/" + ref.name,
                      api::Error::unavailable("HTTP " + std::to_string(r->status)));
    }
    const auto header = [&](std::string_view n) { return r->header(n); };
    Holding h;
    if (!r->header(std::string(kHdrSliceIndex)).empty()) {
        auto slice = sliceFromHeaders(header);
        if (!slice) return failed(at, "reading the slice of " + ref.bucket + "/" + ref.name, slice.error());
        h.slice = std::move(slice.value());
    }
    if (const auto cs = r->header(std::string(kHdrCopyStamp)); !cs.empty()) {
        try {
            h.copyStamp = std::stoll(cs);
        } catch (const std::exception&) {
            return failed(at, "reading the copy of " + ref.bucket + "/" + ref.name,
                          api::Error::badRequest("unreadable " + std::string(kHdrCopyStamp)));
        }
    }
    return h;
}

api::Result<SliceMeta> SliceTransfer::fetch(const target::CopyPeer& from, const api_util::ObjectRef& ref,
                                            const client::Sink& sink)
{
    auto r = m_http.send(client::Method::Get, url(from, ref), client::Body::none(),
                         {{std::string(api::kHdrClusterKey), m_clusterKey}}, &sink);
    if (!r) return failed(from, "reading the slice of " + ref.bucket + "/" + ref.name, r.error());
    if (!r->isSuccess()) {
        return failed(from, "reading the slice of " + ref.bucket + "/" + ref.name,
                      api::errorFromResponse(r->status, r->body));
    }
    auto slice = sliceFromHeaders([&](std::string_view n) { return r->header(n); });
    if (!slice) return failed(from, "reading the slice of " + ref.bucket + "/" + ref.name, slice.error());
    return slice;
}

api::Result<bool> SliceTransfer::remove(const target::CopyPeer& at, const api_util::ObjectRef& ref, std::int64_t stamp)
{
    auto r = m_http.send(client::Method::Delete, url(at, ref), client::Body::none(),
                         {{std::string(api::kHdrClusterKey), m_clusterKey},
                          {std::string(api::kHdrVersionStamp), std::to_string(stamp)}});
    if (!r) return failed(at, "deleting the slice of " + ref.bucket + "/" + ref.name, r.error());
    if (!r->isSuccess()) {
        return failed(at, "deleting the slice of " + ref.bucket + "/" + ref.name,
                      api::errorFromResponse(r->status, r->body));
    }
    return r->header(std::string(kHdrRemoved)) == "true";
}

api::Status SliceTransfer::dropOlder(const target::CopyPeer& at, const api_util::ObjectRef& ref, std::int64_t stamp,
                                     Older what)
{
    const bool copy = what == Older::Copy;
    auto r =
        m_http.send(client::Method::Delete, url(at, ref) + (copy ? "?older=copy" : "?older=true"), client::Body::none(),
                    {{std::string(api::kHdrClusterKey), m_clusterKey},
                     {std::string(api::kHdrVersionStamp), std::to_string(stamp)}});
    const auto doing =
        std::string(copy ? "dropping an older copy of " : "dropping an older slice of ") + ref.bucket + "/" + ref.name;
    if (!r) return failed(at, doing, r.error());
    if (!r->isSuccess()) return failed(at, doing, api::errorFromResponse(r->status, r->body));
    return {};
}

api::Result<OwnerState> SliceTransfer::ensure(const target::CopyPeer& owner, const api_util::ObjectRef& ref)
{
    auto r = m_http.send(client::Method::Post, url(owner, ref), client::Body::none(),
                         {{std::string(api::kHdrClusterKey), m_clusterKey}});
    if (!r) return failed(owner, "protecting " + ref.bucket + "/" + ref.name, r.error());
    if (!r->isSuccess()) {
        return failed(owner, "protecting " + ref.bucket + "/" + ref.name, api::errorFromResponse(r->status, r->body));
    }
    OwnerState st;
    try {
        st.stamp = std::stoll(r->header(std::string(api::kHdrVersionStamp)));
    } catch (const std::exception&) {
        return failed(owner, "protecting " + ref.bucket + "/" + ref.name,
                      api::Error::badRequest("no readable " + std::string(api::kHdrVersionStamp) + " in the answer"));
    }
    st.deleted = r->header(std::string(kHdrDeleted)) == "true";
    return st;
}

}  // namespace tessera::daemon::ec
