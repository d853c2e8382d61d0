// TargetApi's bucket listing: a page of this target's names, and, for an
// erasure-coded bucket whose owners are away, the names it keeps slices of
// or recorded the deletion of (part of TargetApi; see target_api.h).
#include "target_api.h"

#include "api/headers.h"
#include "api/hrw.h"
#include "api/object_list.h"
#include "archive/archive_format.h"

#include <algorithm>
#include <limits>
#include <map>

namespace tessera::daemon::target {

using net::Request;
using net::Response;

Response TargetApi::listObjects(const Request& req)
{
    auto bucket = api_util::bucketParam(req);
    if (!bucket) return Response::error(bucket.error());
    if (m_cache.bmd()->find(*bucket) == nullptr) {
        return Response::error(api::Error::notFound("bucket \"" + *bucket + "\" does not exist"));
    }
    auto lr = req.body.empty() ? api::listRequestFromQuery(req.query) : api::listRequestFromJson(req.body);
    if (!lr) return Response::error(lr.error());
    // A name whose copies may disagree is listed as the reconciliation
    // decides, never as this target alone has it.
    for (const auto& [b, name] : m_store.intents().suspects(*bucket, true)) {
        if (!name.starts_with(lr->prefix) || !mustCompareFirst({b, name})) continue;
        if (auto e = reconcileBeforeServing({b, name})) {
            auto why = *e;
            why.message = "listing incomplete: " + why.message;
            return Response::error(why);
        }
    }
    auto list = m_store.list(*bucket, *lr);
    if (!list) return Response::error(list.error());
    // AIStore's LsoEnt location is "t[<id>]:<mountpath>"; copies, the
    // copies the cluster keeps of each object (the bucket's mirror count).
    if (lr->props & (api::kPropLocation | api::kPropCopies)) {
        const auto* props = m_cache.bmd()->find(*bucket);
        const int copies =
            props != nullptr && props->mirror.enabled ? static_cast<int>(props->mirror.targetCopies()) : 1;
        for (auto& e : list->entries) {
            if (!e.location.empty()) e.location = "t[" + m_self.id + "]:" + e.location;
            if (lr->props & api::kPropCopies) e.copies = copies;
        }
    }
    std::set<std::string> standIn;
    if (!lr->standInFor.empty() && coded(*bucket)) {
        auto added = addAwayOwnersNames(*bucket, *lr, *list);
        if (!added) return Response::error(added.error());
        standIn = std::move(added.value());
    }
    if (lr->flags & api::kLsArchDir) {
        // Flagged first: addMembers passes such an entry over (this target
        // may keep an older whole copy of the shard than the slice listed).
        for (auto& e : list->entries) {
            if (!standIn.contains(e.name) || !archive::formatFromName(e.name)) continue;
            e.flags |= api::kEntryArchError;
            e.error = "the shard's owner is away (listed from its slices): its members are listed when it returns";
        }
        m_shards.addMembers(*bucket, *list);
    }
    if (api::acceptsMsgpack(req.header("Accept"))) return Response::msgpack(api::dumpObjectListMsgpack(*list));
    return Response::jsonText(api::dumpObjectList(*list));
}

api::Result<std::set<std::string>> TargetApi::addAwayOwnersNames(const std::string& bucket, const api::ListRequest& lr,
                                                                 api::ObjectList& page)
{
    // The names this target keeps a slice of or recorded the deletion of,
    // owned by a target the proxy lists without (lr.standInFor), with this
    // target in their set under the current map (a slice left outside its
    // set by a placement change is not listed: its object may have been
    // deleted since).
    const auto smap = m_cache.smap();
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(bucket);
    const auto wanted = [&](const std::string& name) {
        const auto set = api::ecTargets(*smap, props, bucket, name);
        if (set.empty() || !std::binary_search(lr.standInFor.begin(), lr.standInFor.end(), set.front()->id)) {
            return false;
        }
        return std::any_of(set.begin() + 1, set.end(), [&](const api::Snode* n) { return n->id == m_self.id; });
    };
    const std::size_t limit = lr.pageSize == 0 ? api::kDefaultPageSize : lr.pageSize;
    // One walk of the slices and deletions per (bucket, away owners, maps),
    // not one per page: while an owner is away its names cannot change (a
    // write or a delete needs every target of the name's set), and its
    // return changes the map.
    // Only then: an owner that is present but failed to answer the proxy
    // (a disabled mountpath) still takes writes to its other names.
    const bool allAway = std::all_of(lr.standInFor.begin(), lr.standInFor.end(), [&](const std::string& id) {
        const auto* n = smap->findTarget(id);
        return n != nullptr && n->away();
    });
    std::shared_ptr<const StandInNames> names;
    if (allAway) {
        std::lock_guard lock(m_standInMutex);
        if (m_standIn && m_standIn->bucket == bucket && m_standIn->owners == lr.standInFor &&
            m_standIn->smapVersion == smap->version && m_standIn->bmdVersion == bmd->version) {
            names = m_standIn;
        }
    }
    if (!names) {
        auto all = m_ec->slices().list(bucket, "", "", std::numeric_limits<std::size_t>::max(), wanted);
        if (!all) return all.error();
        auto deleted = m_store.deletions(bucket, wanted);
        if (!deleted) return deleted.error();
        auto built = std::make_shared<StandInNames>();
        built->bucket = bucket;
        built->owners = lr.standInFor;
        built->smapVersion = smap->version;
        built->bmdVersion = bmd->version;
        built->slices = std::move(all->slices);  // sorted by name
        built->deleted = std::move(deleted.value());
        names = built;
        if (allAway) {
            std::lock_guard lock(m_standInMutex);
            m_standIn = std::move(built);
        }
    }
    // This page's share: names after the token with the prefix, at most
    // `limit`, from both lists; a name in both is what is newer here.
    struct Taken {
        const std::string* name;
        std::int64_t stamp;
        const ec::SliceStore::Listed* slice;  // null: deleted
    };
    std::vector<Taken> taken;
    const std::string& from = lr.continuationToken > lr.prefix ? lr.continuationToken : lr.prefix;
    auto sl = std::lower_bound(names->slices.begin(), names->slices.end(), from,
                               [](const ec::SliceStore::Listed& l, const std::string& v) { return l.name < v; });
    auto dl = std::lower_bound(names->deleted.begin(), names->deleted.end(), from,
                               [](const TombstoneStore::Listed& l, const std::string& v) { return l.name < v; });
    while (taken.size() < limit && (sl != names->slices.end() || dl != names->deleted.end())) {
        const bool slice = dl == names->deleted.end() || (sl != names->slices.end() && sl->name <= dl->name);
        const bool both = slice && dl != names->deleted.end() && sl->name == dl->name;
        const std::string& name = slice ? sl->name : dl->name;
        if (!name.starts_with(lr.prefix)) break;  // sorted, from the prefix on: no later name has it
        Taken t{&name, slice ? sl->meta.object.stamp : dl->stamp, slice ? &*sl : nullptr};
        if (both && dl->stamp > t.stamp) t = {&name, dl->stamp, nullptr};
        if (slice) ++sl;
        if (!slice || both) ++dl;
        if (!lr.continuationToken.empty() && name <= lr.continuationToken) continue;
        taken.push_back(t);
    }
    std::set<std::string> added;
    // This target's own entries of those owners' names (whole copies of
    // small versions) carry their stamp.
    for (auto& e : page.entries) {
        if (!wanted(e.name)) continue;
        if (auto o = m_store.open(bucket, e.name)) e.stamp = o->meta.stamp;
    }
    if (taken.empty()) return added;
    // Both lists hold every name up to their last when they are full: the
    // merged page holds every name up to the smaller of the two.
    std::optional<std::string> upTo =
        page.continuationToken.empty() ? std::nullopt : std::optional(page.continuationToken);
    if (taken.size() == limit && (!upTo || *taken.back().name < *upTo)) upTo = *taken.back().name;
    std::map<std::string, api::ObjEntry> merged;
    for (auto& e : page.entries) merged.emplace(e.name, std::move(e));
    for (const auto& t : taken) {
        auto at = merged.find(*t.name);
        if (at != merged.end() && at->second.stamp >= t.stamp) continue;  // the copy here is as new
        api::ObjEntry e;
        e.name = *t.name;
        e.stamp = t.stamp;
        if (t.slice == nullptr) {
            e.size = -1;
            e.flags = api::kEntryStatusDeleted;
        } else {
            const auto& m = t.slice->meta.object;
            e.size = (lr.props & api::kPropSize) ? m.size : -1;
            if (lr.props & api::kPropChecksum) e.checksum = m.checksumValue;
            if (lr.props & api::kPropVersion) e.version = m.version;
            if ((lr.props & api::kPropAtime) && m.atimeNs > 0) e.atime = api::formatRfc3339(m.atimeNs);
            added.insert(e.name);
        }
        merged.insert_or_assign(e.name, std::move(e));
    }
    page.entries.clear();
    page.continuationToken.clear();
    for (auto& [name, e] : merged) {
        if (upTo && name > *upTo) break;
        if (page.entries.size() == limit) break;
        page.entries.push_back(std::move(e));
    }
    if (page.entries.size() == limit) page.continuationToken = page.entries.back().name;
    else if (upTo) page.continuationToken = *upTo;
    return added;
}

}  // namespace tessera::daemon::target
