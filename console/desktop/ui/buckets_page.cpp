#include "buckets_page.h"

#include "bucket_props_dialog.h"
#include "core/folder_scanner.h"
#include "core/rest_client.h"
#include "core/upload_queue.h"
#include "models/bucket_model.h"
#include "models/object_model.h"
#include "preview_panel.h"
#include "upload_dialog.h"
#include "upload_panel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace tessera::console {

BucketsPage::BucketsPage(RestClient* rest, QWidget* parent) : BucketsPage(rest, BucketsModels{}, parent) {}

// A part of `models` that is missing is made here, owned by the page.
BucketsPage::BucketsPage(RestClient* rest, const BucketsModels& models, QWidget* parent)
    : QWidget(parent), m_rest(rest), m_batch(models.batch ? models.batch : new ObjectBatch(rest, this)),
      m_buckets(models.buckets ? models.buckets : new BucketModel(rest, this)),
      m_objects(models.objects ? models.objects : new ObjectModel(rest, this)),
      m_uploads(models.uploads ? models.uploads : new UploadQueue(rest, this)), m_scanner(new FolderScanner(this))
{
    setAcceptDrops(true);
    buildUi();
    connect(m_scanner, &FolderScanner::finished, this, &BucketsPage::onScanFinished);
    connect(m_batch, &ObjectBatch::finished, this, &BucketsPage::onBatchFinished);
    connect(m_uploads, &UploadQueue::packingFinished, this,
            [this](bool, const QString& message) { emit statusMessage(message); });
    connect(m_uploads, &UploadQueue::idle, this, [this] {
        const UploadTotals t = m_uploads->totals();
        emit statusMessage(tr("uploads finished: %1 done, %2 failed").arg(t.done).arg(t.failed));
        m_objects->reload();
        m_buckets->refreshSummary(currentBucket());
    });
    connect(m_buckets, &BucketModel::operationFinished, this,
            [this](bool, const QString& message) { emit statusMessage(message); });
    connect(m_buckets, &BucketModel::refreshed, this, [this] {
        if (!m_buckets->errorText().isEmpty()) emit statusMessage(tr("buckets: %1").arg(m_buckets->errorText()));
        if (currentBucket().isEmpty() && m_buckets->rowCount() > 0) {
            m_bucketView->selectRow(0);
        } else if (!currentBucket().isEmpty() && m_buckets->rowOf(currentBucket()) < 0) {
            m_objects->setBucket({});
        }
    });
    connect(m_objects, &ObjectModel::statusChanged, this,
            [this] { m_listingStatus->setText(m_objects->statusText()); });
    connect(m_objects, &QAbstractItemModel::modelReset, this, &BucketsPage::updateLocation);
    connect(m_objects, &QAbstractItemModel::modelReset, this, &BucketsPage::onListingReset);
    connect(m_rest, &RestClient::endpointChanged, this, &BucketsPage::refresh);
    if (!m_rest->endpoint().isEmpty()) refresh();
}

BucketsPage::~BucketsPage() = default;

