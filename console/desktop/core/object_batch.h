#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <deque>

namespace tessera::console {

class RestClient;

// Many deletes or downloads of one bucket as one operation: the calls go
// through the RestClient, at most kParallel at a time, and the batch reports
// one summary when all have answered. Widgets start batches and show the
// summary; they never count answers themselves. UI thread.
class ObjectBatch : public QObject {
    Q_OBJECT
public:
    static constexpr int kParallel = 8;
    static constexpr int kFailuresNamed = 5;  // the summary names this many, then counts the rest

    enum class Kind { Delete, Download };
    // One download: an object (or, with `member`, a shard member) into a local file.
    struct Download {
        QString name;
        QString member;
        QString path;
    };
    struct Summary {
        Kind kind = Kind::Delete;
        QString bucket;
        int total = 0;
        int done = 0;
        QStringList failures;  // "name: why", in the order they answered
        QString where;         // downloads: the file or folder they went to
        bool ok() const { return failures.isEmpty(); }
        QString text() const;  // one line for a status bar
    };

    explicit ObjectBatch(RestClient* rest, QObject* parent = nullptr);

    // Each starts a batch of its own; several may run at once.
    void removeObjects(const QString& bucket, const QStringList& names);
    void download(const QString& bucket, const QList<Download>& items, const QString& where);

signals:
    void finished(const tessera::console::ObjectBatch::Summary& summary);

private:
    struct Run;
    void pump(const std::shared_ptr<Run>& run);

    RestClient* m_rest;
};

}  // namespace tessera::console
