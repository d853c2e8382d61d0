#pragma once
// Packs local files into WebDataset shards on local disk, to be uploaded as
// objects instead of the loose files. Files are grouped into samples by their
// WebDataset key (archive::wdsKey of the member name); a sample is never
// split, samples go in key order, and a shard is closed before the sample
// that would take it past the target size (a single sample larger than the
// target gets a shard of its own).
//
// Member names are the files' relative names, without the dropped folder's
// own name when one folder was dropped ("photos/a/1.jpg" -> "a/1.jpg").
// Runs on any thread; no Qt event loop needed.

#include "upload_source.h"

#include "api/result.h"
#include "archive/archive_format.h"

#include <QString>
#include <atomic>
#include <functional>

namespace tessera::console {

struct PackOptions {
    static constexpr qint64 kDefaultShardBytes = 64LL * 1024 * 1024;
    static constexpr qint64 kMinShardBytes = 4096;

    qint64 targetShardBytes = kDefaultShardBytes;
    archive::ArchiveFormat format = archive::ArchiveFormat::Tar;
    QString outputDir;     // local directory for the shard files
    QString objectPrefix;  // shards are named objectPrefix + "000000" + extension
    QString stripPrefix;   // removed from each relative name to make the member name ("photos/")
};

struct PackedShard {
    UploadSource source;  // the local shard file and its object name
    qint64 samples = 0;
    qint64 members = 0;
};

struct PackResult {
    std::vector<PackedShard> shards;
    qint64 samples = 0;
    qint64 members = 0;
};

class ShardPacker {
public:
    using Progress = std::function<void(qint64 filesDone, qint64 filesTotal)>;

    // Cancelled (cancel set) is Unavailable "cancelled"; a file that cannot be
    // read or changed size since the walk is IoError naming it.
    static api::Result<PackResult> pack(const UploadSources& files, const PackOptions& options,
                                        const std::atomic<bool>& cancel, const Progress& progress = {});
};

}  // namespace tessera::console
