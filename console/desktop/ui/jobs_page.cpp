#include "ui/jobs_page.h"

#include "core/cluster_connection.h"
#include "core/job_client.h"
#include "models/job_model.h"
#include "ui/progress_delegate.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tessera::console {

JobsPage::JobsPage(ClusterConnection* connection, JobModel* jobs, JobClient* client, QWidget* parent)
    : QWidget(parent), m_connection(connection), m_jobs(jobs), m_client(client),
      m_proxy(new QSortFilterProxyModel(this)), m_table(new QTableView(this)), m_search(new QLineEdit(this)),
      m_abort(new QPushButton(tr("Abort…"), this)), m_status(new QLabel(this))
{
    m_proxy->setSourceModel(jobs);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setItemDelegateForColumn(JobModel::ProgressColumn, new ProgressDelegate(JobModel::ProgressRole, this));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(JobModel::IdColumn, 170);
    m_table->setColumnWidth(JobModel::KindColumn, 80);
    m_table->setColumnWidth(JobModel::StateColumn, 90);
    m_table->setColumnWidth(JobModel::PhaseColumn, 80);
    m_table->setColumnWidth(JobModel::ProgressColumn, 340);
    m_table->setColumnWidth(JobModel::ElapsedColumn, 70);
    m_search->setPlaceholderText(tr("Filter jobs (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    connect(m_search, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_search, 1);
    bar->addWidget(m_abort);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_status);

    connect(m_abort, &QPushButton::clicked, this, &JobsPage::abortSelected);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &JobsPage::updateButtons);
    connect(m_jobs, &QAbstractItemModel::dataChanged, this, &JobsPage::updateButtons);
    connect(m_client, &JobClient::abortFinished, this, [this](const QString& id, const QString& error) {
        m_status->setText(error.isEmpty() ? tr("Abort of %1 requested; it ends once every target has stopped.").arg(id)
                                          : tr("Abort of %1 failed: %2").arg(id, error));
    });
    updateButtons();
}

QString JobsPage::statusText() const { return m_status->text(); }

void JobsPage::refresh() { m_connection->resync(); }

void JobsPage::focusSearch()
{
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void JobsPage::selectJob(const QString& id)
{
    const int row = m_jobs->rowOf(id);
    if (row < 0) {
        return;
    }
    const QModelIndex index = m_proxy->mapFromSource(m_jobs->index(row, 0));
    m_table->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->setCurrentIndex(index);
}

QString JobsPage::selectedJob() const
{
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        return {};
    }
    return m_proxy->data(rows.first(), JobModel::JobIdRole).toString();
}

void JobsPage::updateButtons()
{
    const QString id = selectedJob();
    const int row = id.isEmpty() ? -1 : m_jobs->rowOf(id);
    m_abort->setEnabled(row >= 0 && m_jobs->data(m_jobs->index(row, 0), JobModel::RunningRole).toBool());
}

void JobsPage::abortSelected()
{
    const QString id = selectedJob();
    const int row = id.isEmpty() ? -1 : m_jobs->rowOf(id);
    if (row < 0) {
        return;
    }
    const QString kind = m_jobs->data(m_jobs->index(row, JobModel::KindColumn)).toString();
    QMessageBox confirm(
        QMessageBox::Warning, tr("Abort job"),
        tr("Abort the %1 job %2?\nEvery target stops it between objects; work done so far stays.").arg(kind, id),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    confirm.setObjectName(QStringLiteral("abortConfirmation"));
    confirm.setDefaultButton(QMessageBox::Cancel);
    if (confirm.exec() != QMessageBox::Yes) {
        m_status->setText(tr("%1 left running.").arg(id));
        return;
    }
    m_status->setText(tr("Aborting %1…").arg(id));
    m_client->abort(id);
}

}  // namespace tessera::console
