#pragma once
// The console's upload queue: local files become objects with bounded
// parallelism. Each file is hashed (xxhash64, off the UI thread), PUT with
// its checksum (the target refuses bytes that do not match), then verified
// with a HEAD (size and checksum must equal the local file's). Items can be
// cancelled and failed ones retried; totals carry a rate over the last
// seconds and an ETA.
//
// enqueuePacked() first packs the files into WebDataset shards in a
// temporary directory (ShardPacker, off the UI thread) and queues the shards;
// the directory goes when its last shard is done or cancelled.

#include "rest_client.h"
#include "shard_packer.h"
#include "upload_source.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

class QTemporaryDir;

namespace tessera::console {

enum class UploadState { Queued, Hashing, Uploading, Verifying, Done, Failed, Canceled };
QString uploadStateName(UploadState state);
inline bool isFinished(UploadState s)
{
    return s == UploadState::Done || s == UploadState::Failed || s == UploadState::Canceled;
}

struct UploadItem {
    QString bucket;
    QString objectName;
    QString localPath;
    qint64 size = 0;
    qint64 sent = 0;  // bytes of this attempt's body acknowledged so far
    UploadState state = UploadState::Queued;
    QString error;
    QString checksum;  // of the local file, once hashed
    int attempts = 0;
    bool finished() const { return isFinished(state); }
};

struct UploadTotals {
    int files = 0;
    int done = 0;
    int failed = 0;
    int canceled = 0;
    int active = 0;
    qint64 bytes = 0;      // of the files not cancelled
    qint64 bytesDone = 0;  // sent, over the same files
    double rate = 0;       // bytes per second over the last kRateWindowMs
    double etaSeconds = -1;
};

class UploadQueue : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultParallel = 4;
    static constexpr int kMaxParallel = 32;
    static constexpr int kRateWindowMs = 5000;
    static constexpr int kMinRateSpanMs = 200;  // no rate over a shorter span

    explicit UploadQueue(RestClient* rest, QObject* parent = nullptr);
    ~UploadQueue() override;

    void setParallel(int n);
    int parallel() const { return m_parallel; }

    void enqueue(const QString& bucket, const UploadSources& files);
    // Packs `files` into shards (options.outputDir is ignored: a temporary
    // directory is used), then queues the shards. packingFinished tells how it went.
    void enqueuePacked(const QString& bucket, const UploadSources& files, PackOptions options);
    bool isPacking() const { return m_packing > 0; }

    void cancel(int index);
    void cancelAll();
    void retryFailed();
    // Drops finished items (done or cancelled) from the list.
    void clearFinished();

    int count() const { return static_cast<int>(m_items.size()); }
    const UploadItem& item(int index) const { return m_items[static_cast<std::size_t>(index)]->item; }
    UploadTotals totals() const;
    bool isIdle() const;

signals:
    void itemsAdded(int first, int count);
    void itemChanged(int index);
    void itemsReset();
    void totalsChanged();
    void packingProgress(qint64 filesDone, qint64 filesTotal);
    void packingFinished(bool ok, const QString& message);
    // An object was written and verified in `bucket`.
    void objectUploaded(const QString& bucket, const QString& objectName);
    void idle();

private:
    struct Entry {
        UploadItem item;
        RestCall call;
        int index = 0;                          // position in m_items
        quint64 attemptId = 0;                  // answers for an older attempt are ignored
        std::shared_ptr<QTemporaryDir> holder;  // a packed shard's directory
    };
    void pump();
    void startHash(int index);
    void startPut(int index);
    void startVerify(int index);
    void fail(int index, const QString& why);
    // Marks an unfinished entry cancelled and aborts its request.
    void cancelEntry(Entry& entry);
    void changed(int index);
    // Every state change goes through here: it keeps the counters that make
    // pump() and isIdle() cost nothing per item.
    void setState(Entry& entry, UploadState state);
    Entry* entryFor(quint64 attempt) const;  // nullptr once the attempt ended
    void sampleRate();

    RestClient* m_rest;
    int m_parallel = kDefaultParallel;
    std::vector<std::unique_ptr<Entry>> m_items;
    quint64 m_nextAttempt = 1;
    std::unordered_map<quint64, Entry*> m_attempts;  // attempts in progress
    int m_scanFrom = 0;                              // no Queued item before this index
    int m_active = 0;                                // hashing, uploading or verifying
    int m_unfinished = 0;                            // not done, failed or cancelled
    int m_packing = 0;
    std::shared_ptr<std::atomic<bool>> m_cancelPacking = std::make_shared<std::atomic<bool>>(false);
    QTimer m_rateTimer;
    QElapsedTimer m_clock;
    std::deque<std::pair<qint64, qint64>> m_rateSamples;  // (ms, bytesDone)
};

}  // namespace tessera::console