void BucketsPage::buildUi()
{
    // Buckets.
    m_bucketView = new QTableView;
    m_bucketView->setModel(m_buckets);
    m_bucketView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_bucketView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_bucketView->verticalHeader()->hide();
    m_bucketView->horizontalHeader()->setSectionResizeMode(BucketModel::NameColumn, QHeaderView::Stretch);
    m_bucketView->horizontalHeader()->setSectionResizeMode(BucketModel::ObjectsColumn, QHeaderView::ResizeToContents);
    m_bucketView->horizontalHeader()->setSectionResizeMode(BucketModel::SizeColumn, QHeaderView::ResizeToContents);
    m_bucketView->horizontalHeader()->setSectionResizeMode(BucketModel::ProtectionColumn,
                                                           QHeaderView::ResizeToContents);
    m_bucketView->setObjectName(QStringLiteral("bucketView"));
    m_bucketView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_bucketView, &QTableView::customContextMenuRequested, this, &BucketsPage::showBucketMenu);
    auto* createButton = new QPushButton(tr("New bucket…"));
    m_propsButton = new QPushButton(tr("Properties…"));
    m_propsButton->setObjectName(QStringLiteral("bucketPropsButton"));
    m_propsButton->setToolTip(tr("The bucket's properties: mirroring and copies"));
    m_destroyButton = new QPushButton(tr("Destroy…"));
    connect(createButton, &QPushButton::clicked, this, &BucketsPage::createBucket);
    connect(m_propsButton, &QPushButton::clicked, this, &BucketsPage::openProperties);
    connect(m_destroyButton, &QPushButton::clicked, this, &BucketsPage::destroyBucket);
    auto* bucketButtons = new QHBoxLayout;
    bucketButtons->addWidget(createButton);
    bucketButtons->addWidget(m_propsButton);
    bucketButtons->addWidget(m_destroyButton);
    bucketButtons->addStretch();
    auto* bucketPane = new QWidget;
    auto* bucketLayout = new QVBoxLayout(bucketPane);
    bucketLayout->setContentsMargins(0, 0, 0, 0);
    bucketLayout->addWidget(new QLabel(tr("<b>Buckets</b>")));
    bucketLayout->addWidget(m_bucketView);
    bucketLayout->addLayout(bucketButtons);
    connect(m_bucketView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &BucketsPage::onBucketSelected);

    // Objects.
    m_upButton = new QPushButton(tr("Up"));
    m_upButton->setToolTip(tr("Parent folder (Backspace)"));
    m_upButton->setShortcut(QKeySequence(Qt::Key_Backspace));
    connect(m_upButton, &QPushButton::clicked, this, &BucketsPage::goUp);
    m_location = new QLabel;
    m_location->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_search = new QLineEdit;
    m_search->setPlaceholderText(tr("Search names starting with… (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_search->setObjectName(QStringLiteral("searchField"));
    m_searchTimer = new QTimer(this);
    m_searchTimer->setSingleShot(true);
    m_searchTimer->setInterval(kSearchDebounceMs);
    connect(m_search, &QLineEdit::textEdited, m_searchTimer, qOverload<>(&QTimer::start));
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
        if (text.isEmpty()) m_objects->setSearch({});  // the clear button: at once
    });
    connect(m_searchTimer, &QTimer::timeout, this, [this] { m_objects->setSearch(m_search->text()); });
    m_uploadButton = new QToolButton;
    m_uploadButton->setText(tr("Upload…"));
    m_uploadButton->setToolTip(tr("Upload files or a folder into this folder (Ctrl+U); or drop them here"));
    m_uploadButton->setPopupMode(QToolButton::InstantPopup);
    auto* uploadMenu = new QMenu(m_uploadButton);
    uploadMenu->addAction(tr("Files…"), this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Upload files"));
        if (!files.isEmpty()) uploadPaths(files);
    });
    uploadMenu->addAction(tr("Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Upload a folder"));
        if (!dir.isEmpty()) uploadPaths({dir});
    });
    m_uploadButton->setMenu(uploadMenu);
    auto* objectBar = new QHBoxLayout;
    objectBar->addWidget(m_upButton);
    objectBar->addWidget(m_location);
    objectBar->addWidget(m_search, 1);
    objectBar->addWidget(m_uploadButton);

    m_objectView = new QTableView;
    m_objectView->setObjectName(QStringLiteral("objectView"));
    m_objectView->setModel(m_objects);
    m_objectView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_objectView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_objectView->verticalHeader()->hide();
    m_objectView->verticalHeader()->setDefaultSectionSize(m_objectView->fontMetrics().height() + 6);
    m_objectView->horizontalHeader()->setSectionResizeMode(ObjectModel::NameColumn, QHeaderView::Stretch);
    m_objectView->horizontalHeader()->setSectionResizeMode(ObjectModel::SizeColumn, QHeaderView::Interactive);
    m_objectView->horizontalHeader()->resizeSection(ObjectModel::SizeColumn, 110);
    m_objectView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_objectView, &QTableView::activated, this, &BucketsPage::onObjectActivated);
    connect(m_objectView, &QTableView::customContextMenuRequested, this, &BucketsPage::showObjectMenu);
    auto* deleteAction = new QAction(tr("Delete…"), m_objectView);
    deleteAction->setShortcut(QKeySequence::Delete);
    deleteAction->setShortcutContext(Qt::WidgetShortcut);
    connect(deleteAction, &QAction::triggered, this, &BucketsPage::deleteSelected);
    m_objectView->addAction(deleteAction);
    m_listingStatus = new QLabel;
    m_listingStatus->setObjectName(QStringLiteral("listingStatus"));

    auto* objectPane = new QWidget;
    auto* objectLayout = new QVBoxLayout(objectPane);
    objectLayout->setContentsMargins(0, 0, 0, 0);
    objectLayout->addLayout(objectBar);
    objectLayout->addWidget(m_objectView);
    objectLayout->addWidget(m_listingStatus);

    m_preview = new PreviewPanel(m_rest);
    connect(m_preview, &PreviewPanel::statusMessage, this, &BucketsPage::statusMessage);
    connect(m_preview, &PreviewPanel::transformRequested, this, &BucketsPage::transformRequested);
    connect(m_objectView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &BucketsPage::onObjectSelected);

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(bucketPane);
    m_splitter->addWidget(objectPane);
    m_splitter->addWidget(m_preview);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 2);
    m_splitter->setStretchFactor(2, 2);
    // The bucket pane is wide enough for the Protection column's longest
    // state ("2 copies · at risk: target … away").
    m_splitter->setSizes({540, 360, 360});

    m_uploadPanel = new UploadPanel(m_uploads);
    auto* vertical = new QSplitter(Qt::Vertical);
    vertical->addWidget(m_splitter);
    vertical->addWidget(m_uploadPanel);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 1);
    // The queue shows up with the first upload.
    m_uploadPanel->setVisible(false);
    connect(m_uploads, &UploadQueue::itemsAdded, m_uploadPanel, [this] { m_uploadPanel->setVisible(true); });
    connect(m_uploads, &UploadQueue::packingProgress, m_uploadPanel, [this] { m_uploadPanel->setVisible(true); });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(vertical);
    updateLocation();
}

