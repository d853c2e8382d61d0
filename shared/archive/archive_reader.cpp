#include "archive_reader.h"

#include "member_name.h"

#include <archive.h>
#include <archive_entry.h>
#include <cerrno>
#include <cstring>
#include <unistd.h>
#include <vector>

namespace tessera::archive {

// Where libarchive's bytes come from: a file read with pread, or memory.
struct ArchiveReader::Source {
    int fd = -1;
    std::string_view memory;
    bool isMemory = false;
    std::uint64_t size = 0;
    std::uint64_t pos = 0;
    std::vector<char> buffer;
    std::string ioError;
};

namespace {

constexpr std::size_t kReadChunk = 256 * 1024;
// Slack on the compression-ratio check, so tiny shards of tiny members are
// not refused for the constant cost of headers.
constexpr std::uint64_t kRatioSlack = 1 << 20;

la_ssize_t readCb(::archive*, void* client, const void** out)
{
    auto* s = static_cast<ArchiveReader::Source*>(client);
    if (s->pos >= s->size) return 0;
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kReadChunk, s->size - s->pos));
    if (s->isMemory) {
        *out = s->memory.data() + s->pos;
        s->pos += want;
        return static_cast<la_ssize_t>(want);
    }
    for (;;) {
        const auto n = ::pread(s->fd, s->buffer.data(), want, static_cast<off_t>(s->pos));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            s->ioError = std::strerror(errno);
            return -1;
        }
        s->pos += static_cast<std::uint64_t>(n);
        *out = s->buffer.data();
        return n;
    }
}

la_int64_t skipCb(::archive*, void* client, la_int64_t request)
{
    auto* s = static_cast<ArchiveReader::Source*>(client);
    if (request <= 0) return 0;
    const auto n = std::min<std::uint64_t>(static_cast<std::uint64_t>(request), s->size - s->pos);
    s->pos += n;
    return static_cast<la_int64_t>(n);
}

la_int64_t seekCb(::archive*, void* client, la_int64_t offset, int whence)
{
    auto* s = static_cast<ArchiveReader::Source*>(client);
    std::int64_t base = 0;
    if (whence == SEEK_CUR) base = static_cast<std::int64_t>(s->pos);
    else if (whence == SEEK_END) base = static_cast<std::int64_t>(s->size);
    const auto target = base + offset;
    if (target < 0) return ARCHIVE_FATAL;
    s->pos = std::min<std::uint64_t>(static_cast<std::uint64_t>(target), s->size);
    return static_cast<la_int64_t>(s->pos);
}

// A link target that stays inside the archive, seen from `entryName`'s
// directory (symlinks) or from the archive's root (hard links).
bool staysInside(std::string_view entryName, std::string_view target, bool relativeToEntry)
{
    if (target.empty() || target.front() == '/') return false;
    int depth = 0;
    if (relativeToEntry) {
        auto dir = entryName;
        const auto slash = dir.rfind('/');
        dir = slash == std::string_view::npos ? std::string_view() : dir.substr(0, slash);
        std::size_t start = 0;
        while (!dir.empty() && start <= dir.size()) {
            auto end = dir.find('/', start);
            if (end == std::string_view::npos) end = dir.size();
            const auto c = dir.substr(start, end - start);
            if (c == "..") --depth;
            else if (!c.empty() && c != ".") ++depth;
            start = end + 1;
        }
    }
    std::size_t start = 0;
    while (start <= target.size()) {
        auto end = target.find('/', start);
        if (end == std::string_view::npos) end = target.size();
        const auto c = target.substr(start, end - start);
        if (c == "..") {
            if (--depth < 0) return false;
        } else if (!c.empty() && c != ".") {
            ++depth;
        }
        start = end + 1;
    }
    return true;
}

}  // namespace

ArchiveReader::~ArchiveReader()
{
    if (m_archive != nullptr) archive_read_free(m_archive);
}

api::Result<std::unique_ptr<ArchiveReader>> ArchiveReader::openFd(int fd, std::uint64_t size, ArchiveFormat format,
                                                                  const ArchiveLimits& limits)
{
    auto src = std::make_unique<Source>();
    src->fd = fd;
    src->size = size;
    src->buffer.resize(kReadChunk);
    return start(std::move(src), format, limits);
}

api::Result<std::unique_ptr<ArchiveReader>> ArchiveReader::openMemory(std::string_view data, ArchiveFormat format,
                                                                      const ArchiveLimits& limits)
{
    auto src = std::make_unique<Source>();
    src->memory = data;
    src->isMemory = true;
    src->size = data.size();
    return start(std::move(src), format, limits);
}

