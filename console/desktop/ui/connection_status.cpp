#include "ui/connection_status.h"

#include "core/cluster_connection.h"

#include <QHBoxLayout>
#include <QLabel>

namespace tessera::console {

ConnectionStatus::ConnectionStatus(ClusterConnection* connection, QWidget* parent)
    : QWidget(parent), m_connection(connection), m_state(new QLabel(this)), m_smap(new QLabel(this)),
      m_nodes(new QLabel(this))
{
    m_state->setObjectName(QStringLiteral("connectionState"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_state);
    layout->addSpacing(16);
    layout->addWidget(m_smap);
    layout->addSpacing(16);
    layout->addWidget(m_nodes);
    layout->addStretch(1);
    connect(m_connection, &ClusterConnection::statusChanged, this, &ConnectionStatus::update);
    update();
}

QString ConnectionStatus::stateText() const { return m_state->text(); }

QString ConnectionStatus::smapText() const { return m_smap->text(); }

QString ConnectionStatus::nodesText() const { return m_nodes->text(); }

void ConnectionStatus::update()
{
    const auto state = m_connection->state();
    QString color = QStringLiteral("#9e9e9e");
    QString text = stateName(state);
    switch (state) {
    case ClusterConnection::State::Connected:
        color = QStringLiteral("#2e7d32");
        if (m_connection->feedMode() == ClusterConnection::FeedMode::Polling) {
            color = QStringLiteral("#e08a00");
            text += QStringLiteral(" — ") + m_connection->feedProblem();
        }
        break;
    case ClusterConnection::State::Connecting:
    case ClusterConnection::State::Reconnecting:
        color = QStringLiteral("#e08a00");
        if (!m_connection->lastError().isEmpty()) {
            text += QStringLiteral(" (") + m_connection->lastError() + QStringLiteral(")");
        }
        break;
    case ClusterConnection::State::Offline:
        if (!m_connection->lastError().isEmpty()) {
            text += QStringLiteral(" (") + m_connection->lastError() + QStringLiteral(")");
        }
        break;
    }
    m_state->setText(QStringLiteral("<span style='color:%1'>●</span> %2  %3")
                         .arg(color, text.toHtmlEscaped(), m_connection->endpoint().toString().toHtmlEscaped()));
    m_state->setProperty("state", stateName(state));
    const bool known = m_connection->smapVersion() > 0;
    m_smap->setText(known ? tr("Smap v%1").arg(m_connection->smapVersion()) : QString());
    m_nodes->setText(known ? tr("%n node(s)", nullptr, m_connection->nodeCount()) : QString());
}

}  // namespace tessera::console
