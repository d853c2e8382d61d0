#pragma once
// The checksum an aws-chunked body carries in its trailer
// (x-amz-trailer: x-amz-checksum-<algorithm>): CRC32, CRC32C, SHA-1 or
// SHA-256 of the decoded payload, base64 of its big-endian bytes, as S3
// defines them. Computed as the bytes pass, compared when the trailer comes.
//
// Not thread-safe: one per request body.

#include "api/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tessera::daemon::s3 {

class TrailerChecksum {
public:
    // `trailer`: the x-amz-trailer header's value (any case).
    // InvalidArgument for an algorithm that is not one of the four.
    static api::Result<std::unique_ptr<TrailerChecksum>> create(std::string_view trailer);
    ~TrailerChecksum();

    // The trailer's name, lower case ("x-amz-checksum-crc32").
    const std::string& name() const { return m_name; }
    void update(const char* data, std::size_t size);
    // The base64 of the checksum of every byte given; once.
    std::string finish();

private:
    enum class Kind { Crc32, Crc32c, Sha1, Sha256 };
    TrailerChecksum(Kind kind, std::string name);

    Kind m_kind;
    std::string m_name;
    std::uint32_t m_crc = 0xffffffffu;
    struct Digest;
    std::unique_ptr<Digest> m_digest;  // SHA-1, SHA-256
};

}  // namespace tessera::daemon::s3
