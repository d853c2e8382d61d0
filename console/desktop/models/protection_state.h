#pragma once
// How well a bucket's objects are protected, from what the console knows for
// sure: the bucket's mirror conf (with the cluster's `pending`) and the
// cluster map (targets marked away). The API gives no per-object counts of
// missing copies, so neither does this: it says which condition holds, not
// how many objects it touches.

#include "api/bmd.h"
#include "api/smap.h"

#include <QString>
#include <QStringList>

namespace tessera::console {

enum class ProtectionLevel {
    Unprotected,  // one copy of each object (mirroring off, or 1 copy)
    Protected,    // every object has its copies, every target is present
    AtRisk,       // copies being made, or a target holding copies is away
};

struct ProtectionState {
    ProtectionLevel level = ProtectionLevel::Unprotected;
    int copies = 1;           // targets (or, onDisks, mountpaths of its target) holding each object
    bool onDisks = false;     // copies on the mountpaths of one target (across_targets false)
    bool pending = false;     // the cluster is still making copies (mirror.pending)
    QStringList awayTargets;  // ids of the targets marked away, sorted

    // "—", "2 copies · protected", "2 copies · at risk: copies being made",
    // "2 copies · at risk: target t1 away" (both reasons joined with "; "),
    // "2 copies on disks · protected" (a failed disk, not an away target).
    QString text() const;
    // A sentence or two on what the state means for reads and writes.
    QString explanation() const;
};

// `mirror` of a bucket in a cluster whose map is `smap`. Copies live on the
// first `copies` targets of each name's HRW order over every target of the
// map, away ones included, so any away target holds copies of a mirrored
// bucket's objects.
ProtectionState protectionState(const api::MirrorConf& mirror, const api::Smap& smap);

}  // namespace tessera::console
