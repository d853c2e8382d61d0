#pragma once

#include <QSortFilterProxyModel>
#include <QString>

namespace tessera::console {

// Filters an EventModel by minimum severity and by text (matched against the
// kind, node and message). The order stays the source's (newest first).
class EventFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit EventFilterModel(QObject* parent = nullptr);

    int minimumSeverity() const { return m_minimumSeverity; }
    QString text() const { return m_text; }

public slots:
    // 0 info and up, 1 warnings and errors, 2 errors only.
    void setMinimumSeverity(int rank);
    void setText(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    int m_minimumSeverity = 0;
    QString m_text;
};

}  // namespace tessera::console
