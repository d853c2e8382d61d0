#include "preview_panel.h"

#include "archive/archive_format.h"
#include "core/rest_client.h"
#include "models/preview_loader.h"
#include "models/shard_model.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace tessera::console {

PreviewPanel::PreviewPanel(RestClient* rest, QWidget* parent)
    : QWidget(parent), m_rest(rest), m_batch(new ObjectBatch(rest, this)), m_loader(new PreviewLoader(rest, this)),
      m_shards(new ShardModel(rest, this))
{
    connect(m_batch, &ObjectBatch::finished, this,
            [this](const ObjectBatch::Summary& summary) { emit statusMessage(summary.text()); });
    setObjectName(QStringLiteral("previewPanel"));
    m_title = new QLabel(tr("<b>Preview</b>"));
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("previewSummary"));
    m_summary->setWordWrap(true);
    m_image = new QLabel;
    m_image->setAlignment(Qt::AlignCenter);
    m_image->setMinimumSize(64, 64);
    m_text = new QPlainTextEdit;
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_shardView = new QTableView;
    m_shardView->setObjectName(QStringLiteral("shardView"));
    m_shardView->setModel(m_shards);
    m_shardView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_shardView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_shardView->verticalHeader()->setDefaultSectionSize(ShardModel::kThumbnailPx + 6);
    m_shardView->verticalHeader()->hide();
    m_shardView->setIconSize(QSize(ShardModel::kThumbnailPx, ShardModel::kThumbnailPx));
    m_shardView->horizontalHeader()->setStretchLastSection(true);
    m_shardView->setWordWrap(false);
    m_shardView->setTextElideMode(Qt::ElideRight);
    m_shardView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_shardView, &QTableView::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        menu.addAction(tr("Download members of the selected samples…"), this, &PreviewPanel::downloadMembers)
            ->setEnabled(m_shardView->selectionModel()->hasSelection());
        menu.addAction(tr("Transform with ETL…"), this, &PreviewPanel::transformSelected)
            ->setEnabled(m_shardView->selectionModel()->selectedRows().size() == 1);
        menu.exec(m_shardView->viewport()->mapToGlobal(pos));
    });
    connect(m_shards, &QAbstractItemModel::modelReset, this, [this] {
        // Widths from the header and the listing (cell contents arrive later).
        m_shardView->resizeColumnToContents(0);
        for (int c = 1; c + 1 < m_shards->columnCount(); ++c) {
            const int hint = m_shards->headerData(c, Qt::Horizontal, ShardModel::ColumnWidthRole).toInt();
            m_shardView->setColumnWidth(c, std::max(hint, m_shardView->horizontalHeader()->sectionSizeHint(c)));
        }
    });
    connect(m_shards, &ShardModel::loaded, this, [this] { m_summary->setText(m_shards->statusText()); });

    m_stack = new QStackedWidget;
    m_stack->addWidget(m_image);
    m_stack->addWidget(m_text);
    m_stack->addWidget(m_shardView);
    // The preview cap, kept between runs.
    auto* limit = new QComboBox;
    limit->setObjectName(QStringLiteral("previewLimit"));
    limit->setToolTip(tr("Read at most this much of an object to preview it"));
    for (const qint64 bytes : {256LL << 10, 1LL << 20, 4LL << 20, 16LL << 20}) {
        limit->addItem(tr("up to %1").arg(QLocale().formattedDataSize(bytes, 0, QLocale::DataSizeIecFormat)), bytes);
    }
    const qint64 saved =
        QSettings().value(QStringLiteral("preview/maxBytes"), PreviewLoader::kDefaultMaxBytes).toLongLong();
    limit->setCurrentIndex(std::max(0, limit->findData(saved)));
    m_loader->setMaxBytes(limit->currentData().toLongLong());
    connect(limit, &QComboBox::currentIndexChanged, this, [this, limit] {
        const qint64 bytes = limit->currentData().toLongLong();
        m_loader->setMaxBytes(bytes);
        QSettings().setValue(QStringLiteral("preview/maxBytes"), bytes);
    });
    auto* header = new QHBoxLayout;
    header->addWidget(m_title, 1);
    header->addWidget(limit);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_summary);
    layout->addWidget(m_stack, 1);
    connect(m_loader, &PreviewLoader::ready, this, &PreviewPanel::onReady);
    clear();
}

