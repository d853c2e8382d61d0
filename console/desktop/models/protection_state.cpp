#include "models/protection_state.h"

#include <QCoreApplication>

namespace tessera::console {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ProtectionState", text); }

}  // namespace

ProtectionState protectionState(const api::MirrorConf& mirror, const api::Smap& smap)
{
    ProtectionState s;
    s.copies = static_cast<int>(mirror.targetCopies());
    if (mirror.mountpathCopies() > 1) {
        // Copies on the disks of each object's target: an away target's
        // objects are not covered, so the map changes nothing here.
        s.copies = static_cast<int>(mirror.mountpathCopies());
        s.onDisks = true;
        s.pending = mirror.pending;
        s.level = s.pending ? ProtectionLevel::AtRisk : ProtectionLevel::Protected;
        return s;
    }
    if (s.copies <= 1) return s;
    s.pending = mirror.pending;
    for (const auto& [id, node] : smap.tmap) {
        if (node.away()) s.awayTargets << QString::fromStdString(id);
    }
    s.awayTargets.sort();
    s.level = s.pending || !s.awayTargets.isEmpty() ? ProtectionLevel::AtRisk : ProtectionLevel::Protected;
    return s;
}

QString ProtectionState::text() const
{
    if (level == ProtectionLevel::Unprotected) return QStringLiteral("—");
    const QString head = (onDisks ? tr("%1 copies on disks") : tr("%1 copies")).arg(copies) + QStringLiteral(" · ");
    if (level == ProtectionLevel::Protected) return head + tr("protected");
    QStringList reasons;
    if (awayTargets.size() == 1) reasons << tr("target %1 away").arg(awayTargets.front());
    if (awayTargets.size() > 1) reasons << tr("targets %1 away").arg(awayTargets.join(QStringLiteral(", ")));
    if (pending) reasons << tr("copies being made");
    return head + tr("at risk: ") + reasons.join(QStringLiteral("; "));
}

QString ProtectionState::explanation() const
{
    if (level == ProtectionLevel::Unprotected) {
        return tr(
            "Not mirrored: each object is on one target only; if that target is away its objects answer 503 "
            "until it returns.");
    }
    QStringList out;
    if (onDisks) {
        out << tr("Each object is on %1 disks (mountpaths) of its target; it stays readable with up to %2 of "
                  "those disks failed, but not while its target is away.")
                   .arg(copies)
                   .arg(copies - 1);
        if (pending) out << tr("Some objects may have fewer copies until a reprotect job ends without errors.");
        return out.join(QLatin1Char(' '));
    }
    if (level == ProtectionLevel::Protected) {
        out << tr("Each object is on %1 different targets; it stays readable with up to %2 of them away.")
                   .arg(copies)
                   .arg(copies - 1);
    }
    if (!awayTargets.isEmpty()) {
        out << tr("Objects with a copy on %1 have one copy fewer until it returns; a PUT or DELETE of those "
                  "objects answers 503.")
                   .arg(awayTargets.join(QStringLiteral(", ")));
        if (awayTargets.size() >= copies) {
            out << tr("With %1 targets away, an object whose %2 copies are all on them answers 503.")
                       .arg(awayTargets.size())
                       .arg(copies);
        }
    }
    if (pending) {
        out << tr("Some objects may have fewer than %1 copies until a reprotect or rebalance job ends without "
                  "errors.")
                   .arg(copies);
    }
    return out.join(QLatin1Char(' '));
}

}  // namespace tessera::console
