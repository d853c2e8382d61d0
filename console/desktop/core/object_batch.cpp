#include "core/object_batch.h"

#include "core/rest_client.h"

#include <QDir>
#include <QFileInfo>
#include <memory>

namespace tessera::console {

struct ObjectBatch::Run {
    Summary summary;
    std::deque<Download> pending;  // deletes use only `name`
    int inFlight = 0;
};

QString ObjectBatch::Summary::text() const
{
    const bool del = kind == Kind::Delete;
    QString head;
    if (ok()) {
        if (del) return tr("deleted %n object(s) from %1", nullptr, done).arg(bucket);
        return total == 1 ? tr("downloaded %1").arg(where)
                          : tr("downloaded %n file(s) into %1", nullptr, done).arg(where);
    }
    head = del ? tr("deleted %1 of %2 object(s); %3 failed: ").arg(done).arg(total).arg(failures.size())
               : tr("downloaded %1 of %2 file(s); %3 failed: ").arg(done).arg(total).arg(failures.size());
    QStringList named = failures.mid(0, kFailuresNamed);
    QString tail = named.join(QStringLiteral("; "));
    if (failures.size() > kFailuresNamed) tail += tr(" (and %n more)", nullptr, int(failures.size() - kFailuresNamed));
    return head + tail;
}

ObjectBatch::ObjectBatch(RestClient* rest, QObject* parent) : QObject(parent), m_rest(rest) {}

void ObjectBatch::removeObjects(const QString& bucket, const QStringList& names)
{
    auto run = std::make_shared<Run>();
    run->summary.kind = Kind::Delete;
    run->summary.bucket = bucket;
    run->summary.total = static_cast<int>(names.size());
    for (const auto& n : names) run->pending.push_back({n, {}, {}});
    pump(run);
}

void ObjectBatch::download(const QString& bucket, const QList<Download>& items, const QString& where)
{
    auto run = std::make_shared<Run>();
    run->summary.kind = Kind::Download;
    run->summary.bucket = bucket;
    run->summary.total = static_cast<int>(items.size());
    run->summary.where = where;
    for (const auto& d : items) run->pending.push_back(d);
    pump(run);
}

void ObjectBatch::pump(const std::shared_ptr<Run>& run)
{
    if (run->pending.empty() && run->inFlight == 0) {
        emit finished(run->summary);
        return;
    }
    while (run->inFlight < kParallel && !run->pending.empty()) {
        const Download item = run->pending.front();
        run->pending.pop_front();
        ++run->inFlight;
        const QString label = item.member.isEmpty() ? item.name : item.name + "/" + item.member;
        auto answered = [this, run, label](const api::Status& st) {
            --run->inFlight;
            if (st) ++run->summary.done;
            else run->summary.failures << label + ": " + QString::fromStdString(st.error().message);
            pump(run);
        };
        if (run->summary.kind == Kind::Delete) {
            m_rest->deleteObject(run->summary.bucket, item.name, this, answered);
        } else {
            QDir().mkpath(QFileInfo(item.path).path());
            m_rest->download(
                run->summary.bucket, item.name, item.member, item.path, this,
                [answered](api::Result<qint64> r) { answered(r ? api::Status{} : api::Status(r.error())); });
        }
    }
}

}  // namespace tessera::console
