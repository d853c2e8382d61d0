#pragma once
// file-put: the local reference for a PUT. One file written the way a target
// commits an object: a work file in the folder's work folder, the bytes,
// fdatasync, a small metadata attribute, rename into place, then an fsync of
// the folder, which makes the rename durable. With `fsync` off, the same
// steps without the two syncs.

#include <string>
#include <string_view>

namespace tessera::cli::bench {

// The work folder of each folder files go to.
inline constexpr std::string_view kFileWorkDir = ".work";

// Writes `bytes` to root/rel, where rel is "FOLDER/NAME" and root/FOLDER/.work
// exists; "" on success, else what failed and why.
std::string writeCommittedFile(const std::string& root, const std::string& rel, std::string_view bytes, bool fsync);

}  // namespace tessera::cli::bench