UploadDialog* BucketsPage::uploadDialog() const { return m_dialog; }

QString BucketsPage::currentBucket() const { return m_objects->bucket(); }

void BucketsPage::selectBucket(const QString& bucket)
{
    const int row = m_buckets->rowOf(bucket);
    if (row >= 0) m_bucketView->selectRow(row);
}

void BucketsPage::refresh()
{
    m_buckets->refresh();
    m_objects->reload();
}

void BucketsPage::focusSearch()
{
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void BucketsPage::onBucketsChanged() { m_buckets->refresh(); }

void BucketsPage::onBucketSelected()
{
    const QModelIndexList rows = m_bucketView->selectionModel()->selectedRows();
    const QString bucket = rows.isEmpty() ? QString() : m_buckets->bucketAt(rows.first().row());
    m_search->clear();
    m_objects->setBucket(bucket);
}

void BucketsPage::onObjectActivated(const QModelIndex& index)
{
    if (!index.isValid() || !m_objects->isFolder(index.row())) return;
    m_search->clear();
    m_objects->setFolder(m_objects->fullName(index.row()));
}

void BucketsPage::onObjectSelected()
{
    const QModelIndexList rows = m_objectView->selectionModel()->selectedRows();
    if (rows.size() != 1 || m_objects->isFolder(rows.first().row())) {
        if (rows.isEmpty()) m_preview->clear();
        return;
    }
    m_previewFolder = m_objects->folder();
    m_preview->showObject(currentBucket(), m_objects->fullName(rows.first().row()));
}

void BucketsPage::onListingReset()
{
    // The reset cleared the selection without a signal. Another bucket or
    // folder: the preview's object is no longer in view (the previous
    // bucket's shard stayed on screen). A new search or a reload of the same
    // folder (after an upload) keeps it.
    if (m_preview->shownBucket().isEmpty()) return;
    if (m_preview->shownBucket() != m_objects->bucket() || m_previewFolder != m_objects->folder()) m_preview->clear();
}

void BucketsPage::goUp()
{
    QString folder = m_objects->folder();
    if (folder.isEmpty()) return;
    folder.chop(1);
    const int slash = folder.lastIndexOf('/');
    m_search->clear();
    m_objects->setFolder(slash < 0 ? QString() : folder.left(slash + 1));
}

void BucketsPage::updateLocation()
{
    const QString bucket = m_objects->bucket();
    m_propsButton->setEnabled(!bucket.isEmpty());
    m_destroyButton->setEnabled(!bucket.isEmpty());
    m_location->setText(bucket.isEmpty() ? tr("no bucket") : bucket + QStringLiteral(" / ") + m_objects->folder());
    m_upButton->setEnabled(!m_objects->folder().isEmpty());
    m_uploadButton->setEnabled(!bucket.isEmpty());
    m_listingStatus->setText(m_objects->statusText());
}

void BucketsPage::createBucket()
{
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("New bucket"), tr("Name (3–63 of a–z, 0–9, '.', '-'):"),
                                               QLineEdit::Normal, {}, &ok)
                             .trimmed();
    if (!ok || name.isEmpty()) return;
    m_buckets->createBucket(name);
}

void BucketsPage::destroyBucket()
{
    const QString bucket = currentBucket();
    if (bucket.isEmpty()) return;
    const auto answer =
        QMessageBox::warning(this, tr("Destroy bucket"),
                             tr("Destroy bucket \"%1\" and every object in it? This cannot be undone.").arg(bucket),
                             QMessageBox::Cancel | QMessageBox::Yes, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes) return;
    m_buckets->destroyBucket(bucket);
}

