#pragma once
// Changes of a mirrored object in flight at its owner, and the names whose
// copies may disagree ("suspects").
//
// The owner of a mirrored object changes the other holders first (a PUT's
// copies, a DELETE's removals) and itself last, so that it never serves a
// state its holders lack. A change interrupted between the two (the owner
// killed, a holder's answer lost) leaves the holders newer than the owner:
// such a name is a suspect until the owner has compared its state with the
// holders' and the newest has won everywhere (TargetApi::reconcile). A
// suspect is reconciled before it is served or listed, so a reader never
// sees a state go back.
//
// A change in flight is recorded by a file <mountpath>/.tessera/intent/<key>
// holding "bucket\nname", made before the first holder is changed and
// removed once the change is settled: the record outlives a crash of the
// process, and every record found at start makes its name a suspect.
//
// Thread safety: all methods may be called concurrently.

#include "api/result.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::daemon::target {

class IntentStore {
public:
    explicit IntentStore(std::vector<std::string> mountpaths);

    // Reads the records a previous run left: each makes its name a suspect.
    // A mountpath whose records cannot be read is skipped (its objects are
    // not served either until it is healthy again).
    void load();

    // A change of bucket/name starts on the holders; its record is on
    // mountpath `mp` (the name's placement). Unavailable while the name is
    // being reconciled (beginReconcile): a change must take its version's
    // stamp after any restamp of the reconciliation, or that restamp would
    // make an older state newer than the change (which commit() then takes
    // for superseded, and acknowledges without keeping it).
    api::Status begin(std::size_t mp, std::string_view bucket, std::string_view name);
    // A reconciliation of bucket/name (TargetApi::reconcile, which may
    // restamp this target's state) starts once no change of it is in flight
    // and no other reconciliation of it runs, waiting for that at most
    // `wait`: false when the wait ran out. `waited` (when given) is set when
    // it had to wait. endReconcile() when it is over.
    bool beginReconcile(std::string_view bucket, std::string_view name,
                        std::chrono::milliseconds wait = std::chrono::milliseconds(0), bool* waited = nullptr);
    void endReconcile(std::string_view bucket, std::string_view name);
    // How a change ended.
    enum class Ended {
        Settled,  // every holder and this target agree (made everywhere, or nowhere)
        // A holder may have taken it, this target did not, and restamped its
        // own state instead (ObjectStore::restamp): this target's state is
        // the newest and may be served; the holders are brought to it later.
        Pinned,
        Unknown,  // a holder may be newer than this target: compared before serving
    };
    // The change ended; unless settled, the name becomes a suspect and its
    // record stays.
    void end(std::string_view bucket, std::string_view name, Ended how);
    // The copies of a suspect were reconciled: it is no longer one.
    void settle(std::string_view bucket, std::string_view name);
    // A suspect's state here is the newest (restamped while some holder
    // could not be asked: ObjectStore::restamp) and every holder that could
    // be asked keeps it now: it may be served, here or (this target's copy
    // unreadable) from those holders. The name stays a suspect until the
    // others have been brought to it too.
    void pinCaughtUp(std::string_view bucket, std::string_view name);
    // Not a suspect, or one whose reachable holders keep this target's state
    // (pinCaughtUp, and no change interrupted since).
    bool holdersCaughtUp(std::string_view bucket, std::string_view name) const;

    bool anySuspect() const { return m_suspectCount.load(std::memory_order_acquire) > 0; }
    bool suspect(std::string_view bucket, std::string_view name) const;
    // A suspect whose holders may be newer than this target: it is compared
    // with them before it is served or listed.
    bool mustCompare(std::string_view bucket, std::string_view name) const;
    // Every suspect (bucket, name), or those of one bucket; `mustCompareOnly`:
    // only those that must be compared before serving.
    std::vector<std::pair<std::string, std::string>> suspects(std::string_view bucket = {},
                                                              bool mustCompareOnly = false) const;

private:
    struct Entry {
        int inFlight = 0;
        bool reconciling = false;
        bool recorded = false;  // its record file was written (or found at start)
        bool suspect = false;
        bool pinned = false;    // a suspect whose state here is the newest
        bool caughtUp = false;  // pinned, and the holders that were asked keep it
        std::size_t mp = 0;
    };
    std::string recordPath(std::size_t mp, std::string_view bucket, std::string_view name) const;
    void endChange(std::string_view bucket, std::string_view name, Ended how);
    // With m_mutex held: removes the record when nothing keeps it.
    void dropIfIdle(std::map<std::pair<std::string, std::string>, Entry>::iterator it);

    std::vector<std::string> m_mountpaths;
    mutable std::mutex m_mutex;
    std::condition_variable m_idle;  // a change or a reconciliation of some name ended
    std::map<std::pair<std::string, std::string>, Entry> m_entries;
    std::atomic<std::size_t> m_suspectCount{0};
};

}  // namespace tessera::daemon::target
