#pragma once
// A target's copies of the cluster map, bucket metadata and ETL registry. Readers get
// immutable snapshots; newer versions replace older ones, never the reverse.
//
// Thread safety: all methods may be called concurrently.

#include "api/auth_msg.h"
#include "api/bmd.h"
#include "api/etl_msg.h"
#include "api/result.h"
#include "api/smap.h"

#include <functional>
#include <memory>
#include <mutex>

namespace tessera::daemon::target {

class MetaCache {
public:
    MetaCache()
        : m_smap(std::make_shared<api::Smap>()), m_bmd(std::make_shared<api::Bmd>()),
          m_etl(std::make_shared<api::EtlMd>())
    {
    }

    std::shared_ptr<const api::Smap> smap() const
    {
        std::lock_guard lock(m_mutex);
        return m_smap;
    }
    std::shared_ptr<const api::Bmd> bmd() const
    {
        std::lock_guard lock(m_mutex);
        return m_bmd;
    }
    // Returns true when `smap` was newer and is now current; the listener
    // is then told (on the calling thread, outside the lock).
    bool applySmap(api::Smap smap)
    {
        std::shared_ptr<const api::Smap> before;
        std::shared_ptr<const api::Smap> now;
        std::function<void(const api::Smap&, const api::Smap&)> listener;
        {
            std::lock_guard lock(m_mutex);
            if (smap.version <= m_smap->version) return false;
            before = m_smap;
            m_smap = std::make_shared<api::Smap>(std::move(smap));
            now = m_smap;
            listener = m_smapListener;
        }
        if (listener) listener(*before, *now);
        return true;
    }
    bool applyBmd(api::Bmd bmd)
    {
        std::lock_guard lock(m_mutex);
        if (bmd.version <= m_bmd->version && bmd.uuid == m_bmd->uuid) return false;
        m_bmd = std::make_shared<api::Bmd>(std::move(bmd));
        return true;
    }

    std::shared_ptr<const api::EtlMd> etl() const
    {
        std::lock_guard lock(m_mutex);
        return m_etl;
    }
    // A newer ETL registry becomes current and the listener is told (on
    // the calling thread, outside the lock).
    bool applyEtl(api::EtlMd etl)
    {
        std::shared_ptr<const api::EtlMd> now;
        std::function<void(const api::EtlMd&)> listener;
        {
            std::lock_guard lock(m_mutex);
            if (etl.version <= m_etl->version) return false;
            m_etl = std::make_shared<api::EtlMd>(std::move(etl));
            now = m_etl;
            listener = m_etlListener;
        }
        if (listener) listener(*now);
        return true;
    }
    // The proxy's revoked-token list (auth on): handed to the listener (the
    // token service, which merges it and keeps no version: a revocation is
    // never taken back). Without a listener (auth off) it is ignored.
    api::Status applyRevoked(const api::RevokedTokens& revoked) const
    {
        if (!m_revokedListener) return {};
        return m_revokedListener(revoked);
    }
    void setRevokedListener(std::function<api::Status(const api::RevokedTokens&)> f)
    {
        m_revokedListener = std::move(f);
    }
    // The proxy's token-key ring (auth on): handed to the listener (the
    // node's NodeAuth, which takes it when newer than its own, or always
    // when `fromJoin`). Ignored without a listener.
    api::Status applyTokenKeys(const api::TokenKeyRing& ring, bool fromJoin) const
    {
        if (!m_tokenKeysListener) return {};
        return m_tokenKeysListener(ring, fromJoin);
    }
    void setTokenKeysListener(std::function<api::Status(const api::TokenKeyRing&, bool fromJoin)> f)
    {
        m_tokenKeysListener = std::move(f);
    }
    // Set before the node serves requests.
    void setEtlListener(std::function<void(const api::EtlMd&)> f) { m_etlListener = std::move(f); }
    void setSmapListener(std::function<void(const api::Smap& before, const api::Smap& after)> f)
    {
        m_smapListener = std::move(f);
    }

private:
    mutable std::mutex m_mutex;
    std::shared_ptr<const api::Smap> m_smap;
    std::shared_ptr<const api::Bmd> m_bmd;
    std::shared_ptr<const api::EtlMd> m_etl;
    std::function<void(const api::EtlMd&)> m_etlListener;
    std::function<void(const api::Smap&, const api::Smap&)> m_smapListener;
    std::function<api::Status(const api::RevokedTokens&)> m_revokedListener;
    std::function<api::Status(const api::TokenKeyRing&, bool)> m_tokenKeysListener;
};

}  // namespace tessera::daemon::target