BucketPropsDialog* BucketsPage::propsDialog() const { return m_propsDialog; }

void BucketsPage::openProperties()
{
    const QString bucket = currentBucket();
    if (bucket.isEmpty()) return;
    if (m_propsDialog) m_propsDialog->close();
    m_propsDialog = new BucketPropsDialog(m_rest, m_buckets, bucket, this);
    m_propsDialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_propsDialog, &BucketPropsDialog::applied, this,
            [this](const QString& name, const api::BucketProps& props) {
                emit statusMessage(
                    props.mirror.targetCopies() > 1
                        ? tr("bucket %1: %2 copies across targets").arg(name).arg(props.mirror.targetCopies())
                        : tr("bucket %1: mirroring off").arg(name));
            });
    m_propsDialog->open();
}

QMenu* BucketsPage::bucketMenu(int row)
{
    const QString bucket = m_buckets->bucketAt(row);
    auto* menu = new QMenu(this);
    if (bucket.isEmpty()) {
        menu->addAction(tr("New bucket…"), this, &BucketsPage::createBucket);
        return menu;
    }
    menu->addAction(tr("Properties…"), this, &BucketsPage::openProperties)->setObjectName(QStringLiteral("props"));
    menu->addSeparator();
    QAction* scrub = menu->addAction(tr("Scrub bucket"), this,
                                     [this, bucket] { emit bucketJobRequested(QStringLiteral("scrub"), bucket); });
    scrub->setObjectName(QStringLiteral("scrub"));
    scrub->setToolTip(
        tr("Read every copy of every object and check its checksum; a damaged copy of a mirrored "
           "object is replaced from a good one"));
    QAction* reprotect = menu->addAction(tr("Re-protect bucket"), this, [this, bucket] {
        emit bucketJobRequested(QStringLiteral("reprotect"), bucket);
    });
    reprotect->setObjectName(QStringLiteral("reprotect"));
    reprotect->setToolTip(
        tr("Make every copy the bucket's mirror settings ask for, and drop the ones they no "
           "longer ask for"));
    menu->setToolTipsVisible(true);
    menu->addSeparator();
    menu->addAction(tr("Destroy…"), this, &BucketsPage::destroyBucket)->setObjectName(QStringLiteral("destroy"));
    return menu;
}

void BucketsPage::showBucketMenu(const QPoint& pos)
{
    const QModelIndex index = m_bucketView->indexAt(pos);
    // The menu acts on the bucket under the pointer: select it first.
    if (index.isValid() && m_buckets->bucketAt(index.row()) != currentBucket()) m_bucketView->selectRow(index.row());
    QMenu* menu = bucketMenu(index.isValid() ? index.row() : -1);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(m_bucketView->viewport()->mapToGlobal(pos));
}

QStringList BucketsPage::selectedObjectNames() const
{
    QStringList names;
    for (const QModelIndex& i : m_objectView->selectionModel()->selectedRows()) {
        if (!m_objects->isFolder(i.row())) names << m_objects->fullName(i.row());
    }
    return names;
}

void BucketsPage::showObjectMenu(const QPoint& pos)
{
    const bool any = !selectedObjectNames().isEmpty();
    QMenu menu(this);
    menu.addAction(tr("Download…"), this, &BucketsPage::downloadSelected)->setEnabled(any);
    menu.addAction(tr("Copy name"), this, [this] { copySelected(false); })->setEnabled(any);
    menu.addAction(tr("Copy URL"), this, [this] { copySelected(true); })->setEnabled(any);
    const QStringList names = selectedObjectNames();
    menu.addAction(tr("Transform with ETL…"), this,
                   [this, names] { emit transformRequested(currentBucket(), names.front(), {}); })
        ->setEnabled(names.size() == 1);
    menu.addSeparator();
    menu.addAction(tr("Delete…"), this, &BucketsPage::deleteSelected)->setEnabled(any);
    menu.exec(m_objectView->viewport()->mapToGlobal(pos));
}

void BucketsPage::copySelected(bool asUrl)
{
    QStringList lines;
    for (const QString& name : selectedObjectNames()) {
        lines << (asUrl ? m_rest->objectUrl(currentBucket(), name).toString(QUrl::FullyEncoded) : name);
    }
    QApplication::clipboard()->setText(lines.join('\n'));
    emit statusMessage(tr("copied %n line(s)", nullptr, static_cast<int>(lines.size())));
}

