#pragma once
// The objects of one bucket under a virtual folder, loaded lazily a page at a
// time (GET /v1/buckets/<b> with continuation_token) through
// canFetchMore/fetchMore: one request per page, never per row, and one page
// in flight at a time.
//
// Folders: the listing API has no delimiter, so the model lists with
// prefix = folder + search text and folds every name with a '/' after the
// folder into one row per first component ("train/"). Names sharing a prefix
// are contiguous in the listing's byte order, so a folder row is made once;
// when a page ends inside a folder the next page starts after everything in
// it (a continuation token of the folder followed by U+10FFFF), so a folder of
// a million objects costs one page, not a thousand.
//
// Every reset (bucket, folder, search, reload) starts a new generation; a page
// that answers for an older one is dropped (and counted).
//
// Memory: names live in one byte arena and rows are 16-byte records, so a
// million loaded rows take about 16 MB plus the names' bytes.

#include "api/object_list.h"
#include "core/rest_client.h"

#include <QAbstractTableModel>
#include <QString>
#include <string>
#include <vector>

namespace tessera::console {

class ObjectModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, SizeColumn, ColumnCount };
    enum Role {
        FullNameRole = Qt::UserRole + 1,  // QString: the object's name in the bucket (a folder's prefix)
        IsFolderRole,                     // bool
        SizeRole,                         // qint64, -1 for folders
    };
    // U+10FFFF: sorts after every other code point, so "dir/" + this is
    // after every name inside "dir/" (but names that start with it).
    static constexpr const char* kFolderSkipSuffix = "\xF4\x8F\xBF\xBF";

    explicit ObjectModel(RestClient* rest, QObject* parent = nullptr);

    // Each setter resets the model (a new generation) when the value changes.
    void setBucket(const QString& bucket);
    QString bucket() const { return m_bucket; }
    void setFolder(const QString& folder);  // "" or a prefix ending in '/'
    QString folder() const { return m_folder; }
    void setSearch(const QString& text);  // a name prefix inside the folder
    QString search() const { return m_search; }
    void setFoldersEnabled(bool on);
    void setPageSize(std::uint32_t pageSize);  // 1..api::kMaxPageSize
    void reload();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent = {}) const override;
    void fetchMore(const QModelIndex& parent = {}) override;

    QString fullName(int row) const;
    bool isFolder(int row) const;
    qint64 objectSize(int row) const;

    bool isComplete() const { return m_complete; }
    bool isLoading() const { return m_call.isRunning(); }
    QString errorText() const { return m_error; }
    // "N loaded · listing complete", "N loaded · more…", or the error.
    QString statusText() const;
    quint64 pagesRequested() const { return m_pagesRequested; }
    quint64 staleRepliesDropped() const { return m_staleDropped; }
    quint64 generation() const { return m_generation; }

signals:
    void statusChanged();
    void pageLoaded(int rowsAdded);

private:
    struct Row {
        qint64 size = -1;
        quint32 offset = 0;  // into m_names
        quint16 length = 0;
        bool folder = false;
    };
    void reset();
    void onPage(quint64 generation, api::Result<api::ObjectList> page);
    std::string_view nameAt(int row) const;

    RestClient* m_rest;
    QString m_bucket;
    QString m_folder;
    QString m_search;
    bool m_folders = true;
    std::uint32_t m_pageSize = api::kDefaultPageSize;

    std::vector<Row> m_rows;
    std::string m_names;       // relative names (to m_folder), back to back
    std::string m_lastFolder;  // relative name of the last folder row ("dir/")
    std::string m_token;       // next continuation token
    bool m_started = false;    // the first page was asked for
    bool m_complete = false;
    QString m_error;
    RestCall m_call;
    quint64 m_generation = 0;
    quint64 m_pagesRequested = 0;
    quint64 m_staleDropped = 0;
};

}  // namespace tessera::console
