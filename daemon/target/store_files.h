#pragma once
// The object store's file-level helpers, shared by its parts (object_store,
// put_writer, object_listing): the metadata extended attribute, directory
// creation and pruning, fsync of a directory. Internal to the target.

#include "api/checksum.h"
#include "api/object_meta.h"
#include "api/result.h"
#include "s3/md5_stream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::daemon::target {

// The running hash of a PUT (PutWriter keeps one).
struct HashState {
    api::Xxh64Stream stream;
    std::optional<s3::Md5Stream> md5;  // PutParams::s3Etag
};

namespace store_detail {

// The extended attribute that holds an object's metadata (JSON), and its limit.
inline constexpr const char* kMetaXattr = "user.tessera.meta";
inline constexpr std::size_t kMaxMetaBytes = 64 * 1024;
// The record of a stored S3 multipart part (api::MultipartPart, JSON).
inline constexpr const char* kPartXattr = "user.tessera.s3part";

std::string errnoText(int e);
std::int64_t nowNs();
// The metadata of the open object file; nullopt when it has none.
api::Result<std::optional<api::ObjectMeta>> readMetaFd(int fd);
// The file's mtime in ns (0 when fstat fails).
std::int64_t fileMtimeNs(int fd);
// Creates every missing directory from `root` (which exists) down to the
// parent of `path`. An existing regular file in the way is a Conflict.
api::Status makeParents(const std::string& root, const std::string& path);
// Creates `dir` and its missing parents below `root`, never `root` itself:
// when a mountpath's root is gone (a disk unmounted or failed), nothing is
// written to the directory that stands in its place. 0 or the errno.
int makeDirsUnder(const std::string& root, const std::string& dir);
api::Status fsyncDir(const std::string& dir);
// The version stored at `path` now (its stamp: the file time when it has
// none); nullopt when there is none.
std::optional<api::ObjectMeta> currentVersion(const std::string& path);
// Removes now-empty parent directories of `path` up to (not including) root.
void pruneEmptyParents(const std::string& root, std::string path);
inline bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace store_detail
}  // namespace tessera::daemon::target
