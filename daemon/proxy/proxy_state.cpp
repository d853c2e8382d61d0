#include "proxy_state.h"

#include "api/go_time_format.h"

#include "common/log.h"
#include "meta/node_identity.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

namespace tessera::daemon::proxy {

namespace {
std::int64_t nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}
}  // namespace

ProxyState::ProxyState(meta::ClusterStore& store, api::Smap smap, api::Bmd bmd, api::EtlMd etl)
    : m_store(store), m_smap(std::make_shared<const api::Smap>(std::move(smap))),
      m_bmd(std::make_shared<const api::Bmd>(std::move(bmd))), m_etl(std::make_shared<const api::EtlMd>(std::move(etl)))
{
    // Targets from the persisted map get a full keepalive window to report in.
    const auto now = Clock::now();
    for (const auto& [id, node] : m_smap->tmap) m_lastSeen[id] = now;
}

api::Result<std::unique_ptr<ProxyState>> ProxyState::create(meta::ClusterStore& store, api::Snode self)
{
    auto smap = store.loadSmap();
    if (!smap) return smap.error();
    auto bmd = store.loadBmd();
    if (!bmd) return bmd.error();
    api::Smap s;
    if (smap->has_value()) {
        s = std::move(**smap);
    } else {
        s.uuid = meta::randomId(12);
    }
    // AIStore's Smap.CreationTime (cos.DateTimeSec, UTC); a map saved
    // before Tessera kept one gets the time of this start.
    if (s.creationTime.empty()) {
        s.creationTime = api::formatGoTime(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count(),
            "2006-01-02 15:04:05");
        s.version += 1;
        auto st = store.saveSmap(s);
        if (!st) return st.error();
    }
    // The primary's own address may have changed since the last run.
    if (s.primary != self || s.pmap.size() != 1 || !s.pmap.count(self.id)) {
        s.primary = self;
        s.pmap.clear();
        s.pmap[self.id] = self;
        s.version += 1;
        auto st = store.saveSmap(s);
        if (!st) return st.error();
    }
    api::Bmd b;
    if (bmd->has_value()) {
        b = std::move(**bmd);
    } else {
        b.uuid = meta::randomId(12);
        b.version = 1;
        auto st = store.saveBmd(b);
        if (!st) return st.error();
    }
    auto etl = store.loadEtl();
    if (!etl) return etl.error();
    api::EtlMd e = etl->has_value() ? std::move(**etl) : api::EtlMd{};
    return std::unique_ptr<ProxyState>(new ProxyState(store, std::move(s), std::move(b), std::move(e)));
}

std::shared_ptr<const api::Smap> ProxyState::smap() const
{
    std::lock_guard lock(m_mutex);
    return m_smap;
}

std::shared_ptr<const api::Bmd> ProxyState::bmd() const
{
    std::lock_guard lock(m_mutex);
    return m_bmd;
}

std::shared_ptr<const api::EtlMd> ProxyState::etl() const
{
    std::lock_guard lock(m_mutex);
    return m_etl;
}

api::Result<api::EtlMd> ProxyState::updateEtl(const std::function<api::Status(api::EtlMd&)>& change)
{
    std::lock_guard lock(m_mutex);
    api::EtlMd next = *m_etl;
    if (auto st = change(next); !st) return st.error();
    next.version = m_etl->version + 1;
    if (auto st = m_store.saveEtl(next); !st) return st.error();
    m_etl = std::make_shared<const api::EtlMd>(next);
    return next;
}

