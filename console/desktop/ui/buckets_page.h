#pragma once
// The Buckets page: the bucket list (create, destroy, properties with the
// protection settings, scrub and re-protect intents), the objects of the
// selected bucket under a virtual folder (lazy paging, prefix search), the
// preview of the selected object or shard, and uploads by drag and drop or
// the "Upload…" action. The page shows models and turns gestures into
// intents; the REST calls are RestClient's, batches of them ObjectBatch's.

#include "core/object_batch.h"
#include "models/buckets_models.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QMenu;
class QPushButton;
class QToolButton;
class QTableView;
class QTimer;
class QSplitter;

namespace tessera::console {

class BucketModel;
class BucketPropsDialog;
class FolderScanner;
class ObjectModel;
class PreviewPanel;
class RestClient;
class UploadDialog;
class UploadPanel;
class UploadQueue;
struct ScanResult;

class BucketsPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kSearchDebounceMs = 300;

    // Shows and drives `models` (the session's).
    BucketsPage(RestClient* rest, const BucketsModels& models, QWidget* parent = nullptr);
    // The same with a set of its own (tests, a page on its own); so is any
    // part of `models` left null.
    explicit BucketsPage(RestClient* rest, QWidget* parent = nullptr);
    ~BucketsPage() override;

    BucketModel* bucketModel() const { return m_buckets; }
    ObjectModel* objectModel() const { return m_objects; }
    QTableView* objectView() const { return m_objectView; }
    UploadQueue* uploadQueue() const { return m_uploads; }
    UploadPanel* uploadPanel() const { return m_uploadPanel; }
    PreviewPanel* previewPanel() const { return m_preview; }
    // The confirmation of the upload being prepared, while it is open.
    UploadDialog* uploadDialog() const;
    // Walks `paths` (files, folders) and asks to upload them into the
    // current bucket and folder, as a drop does.
    void uploadPaths(const QStringList& paths);
    QString currentBucket() const;
    void selectBucket(const QString& bucket);
    QTableView* bucketView() const { return m_bucketView; }
    QPushButton* propertiesButton() const { return m_propsButton; }
    // The properties dialog, while it is open.
    BucketPropsDialog* propsDialog() const;
    // The bucket list's context menu for the bucket at `row` (the caller owns it).
    QMenu* bucketMenu(int row);

public slots:
    void refresh();           // F5
    void focusSearch();       // Ctrl+F
    void startUpload();       // Ctrl+U (opens the file/folder chooser)
    void onBucketsChanged();  // the feed said buckets changed (bmd message)
    // Opens the current bucket's properties (window-modal, not waited on).
    void openProperties();

signals:
    void statusMessage(const QString& text);
    // "Transform with ETL…" on an object or a shard's sample.
    void transformRequested(const QString& bucket, const QString& object, const QString& member);
    // "Scrub bucket" / "Re-protect bucket": a job of `kind` ("scrub",
    // "reprotect") on `bucket`.
    void bucketJobRequested(const QString& kind, const QString& bucket);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildUi();
    void onScanFinished(const ScanResult& scan);
    void onBucketSelected();
    void onObjectActivated(const QModelIndex& index);
    void onObjectSelected();
    void onListingReset();
    void goUp();
    void updateLocation();
    void createBucket();
    void destroyBucket();
    void showObjectMenu(const QPoint& pos);
    void showBucketMenu(const QPoint& pos);
    void downloadSelected();
    void deleteSelected();
    void onBatchFinished(const ObjectBatch::Summary& summary);
    void copySelected(bool asUrl);
    QStringList selectedObjectNames() const;

    RestClient* m_rest;
    ObjectBatch* m_batch;
    BucketModel* m_buckets;
    ObjectModel* m_objects;
    UploadQueue* m_uploads;
    FolderScanner* m_scanner;
    UploadPanel* m_uploadPanel = nullptr;
    PreviewPanel* m_preview = nullptr;
    QPointer<UploadDialog> m_dialog;
    QPointer<BucketPropsDialog> m_propsDialog;
    QString m_scanBucket;  // where the walk in progress will upload
    QString m_scanFolder;
    QString m_previewFolder;  // the folder the previewed object was selected in

    QTableView* m_bucketView = nullptr;
    QTableView* m_objectView = nullptr;
    QLineEdit* m_search = nullptr;
    QLabel* m_location = nullptr;
    QLabel* m_listingStatus = nullptr;
    QPushButton* m_upButton = nullptr;
    QPushButton* m_propsButton = nullptr;
    QPushButton* m_destroyButton = nullptr;
    QToolButton* m_uploadButton = nullptr;
    QTimer* m_searchTimer = nullptr;
    QSplitter* m_splitter = nullptr;
};

}  // namespace tessera::console
