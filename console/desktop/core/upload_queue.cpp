#include "upload_queue.h"

#include "api/checksum.h"

#include <QCoreApplication>
#include <QFile>
#include <QFutureWatcher>
#include <QTemporaryDir>
#include <QtConcurrent/QtConcurrentRun>

namespace tessera::console {

namespace {

struct FileHash {
    qint64 size = 0;
    QString hex;
    QString error;
};

FileHash hashFile(const QString& path)
{
    FileHash out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        out.error = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
        return out;
    }
    api::Xxh64Stream hash;
    std::vector<char> buf(1 << 20);
    for (;;) {
        const qint64 n = f.read(buf.data(), static_cast<qint64>(buf.size()));
        if (n < 0) {
            out.error = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
            return out;
        }
        if (n == 0) break;
        hash.update(buf.data(), static_cast<std::size_t>(n));
        out.size += n;
    }
    out.hex = QString::fromStdString(hash.hex());
    return out;
}

}  // namespace

QString uploadStateName(UploadState state)
{
    switch (state) {
    case UploadState::Queued: return QObject::tr("queued");
    case UploadState::Hashing: return QObject::tr("hashing");
    case UploadState::Uploading: return QObject::tr("uploading");
    case UploadState::Verifying: return QObject::tr("verifying");
    case UploadState::Done: return QObject::tr("done");
    case UploadState::Failed: return QObject::tr("failed");
    case UploadState::Canceled: return QObject::tr("cancelled");
    }
    return {};
}

UploadQueue::UploadQueue(RestClient* rest, QObject* parent) : QObject(parent), m_rest(rest)
{
    m_clock.start();
    m_rateTimer.setInterval(500);
    connect(&m_rateTimer, &QTimer::timeout, this, &UploadQueue::sampleRate);
}

UploadQueue::~UploadQueue()
{
    // Aborted calls answer at once: nothing may react to them any more.
    blockSignals(true);
    m_attempts.clear();
    m_cancelPacking->store(true);
    for (auto& e : m_items) e->call.abort();
}

void UploadQueue::setParallel(int n)
{
    m_parallel = std::clamp(n, 1, kMaxParallel);
    pump();
}

void UploadQueue::enqueue(const QString& bucket, const UploadSources& files)
{
    if (files.empty()) return;
    const int first = count();
    for (const UploadSource& f : files) {
        auto e = std::make_unique<Entry>();
        e->item.bucket = bucket;
        e->item.objectName = f.objectName;
        e->item.localPath = f.localPath;
        e->item.size = f.size;
        e->index = count();
        m_items.push_back(std::move(e));
        ++m_unfinished;
    }
    m_scanFrom = std::min(m_scanFrom, first);
    emit itemsAdded(first, count() - first);
    if (!m_rateTimer.isActive()) {
        m_rateSamples.clear();
        m_rateTimer.start();
        sampleRate();
    }
    pump();
    emit totalsChanged();
}

void UploadQueue::enqueuePacked(const QString& bucket, const UploadSources& files, PackOptions options)
{
    auto dir = std::make_shared<QTemporaryDir>();
    if (!dir->isValid()) {
        emit packingFinished(false, tr("cannot create a temporary directory: %1").arg(dir->errorString()));
        return;
    }
    options.outputDir = dir->path();
    ++m_packing;
    m_cancelPacking->store(false);
    auto cancel = m_cancelPacking;
    auto* watcher = new QFutureWatcher<api::Result<PackResult>>(this);
    QPointer<UploadQueue> self(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, dir, bucket] {
        watcher->deleteLater();
        --m_packing;
        const api::Result<PackResult> r = watcher->result();
        if (!r) {
            emit packingFinished(false, tr("packing failed: %1").arg(QString::fromStdString(r.error().message)));
            emit totalsChanged();
            return;
        }
        UploadSources shards;
        for (const PackedShard& s : r->shards) shards.push_back(s.source);
        const int first = count();
        enqueue(bucket, shards);
        for (int i = first; i < count(); ++i) m_items[static_cast<std::size_t>(i)]->holder = dir;
        emit packingFinished(
            true,
            tr("packed %1 files in %2 samples into %3 shards").arg(r->members).arg(r->samples).arg(r->shards.size()));
    });
    // Progress comes from the worker thread: posted to the application
    // object, and only there is the queue looked at (it may be gone).
    auto progress = [self](qint64 done, qint64 total) {
        if (done % 64 != 0 && done != total) return;
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, done, total] {
                if (self) emit self->packingProgress(done, total);
            },
            Qt::QueuedConnection);
    };
    watcher->setFuture(QtConcurrent::run(
        [files, options, cancel, progress] { return ShardPacker::pack(files, options, *cancel, progress); }));
    emit totalsChanged();
}

