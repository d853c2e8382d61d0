#pragma once

#include <QString>
#include <QWidget>
#include <functional>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tessera::console {

class ClusterConnection;
class JobClient;
class JobModel;

// Every job (kind, state, phase, progress bar, elapsed), live from the feed;
// Abort asks for a confirmation that names the job. Room for the dSort and
// ETL editors: they are pages of their own.
class JobsPage : public QWidget {
    Q_OBJECT
public:
    JobsPage(ClusterConnection* connection, JobModel* jobs, JobClient* client, QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    QPushButton* abortButton() const { return m_abort; }
    QString statusText() const;
    void selectJob(const QString& id);

public slots:
    void refresh();
    void focusSearch();
    // Asks to abort the selected job (after the confirmation).
    void abortSelected();

private:
    QString selectedJob() const;
    void updateButtons();

    ClusterConnection* m_connection;
    JobModel* m_jobs;
    JobClient* m_client;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLineEdit* m_search;
    QPushButton* m_abort;
    QLabel* m_status;
};

}  // namespace tessera::console
