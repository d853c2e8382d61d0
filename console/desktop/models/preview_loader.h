#pragma once
// Loads the preview of one object: at most maxBytes from its start (a Range
// request), shown as an image (decoded off the UI thread), JSON
// (pretty-printed), text, or a hex dump — and says when it was cut.
// Each load() starts a new generation; an answer for an older one is dropped.

#include "core/rest_client.h"

#include <QImage>
#include <QObject>
#include <QString>

namespace tessera::console {

struct Preview {
    enum class Kind { Image, Json, Text, Hex, Empty, Error };
    Kind kind = Kind::Empty;
    QString bucket;
    QString name;
    QImage image;
    QString text;  // Json, Text, Hex, Error
    qint64 totalSize = -1;
    qint64 bytesRead = 0;
    bool truncated() const { return totalSize > bytesRead; }
    // "image/png · 1.2 MiB", "first 256 KiB of 3.1 MiB (truncated)"...
    QString summary;
};

class PreviewLoader : public QObject {
    Q_OBJECT
public:
    static constexpr qint64 kDefaultMaxBytes = 1024 * 1024;
    static constexpr qint64 kMaxHexBytes = 64 * 1024;  // a hex dump shows at most this much

    explicit PreviewLoader(RestClient* rest, QObject* parent = nullptr);

    void setMaxBytes(qint64 bytes) { m_maxBytes = std::max<qint64>(bytes, 1); }
    qint64 maxBytes() const { return m_maxBytes; }

    void load(const QString& bucket, const QString& name);
    void clear();

    // The classification, on any thread (used by load()).
    static Preview build(const QString& name, const QByteArray& bytes, qint64 totalSize);

signals:
    void loading(const QString& bucket, const QString& name);
    void ready(const tessera::console::Preview& preview);

private:
    RestClient* m_rest;
    qint64 m_maxBytes = kDefaultMaxBytes;
    quint64 m_generation = 0;
    RestCall m_call;
};

}  // namespace tessera::console

Q_DECLARE_METATYPE(tessera::console::Preview)
