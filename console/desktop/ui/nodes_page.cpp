#include "ui/nodes_page.h"

#include "core/cluster_connection.h"
#include "models/metrics_history.h"
#include "models/node_model.h"
#include "ui/capacity_bar.h"
#include "ui/throughput_chart.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace tessera::console {

NodesPage::NodesPage(ClusterConnection* connection, NodeModel* nodes, MetricsHistory* history, QWidget* parent)
    : QWidget(parent), m_connection(connection), m_nodes(nodes), m_history(history),
      m_proxy(new QSortFilterProxyModel(this)), m_table(new QTableView(this)), m_search(new QLineEdit(this)),
      m_detailTitle(new QLabel(this)),
      m_nodeThroughput(new ThroughputChart(tr("Node throughput"), ChartUnit::BytesPerSecond, this)),
      m_nodeOps(new ThroughputChart(tr("Node operations (ops/s) and CPU"), ChartUnit::PerSecond, this)),
      m_barsLayout(new QVBoxLayout)
{
    m_proxy->setSourceModel(nodes);
    m_proxy->setSortRole(NodeModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);  // the model's order: proxies, then targets by id
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_search->setPlaceholderText(tr("Filter nodes (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    connect(m_search, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_nodeThroughput->addSeries(tr("GET"), QColor(0x1e, 0x88, 0xe5));
    m_nodeThroughput->addSeries(tr("PUT"), QColor(0x43, 0xa0, 0x47));
    // CPU on an axis of its own: % of one core next to thousands of ops/s
    // would be a flat line at the bottom.
    m_nodeOps->addRightAxis(ChartUnit::Percent);
    m_nodeOps->addSeries(tr("ops/s"), QColor(0x8e, 0x24, 0xaa));
    m_nodeOps->addSeries(tr("CPU %"), QColor(0xef, 0x6c, 0x00), ThroughputChart::Side::Right);

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_search);
    topLayout->addWidget(m_table);

    auto* detail = new QWidget(this);
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_detailTitle);
    auto* charts = new QHBoxLayout;
    charts->addWidget(m_nodeThroughput);
    charts->addWidget(m_nodeOps);
    detailLayout->addLayout(charts, 1);
    detailLayout->addLayout(m_barsLayout);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &NodesPage::onSelectionChanged);
    connect(m_history, &MetricsHistory::nodeSampleAppended, this, &NodesPage::onNodeSample);
    connect(m_nodes, &QAbstractItemModel::dataChanged, this, [this] {
        if (!m_selected.isEmpty()) {
            showDetails();
        }
    });
    m_detailTitle->setText(tr("Select a node to see its own charts."));
}

void NodesPage::refresh() { m_connection->resync(); }

void NodesPage::focusSearch()
{
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void NodesPage::selectNode(const QString& id)
{
    const int row = m_nodes->rowOf(id);
    if (row < 0) {
        return;
    }
    const QModelIndex index = m_proxy->mapFromSource(m_nodes->index(row, 0));
    m_table->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->setCurrentIndex(index);
}

void NodesPage::onSelectionChanged()
{
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        return;
    }
    const int row = m_proxy->mapToSource(rows.first()).row();
    m_selected = m_nodes->node(row).id;
    m_nodeThroughput->clear();
    m_nodeOps->clear();
    for (const auto& s : m_history->nodeSeries(m_selected)) {
        onNodeSample(m_selected, s);
    }
    showDetails();
}

void NodesPage::onNodeSample(const QString& id, const NodeSample& s)
{
    if (id != m_selected) {
        return;
    }
    constexpr double kBytesPerMB = 1e6;
    m_nodeThroughput->append(0, s.tsMs, s.getMBps * kBytesPerMB);
    m_nodeThroughput->append(1, s.tsMs, s.putMBps * kBytesPerMB);
    m_nodeOps->append(0, s.tsMs, s.opsPerSec);
    m_nodeOps->append(1, s.tsMs, s.cpuPercent);
}

void NodesPage::showDetails()
{
    const int row = m_nodes->rowOf(m_selected);
    if (row < 0) {
        return;
    }
    const NodeRow& n = m_nodes->node(row);
    m_detailTitle->setText(tr("<b>%1</b> · %2 · %3 · %4").arg(n.id, n.role, nodeStateName(n.state), n.url));
    while (m_bars.size() > n.mountpaths.size()) {
        delete m_bars.back();
        m_bars.pop_back();
    }
    while (m_bars.size() < n.mountpaths.size()) {
        auto* bar = new CapacityBar(this);
        m_barsLayout->addWidget(bar);
        m_bars.push_back(bar);
    }
    for (std::size_t i = 0; i < n.mountpaths.size(); ++i) {
        const auto& mp = n.mountpaths[i];
        m_bars[i]->setUsage(QString::fromStdString(mp.path), mp.used, mp.total);
    }
}

}  // namespace tessera::console