api::Result<std::unique_ptr<ArchiveReader>> ArchiveReader::start(std::unique_ptr<Source> src, ArchiveFormat format,
                                                                 const ArchiveLimits& limits)
{
    std::unique_ptr<ArchiveReader> r(new ArchiveReader());
    r->m_src = std::move(src);
    r->m_format = format;
    r->m_limits = limits;
    r->m_archive = archive_read_new();
    if (r->m_archive == nullptr) return api::Error::internal("libarchive: out of memory");
    auto* a = r->m_archive;
    // The declared format's reader and filter only: a .tar that is really
    // gzip, or a .zip that is a tar, is damaged. (libarchive passes a stream
    // that is not compressed through any filter, so a plain tar named .tgz
    // reads as the tar it is.)
    switch (format) {
    case ArchiveFormat::Tar:
        archive_read_support_filter_none(a);
        archive_read_support_format_tar(a);
        break;
    case ArchiveFormat::TarGz:
        archive_read_support_filter_gzip(a);
        archive_read_support_format_tar(a);
        break;
    case ArchiveFormat::TarLz4:
        archive_read_support_filter_lz4(a);
        archive_read_support_format_tar(a);
        break;
    case ArchiveFormat::Zip:
        archive_read_support_filter_none(a);
        archive_read_support_format_zip(a);
        break;
    }
    archive_read_set_read_callback(a, readCb);
    archive_read_set_skip_callback(a, skipCb);
    archive_read_set_seek_callback(a, seekCb);
    archive_read_set_callback_data(a, r->m_src.get());
    if (archive_read_open1(a) != ARCHIVE_OK) {
        return r->damaged("cannot open as " + std::string(formatName(format)));
    }
    return r;
}

api::Error ArchiveReader::damaged(const std::string& what) const
{
    std::string msg = "damaged " + std::string(formatName(m_format)) + " shard: " + what;
    if (!m_src->ioError.empty()) return api::Error::ioError("reading a shard failed", m_src->ioError);
    const char* detail = m_archive != nullptr ? archive_error_string(m_archive) : nullptr;
    api::Error e = api::Error::corruption(msg);
    if (detail != nullptr) e.causedBy = detail;
    return e;
}

