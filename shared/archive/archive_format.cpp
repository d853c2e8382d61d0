#include "archive_format.h"

#include <array>
#include <utility>

namespace tessera::archive {

namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::optional<ArchiveFormat> formatFromName(std::string_view name)
{
    if (endsWith(name, ".tar")) return ArchiveFormat::Tar;
    if (endsWith(name, ".tgz") || endsWith(name, ".tar.gz")) return ArchiveFormat::TarGz;
    if (endsWith(name, ".tar.lz4")) return ArchiveFormat::TarLz4;
    if (endsWith(name, ".zip")) return ArchiveFormat::Zip;
    return std::nullopt;
}

api::Result<ArchiveFormat> formatFromMime(std::string_view mime)
{
    static const std::array<std::pair<std::string_view, ArchiveFormat>, 14> kNames{{
        {"tar", ArchiveFormat::Tar},
        {".tar", ArchiveFormat::Tar},
        {"application/x-tar", ArchiveFormat::Tar},
        {"tgz", ArchiveFormat::TarGz},
        {".tgz", ArchiveFormat::TarGz},
        {"tar.gz", ArchiveFormat::TarGz},
        {".tar.gz", ArchiveFormat::TarGz},
        {"application/x-gzip", ArchiveFormat::TarGz},
        {"application/gzip", ArchiveFormat::TarGz},
        {"tar.lz4", ArchiveFormat::TarLz4},
        {".tar.lz4", ArchiveFormat::TarLz4},
        {"zip", ArchiveFormat::Zip},
        {".zip", ArchiveFormat::Zip},
        {"application/zip", ArchiveFormat::Zip},
    }};
    for (const auto& [n, f] : kNames) {
        if (mime == n) return f;
    }
    return api::Error::badRequest("unknown archive format \"" + std::string(mime) +
                                  "\" (expected tar, tgz, tar.gz, tar.lz4 or zip)");
}

api::Result<ArchiveFormat> resolveFormat(std::string_view name, std::string_view mime)
{
    if (!mime.empty()) return formatFromMime(mime);
    if (auto f = formatFromName(name)) return *f;
    return api::Error::badRequest("\"" + std::string(name) +
                                  "\" is not a shard: its name does not end in .tar, .tgz, .tar.gz, .tar.lz4 or "
                                  ".zip (name the format with archmime)");
}

std::string_view formatExtension(ArchiveFormat f)
{
    switch (f) {
    case ArchiveFormat::Tar: return ".tar";
    case ArchiveFormat::TarGz: return ".tgz";
    case ArchiveFormat::TarLz4: return ".tar.lz4";
    case ArchiveFormat::Zip: return ".zip";
    }
    return ".tar";
}

std::string_view formatName(ArchiveFormat f)
{
    auto e = formatExtension(f);
    return e.substr(1);
}

}  // namespace tessera::archive