api::Result<ProxyState::JoinResult> ProxyState::prepareJoin(const api::Snode& node, Clock::duration maxSilence)
{
    if (node.id.empty() || node.id.size() > 64) return api::Error::badRequest("join: bad daemon_id");
    if (node.type != api::kRoleTarget) return api::Error::badRequest("join: only targets join a running proxy");
    std::lock_guard lock(m_mutex);
    // Every node of a cluster speaks the proxy's scheme: clients follow
    // redirects to the targets' URLs, and a TLS cluster must not send them
    // to a plain one.
    const std::string scheme = m_smap->primary.publicNet.url.rfind("https://", 0) == 0 ? "https://" : "http://";
    if (node.publicNet.url.rfind(scheme, 0) != 0) {
        return api::Error::badRequest("join: this cluster's nodes speak " + scheme.substr(0, scheme.size() - 3) +
                                      ": direct_url must start with " + scheme);
    }
    JoinResult r;
    r.smap = *m_smap;
    r.bmd = *m_bmd;
    auto it = m_smap->tmap.find(node.id);
    if (it != m_smap->tmap.end() && (!it->second.away() || presentLocked(node.id, it->second, maxSilence)) &&
        !it->second.sameIdentity(node)) {
        return api::Error::conflict("join: target " + node.id + " is present at " + it->second.publicNet.url +
                                    "; an id cannot be taken over while its target is alive");
    }
    r.restarted = it != m_smap->tmap.end() && !it->second.away();
    m_lastSeen[node.id] = Clock::now();
    api::Snode joined = node;
    joined.flags = it == m_smap->tmap.end() ? 0 : (it->second.flags & ~(api::kSnodeAway | api::kSnodeMaintenance));
    if (it == m_smap->tmap.end()) {
        // A new target changes placement: mirrored copies are pending.
        auto pending = markMirrorsPendingLocked();
        if (!pending) return pending.error();
        if (*pending) {
            r.bmd = std::move(**pending);
            r.bmdChanged = true;
        }
    }
    if (it == m_smap->tmap.end() || it->second != joined) {
        r.smap.tmap[node.id] = joined;
        r.smap.version += 1;
        auto st = m_store.saveSmap(r.smap);
        if (!st) return st.error();
        r.changed = true;
    }
    return r;
}

void ProxyState::publishSmap(const api::Smap& smap)
{
    std::shared_ptr<const api::Smap> before;
    {
        std::lock_guard lock(m_mutex);
        if (smap.version <= m_smap->version) return;
        for (const auto& [id, node] : smap.tmap) {
            auto was = m_smap->tmap.find(id);
            if (was == m_smap->tmap.end()) {
                logInfo("target ", id, " joined at ", node.publicNet.url, "; smap v", smap.version);
            } else if (was->second.away() && !node.away()) {
                logInfo("target ", id, " is back at ", node.publicNet.url, "; smap v", smap.version);
            }
        }
        before = m_smap;
        m_smap = std::make_shared<const api::Smap>(smap);
    }
    if (m_observer.smapPublished) m_observer.smapPublished(*before, smap);
}

void ProxyState::notifyBmd(const api::Bmd& bmd) const
{
    if (m_observer.bmdChanged) m_observer.bmdChanged(bmd);
}

ProxyState::KeepaliveResult ProxyState::keepalive(const std::string& id)
{
    std::lock_guard lock(m_mutex);
    KeepaliveResult r;
    r.smapVersion = m_smap->version;
    r.bmdVersion = m_bmd->version;
    r.etlVersion = m_etl->version;
    auto it = m_smap->tmap.find(id);
    // An away target rejoins (a join clears the flag and pushes the map).
    if (it == m_smap->tmap.end() || it->second.missedKeepalives()) return r;
    r.known = true;
    m_lastSeen[id] = Clock::now();
    return r;
}

api::Result<std::optional<api::Smap>> ProxyState::prepareAway(Clock::duration maxSilence)
{
    std::lock_guard lock(m_mutex);
    const auto now = Clock::now();
    api::Smap next = *m_smap;
    bool changed = false;
    for (auto& [id, node] : next.tmap) {
        if (node.away()) continue;
        auto it = m_lastSeen.find(id);
        if (it == m_lastSeen.end() || now - it->second > maxSilence) {
            node.flags |= api::kSnodeAway;
            changed = true;
            logWarn("target ", id,
                    " missed its keepalives; marked away (it keeps its objects: they answer 503 "
                    "until it returns or is decommissioned)");
        }
    }
    if (!changed) return std::optional<api::Smap>{};
    next.version += 1;
    auto st = m_store.saveSmap(next);
    if (!st) return st.error();
    return std::optional<api::Smap>{std::move(next)};
}

