#pragma once

#include "api/job.h"

#include <QAbstractTableModel>
#include <QString>
#include <functional>
#include <vector>

class QTimer;

namespace tessera::console {

// Every job the console has seen, newest first: the list read over REST after
// each (re)connect, then live from the feed's `job` messages. Running jobs'
// elapsed time ticks once a second. UI thread.
class JobModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        KindColumn,
        StateColumn,
        PhaseColumn,
        ProgressColumn,
        CountersColumn,  // what the kind counts besides progress (a scrub's checked, corrupt, …)
        ElapsedColumn,
        ErrorColumn,
        ColumnCount
    };
    enum Role {
        ProgressRole = Qt::UserRole + 1,  // 0..100, or -1 while the totals are unknown
        JobIdRole,
        RunningRole,  // bool
    };
    static constexpr int kMaxJobs = 500;  // the oldest ended jobs leave beyond this

    // `nowNs` gives the wall clock (Unix ns); tests may pin it.
    explicit JobModel(QObject* parent = nullptr, std::function<std::int64_t()> nowNs = {});

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const api::JobStatus& job(int row) const { return m_jobs.at(static_cast<std::size_t>(row)); }
    int rowOf(const QString& id) const;

    // "checked 40 · corrupt 1 · repaired 1 · unrepairable 0": the counters
    // `kind` is documented to keep (docs/api.md, Jobs) in that order, 0 when
    // absent (targets send only what they counted), then any other in name
    // order; "_" reads as a space. Empty for a kind without counters.
    static QString countersText(const std::string& kind, const std::map<std::string, std::uint64_t>& counters);

signals:
    // A job the model had as running is now finished, aborted or failed.
    void jobEnded(const tessera::api::JobStatus& job);

public slots:
    void updateJob(const tessera::api::JobStatus& job);
    void setJobs(const std::vector<tessera::api::JobStatus>& jobs);
    void clear();

private:
    void tick();
    int progressPercent(const api::JobStatus& job) const;

    std::vector<api::JobStatus> m_jobs;  // newest start first
    std::function<std::int64_t()> m_nowNs;
    QTimer* m_timer;
};

}  // namespace tessera::console