void UploadQueue::pump()
{
    for (int i = m_scanFrom; i < count() && m_active < m_parallel; ++i) {
        Entry& e = *m_items[static_cast<std::size_t>(i)];
        if (e.item.state != UploadState::Queued) {
            if (i == m_scanFrom) ++m_scanFrom;
            continue;
        }
        startHash(i);
    }
    if (isIdle()) {
        m_rateTimer.stop();
        sampleRate();
        emit idle();
    }
}

bool UploadQueue::isIdle() const { return m_packing == 0 && m_unfinished == 0; }

void UploadQueue::setState(Entry& e, UploadState state)
{
    auto active = [](UploadState s) {
        return s == UploadState::Hashing || s == UploadState::Uploading || s == UploadState::Verifying;
    };
    const UploadState old = e.item.state;
    m_active += int(active(state)) - int(active(old));
    m_unfinished += int(!isFinished(state)) - int(!isFinished(old));
    e.item.state = state;
}

void UploadQueue::startHash(int index)
{
    Entry* e = m_items[static_cast<std::size_t>(index)].get();
    m_attempts.erase(e->attemptId);
    e->attemptId = m_nextAttempt++;
    m_attempts[e->attemptId] = e;
    ++e->item.attempts;
    setState(*e, UploadState::Hashing);
    e->item.sent = 0;
    e->item.error.clear();
    changed(index);
    const quint64 attempt = e->attemptId;
    auto* watcher = new QFutureWatcher<FileHash>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, attempt] {
        watcher->deleteLater();
        Entry* cur = entryFor(attempt);
        if (cur == nullptr || cur->item.state != UploadState::Hashing) return;
        const FileHash h = watcher->result();
        if (!h.error.isEmpty()) return fail(cur->index, h.error);
        cur->item.size = h.size;
        cur->item.checksum = h.hex;
        startPut(cur->index);
    });
    watcher->setFuture(QtConcurrent::run(hashFile, e->item.localPath));
}

void UploadQueue::startPut(int index)
{
    Entry* e = m_items[static_cast<std::size_t>(index)].get();
    setState(*e, UploadState::Uploading);
    changed(index);
    const quint64 attempt = e->attemptId;
    e->call = m_rest->putObject(
        e->item.bucket, e->item.objectName, PutBody::fromFile(e->item.localPath), e->item.checksum, this,
        [this, attempt](api::Result<ObjectInfo> r) {
            Entry* cur = entryFor(attempt);
            if (cur == nullptr || cur->item.state != UploadState::Uploading) return;
            cur->call = {};
            if (!r) return fail(cur->index, QString::fromStdString(r.error().message));
            cur->item.sent = cur->item.size;
            startVerify(cur->index);
        },
        [this, attempt](qint64 done, qint64) {
            Entry* cur = entryFor(attempt);
            if (cur == nullptr || cur->item.state != UploadState::Uploading) return;
            cur->item.sent = std::min(done, cur->item.size);
            changed(cur->index);
        });
}

void UploadQueue::startVerify(int index)
{
    Entry* e = m_items[static_cast<std::size_t>(index)].get();
    setState(*e, UploadState::Verifying);
    changed(index);
    const quint64 attempt = e->attemptId;
    e->call = m_rest->headObject(e->item.bucket, e->item.objectName, this, [this, attempt](api::Result<ObjectInfo> r) {
        Entry* cur = entryFor(attempt);
        if (cur == nullptr || cur->item.state != UploadState::Verifying) return;
        cur->call = {};
        if (!r) return fail(cur->index, tr("verification: %1").arg(QString::fromStdString(r.error().message)));
        if (r->size != cur->item.size) {
            return fail(cur->index,
                        tr("verification: the object has %1 bytes, the file %2").arg(r->size).arg(cur->item.size));
        }
        if (QString::fromStdString(r->checksumValue) != cur->item.checksum) {
            return fail(cur->index, tr("verification: checksum %1 on the cluster, %2 locally")
                                        .arg(QString::fromStdString(r->checksumValue), cur->item.checksum));
        }
        setState(*cur, UploadState::Done);
        m_attempts.erase(cur->attemptId);
        cur->holder.reset();
        changed(cur->index);
        emit objectUploaded(cur->item.bucket, cur->item.objectName);
        pump();
    });
}

