#pragma once
// Erasure coding of files, in stripes of up to 1 MiB per slice, so memory
// stays at (D + P) MiB whatever the object size.
//   encodeSlices: an object file -> D + P slice files and their xxhash64;
//   decodeSlices: any D slice files -> the object file.
// Slice i < D holds the object's bytes [i * S, (i + 1) * S) (S the slice
// size), zero-padded past the object's end; see ec_codec.h.

#include "ec_codec.h"

#include "api/result.h"
#include "common/unique_fd.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessera::daemon::ec {

struct EncodedSlice {
    UniqueFd fd;           // the slice's bytes, from offset 0
    std::string checksum;  // xxhash64 hex of them
};

// Scratch files (unnamed temporary files) for slices and rebuilt objects.
using TempFileMaker = std::function<api::Result<UniqueFd>()>;

// Reads bytes [0, size) of `objectFd` and writes the D + P slices, each
// into a file from `makeTemp`.
api::Result<std::vector<EncodedSlice>> encodeSlices(const EcCodec& codec, int objectFd, std::uint64_t size,
                                                    const TempFileMaker& makeTemp);

// `sliceFds`: slice index -> a file of sliceSize(size) bytes, at least D of
// them (the codec's decoder chooses). Writes the object's `size` bytes to
// `outFd` from offset 0.
api::Status decodeSlices(const EcCodec& codec, const std::map<int, int>& sliceFds, std::uint64_t size, int outFd);

}  // namespace tessera::daemon::ec
