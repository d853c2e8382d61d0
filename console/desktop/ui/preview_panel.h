#pragma once
// The preview beside the object table: an image, JSON, text or hex for an
// object, and for a shard its samples as a table (ShardModel). Shard members
// of the selected samples can be downloaded.

#include "core/object_batch.h"

#include <QImage>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QStackedWidget;
class QTableView;

namespace tessera::console {

class PreviewLoader;
class RestClient;
class ShardModel;
struct Preview;

class PreviewPanel : public QWidget {
    Q_OBJECT
public:
    explicit PreviewPanel(RestClient* rest, QWidget* parent = nullptr);

    // Shows `name` of `bucket`: a shard's samples when the name is a shard's.
    void showObject(const QString& bucket, const QString& name);
    // Back to the empty panel; a read still in flight is dropped when it answers.
    void clear();
    // What the panel shows (empty after clear()).
    QString shownBucket() const { return m_shownBucket; }
    QString shownName() const { return m_shownName; }

    PreviewLoader* loader() const { return m_loader; }
    ShardModel* shardModel() const { return m_shards; }
    QTableView* shardView() const { return m_shardView; }
    QString summaryText() const;

public slots:
    // The selected sample of the shard shown, to the ETL page: its first
    // image member (or its first member).
    void transformSelected();

signals:
    void statusMessage(const QString& text);
    // "Transform with ETL…": a shard member (or, with `member` empty, an object).
    void transformRequested(const QString& bucket, const QString& object, const QString& member);

private:
    void onReady(const Preview& preview);
    void downloadMembers();
    void updateImage();
    void resizeEvent(QResizeEvent* event) override;

    RestClient* m_rest;
    ObjectBatch* m_batch;
    PreviewLoader* m_loader;
    ShardModel* m_shards;
    QLabel* m_title;
    QLabel* m_summary;
    QStackedWidget* m_stack;
    QLabel* m_image;
    QPlainTextEdit* m_text;
    QTableView* m_shardView;
    QImage m_fullImage;
    QString m_shownBucket;
    QString m_shownName;
};

}  // namespace tessera::console
