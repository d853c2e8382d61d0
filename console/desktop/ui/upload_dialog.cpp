#include "upload_dialog.h"

#include "core/folder_scanner.h"
#include "core/shard_packer.h"
#include "models/format_util.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

namespace tessera::console {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}

UploadDialog::UploadDialog(const ScanResult& scan, const QString& destination, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Upload"));
    setObjectName(QStringLiteral("uploadDialog"));
    QString text = tr("Upload <b>%1</b> files (<b>%2</b>) to <b>%3</b>?")
                       .arg(QLocale().toString(static_cast<qint64>(scan.files.size())), formatBytes(scan.totalBytes),
                            destination.toHtmlEscaped());
    if (!scan.skipped.isEmpty()) {
        text += QStringLiteral("<br>") + tr("%n entries skipped (links, special or unreadable files)", nullptr,
                                            static_cast<int>(scan.skipped.size()));
    }
    m_summary = new QLabel(text);
    m_summary->setObjectName(QStringLiteral("uploadSummary"));
    m_summary->setWordWrap(true);
    if (!scan.skipped.isEmpty()) m_summary->setToolTip(scan.skipped.mid(0, 50).join('\n'));

    m_pack = new QCheckBox(tr("Pack into WebDataset shards (files grouped into samples by key)"));
    m_shardMiB = new QDoubleSpinBox;
    m_shardMiB->setDecimals(2);
    m_shardMiB->setRange(PackOptions::kMinShardBytes / kMiB, 16384);
    m_shardMiB->setValue(PackOptions::kDefaultShardBytes / kMiB);
    m_shardMiB->setSuffix(tr(" MiB"));
    m_format = new QComboBox;
    for (auto f : {archive::ArchiveFormat::Tar, archive::ArchiveFormat::TarGz, archive::ArchiveFormat::TarLz4,
                   archive::ArchiveFormat::Zip}) {
        m_format->addItem(QString::fromLatin1(archive::formatExtension(f)), static_cast<int>(f));
    }
    auto* form = new QFormLayout;
    form->addRow(tr("Target shard size:"), m_shardMiB);
    form->addRow(tr("Format:"), m_format);
    auto* packOptions = new QWidget;
    packOptions->setLayout(form);
    packOptions->setEnabled(false);
    connect(m_pack, &QCheckBox::toggled, packOptions, &QWidget::setEnabled);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Upload"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_pack);
    layout->addWidget(packOptions);
    layout->addWidget(buttons);
}

bool UploadDialog::packIntoShards() const { return m_pack->isChecked(); }
void UploadDialog::setPackIntoShards(bool on) { m_pack->setChecked(on); }
qint64 UploadDialog::shardBytes() const { return static_cast<qint64>(m_shardMiB->value() * kMiB); }
void UploadDialog::setShardBytes(qint64 bytes) { m_shardMiB->setValue(bytes / kMiB); }
archive::ArchiveFormat UploadDialog::format() const
{
    return static_cast<archive::ArchiveFormat>(m_format->currentData().toInt());
}
QString UploadDialog::summaryText() const { return m_summary->text(); }

}  // namespace tessera::console
