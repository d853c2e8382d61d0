#include "upload_panel.h"

#include "core/upload_queue.h"
#include "models/upload_model.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace tessera::console {

namespace {

// Draws UploadModel::ProgressRole as a progress bar.
class ProgressDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionProgressBar bar;
        bar.rect = option.rect.adjusted(2, 3, -2, -3);
        bar.minimum = 0;
        bar.maximum = 100;
        bar.progress = index.data(UploadModel::ProgressRole).toInt();
        bar.text = index.data().toString();
        bar.textVisible = true;
        bar.state = option.state | QStyle::State_Horizontal;
        const QWidget* w = option.widget;
        (w ? w->style() : QApplication::style())->drawControl(QStyle::CE_ProgressBar, &bar, painter, w);
    }
};

}  // namespace

UploadPanel::UploadPanel(UploadQueue* queue, QWidget* parent)
    : QWidget(parent), m_queue(queue), m_model(new UploadModel(queue, this))
{
    setObjectName(QStringLiteral("uploadPanel"));
    m_view = new QTableView;
    m_view->setModel(m_model);
    m_view->setItemDelegateForColumn(UploadModel::ProgressColumn, new ProgressDelegate(m_view));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->horizontalHeader()->setSectionResizeMode(UploadModel::NameColumn, QHeaderView::Stretch);
    m_view->horizontalHeader()->resizeSection(UploadModel::ProgressColumn, 160);
    m_view->horizontalHeader()->resizeSection(UploadModel::StateColumn, 220);

    m_totals = new QLabel;
    m_totals->setObjectName(QStringLiteral("uploadTotals"));
    m_total = new QProgressBar;
    m_total->setRange(0, 100);
    m_total->setMaximumWidth(220);
    auto* cancelSelected = new QPushButton(tr("Cancel"));
    auto* cancelAll = new QPushButton(tr("Cancel all"));
    auto* retry = new QPushButton(tr("Retry failed"));
    auto* clear = new QPushButton(tr("Clear finished"));
    connect(cancelSelected, &QPushButton::clicked, this, [this] {
        for (const QModelIndex& i : m_view->selectionModel()->selectedRows()) m_queue->cancel(i.row());
    });
    connect(cancelAll, &QPushButton::clicked, m_queue, &UploadQueue::cancelAll);
    connect(retry, &QPushButton::clicked, m_queue, &UploadQueue::retryFailed);
    connect(clear, &QPushButton::clicked, m_queue, &UploadQueue::clearFinished);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("<b>Uploads</b>")));
    bar->addWidget(m_total);
    bar->addWidget(m_totals, 1);
    bar->addWidget(cancelSelected);
    bar->addWidget(cancelAll);
    bar->addWidget(retry);
    bar->addWidget(clear);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view);

    connect(m_queue, &UploadQueue::totalsChanged, this, &UploadPanel::updateTotals);
    // Row changes refresh the totals too, at most every 100 ms.
    auto* coalesce = new QTimer(this);
    coalesce->setSingleShot(true);
    coalesce->setInterval(100);
    connect(coalesce, &QTimer::timeout, this, &UploadPanel::updateTotals);
    connect(m_queue, &UploadQueue::itemChanged, coalesce, [coalesce] {
        if (!coalesce->isActive()) coalesce->start();
    });
    connect(m_queue, &UploadQueue::packingProgress, this, [this](qint64 done, qint64 total) {
        m_totals->setText(tr("packing shards: %1 of %2 files").arg(done).arg(total));
    });
    updateTotals();
}

void UploadPanel::updateTotals()
{
    m_totals->setText(m_model->totalsText());
    m_total->setValue(m_model->totalPercent());
}

}  // namespace tessera::console
