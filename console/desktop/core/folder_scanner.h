#pragma once
// Walks dropped files and folders off the UI thread and lists what an
// upload would send: every regular file, named by its path under what was
// dropped (a dropped folder keeps its own name as the first component).
// Symbolic links are not followed (a link to a directory could loop);
// they, sockets, devices and unreadable entries are listed as skipped.

#include "upload_source.h"

#include <QFutureWatcher>
#include <QObject>
#include <QStringList>
#include <memory>

namespace tessera::console {

struct ScanResult {
    UploadSources files;  // in walk order, sorted by relative name
    qint64 totalBytes = 0;
    QStringList skipped;  // "path: why"
    QString error;        // the walk stopped (too many files); files is empty then
    // The name of the single dropped folder, when one folder was dropped.
    QString folderName;
};

class FolderScanner : public QObject {
    Q_OBJECT
public:
    static constexpr qint64 kMaxFiles = 1000000;

    explicit FolderScanner(QObject* parent = nullptr);
    ~FolderScanner() override;

    // Walks `paths` (local files or folders); objects are named
    // destinationPrefix + relative name. A scan in progress is abandoned.
    void scan(const QStringList& paths, const QString& destinationPrefix);
    bool isRunning() const;

    // The walk itself, on the calling thread (used by scan()).
    static ScanResult walk(const QStringList& paths, const QString& destinationPrefix, qint64 maxFiles = kMaxFiles);

signals:
    void finished(const tessera::console::ScanResult& result);

private:
    std::unique_ptr<QFutureWatcher<ScanResult>> m_watcher;
};

}  // namespace tessera::console
