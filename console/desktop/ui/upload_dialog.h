#pragma once
// Asks before an upload: how many files and bytes go where, and whether to
// send them as loose objects or packed into WebDataset shards (target shard
// size, format). Opened window-modal with open(), never exec(), so nothing
// waits on it.

#include "archive/archive_format.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace tessera::console {

struct ScanResult;

class UploadDialog : public QDialog {
    Q_OBJECT
public:
    UploadDialog(const ScanResult& scan, const QString& destination, QWidget* parent = nullptr);

    bool packIntoShards() const;
    void setPackIntoShards(bool on);
    qint64 shardBytes() const;
    void setShardBytes(qint64 bytes);
    archive::ArchiveFormat format() const;
    QString summaryText() const;

private:
    QLabel* m_summary;
    QCheckBox* m_pack;
    QDoubleSpinBox* m_shardMiB;
    QComboBox* m_format;
};

}  // namespace tessera::console