api::Result<std::optional<api::Smap>> ProxyState::prepareMaintenance(const std::string& id, bool on,
                                                                     Clock::duration maxSilence, bool leaving)
{
    std::lock_guard lock(m_mutex);
    if (m_smap->pmap.count(id)) {
        return api::Error::badRequest("node " + id + " is a proxy; only targets go into maintenance");
    }
    auto it = m_smap->tmap.find(id);
    if (it == m_smap->tmap.end()) return api::Error::notFound("target \"" + id + "\" is not in the cluster map");
    if (on && leaving) m_lastSeen.erase(id);
    if (it->second.inMaintenance() == on) return std::optional<api::Smap>{};
    if (!on && !presentLocked(id, it->second, maxSilence)) {
        return api::Error::conflict("target " + id +
                                    " is not sending keepalives (stopped?); it leaves maintenance "
                                    "when it restarts and joins");
    }
    api::Smap next = *m_smap;
    auto& node = next.tmap.at(id);
    node.flags = on ? (node.flags | api::kSnodeMaintenance) : (node.flags & ~api::kSnodeMaintenance);
    next.version += 1;
    auto st = m_store.saveSmap(next);
    if (!st) return st.error();
    logInfo("target ", id, on ? " goes into maintenance" : " leaves maintenance", " (smap v", next.version, ")");
    return std::optional<api::Smap>{std::move(next)};
}

bool ProxyState::presentLocked(const std::string& id, const api::Snode& node, Clock::duration maxSilence) const
{
    if (node.missedKeepalives()) return false;
    auto seen = m_lastSeen.find(id);
    return seen != m_lastSeen.end() && Clock::now() - seen->second <= maxSilence;
}

api::Result<ProxyState::DecommissionStep> ProxyState::prepareDecommission(const std::string& id,
                                                                          Clock::duration maxSilence,
                                                                          std::optional<api::Bmd>* bmdOut)
{
    std::lock_guard lock(m_mutex);
    auto it = m_smap->tmap.find(id);
    if (it == m_smap->tmap.end()) return api::Error::notFound("target \"" + id + "\" is not in the cluster map");
    const api::Snode& node = it->second;
    // Without a placement target left, every name would have no owner (and
    // a decommissioning target could never finish moving its objects).
    const std::size_t placementLeft = m_smap->placementTargetCount() - (node.placement() ? 1 : 0);
    const bool othersStay = m_smap->tmap.size() > 1;
    // A target in maintenance that still sends keepalives is present too.
    const bool present = !node.away() || presentLocked(id, node, maxSilence);
    if (present && node.inMaintenance()) {
        return api::Error::conflict("target " + id +
                                    " is in maintenance: it cannot move its objects; stop its maintenance "
                                    "first (or stop it, and decommission it once it is away)");
    }
    if (othersStay && placementLeft == 0) {
        return api::Error::conflict("target " + id +
                                    " is the last target that can own objects (the others are being "
                                    "decommissioned); add a target first");
    }
    DecommissionStep step;
    if (present) {
        if (node.decommissioning()) {
            step.smap = *m_smap;  // the move is under way: the caller starts its rebalance again
            return step;
        }
        if (placementLeft == 0) {
            return api::Error::conflict("target " + id +
                                        " is the only target: its objects would have nowhere to go; add a "
                                        "target first");
        }
        // A bucket whose copies or slices need more targets than would stay
        // could not be written in full any more.
        for (const auto& [name, props] : m_bmd->buckets) {
            const std::size_t need =
                std::max<std::size_t>(props.mirror.targetCopies(), props.ec.enabled ? props.ec.targets() : 1);
            if (need > placementLeft) {
                return api::Error::conflict("target " + id + " cannot leave: bucket \"" + name + "\" needs " +
                                            std::to_string(need) + " targets for its copies or slices and " +
                                            std::to_string(placementLeft) + " would stay");
            }
        }
    }
    auto pending = markMirrorsPendingLocked();
    if (!pending) return pending.error();
    if (bmdOut != nullptr) *bmdOut = std::move(*pending);
    step.smap = *m_smap;
    if (present) {
        step.smap.tmap.at(id).flags |= api::kSnodeDecommissioning;
    } else {
        step.smap.tmap.erase(id);
        step.removed = true;
    }
    step.smap.version += 1;
    auto st = m_store.saveSmap(step.smap);
    if (!st) return st.error();
    step.changed = true;
    if (present) {
        logInfo("target ", id, " is being decommissioned: it owns nothing from smap v", step.smap.version,
                "; the rebalance moves what it holds to the other targets");
    } else {
        m_lastSeen.erase(id);
        logWarn("target ", id, " decommissioned; its objects are now owned by the other targets");
    }
    return step;
}

