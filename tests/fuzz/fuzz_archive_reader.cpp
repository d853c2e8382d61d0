// Shards as ArchiveReader reads them (shared/archive/archive_reader.h):
// tar, tar.gz, tar.lz4 and zip bytes from anyone who can PUT an object.
// The first byte picks the format the caller expects; the rest is the shard.
// Whatever the bytes, a member that comes out has a safe name, stays within
// the limits, and yields exactly its declared size.

#include "fuzz_check.h"

#include "archive/archive_reader.h"
#include "archive/member_name.h"

using namespace tessera;
// Not `archive::`: libarchive's `struct archive` is in the global namespace.
namespace ar = tessera::archive;

namespace {

bool safeName(std::string_view name)
{
    if (name.empty() || name.front() == '/') return false;
    for (const auto part : fuzz::splitAll(name, '/')) {
        if (part == "..") return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0) return 0;
    constexpr ar::ArchiveFormat kFormats[] = {ar::ArchiveFormat::Tar, ar::ArchiveFormat::TarGz,
                                              ar::ArchiveFormat::TarLz4, ar::ArchiveFormat::Zip};
    const auto format = kFormats[data[0] % 4];
    const auto shard = fuzz::asText(data + 1, size - 1);

    // Small limits, so that a fuzzed shard reaches them (and the fuzzer
    // does not spend its time inflating).
    ar::ArchiveLimits limits;
    limits.maxMembers = 64;
    limits.maxMemberSize = 1 << 20;
    limits.maxTotalSize = 4 << 20;
    limits.maxNameBytes = 256;

    auto reader = ar::ArchiveReader::openMemory(shard, format, limits);
    if (!reader) return 0;
    std::uint64_t members = 0;
    std::uint64_t total = 0;
    for (;;) {
        auto next = (*reader)->next();
        if (!next) {
            FUZZ_CHECK(next.kind() == api::ErrorKind::Corruption || next.kind() == api::ErrorKind::TooLarge,
                       fuzz::errorText(next));
            break;
        }
        if (!next->has_value()) break;
        const auto& m = **next;
        ++members;
        FUZZ_CHECK(members <= limits.maxMembers, m.name);
        FUZZ_CHECK(safeName(m.name), m.name);
        FUZZ_CHECK(ar::validateMemberName(m.name, limits.maxNameBytes).ok(), m.name);
        FUZZ_CHECK(m.name.size() <= limits.maxNameBytes, m.name);
        FUZZ_CHECK(m.size <= limits.maxMemberSize, m.name + " " + std::to_string(m.size));
        // Read every other member and skip the rest: both paths are used.
        if (members % 2 == 0) continue;
        const auto bytes = (*reader)->readAll();
        if (!bytes) break;
        FUZZ_CHECK(bytes->size() == m.size,
                   m.name + ": declared " + std::to_string(m.size) + ", read " + std::to_string(bytes->size()));
        total += bytes->size();
        FUZZ_CHECK(total <= limits.maxTotalSize, std::to_string(total));
    }
    return 0;
}
