#include "copy_transfer.h"

#include "api/headers.h"
#include "api/http_error.h"

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
    if (!r)
        return api::Error::unavailable("copy to target " + to.id + " (" + to.url + ") failed: " + r.error().message);
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
    auto r = m_http.send(client::Method::Head, url(at, ref));
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
    st.stamp = api::attrsFromHeaders([&](std::string_view n) { return r->header(n); }).stamp;
    return st;
}

api::Result<api::ObjectMeta> CopyTransfer::fetch(const CopyPeer& from, const api_util::ObjectRef& ref,
                                                 const client::Sink& sink)
{
    std::map<std::string, std::string> got;
    auto r = m_http.send(client::Method::Get, url(from, ref), client::Body::none(), {}, &sink);
    if (!r) return api::Error::unavailable("target " + from.id + " (" + from.url + "): " + r.error().message);
    if (!r->isSuccess()) {
        auto e = api::errorFromResponse(r->status, r->body);
        e.message = "target " + from.id + " (" + from.url + "): " + e.message;
        return e;
    }
    api::ObjectMeta meta = api::attrsFromHeaders([&](std::string_view n) { return r->header(n); });
    return meta;
}

}  // namespace tessera::daemon::target
