#include "shard_packer.h"

#include "archive/archive_writer.h"
#include "archive/member_name.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <map>

namespace tessera::console {

namespace {

constexpr qint64 kReadChunk = 1 << 20;

struct Sample {
    std::vector<const UploadSource*> files;
    std::vector<std::string> members;
    qint64 bytes = 0;  // estimated bytes in a .tar
};

QString memberName(const UploadSource& f, const QString& strip)
{
    return strip.isEmpty() || !f.relativeName.startsWith(strip) ? f.relativeName : f.relativeName.mid(strip.size());
}

}  // namespace

api::Result<PackResult> ShardPacker::pack(const UploadSources& files, const PackOptions& options,
                                          const std::atomic<bool>& cancel, const Progress& progress)
{
    const qint64 target = std::max(options.targetShardBytes, PackOptions::kMinShardBytes);
    // Samples by key, in key order.
    std::map<std::string, Sample> samples;
    for (const UploadSource& f : files) {
        const std::string member = memberName(f, options.stripPrefix).toStdString();
        if (auto st = archive::validateMemberName(member); !st) return st.error();
        Sample& s = samples[std::string(archive::wdsKey(member))];
        s.files.push_back(&f);
        s.members.push_back(member);
        s.bytes += static_cast<qint64>(archive::tarMemberBytes(member, static_cast<std::uint64_t>(f.size)));
    }

    PackResult result;
    const QString ext = QString::fromLatin1(archive::formatExtension(options.format));
    const auto total = static_cast<qint64>(files.size());
    qint64 filesDone = 0;

    std::unique_ptr<QFile> out;
    std::unique_ptr<archive::ArchiveWriter> writer;
    qint64 shardBytes = 0;
    auto closeShard = [&]() -> api::Status {
        if (!writer) return {};
        if (auto st = writer->finish(); !st) return st;
        writer.reset();
        out->close();
        PackedShard& shard = result.shards.back();
        shard.source.size = QFileInfo(shard.source.localPath).size();
        out.reset();
        return {};
    };
    auto openShard = [&]() -> api::Status {
        const QString number = QStringLiteral("%1").arg(result.shards.size(), 6, 10, QChar('0'));
        PackedShard shard;
        shard.source.localPath = QDir(options.outputDir).filePath(QStringLiteral("shard-") + number + ext);
        shard.source.objectName = options.objectPrefix + number + ext;
        shard.source.relativeName = shard.source.objectName.section('/', -1);
        out = std::make_unique<QFile>(shard.source.localPath);
        if (!out->open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            return api::Error::ioError("cannot write " + shard.source.localPath.toStdString(),
                                       out->errorString().toStdString());
        }
        QFile* sinkFile = out.get();
        auto w = archive::ArchiveWriter::create(
            options.format, [sinkFile](const char* data, std::size_t size) -> api::Status {
                if (sinkFile->write(data, static_cast<qint64>(size)) != static_cast<qint64>(size)) {
                    return api::Error::ioError("cannot write " + sinkFile->fileName().toStdString(),
                                               sinkFile->errorString().toStdString());
                }
                return {};
            });
        if (!w) return w.error();
        writer = std::move(*w);
        result.shards.push_back(std::move(shard));
        shardBytes = 0;
        return {};
    };

    std::vector<char> buffer(kReadChunk);
    for (auto& [key, sample] : samples) {
        if (cancel.load()) return api::Error::unavailable("cancelled");
        if (writer && shardBytes > 0 &&
            shardBytes + sample.bytes + static_cast<qint64>(archive::kTarEndBytes) > target) {
            if (auto st = closeShard(); !st) return st.error();
        }
        if (!writer) {
            if (auto st = openShard(); !st) return st.error();
        }
        for (std::size_t i = 0; i < sample.files.size(); ++i) {
            const UploadSource& f = *sample.files[i];
            QFile in(f.localPath);
            if (!in.open(QIODevice::ReadOnly)) {
                return api::Error::ioError("cannot read " + f.localPath.toStdString(), in.errorString().toStdString());
            }
            if (in.size() != f.size) {
                return api::Error::ioError(f.localPath.toStdString() + " changed size since it was listed");
            }
            const auto mtime = QFileInfo(in).lastModified().toSecsSinceEpoch();
            if (auto st = writer->begin(sample.members[i], static_cast<std::uint64_t>(f.size), mtime); !st) {
                return st.error();
            }
            qint64 left = f.size;
            while (left > 0) {
                const qint64 n = in.read(buffer.data(), std::min<qint64>(left, kReadChunk));
                if (n <= 0) return api::Error::ioError(f.localPath.toStdString() + " ended early while packing");
                if (auto st = writer->write(buffer.data(), static_cast<std::size_t>(n)); !st) return st.error();
                left -= n;
            }
            ++result.members;
            ++result.shards.back().members;
            if (progress) progress(++filesDone, total);
        }
        shardBytes += sample.bytes;
        ++result.samples;
        ++result.shards.back().samples;
    }
    if (auto st = closeShard(); !st) return st.error();
    return result;
}

}  // namespace tessera::console
