#include "ui/jobs_page.h"

#include "core/cluster_connection.h"
#include "core/job_client.h"
#include "models/bucket_model.h"
#include "models/job_model.h"
#include "ui/progress_delegate.h"

#include <QComboBox>
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

JobsPage::JobsPage(ClusterConnection* connection, JobModel* jobs, JobClient* client, BucketModel* buckets,
                   QWidget* parent)
    : QWidget(parent), m_connection(connection), m_jobs(jobs), m_client(client), m_buckets(buckets),
      m_proxy(new QSortFilterProxyModel(this)), m_table(new QTableView(this)), m_search(new QLineEdit(this)),
      m_abort(new QPushButton(tr("Abort…"), this)), m_startKind(new QComboBox(this)),
      m_startBucket(new QComboBox(this)), m_start(new QPushButton(tr("Start"), this)), m_status(new QLabel(this))
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
    m_table->setColumnWidth(JobModel::IdColumn, 140);
    m_table->setColumnWidth(JobModel::KindColumn, 80);
    m_table->setColumnWidth(JobModel::StateColumn, 80);
    m_table->setColumnWidth(JobModel::PhaseColumn, 70);
    m_table->setColumnWidth(JobModel::ProgressColumn, 220);
    // A scrub's four counters on one line; with the others, the table fits
    // the default window's 1280 px (the last column takes what is left).
    m_table->setColumnWidth(JobModel::CountersColumn, 330);
    m_table->setColumnWidth(JobModel::ElapsedColumn, 70);
    m_search->setPlaceholderText(tr("Filter jobs (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    connect(m_search, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    // Starting a protection job: what, and on which bucket.
    m_startKind->setObjectName(QStringLiteral("startJobKind"));
    m_startKind->addItem(tr("Scrub"), QStringLiteral("scrub"));
    m_startKind->setItemData(0,
                             tr("Read every copy and check its checksum; a damaged copy of a mirrored object is "
                                "replaced from a good one (counters: checked, corrupt, repaired, unrepairable)"),
                             Qt::ToolTipRole);
    m_startKind->addItem(tr("Re-protect"), QStringLiteral("reprotect"));
    m_startKind->setItemData(1,
                             tr("Make every copy the buckets' mirror settings ask for and drop the others "
                                "(counter: copies sent)"),
                             Qt::ToolTipRole);
    m_startBucket->setObjectName(QStringLiteral("startJobBucket"));
    m_startBucket->setMinimumContentsLength(16);
    m_startBucket->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_start->setObjectName(QStringLiteral("startJob"));
    fillBuckets();
    if (m_buckets) {
        connect(m_buckets, &BucketModel::refreshed, this, &JobsPage::fillBuckets);
        connect(m_buckets, &QAbstractItemModel::modelReset, this, &JobsPage::fillBuckets);
    }
    connect(m_start, &QPushButton::clicked, this,
            [this] { startBucketJob(m_startKind->currentData().toString(), m_startBucket->currentData().toString()); });
    connect(m_client, &JobClient::started, this, [this](const api::JobStatus& job, const QString& bucket) {
        m_startingKind.clear();
        m_start->setEnabled(true);
        const QString id = QString::fromStdString(job.id);
        m_status->setText(tr("%1 started on %n target(s) for %2.", nullptr, static_cast<int>(job.targets.size()))
                              .arg(id, bucket.isEmpty() ? tr("every bucket") : tr("bucket %1").arg(bucket)));
        selectJob(id);
    });
    connect(m_client, &JobClient::startFailed, this,
            [this](const QString& kind, const QString& bucket, const QString& error) {
                m_startingKind.clear();
                m_start->setEnabled(true);
                m_status->setText(
                    tr("%1 of %2 not started: %3").arg(kind, bucket.isEmpty() ? tr("every bucket") : bucket, error));
            });

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_search, 1);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Start:"), this));
    bar->addWidget(m_startKind);
    bar->addWidget(new QLabel(tr("on"), this));
    bar->addWidget(m_startBucket);
    bar->addWidget(m_start);
    bar->addSpacing(12);
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

void JobsPage::fillBuckets()
{
    const QString current = m_startBucket->currentData().toString();
    m_startBucket->clear();
    m_startBucket->addItem(tr("all buckets"), QString());
    for (int r = 0; m_buckets && r < m_buckets->rowCount(); ++r) {
        const QString name = m_buckets->bucketAt(r);
        m_startBucket->addItem(name, name);
    }
    const int keep = m_startBucket->findData(current);
    m_startBucket->setCurrentIndex(keep >= 0 ? keep : 0);
}

void JobsPage::startBucketJob(const QString& kind, const QString& bucket)
{
    if (!m_startingKind.isEmpty()) {
        return;  // one start at a time: its answer names the job
    }
    m_startingKind = kind;
    m_start->setEnabled(false);
    // The bar shows what is being started, also when a context menu asked.
    if (const int k = m_startKind->findData(kind); k >= 0) {
        m_startKind->setCurrentIndex(k);
    }
    if (const int b = m_startBucket->findData(bucket); b >= 0) {
        m_startBucket->setCurrentIndex(b);
    }
    m_status->setText(tr("Starting %1 of %2…").arg(kind, bucket.isEmpty() ? tr("every bucket") : bucket));
    m_client->startBucketJob(kind, bucket);
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
