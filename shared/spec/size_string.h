#pragma once
// Sizes written by people: "16MiB", "100MB", "1.5GiB", "4096" (bytes).
// Units, case-insensitive: B; KB MB GB TB (powers of 1000); KiB MiB GiB TiB
// (powers of 1024). A fraction is allowed with a unit ("1.5GiB") and the
// result is rounded down to a byte. Used by ishard, dSort and the CLI.

#include "api/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::spec {

// BadRequest for anything else, for zero when !allowZero, and for sizes of
// 2^62 bytes or more.
api::Result<std::uint64_t> parseSize(std::string_view text, bool allowZero = false);

// 1536 -> "1.5KiB", 1048576 -> "1MiB", 100 -> "100B".
std::string formatSize(std::uint64_t bytes);

}  // namespace tessera::spec
