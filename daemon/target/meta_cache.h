#pragma once
// A target's copies of the cluster map and bucket metadata. Readers get
// immutable snapshots; newer versions replace older ones, never the reverse.
//
// Thread safety: all methods may be called concurrently.

#include "api/bmd.h"
#include "api/smap.h"

#include <memory>
#include <mutex>

namespace tessera::daemon::target {

class MetaCache {
public:
    MetaCache() : m_smap(std::make_shared<api::Smap>()), m_bmd(std::make_shared<api::Bmd>()) {}

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
    // Returns true when `smap` was newer and is now current.
    bool applySmap(api::Smap smap)
    {
        std::lock_guard lock(m_mutex);
        if (smap.version <= m_smap->version) return false;
        m_smap = std::make_shared<api::Smap>(std::move(smap));
        return true;
    }
    bool applyBmd(api::Bmd bmd)
    {
        std::lock_guard lock(m_mutex);
        if (bmd.version <= m_bmd->version && bmd.uuid == m_bmd->uuid) return false;
        m_bmd = std::make_shared<api::Bmd>(std::move(bmd));
        return true;
    }

private:
    mutable std::mutex m_mutex;
    std::shared_ptr<const api::Smap> m_smap;
    std::shared_ptr<const api::Bmd> m_bmd;
};

}  // namespace tessera::daemon::target
