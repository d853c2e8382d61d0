#pragma once
// Bounds on what reading an archive may cost. A shard breaking one is refused
// (a Corruption error naming the member and the limit): nothing is extracted
// past a limit. The daemon's config sets them (archive.*).

#include <cstdint>

namespace tessera::archive {

struct ArchiveLimits {
    std::uint64_t maxMembers = 1'000'000;                  // members (of any type) in one shard
    std::uint64_t maxMemberSize = std::uint64_t{4} << 30;  // bytes of one member
    std::uint64_t maxTotalSize = std::uint64_t{64} << 30;  // bytes of all members together
    // Expanded bytes per byte of a compressed shard (.tgz, .tar.lz4, .zip);
    // a zip bomb breaks it. Checked against the declared sizes as headers
    // arrive and against the bytes actually produced.
    std::uint64_t maxCompressionRatio = 200;
    std::uint64_t maxNameBytes = 4096;  // a member's path
};

}  // namespace tessera::archive