void UploadQueue::fail(int index, const QString& why)
{
    Entry* e = m_items[static_cast<std::size_t>(index)].get();
    setState(*e, UploadState::Failed);
    m_attempts.erase(e->attemptId);
    e->item.error = why;
    e->item.sent = 0;
    changed(index);
    pump();
}

void UploadQueue::cancel(int index)
{
    if (index < 0 || index >= count()) return;
    Entry* e = m_items[static_cast<std::size_t>(index)].get();
    if (e->item.finished()) return;
    cancelEntry(*e);
    changed(index);
    pump();
}

void UploadQueue::cancelEntry(Entry& e)
{
    setState(e, UploadState::Canceled);
    m_attempts.erase(e.attemptId);
    e.item.sent = 0;
    e.holder.reset();
    RestCall call = e.call;
    e.call = {};
    call.abort();
}

void UploadQueue::cancelAll()
{
    m_cancelPacking->store(true);
    for (int i = 0; i < count(); ++i) {
        Entry* e = m_items[static_cast<std::size_t>(i)].get();
        if (e->item.finished()) continue;
        cancelEntry(*e);
        changed(i);
    }
    pump();
    emit totalsChanged();
}

void UploadQueue::retryFailed()
{
    bool any = false;
    for (int i = 0; i < count(); ++i) {
        Entry* e = m_items[static_cast<std::size_t>(i)].get();
        if (e->item.state != UploadState::Failed) continue;
        setState(*e, UploadState::Queued);
        e->item.error.clear();
        m_scanFrom = std::min(m_scanFrom, i);
        any = true;
        changed(i);
    }
    if (!any) return;
    if (!m_rateTimer.isActive()) {
        m_rateSamples.clear();
        m_rateTimer.start();
        sampleRate();
    }
    pump();
    emit totalsChanged();
}

void UploadQueue::clearFinished()
{
    std::vector<std::unique_ptr<Entry>> kept;
    for (auto& e : m_items) {
        if (e->item.state == UploadState::Done || e->item.state == UploadState::Canceled) continue;
        e->index = static_cast<int>(kept.size());
        kept.push_back(std::move(e));
    }
    m_items = std::move(kept);
    m_scanFrom = 0;
    emit itemsReset();
    emit totalsChanged();
}

UploadQueue::Entry* UploadQueue::entryFor(quint64 attempt) const
{
    const auto it = m_attempts.find(attempt);
    return it == m_attempts.end() ? nullptr : it->second;
}

void UploadQueue::changed(int index) { emit itemChanged(index); }

void UploadQueue::sampleRate()
{
    const qint64 now = m_clock.elapsed();
    qint64 done = 0;
    for (const auto& e : m_items) {
        if (e->item.state != UploadState::Canceled)
            done += e->item.state == UploadState::Done ? e->item.size : e->item.sent;
    }
    m_rateSamples.emplace_back(now, done);
    while (m_rateSamples.size() > 2 && now - m_rateSamples.front().first > kRateWindowMs) m_rateSamples.pop_front();
    emit totalsChanged();
}

UploadTotals UploadQueue::totals() const
{
    UploadTotals t;
    for (const auto& e : m_items) {
        const UploadItem& it = e->item;
        ++t.files;
        switch (it.state) {
        case UploadState::Done: ++t.done; break;
        case UploadState::Failed: ++t.failed; break;
        case UploadState::Canceled: ++t.canceled; break;
        case UploadState::Queued: break;
        default: ++t.active; break;
        }
        if (it.state == UploadState::Canceled) continue;
        t.bytes += it.size;
        t.bytesDone += it.state == UploadState::Done ? it.size : it.sent;
    }
    // Over the window up to now (the sampler runs every 500 ms; between its
    // ticks the current figures are the last point).
    if (!m_rateSamples.empty() && m_rateTimer.isActive()) {
        const auto& [t0, b0] = m_rateSamples.front();
        const qint64 now = m_clock.elapsed();
        if (now - t0 >= kMinRateSpanMs) t.rate = double(t.bytesDone - b0) * 1000.0 / double(now - t0);
    } else if (m_rateSamples.size() >= 2) {
        const auto& [t0, b0] = m_rateSamples.front();
        const auto& [t1, b1] = m_rateSamples.back();
        if (t1 > t0) t.rate = double(b1 - b0) * 1000.0 / double(t1 - t0);
    }
    const qint64 left = t.bytes - t.bytesDone;
    if (left == 0) {
        t.etaSeconds = 0;
    } else if (t.rate > 0 && (t.active > 0 || m_packing > 0)) {
        t.etaSeconds = double(left) / t.rate;
    }
    return t;
}

}  // namespace tessera::console
