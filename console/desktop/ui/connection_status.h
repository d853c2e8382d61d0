#pragma once

#include <QWidget>

class QLabel;

namespace tessera::console {

class ClusterConnection;

// The status bar's view of the connection: connected / reconnecting /
// offline (and whether the live feed or the polling fallback is in use, and
// why), the Smap version and the node count.
class ConnectionStatus : public QWidget {
    Q_OBJECT
public:
    explicit ConnectionStatus(ClusterConnection* connection, QWidget* parent = nullptr);

    QString stateText() const;
    QString smapText() const;
    QString nodesText() const;

private:
    void update();

    ClusterConnection* m_connection;
    QLabel* m_state;
    QLabel* m_smap;
    QLabel* m_nodes;
};

}  // namespace tessera::console
