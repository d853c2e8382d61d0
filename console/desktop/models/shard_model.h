#pragma once
// The samples of one shard as a table: one row per WebDataset key, one
// column per field (extension), from the listing with the archive flag.
// Cells: a thumbnail for png/jpg (read with archpath, decoded off the UI
// thread), the integer of a cls, the start of a json/txt, the size of
// anything else. Cell contents are read when a view first asks for them
// (at most kMaxFetches at a time), so a shard of thousands of samples costs
// reads only for the rows on screen.
//
// Flags: a sample missing a field most samples have ("missing: cls"), and
// a key or field with a dot in it (WebDataset cuts the key at the first dot
// of the file name, so "img.v2.jpg" makes key "img" and field "v2.jpg").

#include "core/rest_client.h"

#include <QAbstractTableModel>
#include <QImage>
#include <QStringList>
#include <deque>
#include <map>
#include <vector>

namespace tessera::console {

class ShardModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kMaxFetches = 4;
    static constexpr int kThumbnailPx = 72;
    static constexpr qint64 kMaxImageBytes = 8 * 1024 * 1024;  // larger images show their size
    static constexpr qint64 kMaxTextBytes = 64 * 1024;         // larger json/txt/cls show their size
    static constexpr int kMaxSamples = 100000;                 // rows shown; the status says when cut
    static constexpr int kTextChars = 160;                     // shown in a cell

    enum Role {
        MemberRole = Qt::UserRole + 1,  // QString: the member's name in the shard ("" when missing)
        FlagsRole,                      // QStringList of the row's flags
        MissingRole,                    // bool: this field is missing from the sample
        ImageRole,                      // QImage thumbnail once decoded
        ColumnWidthRole,                // header: int, a width in pixels that suits the field's kind
    };

    explicit ShardModel(RestClient* rest, QObject* parent = nullptr);

    void setShard(const QString& bucket, const QString& shard);
    void clear();
    QString bucket() const { return m_bucket; }
    QString shard() const { return m_shard; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    bool isLoaded() const { return m_loaded; }
    QString errorText() const { return m_error; }
    QString statusText() const;
    QStringList fields() const { return m_fields; }
    QString keyAt(int row) const;
    QStringList membersOf(int row) const;  // every member of the sample
    int incompleteSamples() const;
    int pendingFetches() const { return static_cast<int>(m_queue.size()) + m_inFlight; }

signals:
    void loaded();

private:
    struct Cell {
        QString member;
        qint64 size = -1;
        enum class State { Idle, Queued, Loading, Ready, Failed } state = State::Idle;
        QVariant value;  // QImage (thumbnail), qint64 (cls) or QString
        QString error;
    };
    struct Sample {
        QString key;
        std::map<QString, Cell> cells;  // by field
        QStringList flags;
    };
    enum class FieldKind { Image, Class, Text, Other };
    static FieldKind kindOf(const QString& field);
    Cell* cellAt(int row, int column) const;
    void request(int row, int column) const;
    void pump();
    void finishCell(int row, int column, Cell& cell, QVariant value, const QString& error);

    RestClient* m_rest;
    QString m_bucket;
    QString m_shard;
    mutable std::vector<Sample> m_samples;
    QStringList m_fields;
    bool m_loaded = false;
    bool m_cut = false;
    qint64 m_members = 0;
    QString m_error;
    quint64 m_generation = 0;
    RestCall m_listCall;
    mutable std::deque<std::pair<int, int>> m_queue;  // (row, column) waiting for a read
    int m_inFlight = 0;
};

}  // namespace tessera::console
