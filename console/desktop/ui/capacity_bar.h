#pragma once

#include <QProgressBar>
#include <cstdint>

namespace tessera::console {

// A mountpath's (or node's) used/total capacity: green, amber from 85 %,
// red from 95 %, with the figures as text.
class CapacityBar : public QProgressBar {
    Q_OBJECT
public:
    explicit CapacityBar(QWidget* parent = nullptr);
    void setUsage(const QString& label, std::uint64_t used, std::uint64_t total);
    // "normal", "warning" or "critical" (for tests and styling).
    QString level() const { return m_level; }

private:
    QString m_level;
};

}  // namespace tessera::console
