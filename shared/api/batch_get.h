#pragma once
// Many small objects of one bucket from a target in one round trip, for
// the shard-building jobs (a shard of 10,000 files would otherwise be
// 10,000 GETs from peers):
//   POST /v1/internal/batch-get   BatchGetRequest {"bucket":"B","names":["a","b",...]}
// answers application/octet-stream: one record per name, in order,
//   u8 status | u32 name length | name | u64 length | length bytes
// little-endian; status kOk (the object's bytes follow), kNotFound,
// kTooLarge (length = its size, no bytes: fetch it on its own), kNotSent
// (the answer reached kMaxAnswerBytes: ask again), kError (the bytes are
// the message), kCorrupt (the stored bytes no longer match their checksum;
// the bytes are the message). At most kMaxNames names.

#include "wire.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

struct BatchGetRequest {
    std::string bucket;
    std::vector<std::string> names;
    bool operator==(const BatchGetRequest&) const = default;
};

void to_json(nlohmann::json& j, const BatchGetRequest& v);
// Checks the bucket and object names and the count (kMaxNames).
void readFields(FieldReader& r, BatchGetRequest& v);

struct BatchGet {
    enum Status : std::uint8_t { kOk = 0, kNotFound = 1, kTooLarge = 2, kNotSent = 3, kError = 4, kCorrupt = 5 };
    static constexpr std::size_t kMaxNames = 1024;
    static constexpr std::uint64_t kMaxObjectBytes = std::uint64_t{4} << 20;
    static constexpr std::uint64_t kMaxAnswerBytes = std::uint64_t{16} << 20;
    static constexpr const char* kPath = "/v1/internal/batch-get";

    // One record of an answer.
    struct Record {
        Status status = kError;
        std::string name;
        std::string data;  // kOk: the bytes; kError, kCorrupt: the message
        std::uint64_t length = 0;
    };
    // Appends a record: `data` is sent for kOk, kError and kCorrupt;
    // `length` is its size, or for kTooLarge the object's.
    static void appendRecord(std::string& out, Status st, std::string_view name, std::string_view data,
                             std::uint64_t length);
    // One record from the front of `in`; the bytes it used (0: incomplete).
    static std::size_t parseRecord(std::string_view in, Record& out);
};

}  // namespace tessera::api
