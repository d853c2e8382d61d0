#pragma once
// One part of an S3 multipart upload being written on the target that keeps
// the upload (see multipart_store.h): the bytes go to a work file in the
// upload's directory and through MD5 (the part's ETag); commit() makes them
// durable, records the part (number, MD5, size, time) in the file's extended
// attribute and renames the file over the part's name, so a part is either
// the old one or the new one whole. Destroying a writer that did not commit
// removes its work file.
//
// Thread safety: one thread at a time.

#include "api/result.h"
#include "api/s3_multipart_msg.h"
#include "common/unique_fd.h"
#include "s3/md5_stream.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera::daemon::target {

class ObjectStore;

class MultipartPartWriter {
public:
    // `workPath` is created here; `finalPath` is the part's name (its
    // directory is synced after the rename when the store fsyncs).
    // `length`: the part's announced length (nullopt: not known in advance,
    // a copied part; at most 5 GiB then).
    static api::Result<std::unique_ptr<MultipartPartWriter>> create(const ObjectStore& store, std::size_t mountpath,
                                                                    std::string workPath, std::string finalPath,
                                                                    std::uint32_t number,
                                                                    std::optional<std::uint64_t> length);
    ~MultipartPartWriter();
    MultipartPartWriter(const MultipartPartWriter&) = delete;
    MultipartPartWriter& operator=(const MultipartPartWriter&) = delete;

    // More bytes than announced, or more than 5 GiB, is TooLarge.
    api::Status write(const char* data, std::size_t size);
    // After the announced length was written: the part, stored.
    api::Result<api::MultipartPart> commit();

private:
    MultipartPartWriter() = default;

    const ObjectStore* m_store = nullptr;
    std::size_t m_mp = 0;
    std::string m_workPath;
    std::string m_finalPath;
    std::uint32_t m_number = 0;
    std::uint64_t m_length = 0;  // the limit
    bool m_exact = true;         // the part must be m_length bytes
    std::uint64_t m_written = 0;
    UniqueFd m_fd;
    s3::Md5Stream m_md5;
    bool m_committed = false;
};

}  // namespace tessera::daemon::target
