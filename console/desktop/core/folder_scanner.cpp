#include "folder_scanner.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace tessera::console {

FolderScanner::FolderScanner(QObject* parent) : QObject(parent) {}

FolderScanner::~FolderScanner()
{
    // The walk works on copies and its own result; waiting only keeps the
    // thread pool from outliving the futures' watchers.
    if (m_watcher) {
        disconnect(m_watcher.get(), nullptr, this, nullptr);
        m_watcher->waitForFinished();
    }
    for (auto* old : findChildren<QFutureWatcher<ScanResult>*>(Qt::FindDirectChildrenOnly)) old->waitForFinished();
}

bool FolderScanner::isRunning() const { return m_watcher && m_watcher->isRunning(); }

void FolderScanner::scan(const QStringList& paths, const QString& destinationPrefix)
{
    if (m_watcher) disconnect(m_watcher.get(), nullptr, this, nullptr);
    auto watcher = std::make_unique<QFutureWatcher<ScanResult>>();
    QFutureWatcher<ScanResult>* w = watcher.get();
    connect(w, &QFutureWatcher<ScanResult>::finished, this, [this, w] { emit finished(w->result()); });
    w->setFuture(QtConcurrent::run([paths, destinationPrefix] { return walk(paths, destinationPrefix); }));
    if (m_watcher) {
        // An abandoned walk: its watcher goes when the walk ends, without a word.
        QFutureWatcher<ScanResult>* old = m_watcher.release();
        old->setParent(this);
        if (old->isFinished()) {
            old->deleteLater();
        } else {
            connect(old, &QFutureWatcher<ScanResult>::finished, old, &QObject::deleteLater);
        }
    }
    m_watcher = std::move(watcher);
}

ScanResult FolderScanner::walk(const QStringList& paths, const QString& destinationPrefix, qint64 maxFiles)
{
    ScanResult result;
    auto add = [&](const QFileInfo& info, const QString& relative) {
        if (info.isSymLink()) {
            result.skipped << info.filePath() + QStringLiteral(": symbolic link");
            return true;
        }
        if (!info.isFile()) {
            if (!info.isDir()) result.skipped << info.filePath() + QStringLiteral(": not a regular file");
            return true;
        }
        if (!info.isReadable()) {
            result.skipped << info.filePath() + QStringLiteral(": not readable");
            return true;
        }
        if (static_cast<qint64>(result.files.size()) >= maxFiles) {
            result.error = QStringLiteral("more than %1 files").arg(maxFiles);
            return false;
        }
        result.files.push_back({info.absoluteFilePath(), relative, destinationPrefix + relative, info.size()});
        result.totalBytes += info.size();
        return true;
    };
    int folders = 0;
    for (const QString& path : paths) {
        const QFileInfo top(path);
        if (top.isDir() && !top.isSymLink()) {
            ++folders;
            result.folderName = top.fileName();
            const QDir base = top.dir();
            QDirIterator it(top.absoluteFilePath(),
                            QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                it.next();
                const QFileInfo info = it.fileInfo();
                if (info.isDir() && !info.isSymLink()) continue;
                if (!add(info, base.relativeFilePath(info.absoluteFilePath()))) break;
            }
        } else if (!add(top, top.fileName())) {
            break;
        }
        if (!result.error.isEmpty()) break;
    }
    if (folders != 1 || paths.size() != 1) result.folderName.clear();
    if (!result.error.isEmpty()) {
        result.files.clear();
        result.totalBytes = 0;
        return result;
    }
    std::sort(result.files.begin(), result.files.end(),
              [](const UploadSource& a, const UploadSource& b) { return a.relativeName < b.relativeName; });
    // Two dropped items of the same name would write one object twice.
    for (std::size_t i = 1; i < result.files.size(); ++i) {
        if (result.files[i].relativeName == result.files[i - 1].relativeName) {
            result.error =
                QStringLiteral("two dropped files would both be named \"%1\"").arg(result.files[i].relativeName);
            result.files.clear();
            result.totalBytes = 0;
            break;
        }
    }
    return result;
}

}  // namespace tessera::console
