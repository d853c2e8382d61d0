#pragma once

#include <QStyledItemDelegate>

namespace tessera::console {

// Paints a progress bar from the index's JobModel::ProgressRole (0..100, or
// -1 while unknown: a bar without a fill) with the display text on it.
class ProgressDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit ProgressDelegate(int progressRole, QObject* parent = nullptr);
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
    int m_role;
};

}  // namespace tessera::console
