#pragma once
// The S3 multipart uploads a target keeps: it owns each upload's final
// object (HRW of bucket/key), so the parts are written here and assembled
// here, never through the proxy. Layout, on the final object's mountpath:
//   <mp>/.tessera/s3mp/<upload id>/upload.json      the record (api::MultipartUpload)
//   <mp>/.tessera/s3mp/<upload id>/part-NNNNN       a part; its number, MD5, size and
//                                                   time in the xattr user.tessera.s3part
//   <mp>/.tessera/s3mp/<upload id>/part-NNNNN.w-*   a part being written (removed at start)
// The same mountpath as the object, so that assembling copies within one
// filesystem. Everything is fsync'd when the store is (ObjectStore::Options
// ::fsync): a restarted target keeps its uploads in progress.
//
// Limits: part numbers 1..10,000; a part at most 5 GiB (every part but the
// last at least 5 MiB, checked at completion, as S3 does); at most
// kMaxUploads uploads in progress per target; an upload older than
// kMaxAge is removed (at start, and when an upload is created at least a
// minute after the last sweep).
//
// Thread safety: all methods may be called concurrently. A part written
// twice keeps the last one committed; a completion reads the parts it
// opened, whatever happens to the names meanwhile.

#include "multipart_part_writer.h"

#include "api/result.h"
#include "api/s3_multipart_msg.h"
#include "common/unique_fd.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::daemon::target {

class ObjectStore;

class MultipartStore {
public:
    static constexpr std::size_t kMaxUploads = 10000;
    static constexpr std::chrono::hours kMaxAge{24 * 7};

    explicit MultipartStore(const ObjectStore& store);

    // Removes expired uploads and half-written parts; the number of uploads
    // removed. Called at start.
    std::size_t sweep() const;

    api::Result<api::MultipartUpload> create(const std::string& bucket, const std::string& key,
                                             std::map<std::string, std::string> custom) const;
    // The upload of bucket/key with this id: NotFound "NoSuchUpload: ..."
    // when there is none (or it is of another key).
    api::Result<api::MultipartUpload> find(const std::string& bucket, const std::string& key,
                                           const std::string& id) const;
    // `length` nullopt: not known in advance (a copied part).
    api::Result<std::unique_ptr<MultipartPartWriter>> beginPart(const api::MultipartUpload& upload,
                                                                std::uint32_t number,
                                                                std::optional<std::uint64_t> length) const;
    // Every stored part, by number.
    api::Result<std::vector<api::MultipartPart>> parts(const api::MultipartUpload& upload) const;
    // Removes the upload and its parts (abort, or after completion).
    api::Status remove(const api::MultipartUpload& upload) const;
    // The uploads of `bucket` whose key starts with `prefix`, by key.
    api::Result<std::vector<api::MultipartUpload>> list(const std::string& bucket, const std::string& prefix) const;
    // A destroyed bucket's uploads go with it.
    void removeBucket(const std::string& bucket) const;

    // The parts a completion asked for, checked as S3 checks them
    // (ascending numbers: InvalidPartOrder; each stored with that ETag:
    // InvalidPart; all but the last >= 5 MiB: EntityTooSmall) and opened in
    // that order, with the object's S3 ETag ("<md5 of the MD5s>-N").
    struct Assembly {
        std::vector<UniqueFd> parts;
        std::vector<std::uint64_t> sizes;
        std::uint64_t total = 0;
        std::string etag;
    };
    api::Result<Assembly> assemble(const api::MultipartUpload& upload, const api::MultipartComplete& wanted) const;

private:
    std::string root(std::size_t mp) const;
    std::string dirOf(const std::string& bucket, const std::string& key, const std::string& id) const;
    std::size_t mountpathOf(const std::string& bucket, const std::string& key) const;
    // The record in `dir`; NotFound when absent or unreadable.
    api::Result<api::MultipartUpload> readRecord(const std::string& dir) const;
    api::Status removeDir(std::size_t mp, const std::string& dir) const;

    static constexpr std::int64_t kSweepIntervalNs = std::int64_t{60} * 1000000000;

    const ObjectStore& m_store;
    mutable std::atomic<std::int64_t> m_lastSweepNs{0};
};

}  // namespace tessera::daemon::target
