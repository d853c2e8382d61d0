#pragma once
// Streaming xxhash64 (seed 0), the cluster's object checksum. Values travel as
// 16 lowercase hex digits.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

struct XXH64_state_s;

namespace tessera::api {

constexpr std::string_view kChecksumXxhash = "xxhash";

class Xxh64Stream {
public:
    Xxh64Stream();
    ~Xxh64Stream();
    Xxh64Stream(const Xxh64Stream&) = delete;
    Xxh64Stream& operator=(const Xxh64Stream&) = delete;

    void update(const void* data, std::size_t len);
    std::uint64_t digest() const;
    std::string hex() const;
    void reset();

private:
    XXH64_state_s* m_state;
};

std::string xxhash64Hex(std::string_view data);
std::uint64_t xxhash64(std::string_view data, std::uint64_t seed = 0);
std::string toHex64(std::uint64_t v);

}  // namespace tessera::api
