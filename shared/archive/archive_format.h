#pragma once
// The shard formats: .tar, .tgz/.tar.gz, .tar.lz4, .zip. A shard's format
// comes from its name's extension unless the request names one (AIStore's
// `archmime`: "tar", ".tgz", "tar.gz", "application/x-tar", ...).

#include "api/result.h"

#include <optional>
#include <string_view>

namespace tessera::archive {

enum class ArchiveFormat { Tar, TarGz, TarLz4, Zip };

// By extension (case-sensitive, as object names are): nullopt when the name
// is not a shard's.
std::optional<ArchiveFormat> formatFromName(std::string_view name);
// An `archmime` value; BadRequest naming the accepted values otherwise.
api::Result<ArchiveFormat> formatFromMime(std::string_view mime);
// The format of `name`, or the one `mime` names when it is not empty;
// BadRequest when neither gives one.
api::Result<ArchiveFormat> resolveFormat(std::string_view name, std::string_view mime);

// ".tar", ".tgz", ".tar.lz4", ".zip"
std::string_view formatExtension(ArchiveFormat f);
// "tar", "tgz", "tar.lz4", "zip"
std::string_view formatName(ArchiveFormat f);
// Compressed as a whole (reading a member means decompressing what precedes it).
inline bool isCompressedStream(ArchiveFormat f) { return f == ArchiveFormat::TarGz || f == ArchiveFormat::TarLz4; }

}  // namespace tessera::archive
