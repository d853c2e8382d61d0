#include "preview_loader.h"

#include "format_util.h"

#include <QFutureWatcher>
#include <QStringDecoder>
#include <QtConcurrent/QtConcurrentRun>
#include <nlohmann/json.hpp>

namespace tessera::console {

namespace {

bool looksLikeImage(const QString& name, const QByteArray& bytes)
{
    static const QStringList kExt = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".ppm", ".pgm"};
    for (const QString& e : kExt) {
        if (name.endsWith(e, Qt::CaseInsensitive)) return true;
    }
    return bytes.startsWith("\x89PNG") || bytes.startsWith("\xFF\xD8\xFF") || bytes.startsWith("GIF8");
}

QString hexDump(const QByteArray& bytes)
{
    QString out;
    const qsizetype n = std::min<qsizetype>(bytes.size(), PreviewLoader::kMaxHexBytes);
    out.reserve(n * 4 + n / 16 * 12);
    for (qsizetype off = 0; off < n; off += 16) {
        out += QStringLiteral("%1  ").arg(off, 8, 16, QChar('0'));
        QString ascii;
        for (qsizetype i = off; i < off + 16; ++i) {
            if (i < n) {
                const auto c = static_cast<unsigned char>(bytes[i]);
                out += QStringLiteral("%1 ").arg(c, 2, 16, QChar('0'));
                ascii += (c >= 0x20 && c < 0x7f) ? QChar(c) : QChar('.');
            } else {
                out += QStringLiteral("   ");
            }
            if (i == off + 7) out += ' ';
        }
        out += QStringLiteral(" |") + ascii + QStringLiteral("|\n");
    }
    return out;
}

// Valid UTF-8 without NULs; a multi-byte character cut at the end of a
// truncated read does not count against it.
std::optional<QString> asText(const QByteArray& bytes, bool truncated)
{
    if (bytes.contains('\0')) return std::nullopt;
    QByteArray data = bytes;
    if (truncated) {
        int cut = 0;
        while (cut < 4 && cut < data.size() && (static_cast<unsigned char>(data[data.size() - 1 - cut]) & 0xC0) == 0x80)
            ++cut;
        if (cut < data.size() && (static_cast<unsigned char>(data[data.size() - 1 - cut]) & 0xC0) == 0xC0)
            data.chop(cut + 1);
    }
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QString text = decoder(data);
    if (decoder.hasError()) return std::nullopt;
    return text;
}

}  // namespace

PreviewLoader::PreviewLoader(RestClient* rest, QObject* parent) : QObject(parent), m_rest(rest)
{
    qRegisterMetaType<Preview>();
}

void PreviewLoader::clear()
{
    ++m_generation;
    m_call.abort();
    m_call = {};
}

void PreviewLoader::load(const QString& bucket, const QString& name)
{
    clear();
    const quint64 generation = m_generation;
    emit loading(bucket, name);
    m_call =
        m_rest->readHead(bucket, name, m_maxBytes, this, [this, generation, bucket, name](api::Result<RangeData> r) {
            if (generation != m_generation) return;
            m_call = {};
            if (!r) {
                Preview p;
                p.kind = Preview::Kind::Error;
                p.bucket = bucket;
                p.name = name;
                p.text = QString::fromStdString(r.error().message);
                p.summary = tr("cannot read: %1").arg(p.text);
                emit ready(p);
                return;
            }
            // Decoding (an image above all) happens on a worker thread.
            auto* watcher = new QFutureWatcher<Preview>(this);
            connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, bucket] {
                watcher->deleteLater();
                if (generation != m_generation) return;
                Preview p = watcher->result();
                p.bucket = bucket;
                emit ready(p);
            });
            watcher->setFuture(QtConcurrent::run(&PreviewLoader::build, name, r->bytes, r->totalSize));
        });
}

Preview PreviewLoader::build(const QString& name, const QByteArray& bytes, qint64 totalSize)
{
    Preview p;
    p.name = name;
    p.totalSize = totalSize < 0 ? bytes.size() : totalSize;
    p.bytesRead = bytes.size();
    const bool truncated = p.truncated();
    const QString cut = truncated ? QObject::tr("first %1 of %2 (truncated at the preview limit)")
                                        .arg(formatBytes(p.bytesRead), formatBytes(p.totalSize))
                                  : formatBytes(p.totalSize);
    if (bytes.isEmpty()) {
        p.kind = Preview::Kind::Empty;
        p.summary = QObject::tr("empty object");
        return p;
    }
    if (looksLikeImage(name, bytes)) {
        QImage image;
        if (!truncated && image.loadFromData(bytes)) {
            p.kind = Preview::Kind::Image;
            p.image = std::move(image);
            p.summary = QObject::tr("image %1×%2 · %3").arg(p.image.width()).arg(p.image.height()).arg(cut);
            return p;
        }
        if (truncated) {
            p.kind = Preview::Kind::Hex;
            p.text = hexDump(bytes);
            p.summary = QObject::tr("image larger than the preview limit; hex of the %1").arg(cut);
            return p;
        }
    }
    if (auto text = asText(bytes, truncated)) {
        const QString trimmed = text->trimmed();
        if (!truncated && (trimmed.startsWith('{') || trimmed.startsWith('[') || name.endsWith(".json"))) {
            // Generic pretty-printing (no schema): keys keep their order.
            const auto doc =
                nlohmann::ordered_json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
            if (!doc.is_discarded()) {
                p.kind = Preview::Kind::Json;
                p.text = QString::fromStdString(doc.dump(2)) + '\n';
                p.summary = QObject::tr("JSON · %1").arg(cut);
                return p;
            }
        }
        p.kind = Preview::Kind::Text;
        p.text = *text;
        p.summary = QObject::tr("text · %1").arg(cut);
        return p;
    }
    p.kind = Preview::Kind::Hex;
    p.text = hexDump(bytes);
    const QString hexCut =
        bytes.size() > kMaxHexBytes ? QObject::tr(" · hex of the first %1").arg(formatBytes(kMaxHexBytes)) : QString();
    p.summary = QObject::tr("binary · %1%2").arg(cut, hexCut);
    return p;
}

}  // namespace tessera::console
