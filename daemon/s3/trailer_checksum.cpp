#include "trailer_checksum.h"

#include <array>
#include <openssl/evp.h>

namespace tessera::daemon::s3 {

namespace {

// Reflected CRC-32 tables: IEEE (zlib's) and Castagnoli (iSCSI).
using CrcTable = std::array<std::uint32_t, 256>;
constexpr CrcTable makeTable(std::uint32_t poly)
{
    CrcTable t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (poly ^ (c >> 1)) : (c >> 1);
        t[i] = c;
    }
    return t;
}
constexpr CrcTable kCrc32 = makeTable(0xEDB88320u);
constexpr CrcTable kCrc32c = makeTable(0x82F63B78u);

std::string base64(const unsigned char* raw, std::size_t n)
{
    std::string out(4 * ((n + 2) / 3) + 1, '\0');
    const int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), raw, static_cast<int>(n));
    out.resize(static_cast<std::size_t>(len));
    return out;
}

}  // namespace

struct TrailerChecksum::Digest {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
};

TrailerChecksum::TrailerChecksum(Kind kind, std::string name) : m_kind(kind), m_name(std::move(name))
{
    if (m_kind == Kind::Sha1 || m_kind == Kind::Sha256) {
        m_digest = std::make_unique<Digest>();
        EVP_DigestInit_ex(m_digest->ctx.get(), m_kind == Kind::Sha1 ? EVP_sha1() : EVP_sha256(), nullptr);
    }
}

TrailerChecksum::~TrailerChecksum() = default;

api::Result<std::unique_ptr<TrailerChecksum>> TrailerChecksum::create(std::string_view trailer)
{
    std::string name(trailer);
    for (auto& c : name) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    Kind kind;
    if (name == "x-amz-checksum-crc32") {
        kind = Kind::Crc32;
    } else if (name == "x-amz-checksum-crc32c") {
        kind = Kind::Crc32c;
    } else if (name == "x-amz-checksum-sha1") {
        kind = Kind::Sha1;
    } else if (name == "x-amz-checksum-sha256") {
        kind = Kind::Sha256;
    } else {
        return api::Error::badRequest(
            "InvalidArgument: x-amz-trailer must be x-amz-checksum-crc32, -crc32c, -sha1 or -sha256, not \"" +
            std::string(trailer) + "\"");
    }
    return std::unique_ptr<TrailerChecksum>(new TrailerChecksum(kind, name));
}

void TrailerChecksum::update(const char* data, std::size_t size)
{
    if (m_digest) {
        EVP_DigestUpdate(m_digest->ctx.get(), data, size);
        return;
    }
    const auto& table = m_kind == Kind::Crc32 ? kCrc32 : kCrc32c;
    std::uint32_t c = m_crc;
    for (std::size_t i = 0; i < size; ++i) c = table[(c ^ static_cast<unsigned char>(data[i])) & 0xff] ^ (c >> 8);
    m_crc = c;
}

std::string TrailerChecksum::finish()
{
    if (m_digest) {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        EVP_DigestFinal_ex(m_digest->ctx.get(), md, &n);
        return base64(md, n);
    }
    const std::uint32_t v = m_crc ^ 0xffffffffu;
    const unsigned char be[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                                 static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
    return base64(be, 4);
}

}  // namespace tessera::daemon::s3
