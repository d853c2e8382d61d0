#pragma once

#include <QString>
#include <QWidget>
#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tessera::console {

class BucketModel;
class ClusterConnection;
class JobClient;
class JobModel;

// Every job (kind, state, phase, progress bar, the kind's counters, elapsed),
// live from the feed; Abort asks for a confirmation that names the job. The
// bar above starts a scrub or a reprotect on one bucket or all of them (the
// bucket list is `buckets`'). The dSort and ETL editors are pages of their own.
class JobsPage : public QWidget {
    Q_OBJECT
public:
    JobsPage(ClusterConnection* connection, JobModel* jobs, JobClient* client, BucketModel* buckets,
             QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    QPushButton* abortButton() const { return m_abort; }
    QComboBox* startKindBox() const { return m_startKind; }
    QComboBox* startBucketBox() const { return m_startBucket; }
    QPushButton* startButton() const { return m_start; }
    QString statusText() const;
    void selectJob(const QString& id);

public slots:
    void refresh();
    void focusSearch();
    // Asks to abort the selected job (after the confirmation).
    void abortSelected();
    // Starts a job of `kind` ("scrub", "reprotect") on `bucket` (empty: every
    // bucket); the status line says how it went and the new job is selected.
    void startBucketJob(const QString& kind, const QString& bucket);

private:
    QString selectedJob() const;
    void updateButtons();
    void fillBuckets();

    ClusterConnection* m_connection;
    JobModel* m_jobs;
    JobClient* m_client;
    BucketModel* m_buckets;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLineEdit* m_search;
    QPushButton* m_abort;
    QComboBox* m_startKind;
    QComboBox* m_startBucket;
    QPushButton* m_start;
    QLabel* m_status;
    QString m_startingKind;  // a start in flight (empty: none)
};

}  // namespace tessera::console
