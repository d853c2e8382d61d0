#pragma once
// The upload queue as a table: one row per file or shard, with its state and
// progress; and the totals line ("12 of 40 files · 34 MiB of 120 MiB ·
// 12.3 MiB/s · ETA 0:07 · 1 failed").

#include <QAbstractTableModel>

namespace tessera::console {

class UploadQueue;

class UploadModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, SizeColumn, ProgressColumn, StateColumn, ColumnCount };
    enum Role {
        ProgressRole = Qt::UserRole + 1,  // int 0..100
        StateRole,                        // int (UploadState)
        ErrorRole,                        // QString
    };

    explicit UploadModel(UploadQueue* queue, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    QString totalsText() const;
    int totalPercent() const;  // 0..100 over the bytes of the files not cancelled

private:
    UploadQueue* m_queue;
    int m_rows = 0;
};

}  // namespace tessera::console