api::Result<std::optional<MemberInfo>> ArchiveReader::next()
{
    if (m_failed) return api::Error::internal("archive reader used after an error");
    const auto fail = [this](api::Error e) {
        m_failed = true;
        return e;
    };
    const bool compressed = m_format != ArchiveFormat::Tar;
    for (;;) {
        struct archive_entry* e = nullptr;
        const int rc = archive_read_next_header(m_archive, &e);
        if (rc == ARCHIVE_EOF) {
            m_current.reset();
            return std::optional<MemberInfo>();
        }
        if (rc < ARCHIVE_WARN) return fail(damaged("cannot read the next header"));
        if (++m_members > m_limits.maxMembers) {
            return fail(api::Error::corruption("shard has more than " + std::to_string(m_limits.maxMembers) +
                                               " members (archive_max_members)"));
        }
        const char* rawName = archive_entry_pathname_utf8(e);
        if (rawName == nullptr) rawName = archive_entry_pathname(e);
        if (rawName == nullptr) return fail(api::Error::corruption("shard member without a usable name"));
        std::string_view raw(rawName);
        const auto type = archive_entry_filetype(e);
        if (type == AE_IFDIR) {
            // "./", "a/b/": checked like files (no absolute path, no ".."),
            // then skipped.
            while (!raw.empty() && raw.back() == '/') raw.remove_suffix(1);
            if (raw.empty() || raw == ".") continue;
        }
        if (auto st = validateMemberName(raw, m_limits.maxNameBytes); !st) {
            return fail(api::Error::corruption("unsafe shard member: " + st.error().message));
        }
        const auto name = normalizeMemberName(raw);
        const auto dataOffset = static_cast<std::uint64_t>(archive_filter_bytes(m_archive, 0));
        const std::int64_t declared = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
        if (declared < 0)
            return fail(api::Error::corruption("shard member \"" + std::string(name) + "\" has a negative size"));
        const auto size = static_cast<std::uint64_t>(declared);
        const auto padded = (size + 511) / 512 * 512;
        m_endOffset = std::max(m_endOffset, dataOffset + padded);

        if (const char* hl = archive_entry_hardlink(e); hl != nullptr) {
            if (!staysInside(name, hl, false) || !validateMemberName(hl, m_limits.maxNameBytes)) {
                return fail(api::Error::corruption("unsafe shard member \"" + std::string(name) +
                                                   "\": hard link to \"" + hl + "\" leads outside the shard"));
            }
            continue;  // a second name for an earlier member: not a member itself
        }
        if (type == AE_IFDIR) continue;
        if (type == AE_IFLNK) {
            const char* target = archive_entry_symlink(e);
            if (target == nullptr || !staysInside(name, target, true)) {
                return fail(api::Error::corruption("unsafe shard member \"" + std::string(name) +
                                                   "\": symbolic link to \"" + (target ? target : "") +
                                                   "\" leads outside the shard"));
            }
            continue;
        }
        if (type != AE_IFREG) {
            return fail(api::Error::corruption("unsafe shard member \"" + std::string(name) +
                                               "\": not a regular file (device, FIFO or socket)"));
        }
        if (size > m_limits.maxMemberSize) {
            return fail(api::Error::corruption("shard member \"" + std::string(name) + "\" declares " +
                                               std::to_string(size) + " bytes, over the limit of " +
                                               std::to_string(m_limits.maxMemberSize) + " (archive_max_member_size)"));
        }
        m_declaredTotal += size;
        if (m_declaredTotal > m_limits.maxTotalSize) {
            return fail(api::Error::corruption("shard members add up to more than " +
                                               std::to_string(m_limits.maxTotalSize) +
                                               " bytes (archive_max_total_size)"));
        }
        if (compressed && m_declaredTotal > m_limits.maxCompressionRatio * m_src->size + kRatioSlack) {
            return fail(api::Error::corruption("shard expands more than " +
                                               std::to_string(m_limits.maxCompressionRatio) +
                                               " times its size (archive_max_compression_ratio)"));
        }
        MemberInfo info;
        info.name = std::string(name);
        info.size = size;
        info.mtime = archive_entry_mtime(e);
        info.dataOffset = dataOffset;
        info.endOffset = dataOffset + padded;
        m_current = info;
        m_dataRead = false;
        return std::optional<MemberInfo>(std::move(info));
    }
}

api::Status ArchiveReader::readData(const DataSink& sink)
{
    if (m_failed || !m_current) return api::Error::internal("no current shard member to read");
    if (m_dataRead) return api::Error::internal("shard member data read twice");
    m_dataRead = true;
    const bool compressed = m_format != ArchiveFormat::Tar;
    std::uint64_t produced = 0;
    for (;;) {
        const void* buf = nullptr;
        std::size_t n = 0;
        la_int64_t offset = 0;
        const int rc = archive_read_data_block(m_archive, &buf, &n, &offset);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) {
            m_failed = true;
            return damaged("cannot read member \"" + m_current->name + "\"");
        }
        if (static_cast<std::uint64_t>(offset) != produced) {
            m_failed = true;
            return api::Error::corruption("shard member \"" + m_current->name + "\" is sparse (not supported)");
        }
        produced += n;
        m_producedTotal += n;
        if (produced > m_current->size || produced > m_limits.maxMemberSize) {
            m_failed = true;
            return api::Error::corruption("shard member \"" + m_current->name + "\" holds more than its declared " +
                                          std::to_string(m_current->size) + " bytes");
        }
        if (compressed && m_producedTotal > m_limits.maxCompressionRatio * m_src->size + kRatioSlack) {
            m_failed = true;
            return api::Error::corruption("shard expands more than " + std::to_string(m_limits.maxCompressionRatio) +
                                          " times its size (archive_max_compression_ratio)");
        }
        if (n > 0) {
            if (auto st = sink(static_cast<const char*>(buf), n); !st) return st;
        }
    }
    if (produced != m_current->size) {
        m_failed = true;
        return api::Error::corruption("shard member \"" + m_current->name + "\" is truncated: " +
                                      std::to_string(produced) + " of " + std::to_string(m_current->size) + " bytes");
    }
    return {};
}

api::Result<std::string> ArchiveReader::readAll()
{
    std::string out;
    if (m_current) out.reserve(static_cast<std::size_t>(m_current->size));
    auto st = readData([&out](const char* p, std::size_t n) {
        out.append(p, n);
        return api::Status();
    });
    if (!st) return st.error();
    return out;
}

}  // namespace tessera::archive
