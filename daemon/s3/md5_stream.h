#pragma once
// MD5 over a stream of bytes (an S3 ETag), with OpenSSL's EVP interface.
// Not thread-safe: one stream per writer.

#include <cstddef>
#include <memory>
#include <openssl/evp.h>
#include <string>

namespace tessera::daemon::s3 {

class Md5Stream {
public:
    Md5Stream() : m_ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free) { EVP_DigestInit_ex(m_ctx.get(), EVP_md5(), nullptr); }
    void update(const void* data, std::size_t size) { EVP_DigestUpdate(m_ctx.get(), data, size); }
    // The 16 digest bytes; the stream is finished afterwards.
    std::string digest()
    {
        unsigned char out[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        EVP_DigestFinal_ex(m_ctx.get(), out, &n);
        return std::string(reinterpret_cast<const char*>(out), n);
    }
    // The digest as 32 lowercase hex digits; the stream is finished afterwards.
    std::string hex() { return toHex(digest()); }

    static std::string toHex(const std::string& bytes)
    {
        static constexpr char kDigits[] = "0123456789abcdef";
        std::string out;
        out.reserve(bytes.size() * 2);
        for (unsigned char c : bytes) {
            out.push_back(kDigits[c >> 4]);
            out.push_back(kDigits[c & 15]);
        }
        return out;
    }

private:
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> m_ctx;
};

}  // namespace tessera::daemon::s3
