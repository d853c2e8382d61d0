#pragma once
// The cluster's buckets with their object count and total size.
//
// The figures come from the server when it has them: the targets count every
// bucket's objects and bytes in their usage scans (at start and every
// usage_scan_interval_ms, 60 s by default) and the proxy sends the sums on
// the feed (snapshot, bmd and buckets messages), exact whatever the bucket's
// size, as of the scan. Until every target has scanned, without the feed
// (polling), or for a bucket the scans do not cover yet, the model adds the
// sizes up itself from the listing (pages of api::kMaxPageSize names and
// sizes), one bucket at a time after each refresh — and always for a
// mirrored bucket, whose scans count every copy; a bucket with more than
// the summary cap of objects then shows "≥ N" (the count and size of the
// first N), so a million-object bucket costs a bounded number of pages.
//
// The Protection column says how the bucket's objects are protected (see
// ProtectionState): from its mirror properties, read with the bucket
// metadata (GET /v1/cluster?what=bmd) on every refresh — the feed's snapshot
// and bmd messages cause one, so a change of `mirror.pending` shows — and
// from the cluster map (setSmap), whose away targets put mirrored buckets at
// risk.

#include "api/bmd.h"
#include "api/feed.h"
#include "api/smap.h"
#include "core/rest_client.h"

#include <QAbstractTableModel>
#include <QString>
#include <deque>
#include <map>
#include <optional>
#include <vector>

namespace tessera::console {

class BucketModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, ObjectsColumn, SizeColumn, ProtectionColumn, ColumnCount };
    enum Role {
        NameRole = Qt::UserRole + 1,  // QString
        ObjectCountRole,              // qint64, -1 while unknown
        BytesRole,                    // qint64, -1 while unknown
        CappedRole,                   // bool: more objects than the summary cap
        FromScanRole,                 // bool: the figures are the server's (the targets' usage scans)
        ScannedAtRole,                // QDateTime of the scan the figures come from (FromScanRole)
        ProtectionLevelRole,          // int (ProtectionLevel); invalid while the properties are unknown
    };
    static constexpr qint64 kDefaultSummaryCap = 100000;

    explicit BucketModel(RestClient* rest, QObject* parent = nullptr);

    void setSummaryCap(qint64 objects) { m_summaryCap = std::max<qint64>(objects, 1); }

    // Re-reads the bucket list, then the summaries. A refresh while the list
    // is being read reads it once more when it answers, and a count in flight
    // goes on: nothing is abandoned (the nodes would count each abandoned
    // request as a client abort), except on a switch to another cluster.
    void refresh();
    // Re-counts one bucket (after an upload or a delete); a bucket with the
    // server's figures waits for the next scan instead.
    void refreshSummary(const QString& bucket);
    // The server's figures (the feed's bucket summaries): used for the buckets
    // that have them, in place of counting the listing.
    void setServerSummaries(const std::vector<api::BucketSummary>& buckets);
    // Intents; the answer comes as operationFinished(ok, message), then a refresh.
    void createBucket(const QString& name);
    void destroyBucket(const QString& name);

    // The cluster map: its targets bound the copies a bucket may ask for, and
    // its away targets put mirrored buckets at risk.
    void setSmap(const api::Smap& smap);
    int targetCount() const { return static_cast<int>(m_smap.tmap.size()); }
    // Re-reads every bucket's properties (also part of refresh()).
    void refreshProps();
    // The properties the cluster answered a change with (before the feed
    // brings the new metadata).
    void applyProps(const QString& bucket, const api::BucketProps& props);
    // The bucket's properties as last read; none before the first read.
    std::optional<api::BucketProps> props(const QString& bucket) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int rowOf(const QString& bucket) const;
    QString bucketAt(int row) const;
    QString errorText() const { return m_error; }
    // Why the properties could not be read (empty when they could).
    QString propsError() const { return m_propsError; }
    bool isSummarizing() const { return m_summaryCall.isRunning() || !m_summaryQueue.empty(); }

signals:
    void refreshed();
    void summariesDone();
    // The properties were read (or applied) again.
    void propsRefreshed();
    void operationFinished(bool ok, const QString& message);

private:
    struct Row {
        QString name;
        qint64 objects = -1;  // counted from the listing
        qint64 bytes = -1;
        bool capped = false;
    };
    struct Scan {
        qint64 objects = 0;
        qint64 bytes = 0;
        qint64 scannedMs = 0;
    };
    const Scan* scanOf(const QString& bucket) const;

    // The server's figures came or went for some buckets: the others are counted.
    void figuresSourceChanged();
    struct Summary {
        QString bucket;
        qint64 objects = 0;
        qint64 bytes = 0;
        std::string token;
    };
    void listBuckets();
    void emitProtectionChanged();
    QVariant protectionData(const QString& bucket, int role) const;
    void nextSummary();
    void summaryPage(Summary summary);

    RestClient* m_rest;
    QUrl m_endpoint;           // the cluster the calls in flight are for
    bool m_listAgain = false;  // a refresh came while the list was being read
    std::vector<Row> m_rows;
    std::map<QString, Scan> m_scans;  // the server's figures, by bucket
    QString m_error;
    qint64 m_summaryCap = kDefaultSummaryCap;
    std::deque<QString> m_summaryQueue;
    RestCall m_listCall;
    RestCall m_summaryCall;
    QString m_counting;        // the bucket m_summaryCall counts
    quint64 m_generation = 0;  // the cluster's: answers from a previous one are dropped
    std::map<QString, api::BucketProps> m_props;
    std::int64_t m_bmdVersion = 0;  // of m_props; an older answer is dropped
    QString m_propsError;
    RestCall m_propsCall;
    bool m_propsAgain = false;  // a refresh came while the properties were being read
    api::Smap m_smap;
};

}  // namespace tessera::console