api::Result<std::optional<api::Smap>> ProxyState::prepareRemoveDecommissioned(const std::string& id)
{
    std::lock_guard lock(m_mutex);
    auto it = m_smap->tmap.find(id);
    if (it == m_smap->tmap.end() || !it->second.decommissioning()) return std::optional<api::Smap>{};
    api::Smap next = *m_smap;
    next.tmap.erase(id);
    next.version += 1;
    auto st = m_store.saveSmap(next);
    if (!st) return st.error();
    m_lastSeen.erase(id);
    logInfo("target ", id, " decommissioned: its objects have moved to the other targets; smap v", next.version);
    return std::optional<api::Smap>{std::move(next)};
}

api::Result<api::Bmd> ProxyState::createBucket(const std::string& name)
{
    auto r = createBucketLocked(name);
    if (r) notifyBmd(*r);
    return r;
}

api::Result<api::Bmd> ProxyState::createBucketLocked(const std::string& name)
{
    std::lock_guard lock(m_mutex);
    // AIStore's wording with the bucket as `ais://name`: its Python SDK picks
    // ErrBckAlreadyExists (which `create(exist_ok=True)` ignores) by finding
    // a `provider://bucket` in the message.
    if (m_bmd->buckets.count(name)) return api::Error::conflict("bucket \"ais://" + name + "\" already exists");
    // A new bucket starts empty on every target: an away one may still hold
    // objects of an earlier bucket of this name, which it could not be told
    // to drop. The create waits for it.
    for (const auto& [id, node] : m_smap->tmap) {
        if (node.away()) {
            return api::Error::unavailable("cannot create bucket \"" + name + "\" while target " + id + " is " +
                                           (node.inMaintenance() ? "in maintenance" : "away") +
                                           " (it may hold objects of an earlier bucket of this name)");
        }
    }
    api::Bmd next = *m_bmd;
    api::BucketProps props;
    props.created = nowNs();
    next.buckets[name] = props;
    next.version += 1;
    auto st = m_store.saveBmd(next);
    if (!st) return st.error();
    m_bmd = std::make_shared<const api::Bmd>(next);
    return next;
}

api::Result<api::Bmd> ProxyState::destroyBucket(const std::string& name)
{
    auto r = destroyBucketLocked(name);
    if (r) notifyBmd(*r);
    return r;
}

api::Result<api::Bmd> ProxyState::destroyBucketLocked(const std::string& name)
{
    std::lock_guard lock(m_mutex);
    // As above: the SDK's `delete(missing_ok=True)` needs ErrBckNotFound.
    if (!m_bmd->buckets.count(name)) return api::Error::notFound("bucket \"ais://" + name + "\" does not exist");
    api::Bmd next = *m_bmd;
    next.buckets.erase(name);
    next.version += 1;
    auto st = m_store.saveBmd(next);
    if (!st) return st.error();
    m_bmd = std::make_shared<const api::Bmd>(next);
    return next;
}

api::Result<std::pair<api::Bmd, api::BucketProps>> ProxyState::setBucketProps(const std::string& name,
                                                                              const nlohmann::json& update)
{
    auto r = setBucketPropsLocked(name, update);
    if (r) notifyBmd(r->first);
    return r;
}

