#include "ui/dashboard_page.h"

#include "core/cluster_connection.h"
#include "models/event_filter_model.h"
#include "models/event_model.h"
#include "models/metrics_history.h"
#include "models/node_model.h"
#include "ui/node_card.h"
#include "ui/throughput_chart.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace tessera::console {

namespace {
constexpr int kCardColumns = 4;
const QColor kGetColor(0x1e, 0x88, 0xe5);
const QColor kPutColor(0x43, 0xa0, 0x47);
const QColor kErrorColor(0xc6, 0x28, 0x28);
const QColor kAbortColor(0x9e, 0x9e, 0x9e);
constexpr double kBytesPerMB = 1e6;
}  // namespace

DashboardPage::DashboardPage(ClusterConnection* connection, MetricsHistory* history, NodeModel* nodes,
                             EventModel* events, QWidget* parent)
    : QWidget(parent), m_connection(connection), m_history(history), m_nodes(nodes),
      m_throughput(new ThroughputChart(tr("Throughput"), ChartUnit::BytesPerSecond, this)),
      m_ops(new ThroughputChart(tr("Operations (ops/s)"), ChartUnit::PerSecond, this)),
      m_latency(new ThroughputChart(tr("Latency p99"), ChartUnit::Milliseconds, this)),
      m_errors(new ThroughputChart(tr("Errors (per second)"), ChartUnit::PerSecond, this)),
      m_cardsLayout(new QGridLayout), m_eventFilter(new EventFilterModel(this)), m_eventsView(new QTableView(this)),
      m_severity(new QComboBox(this)), m_search(new QLineEdit(this))
{
    m_throughput->addSeries(tr("GET"), kGetColor);
    m_throughput->addSeries(tr("PUT"), kPutColor);
    m_ops->addSeries(tr("GET"), kGetColor);
    m_ops->addSeries(tr("PUT"), kPutColor);
    m_latency->addSeries(tr("GET"), kGetColor);
    m_latency->addSeries(tr("PUT"), kPutColor);
    m_errors->addSeries(tr("errors"), kErrorColor);
    // Requests a client gave up on are not the cluster's errors; shown beside
    // them, grey, so that a client that times out is still seen.
    m_errors->addSeries(tr("client aborts"), kAbortColor);

    auto* charts = new QWidget(this);
    auto* chartGrid = new QGridLayout(charts);
    chartGrid->setContentsMargins(0, 0, 0, 0);
    chartGrid->addWidget(m_throughput, 0, 0);
    chartGrid->addWidget(m_ops, 0, 1);
    chartGrid->addWidget(m_latency, 1, 0);
    chartGrid->addWidget(m_errors, 1, 1);

    auto* cardsWidget = new QWidget(this);
    cardsWidget->setLayout(m_cardsLayout);
    m_cardsLayout->setContentsMargins(0, 0, 0, 0);
    m_cardsLayout->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* cardsScroll = new QScrollArea(this);
    cardsScroll->setWidgetResizable(true);
    cardsScroll->setWidget(cardsWidget);
    cardsScroll->setFrameShape(QFrame::NoFrame);

    m_eventFilter->setSourceModel(events);
    m_eventsView->setModel(m_eventFilter);
    m_eventsView->verticalHeader()->hide();
    m_eventsView->horizontalHeader()->setStretchLastSection(true);
    m_eventsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_eventsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_eventsView->setWordWrap(false);
    m_eventsView->setColumnWidth(EventModel::TimeColumn, 70);
    m_eventsView->setColumnWidth(EventModel::SeverityColumn, 70);
    m_eventsView->setColumnWidth(EventModel::KindColumn, 170);
    m_eventsView->setColumnWidth(EventModel::NodeColumn, 110);
    m_severity->addItem(tr("All severities"), 0);
    m_severity->addItem(tr("Warnings and errors"), 1);
    m_severity->addItem(tr("Errors only"), 2);
    m_search->setPlaceholderText(tr("Filter events (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    connect(m_severity, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_eventFilter->setMinimumSeverity(m_severity->itemData(i).toInt()); });
    connect(m_search, &QLineEdit::textChanged, m_eventFilter, &EventFilterModel::setText);

    auto* eventsBox = new QWidget(this);
    auto* eventsLayout = new QVBoxLayout(eventsBox);
    eventsLayout->setContentsMargins(0, 0, 0, 0);
    auto* filterRow = new QHBoxLayout;
    auto* eventsTitle = new QLabel(tr("<b>Events</b>"), eventsBox);
    filterRow->addWidget(eventsTitle);
    filterRow->addStretch(1);
    filterRow->addWidget(m_severity);
    filterRow->addWidget(m_search);
    eventsLayout->addLayout(filterRow);
    eventsLayout->addWidget(m_eventsView);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(charts);
    splitter->addWidget(cardsScroll);
    splitter->addWidget(eventsBox);
    cardsScroll->setMinimumHeight(120);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setStretchFactor(2, 1);
    splitter->setSizes({420, 160, 160});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(m_history, &MetricsHistory::sampleAppended, this, &DashboardPage::addSample);
    connect(m_history, &MetricsHistory::historyReset, this, &DashboardPage::reloadHistory);
    connect(m_nodes, &QAbstractItemModel::rowsInserted, this, &DashboardPage::rebuildCards);
    connect(m_nodes, &QAbstractItemModel::rowsRemoved, this, &DashboardPage::rebuildCards);
    connect(m_nodes, &QAbstractItemModel::modelReset, this, &DashboardPage::rebuildCards);
    connect(m_nodes, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& from, const QModelIndex& to) {
        for (int r = from.row(); r <= to.row(); ++r) {
            updateCard(r);
        }
    });
    reloadHistory();
    rebuildCards();
}

void DashboardPage::refresh() { m_connection->resync(); }

void DashboardPage::focusSearch()
{
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void DashboardPage::addSample(const MetricsSample& s)
{
    m_throughput->append(0, s.tsMs, s.getMBps * kBytesPerMB);
    m_throughput->append(1, s.tsMs, s.putMBps * kBytesPerMB);
    m_ops->append(0, s.tsMs, s.getOps);
    m_ops->append(1, s.tsMs, s.putOps);
    m_latency->append(0, s.tsMs, s.getP99Ms);
    m_latency->append(1, s.tsMs, s.putP99Ms);
    m_errors->append(0, s.tsMs, s.errorsPerSec);
    m_errors->append(1, s.tsMs, s.abortsPerSec);
}

void DashboardPage::reloadHistory()
{
    for (auto* chart : {m_throughput, m_ops, m_latency, m_errors}) {
        chart->clear();
    }
    for (const auto& s : m_history->samples()) {
        addSample(s);
    }
}

void DashboardPage::rebuildCards()
{
    for (auto* card : m_cards) {
        delete card;
    }
    m_cards.clear();
    for (int r = 0; r < m_nodes->rowCount(); ++r) {
        auto* card = new NodeCard(this);
        connect(card, &NodeCard::activated, this, &DashboardPage::nodeActivated);
        m_cardsLayout->addWidget(card, r / kCardColumns, r % kCardColumns);
        m_cards.push_back(card);
        updateCard(r);
    }
}

void DashboardPage::updateCard(int row)
{
    if (row >= 0 && row < static_cast<int>(m_cards.size())) {
        m_cards[static_cast<std::size_t>(row)]->setNode(m_nodes->node(row));
    }
}

}  // namespace tessera::console
