// The tar index (shared/archive/tar_index.h): built from a shard's headers
// (the input as a .tar in a memory file) and read back from its own binary
// form (the input as a stored index, which a damaged disk may garble).
// A built index points inside the shard; serialize and deserialize agree.

#include "fuzz_check.h"

#include "archive/tar_index.h"

#include <sys/mman.h>
#include <unistd.h>

using namespace tessera;

namespace {

bool sameIndex(const archive::TarIndex& a, const archive::TarIndex& b)
{
    if (a.endOffset() != b.endOffset() || a.entries().size() != b.entries().size()) return false;
    for (std::size_t i = 0; i < a.entries().size(); ++i) {
        const auto& x = a.entries()[i];
        const auto& y = b.entries()[i];
        if (x.name != y.name || x.offset != y.offset || x.size != y.size || x.mtime != y.mtime) return false;
    }
    return true;
}

void checkSerialized(const archive::TarIndex& index)
{
    const auto bytes = index.serialize();
    const auto again = archive::TarIndex::deserialize(bytes);
    FUZZ_CHECK(again && sameIndex(*again, index), fuzz::errorText(again));
    for (const auto& e : index.entries()) {
        const auto* found = again->find(e.name);
        FUZZ_CHECK(found != nullptr && found->name == e.name, e.name);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);

    if (const auto stored = archive::TarIndex::deserialize(text)) checkSerialized(*stored);
    else FUZZ_CHECK(stored.kind() == api::ErrorKind::Corruption, fuzz::errorText(stored));

    static const int fd = memfd_create("fuzz-tar", 0);
    FUZZ_CHECK(fd >= 0, "memfd_create");
    FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate");
    FUZZ_CHECK(pwrite(fd, data, size, 0) == static_cast<ssize_t>(size), "pwrite");
    archive::ArchiveLimits limits;
    limits.maxMembers = 256;
    const auto built = archive::TarIndex::build(fd, size, limits);
    if (!built) return 0;
    FUZZ_CHECK(built->endOffset() <= size, std::to_string(built->endOffset()));
    for (const auto& e : built->entries()) {
        FUZZ_CHECK(e.offset <= size && e.size <= size - e.offset,
                   e.name + " at " + std::to_string(e.offset) + "+" + std::to_string(e.size));
        FUZZ_CHECK(e.offset + e.size <= built->endOffset(), e.name);
    }
    checkSerialized(*built);
    return 0;
}
