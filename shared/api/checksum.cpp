#include "checksum.h"

#include <stdexcept>
#include <xxhash.h>

namespace tessera::api {

Xxh64Stream::Xxh64Stream() : m_state(XXH64_createState())
{
    if (m_state == nullptr) {
        throw std::bad_alloc();
    }
    XXH64_reset(m_state, 0);
}

Xxh64Stream::~Xxh64Stream() { XXH64_freeState(m_state); }

void Xxh64Stream::update(const void* data, std::size_t len) { XXH64_update(m_state, data, len); }

std::uint64_t Xxh64Stream::digest() const { return XXH64_digest(m_state); }

std::string Xxh64Stream::hex() const { return toHex64(digest()); }

void Xxh64Stream::reset() { XXH64_reset(m_state, 0); }

std::uint64_t xxhash64(std::string_view data, std::uint64_t seed) { return XXH64(data.data(), data.size(), seed); }

std::string xxhash64Hex(std::string_view data) { return toHex64(xxhash64(data)); }

std::string toHex64(std::uint64_t v)
{
    static const char* kHex = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i) {
        s[static_cast<std::size_t>(i)] = kHex[v & 0xF];
        v >>= 4;
    }
    return s;
}

}  // namespace tessera::api
