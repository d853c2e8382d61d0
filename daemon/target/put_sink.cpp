#include "put_sink.h"

#include "intent_store.h"
#include "target_api_detail.h"

#include "api/headers.h"
#include "common/log.h"

#include <nlohmann/json.hpp>

namespace tessera::daemon::target {

using net::Response;
using namespace detail;

void addMetaHeaders(Response& r, const api::ObjectMeta& m, const std::string& selfId, bool withStamp, bool aisLines)
{
    api::appendMetaHeaders(r.headers, m, selfId, withStamp);
    if (aisLines && m.custom.size() > 1) {
        std::erase_if(r.headers, [](const auto& h) { return api::sameFieldName(h.first, api::kHdrCustomMd); });
        for (const auto& [k, v] : m.custom) r.headers.emplace_back(std::string(api::kHdrCustomMd), k + "=" + v);
    }
    api::appendHttpValidators(r.headers, m);
}

namespace {

class PutSink : public net::UploadSink {
public:
    PutSink(std::unique_ptr<PutWriter> w, std::string selfId, PutSinkHooks hooks, bool fromPeer, bool aisLines)
        : m_writer(std::move(w)), m_selfId(std::move(selfId)), m_hooks(std::move(hooks)), m_fromPeer(fromPeer),
          m_aisLines(aisLines)
    {
    }
    api::Status write(const char* data, std::size_t size) override { return m_writer->write(data, size); }
    bool receivesFromPeer() const override { return m_fromPeer; }
    // A plain PUT with fsync on: its finish is the fsyncs and a rename. With
    // copies or slices it waits on other nodes and stays on the workers.
    bool finishWaitsOnDisk() const override
    {
        return !m_fromPeer && !m_hooks.before && !m_hooks.after && m_writer->syncs();
    }
    Response finish() override
    {
        if (m_hooks.before) return finishCopiesFirst();
        auto meta = m_writer->commit();
        if (!meta) {
            if (m_writer->superseded()) {
                auto r = Response::json({{"superseded", meta.error().message}});
                r.header(std::string(kHdrTransfer), "superseded");
                return r;
            }
            return Response::error(meta.error());
        }
        if (m_hooks.after) {
            if (auto st = m_hooks.after(*meta, m_writer->committedFd()); !st) {
                // Not acknowledged: readers must not see it either.
                if (auto undone = m_writer->rollback(); !undone) {
                    return Response::error(api::Error::unavailable(
                        st.error().message + "; and the version stored here could not be taken back (" +
                        undone.error().message + "): it may be served"));
                }
                return Response::error(st.error());
            }
        }
        return acknowledged(*meta);
    }

private:
    Response acknowledged(const api::ObjectMeta& meta) const
    {
        Response r;
        addMetaHeaders(r, meta, m_selfId, true, m_aisLines);
        return r;
    }

    // The holders first, this target last; a change that may have reached
    // a holder but not this target leaves the name a suspect (reconciled
    // before it is served again).
    Response finishCopiesFirst()
    {
        // The change is recorded before its version is stamped (prepare):
        // no reconciliation restamps the name from here on (see
        // IntentStore::begin).
        auto& intents = m_hooks.store->intents();
        const auto mp = m_hooks.store->mountpathFor(m_hooks.bucket, m_hooks.name);
        if (auto st = intents.begin(mp, m_hooks.bucket, m_hooks.name); !st) {
            auto e = st.error();
            return Response::error(api::Error::unavailable("not stored: " + e.message + "; retry the write"));
        }
        auto prepared = m_writer->prepare();
        if (!prepared) {
            intents.end(m_hooks.bucket, m_hooks.name, IntentStore::Ended::Settled);  // nothing sent
            return Response::error(prepared.error());
        }
        bool maybeSent = false;
        if (auto st = m_hooks.before(*prepared, m_writer->preparedFd(), maybeSent); !st) {
            intents.end(m_hooks.bucket, m_hooks.name, pinAfterFailure(maybeSent));
            if (maybeSent && m_hooks.reconcileNow) m_hooks.reconcileNow();
            return Response::error(st.error());
        }
        auto meta = m_writer->commit();
        if (!meta && m_writer->superseded()) {
            // A newer version (or deletion) came after it: this write is
            // acknowledged, and already replaced.
            intents.end(m_hooks.bucket, m_hooks.name, IntentStore::Ended::Settled);
            return acknowledged(*prepared);
        }
        if (!meta) {
            // The holders keep this version, this target does not.
            intents.end(m_hooks.bucket, m_hooks.name, IntentStore::Ended::Unknown);
            auto e = meta.error();
            e.kind = api::ErrorKind::Unavailable;
            if (e.message.find("outcome is unknown") == std::string::npos) {
                e.message += "; the other holders keep the new version: the outcome is unknown, retry the write";
            }
            return Response::error(e);
        }
        intents.end(m_hooks.bucket, m_hooks.name, IntentStore::Ended::Settled);
        return acknowledged(*meta);
    }

    // A holder may have taken the version this target did not commit: the
    // state here gets a fresh stamp, so that it stays the newest (and is
    // served as it is) until the holders are brought to it.
    IntentStore::Ended pinAfterFailure(bool maybeSent) const
    {
        if (!maybeSent) {
            // Nothing changed. A name that has no version here gets a
            // deletion record all the same: a read of it while a holder is
            // away is a 404 (the owner knows it has none), not a 503.
            const auto here = m_hooks.store->stat(m_hooks.bucket, m_hooks.name);
            if (!here && here.kind() == api::ErrorKind::NotFound &&
                !m_hooks.store->tombstone(m_hooks.bucket, m_hooks.name)) {
                (void)m_hooks.store->restamp(m_hooks.bucket, m_hooks.name);
            }
            return IntentStore::Ended::Settled;
        }
        if (auto st = m_hooks.store->restamp(m_hooks.bucket, m_hooks.name); !st) {
            logWarn("cannot restamp ", m_hooks.bucket, "/", m_hooks.name,
                    " after an interrupted copy: ", st.error().message);
            return IntentStore::Ended::Unknown;
        }
        return IntentStore::Ended::Pinned;
    }

    std::unique_ptr<PutWriter> m_writer;
    std::string m_selfId;
    PutSinkHooks m_hooks;
    bool m_fromPeer = false;
    bool m_aisLines = false;
};

}  // namespace

std::unique_ptr<net::UploadSink> makePutSink(std::unique_ptr<PutWriter> writer, std::string selfId, PutSinkHooks hooks,
                                             bool fromPeer, bool aisLines)
{
    return std::make_unique<PutSink>(std::move(writer), std::move(selfId), std::move(hooks), fromPeer, aisLines);
}

}  // namespace tessera::daemon::target