void PreviewPanel::clear()
{
    m_shownBucket.clear();
    m_shownName.clear();
    m_loader->clear();
    m_shards->clear();
    m_title->setText(tr("<b>Preview</b>"));
    m_summary->setText(tr("Select an object to preview it, or a shard to see its samples."));
    m_text->clear();
    m_image->clear();
    m_fullImage = {};
    m_stack->setCurrentWidget(m_text);
}

QString PreviewPanel::summaryText() const { return m_summary->text(); }

void PreviewPanel::showObject(const QString& bucket, const QString& name)
{
    m_shownBucket = bucket;
    m_shownName = name;
    m_title->setText(QStringLiteral("<b>%1</b>").arg(name.toHtmlEscaped()));
    if (archive::formatFromName(name.toStdString())) {
        m_loader->clear();
        m_summary->setText(tr("listing the shard…"));
        m_stack->setCurrentWidget(m_shardView);
        m_shards->setShard(bucket, name);
        return;
    }
    m_shards->clear();
    m_summary->setText(tr("reading…"));
    m_loader->load(bucket, name);
}

void PreviewPanel::onReady(const Preview& preview)
{
    m_summary->setText(preview.summary);
    if (preview.kind == Preview::Kind::Image) {
        m_fullImage = preview.image;
        m_stack->setCurrentWidget(m_image);
        updateImage();
        return;
    }
    m_text->setPlainText(preview.text);
    m_stack->setCurrentWidget(m_text);
}

void PreviewPanel::updateImage()
{
    if (m_fullImage.isNull()) return;
    const QSize box = m_image->size().boundedTo(m_fullImage.size() * 8);
    // Small images (28×28 Fashion-MNIST) are scaled up without smoothing so pixels stay crisp.
    const bool upscale = box.width() > m_fullImage.width();
    m_image->setPixmap(QPixmap::fromImage(
        m_fullImage.scaled(box, Qt::KeepAspectRatio, upscale ? Qt::FastTransformation : Qt::SmoothTransformation)));
}

void PreviewPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (m_stack->currentWidget() == m_image) updateImage();
}

void PreviewPanel::transformSelected()
{
    const auto rows = m_shardView->selectionModel()->selectedRows();
    if (rows.size() != 1) return;
    const QStringList members = m_shards->membersOf(rows.front().row());
    if (members.isEmpty()) return;
    QString chosen = members.front();
    static const QStringList images{QStringLiteral(".png"), QStringLiteral(".jpg"), QStringLiteral(".jpeg"),
                                    QStringLiteral(".webp"), QStringLiteral(".bmp")};
    for (const QString& m : members) {
        if (std::any_of(images.begin(), images.end(),
                        [&](const QString& e) { return m.endsWith(e, Qt::CaseInsensitive); })) {
            chosen = m;
            break;
        }
    }
    emit transformRequested(m_shards->bucket(), m_shards->shard(), chosen);
}

void PreviewPanel::downloadMembers()
{
    QStringList members;
    for (const QModelIndex& i : m_shardView->selectionModel()->selectedRows()) members << m_shards->membersOf(i.row());
    if (members.isEmpty()) return;
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Download %n member(s) into", nullptr, int(members.size())));
    if (dir.isEmpty()) return;
    QList<ObjectBatch::Download> items;
    for (const QString& m : members) items.push_back({m_shards->shard(), m, QDir(dir).filePath(m)});
    m_batch->download(m_shards->bucket(), items, dir);
}

}  // namespace tessera::console
