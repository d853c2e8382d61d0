#include "archive_writer.h"

#include "member_name.h"
#include "tar_stream.h"

#include <archive.h>
#include <archive_entry.h>
#include <cerrno>

namespace tessera::archive {

struct ArchiveWriter::State {
    std::unique_ptr<TarStream> tar;  // a plain .tar: written directly, no libarchive
    DataSink sink;
    api::Status sinkError;
    std::uint64_t out = 0;
    std::uint64_t remaining = 0;
    std::uint64_t declared = 0;  // the current member's size
    std::string member;
    bool inMember = false;
    bool finished = false;
    bool failed = false;
};

namespace {

la_ssize_t writeCb(::archive* a, void* client, const void* buf, std::size_t n)
{
    auto* s = static_cast<ArchiveWriter::State*>(client);
    auto st = s->sink(static_cast<const char*>(buf), n);
    if (!st) {
        s->sinkError = st;
        archive_set_error(a, EIO, "%s", st.error().message.c_str());
        return -1;
    }
    s->out += n;
    return static_cast<la_ssize_t>(n);
}

}  // namespace

ArchiveWriter::~ArchiveWriter()
{
    if (m_archive != nullptr) {
        // Not finished: free without writing the end (the output is to be
        // discarded). archive_write_free would close, i.e. finish it.
        if (!m_state->finished) archive_write_fail(m_archive);
        archive_write_free(m_archive);
    }
}

api::Result<std::unique_ptr<ArchiveWriter>> ArchiveWriter::create(ArchiveFormat format, DataSink sink)
{
    std::unique_ptr<ArchiveWriter> w(new ArchiveWriter());
    w->m_state = std::make_unique<State>();
    if (format == ArchiveFormat::Tar) {
        w->m_state->tar = std::make_unique<TarStream>(std::move(sink));
        return w;
    }
    w->m_state->sink = std::move(sink);
    w->m_archive = archive_write_new();
    if (w->m_archive == nullptr) return api::Error::internal("libarchive: out of memory");
    auto* a = w->m_archive;
    int rc = ARCHIVE_OK;
    switch (format) {
    case ArchiveFormat::Tar: rc = archive_write_set_format_pax_restricted(a); break;
    case ArchiveFormat::TarGz:
        rc = archive_write_set_format_pax_restricted(a);
        if (rc == ARCHIVE_OK) rc = archive_write_add_filter_gzip(a);
        break;
    case ArchiveFormat::TarLz4:
        rc = archive_write_set_format_pax_restricted(a);
        if (rc == ARCHIVE_OK) rc = archive_write_add_filter_lz4(a);
        break;
    case ArchiveFormat::Zip: rc = archive_write_set_format_zip(a); break;
    }
    if (rc != ARCHIVE_OK) {
        return api::Error::internal(std::string("libarchive cannot write ") + std::string(formatName(format)) + ": " +
                                    (archive_error_string(a) ? archive_error_string(a) : ""));
    }
    // Whole blocks for the sink, but no padding after the end marker: a
    // shard's size is its content's, and a .tar can be appended to at its end.
    archive_write_set_bytes_per_block(a, 64 * 1024);
    archive_write_set_bytes_in_last_block(a, 1);
    if (archive_write_open(a, w->m_state.get(), nullptr, writeCb, nullptr) != ARCHIVE_OK) {
        return api::Error::internal(std::string("libarchive: cannot start the shard: ") +
                                    (archive_error_string(a) ? archive_error_string(a) : ""));
    }
    return w;
}

api::Status ArchiveWriter::fail(const api::Status& st)
{
    m_state->failed = true;
    return st;
}

api::Status ArchiveWriter::failed(const std::string& what)
{
    m_state->failed = true;
    if (!m_state->sinkError.ok()) return m_state->sinkError;
    const char* detail = m_archive != nullptr ? archive_error_string(m_archive) : nullptr;
    return api::Error::ioError("writing the shard failed: " + what, detail ? detail : "");
}

api::Status ArchiveWriter::begin(std::string_view name, std::uint64_t size, std::int64_t mtime)
{
    if (m_state->failed || m_state->finished) return api::Error::internal("shard writer used after its end");
    if (m_state->inMember) {
        if (auto st = endMember(); !st) return st;
    }
    if (auto st = validateMemberName(name); !st) return st;
    if (m_state->tar) {
        if (auto st = m_state->tar->header(name, size, mtime); !st) return fail(st);
        m_state->inMember = true;
        m_state->remaining = size;
        m_state->declared = size;
        m_state->member = std::string(name);
        return {};
    }
    struct archive_entry* e = archive_entry_new();
    if (e == nullptr) return api::Error::internal("libarchive: out of memory");
    const std::string n(name);
    // The name's bytes as they are (UTF-8 by validateMemberName). Under a
    // UTF-8 LC_CTYPE pax records them as a UTF-8 path; under "C" libarchive
    // warns and marks the header's charset BINARY, which readers take as
    // the same bytes. (Setting the UTF-8 form directly crashes libarchive
    // 3.6's pax writer under "C".)
    archive_entry_copy_pathname(e, n.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(size));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_mtime(e, mtime, 0);
    const int rc = archive_write_header(m_archive, e);
    archive_entry_free(e);
    if (rc < ARCHIVE_WARN) return failed("header of \"" + n + "\"");
    m_state->inMember = true;
    m_state->remaining = size;
    m_state->member = n;
    return {};
}

api::Status ArchiveWriter::write(const char* data, std::size_t size)
{
    if (m_state->failed || !m_state->inMember) return api::Error::internal("shard writer: no member started");
    if (size > m_state->remaining) {
        m_state->failed = true;
        return api::Error::internal("shard member \"" + m_state->member + "\" got more bytes than declared");
    }
    if (m_state->tar) {
        if (auto st = m_state->tar->data(data, size); !st) return fail(st);
        m_state->remaining -= size;
        return {};
    }
    while (size > 0) {
        const auto n = archive_write_data(m_archive, data, size);
        if (n <= 0) return failed("data of \"" + m_state->member + "\"");
        data += n;
        size -= static_cast<std::size_t>(n);
        m_state->remaining -= static_cast<std::uint64_t>(n);
    }
    return {};
}

api::Status ArchiveWriter::add(std::string_view name, std::string_view data, std::int64_t mtime)
{
    if (auto st = begin(name, data.size(), mtime); !st) return st;
    if (auto st = write(data.data(), data.size()); !st) return st;
    return endMember();
}

api::Status ArchiveWriter::endMember()
{
    if (!m_state->inMember) return {};
    m_state->inMember = false;
    if (m_state->remaining != 0) {
        m_state->failed = true;
        return api::Error::internal("shard member \"" + m_state->member + "\" is " +
                                    std::to_string(m_state->remaining) + " bytes short of its declared size");
    }
    if (m_state->tar) {
        // The member's size is what begin() declared (remaining is 0).
        if (auto st = m_state->tar->endMember(m_state->declared); !st) return fail(st);
        return {};
    }
    if (archive_write_finish_entry(m_archive) < ARCHIVE_WARN) return failed("end of \"" + m_state->member + "\"");
    return {};
}

api::Status ArchiveWriter::finish()
{
    if (m_state->failed) return api::Error::internal("shard writer failed earlier");
    if (m_state->finished) return {};
    if (auto st = endMember(); !st) return st;
    if (m_state->tar) {
        if (auto st = m_state->tar->finish(); !st) return fail(st);
    } else if (archive_write_close(m_archive) != ARCHIVE_OK) {
        return failed("end of the shard");
    }
    m_state->finished = true;
    return {};
}

std::uint64_t ArchiveWriter::bytesOut() const { return m_state->tar ? m_state->tar->bytesOut() : m_state->out; }

std::uint64_t tarMemberBytes(std::string_view name, std::uint64_t size)
{
    std::uint64_t bytes = 512 + (size + 511) / 512 * 512;
    bool ascii = true;
    for (unsigned char c : name) ascii &= c < 0x80;
    // pax adds an extended header (a header block and its records) for long
    // or non-ASCII names and for sizes beyond ustar's 8 GiB; an upper bound
    // keeps shard size limits honest.
    if (name.size() > 100 || !ascii || size >= (std::uint64_t{1} << 33)) {
        bytes += 512 + (name.size() + 128 + 511) / 512 * 512;
    }
    return bytes;
}

}  // namespace tessera::archive