void BucketsPage::downloadSelected()
{
    const QStringList names = selectedObjectNames();
    if (names.isEmpty()) return;
    const QString bucket = currentBucket();
    if (names.size() == 1) {
        const QString path = QFileDialog::getSaveFileName(this, tr("Download"), names.first().section('/', -1));
        if (path.isEmpty()) return;
        m_batch->download(bucket, {{names.first(), {}, path}}, path);
        return;
    }
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Download %n objects into", nullptr, int(names.size())));
    if (dir.isEmpty()) return;
    QList<ObjectBatch::Download> items;
    for (const QString& name : names) items.push_back({name, {}, dir + '/' + name.section('/', -1)});
    m_batch->download(bucket, items, dir);
}

void BucketsPage::deleteSelected()
{
    const QStringList names = selectedObjectNames();
    if (names.isEmpty()) return;
    const QString what =
        names.size() == 1 ? tr("\"%1\"").arg(names.first()) : tr("%n objects", nullptr, int(names.size()));
    const auto answer =
        QMessageBox::warning(this, tr("Delete"), tr("Delete %1 from bucket \"%2\"?").arg(what, currentBucket()),
                             QMessageBox::Cancel | QMessageBox::Yes, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes) return;
    m_batch->removeObjects(currentBucket(), names);
}

void BucketsPage::onBatchFinished(const ObjectBatch::Summary& summary)
{
    emit statusMessage(summary.text());
    if (summary.kind == ObjectBatch::Kind::Delete) {
        if (summary.bucket == currentBucket()) m_objects->reload();
        m_buckets->refreshSummary(summary.bucket);
    }
}

void BucketsPage::startUpload()
{
    if (currentBucket().isEmpty()) {
        emit statusMessage(tr("select a bucket to upload into"));
        return;
    }
    m_uploadButton->showMenu();
}

void BucketsPage::uploadPaths(const QStringList& paths)
{
    if (currentBucket().isEmpty() || paths.isEmpty()) return;
    m_scanBucket = currentBucket();
    m_scanFolder = m_objects->folder();
    emit statusMessage(tr("reading %n dropped item(s)…", nullptr, static_cast<int>(paths.size())));
    m_scanner->scan(paths, m_scanFolder);
}

void BucketsPage::onScanFinished(const ScanResult& scan)
{
    if (!scan.error.isEmpty()) {
        emit statusMessage(tr("cannot upload: %1").arg(scan.error));
        return;
    }
    if (scan.files.empty()) {
        emit statusMessage(tr("nothing to upload: no regular files"));
        return;
    }
    if (m_dialog) m_dialog->deleteLater();
    m_dialog = new UploadDialog(scan, m_scanBucket + QStringLiteral(" / ") + m_scanFolder, this);
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    const QString bucket = m_scanBucket;
    const QString folder = m_scanFolder;
    UploadDialog* dialog = m_dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog, scan, bucket, folder] {
        if (!dialog->packIntoShards()) {
            m_uploads->enqueue(bucket, scan.files);
            return;
        }
        PackOptions options;
        options.targetShardBytes = dialog->shardBytes();
        options.format = dialog->format();
        const QString base = scan.folderName.isEmpty() ? QStringLiteral("shard") : scan.folderName;
        options.objectPrefix = folder + base + QStringLiteral("-");
        if (!scan.folderName.isEmpty()) options.stripPrefix = scan.folderName + '/';
        m_uploads->enqueuePacked(bucket, scan.files, options);
    });
    m_dialog->open();
}

namespace {

QStringList localPaths(const QMimeData* mime)
{
    QStringList paths;
    if (mime == nullptr || !mime->hasUrls()) return paths;
    for (const QUrl& url : mime->urls()) {
        if (!url.isLocalFile()) return {};
        paths << url.toLocalFile();
    }
    return paths;
}

}  // namespace

void BucketsPage::dragEnterEvent(QDragEnterEvent* event)
{
    if (m_buckets->rowCount() > 0 && !localPaths(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void BucketsPage::dragMoveEvent(QDragMoveEvent* event)
{
    if (m_buckets->rowCount() > 0 && !localPaths(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void BucketsPage::dropEvent(QDropEvent* event)
{
    const QStringList paths = localPaths(event->mimeData());
    if (paths.isEmpty()) return;
    // Dropped on a row of the bucket list: into that bucket (its top level).
    QWidget* viewport = m_bucketView->viewport();
    const QPoint onList = viewport->mapFrom(this, event->position().toPoint());
    if (viewport->rect().contains(onList)) {
        const QModelIndex row = m_bucketView->indexAt(onList);
        if (row.isValid() && m_buckets->bucketAt(row.row()) != currentBucket()) m_bucketView->selectRow(row.row());
    }
    if (currentBucket().isEmpty()) return;
    event->acceptProposedAction();
    uploadPaths(paths);
}

}  // namespace tessera::console
