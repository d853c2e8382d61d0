#include "multipart_part_writer.h"

#include "object_store.h"
#include "store_files.h"

#include "api/json_util.h"
#include "common/fd_io.h"

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/xattr.h>
#include <unistd.h>

namespace tessera::daemon::target {

using namespace store_detail;

api::Result<std::unique_ptr<MultipartPartWriter>> MultipartPartWriter::create(
    const ObjectStore& store, std::size_t mountpath, std::string workPath, std::string finalPath, std::uint32_t number,
    std::optional<std::uint64_t> length)
{
    if (length.value_or(0) > api::kMultipartMaxPartSize) {
        return api::Error{api::ErrorKind::TooLarge, "EntityTooLarge: a part may be at most 5 GiB", {}};
    }
    std::unique_ptr<MultipartPartWriter> w(new MultipartPartWriter());
    w->m_store = &store;
    w->m_mp = mountpath;
    w->m_finalPath = std::move(finalPath);
    w->m_number = number;
    w->m_length = length.value_or(api::kMultipartMaxPartSize);
    w->m_exact = length.has_value();
    w->m_fd.reset(::open(workPath.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
    if (!w->m_fd.valid()) return store.mountpathError(mountpath, errno, "cannot create the part's work file");
    w->m_workPath = std::move(workPath);
    return w;
}

MultipartPartWriter::~MultipartPartWriter()
{
    if (!m_committed && !m_workPath.empty()) {
        m_fd.reset();
        ::unlink(m_workPath.c_str());
    }
}

api::Status MultipartPartWriter::write(const char* data, std::size_t size)
{
    if (m_written + size > m_length) {
        return api::Error{
            api::ErrorKind::TooLarge,
            m_exact ? "the part is longer than its Content-Length" : "EntityTooLarge: a part may be at most 5 GiB",
            {}};
    }
    if (const int e = writeAll(m_fd.get(), data, size); e != 0) {
        return m_store->mountpathError(m_mp, e, "cannot write the part");
    }
    m_md5.update(data, size);
    m_written += size;
    return {};
}

api::Result<api::MultipartPart> MultipartPartWriter::commit()
{
    if (m_exact && m_written != m_length) {
        return api::Error::badRequest("IncompleteBody: the part ended after " + std::to_string(m_written) + " of " +
                                      std::to_string(m_length) + " bytes");
    }
    api::MultipartPart part;
    part.number = m_number;
    part.etag = m_md5.hex();
    part.size = m_written;
    part.mtimeNs = nowNs();
    const std::string json = api::dumpJson(nlohmann::json(part));
    if (::fsetxattr(m_fd.get(), kPartXattr, json.data(), json.size(), 0) != 0) {
        return m_store->mountpathError(m_mp, errno, "cannot record the part");
    }
    if (m_store->options().fsync && ::fsync(m_fd.get()) != 0) {
        return m_store->mountpathError(m_mp, errno, "cannot make the part durable");
    }
    if (::rename(m_workPath.c_str(), m_finalPath.c_str()) != 0) {
        // The upload was aborted (or completed) meanwhile: its directory is gone.
        if (errno == ENOENT) return api::Error::notFound("NoSuchUpload: the upload ended while the part was written");
        return m_store->mountpathError(m_mp, errno, "cannot store the part");
    }
    m_committed = true;
    if (m_store->options().fsync) {
        if (auto st = fsyncDir(m_finalPath.substr(0, m_finalPath.rfind('/'))); !st) {
            return m_store->durabilityError(m_mp, st.error(), true);
        }
    }
    return part;
}

}  // namespace tessera::daemon::target
