#pragma once
// Many small objects of one bucket from a target in one round trip, for
// the shard-building jobs (a shard of 10,000 files would otherwise be
// 10,000 GETs from peers):
//   POST /v1/internal/batch-get   {"bucket":"B","names":["a","b",...]}
// answers application/octet-stream: one record per name, in order,
//   u8 status | u32 name length | name | u64 length | length bytes
// little-endian; status kOk (the object's bytes follow), kNotFound,
// kTooLarge (length = its size, no bytes: fetch it on its own), kNotSent
// (the answer reached kMaxAnswerBytes: ask again), kError (the bytes are
// the message). At most kMaxNames names.
//
// Thread safety: the handler runs on worker threads; the store is thread-safe.

#include "net/router.h"
#include "target/object_store.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::daemon::jobs {

class BatchGetApi {
public:
    // kCorrupt: the stored bytes no longer match their checksum (the bytes
    // are the message); never sent as data.
    enum Status : std::uint8_t { kOk = 0, kNotFound = 1, kTooLarge = 2, kNotSent = 3, kError = 4, kCorrupt = 5 };
    static constexpr std::size_t kMaxNames = 1024;
    static constexpr std::uint64_t kMaxObjectBytes = std::uint64_t{4} << 20;
    static constexpr std::uint64_t kMaxAnswerBytes = std::uint64_t{16} << 20;
    static constexpr const char* kPath = "/v1/internal/batch-get";

    explicit BatchGetApi(const target::ObjectStore& store) : m_store(store) {}
    void registerRoutes(net::Router& router);

    // One record of an answer; `consumed` bytes of `in` (0: incomplete).
    struct Record {
        Status status = kError;
        std::string name;
        std::string data;  // kOk: the bytes; kError: the message
        std::uint64_t length = 0;
    };
    static std::size_t parseRecord(std::string_view in, Record& out);

private:
    net::Response batchGet(const net::Request& req);
    const target::ObjectStore& m_store;
};

}  // namespace tessera::daemon::jobs
