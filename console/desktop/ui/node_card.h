#pragma once

#include <QFrame>
#include <vector>

class QLabel;
class QVBoxLayout;

namespace tessera::console {

class CapacityBar;
struct NodeRow;

// One node at a glance on the dashboard: id and role, state, uptime, CPU,
// memory, current ops/s, and a capacity bar per mountpath.
class NodeCard : public QFrame {
    Q_OBJECT
public:
    explicit NodeCard(QWidget* parent = nullptr);
    void setNode(const NodeRow& node);
    const std::vector<CapacityBar*>& bars() const { return m_bars; }
    QString nodeId() const { return m_id; }

signals:
    // Double-clicked: the user wants this node's details.
    void activated(const QString& id);

protected:
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    QLabel* m_title;
    QLabel* m_state;
    QLabel* m_figures;
    QVBoxLayout* m_barsLayout;
    std::vector<CapacityBar*> m_bars;
    QString m_id;
};

}  // namespace tessera::console
