#include "ui/node_card.h"

#include "models/format_util.h"
#include "models/node_model.h"
#include "ui/capacity_bar.h"

#include <QFileInfo>
#include <QLabel>
#include <QVBoxLayout>

namespace tessera::console {

NodeCard::NodeCard(QWidget* parent)
    : QFrame(parent), m_title(new QLabel(this)), m_state(new QLabel(this)), m_figures(new QLabel(this)),
      m_barsLayout(new QVBoxLayout)
{
    setFrameShape(QFrame::StyledPanel);
    setMinimumWidth(260);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->setSpacing(3);
    auto* header = new QHBoxLayout;
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    header->addWidget(m_title, 1);
    header->addWidget(m_state);
    layout->addLayout(header);
    layout->addWidget(m_figures);
    m_barsLayout->setSpacing(2);
    layout->addLayout(m_barsLayout);
    layout->addStretch(1);
}

void NodeCard::mouseDoubleClickEvent(QMouseEvent* event)
{
    QFrame::mouseDoubleClickEvent(event);
    if (!m_id.isEmpty()) {
        emit activated(m_id);
    }
}

void NodeCard::setNode(const NodeRow& node)
{
    m_id = node.id;
    setToolTip(tr("Double-click for this node's charts"));
    m_title->setText(QStringLiteral("%1  ·  %2").arg(node.id, node.role));
    m_title->setToolTip(node.url);
    QString color = QStringLiteral("#2e7d32");
    if (node.state == NodeState::Stale || node.state == NodeState::Maintenance ||
        node.state == NodeState::Decommissioning) {
        color = QStringLiteral("#e08a00");
    } else if (node.state == NodeState::Gone || node.state == NodeState::Away) {
        color = QStringLiteral("#c62828");
    }
    m_state->setText(QStringLiteral("<b style='color:%1'>● %2</b>").arg(color, nodeStateName(node.state)));
    if (node.state == NodeState::Away) {
        m_figures->setText(tr("missed its keepalives:\nits objects answer 503 until it returns"));
    } else if (node.state == NodeState::Maintenance) {
        m_figures->setText(tr("in maintenance:\nits objects answer 503 until it returns"));
    } else if (node.state == NodeState::Decommissioning) {
        m_figures->setText(tr("decommissioning: still serving;\nits objects move to the other targets"));
    } else if (node.hasMetrics && node.state != NodeState::Gone) {
        m_figures->setText(tr("up %1 · CPU %2 % · mem %3\n%4 ops/s")
                               .arg(formatDuration(static_cast<double>(node.uptimeNs) / 1e9))
                               .arg(node.cpuPercent, 0, 'f', 1)
                               .arg(formatBytes(static_cast<qint64>(node.rssBytes)))
                               .arg(node.opsPerSec, 0, 'f', 1));
    } else {
        m_figures->setText(node.state == NodeState::Gone ? tr("left the cluster map") : tr("no figures yet"));
    }
    while (m_bars.size() > node.mountpaths.size()) {
        delete m_bars.back();
        m_bars.pop_back();
    }
    while (m_bars.size() < node.mountpaths.size()) {
        auto* bar = new CapacityBar(this);
        m_barsLayout->addWidget(bar);
        m_bars.push_back(bar);
    }
    for (std::size_t i = 0; i < node.mountpaths.size(); ++i) {
        const auto& mp = node.mountpaths[i];
        m_bars[i]->setUsage(QFileInfo(QString::fromStdString(mp.path)).fileName(), mp.used, mp.total);
        m_bars[i]->setToolTip(QString::fromStdString(mp.path));
    }
}

}  // namespace tessera::console