api::Result<std::pair<api::Bmd, api::BucketProps>> ProxyState::setBucketPropsLocked(const std::string& name,
                                                                                    const nlohmann::json& update)
{
    std::lock_guard lock(m_mutex);
    auto it = m_bmd->buckets.find(name);
    if (it == m_bmd->buckets.end()) return api::Error::notFound("bucket \"" + name + "\" does not exist");
    const api::BucketProps before = it->second;
    api::BucketProps props = before;
    auto st = api::applyPropsUpdate(props, update);
    if (!st) return st.error();
    const auto& m = props.mirror;
    // A decommissioning target holds no copies: it does not count.
    const std::size_t targets = m_smap->placementTargetCount();
    if (m.targetCopies() > targets) {
        return api::Error::badRequest("mirror.copies is " + std::to_string(m.copies) + " but the cluster has " +
                                      std::to_string(targets) + " target(s): each copy needs a target of its own");
    }
    if (auto ec = checkEcConf(before, props, targets); !ec) return ec.error();
    if (!props.ec.enabled) {
        props.ec.pending = false;
    } else if (!before.ec.enabled) {
        props.ec.pending = true;  // objects written before have no slices until a reprotect job
        ++m_protectionEpoch;
    }
    if (m.targetCopies() <= 1 && m.mountpathCopies() <= 1) {
        props.mirror.pending = false;
    } else if (m.targetCopies() > before.mirror.targetCopies() ||
               m.mountpathCopies() > before.mirror.mountpathCopies()) {
        props.mirror.pending = true;  // until a reprotect job has made the new copies
        ++m_protectionEpoch;
    }
    api::Bmd next = *m_bmd;
    next.buckets[name] = props;
    next.version += 1;
    auto sst = m_store.saveBmd(next);
    if (!sst) return sst.error();
    m_bmd = std::make_shared<const api::Bmd>(next);
    return std::make_pair(std::move(next), props);
}

api::Status ProxyState::checkEcConf(const api::BucketProps& before, const api::BucketProps& after, std::size_t targets)
{
    const auto& ec = after.ec;
    if (!ec.enabled) return {};
    if (after.mirror.enabled) {
        return api::Error::badRequest(
            "ec.enabled and mirror.enabled exclude each other: a bucket is either mirrored or erasure coded");
    }
    if (ec.targets() > targets) {
        return api::Error::badRequest("ec.data_slices + ec.parity_slices + 1 is " + std::to_string(ec.targets()) +
                                      " (" + std::to_string(ec.dataSlices) + " + " + std::to_string(ec.paritySlices) +
                                      " + 1) but the cluster has " + std::to_string(targets) +
                                      " target(s): the object and each slice need a target of their own");
    }
    if (before.ec.enabled && (before.ec.dataSlices != ec.dataSlices || before.ec.paritySlices != ec.paritySlices)) {
        return api::Error::badRequest(
            "ec.data_slices and ec.parity_slices cannot change while ec is enabled (the stored slices were cut "
            "with " +
            std::to_string(before.ec.dataSlices) + "+" + std::to_string(before.ec.paritySlices) +
            "): disable ec first");
    }
    return {};
}

api::Result<std::optional<api::Bmd>> ProxyState::markMirrorsPendingLocked()
{
    ++m_protectionEpoch;
    api::Bmd next = *m_bmd;
    bool changed = false;
    for (auto& [name, props] : next.buckets) {
        if (props.mirror.targetCopies() > 1 && !props.mirror.pending) {
            props.mirror.pending = true;
            changed = true;
        }
        if (props.ec.enabled && !props.ec.pending) {
            props.ec.pending = true;  // slices and copies follow the HRW order
            changed = true;
        }
    }
    if (!changed) return std::optional<api::Bmd>{};
    next.version += 1;
    if (auto st = m_store.saveBmd(next); !st) return st.error();
    m_bmd = std::make_shared<const api::Bmd>(next);
    return std::optional<api::Bmd>{std::move(next)};
}

std::uint64_t ProxyState::protectionEpoch() const
{
    std::lock_guard lock(m_mutex);
    return m_protectionEpoch;
}

api::Result<std::optional<api::Bmd>> ProxyState::clearMirrorPending(const std::string& bucket, std::uint64_t epoch)
{
    std::optional<api::Bmd> out;
    {
        std::lock_guard lock(m_mutex);
        if (epoch != m_protectionEpoch) return out;  // placement or copies changed since the job started
        api::Bmd next = *m_bmd;
        bool changed = false;
        for (auto& [name, props] : next.buckets) {
            if ((bucket.empty() || name == bucket) && props.mirror.pending) {
                props.mirror.pending = false;
                changed = true;
            }
            if ((bucket.empty() || name == bucket) && props.ec.pending) {
                props.ec.pending = false;  // the job checked every owned object's slices and copies
                changed = true;
            }
        }
        if (!changed) return out;
        next.version += 1;
        if (auto st = m_store.saveBmd(next); !st) return st.error();
        m_bmd = std::make_shared<const api::Bmd>(next);
        out = std::move(next);
    }
    notifyBmd(*out);
    return out;
}

}  // namespace tessera::daemon::proxy
