#include "multipart_store.h"

#include "object_store.h"
#include "store_files.h"

#include "api/json_util.h"
#include "common/fd_io.h"
#include "common/log.h"
#include "meta/node_identity.h"
#include "s3/md5_stream.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace tessera::daemon::target {

namespace fs = std::filesystem;
using namespace store_detail;

namespace {

constexpr const char* kRecord = "upload.json";
constexpr std::size_t kMaxRecordBytes = 64 * 1024;

std::string partFile(std::uint32_t n)
{
    char name[16];
    std::snprintf(name, sizeof name, "part-%05u", n);
    return name;
}

api::Error noSuchUpload()
{
    return api::Error::notFound(
        "NoSuchUpload: The specified upload does not exist. The upload ID may be invalid, or the upload may have been "
        "aborted or completed.");
}

std::string newUploadId()
{
    unsigned char raw[16];
    if (RAND_bytes(raw, sizeof raw) != 1) throw std::runtime_error("RAND_bytes failed");
    return s3::Md5Stream::toHex(std::string(reinterpret_cast<const char*>(raw), sizeof raw));
}

// The part recorded in the xattr of `fd`; nullopt when it has none (not a part).
std::optional<api::MultipartPart> readPart(int fd)
{
    char buf[1024];
    const auto n = ::fgetxattr(fd, kPartXattr, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    auto p = api::parseMessage<api::MultipartPart>(std::string_view(buf, static_cast<std::size_t>(n)), "part");
    if (!p) return std::nullopt;
    return std::move(*p);
}

}  // namespace

MultipartStore::MultipartStore(const ObjectStore& store) : m_store(store)
{
    for (std::size_t mp = 0; mp < m_store.options().mountpaths.size(); ++mp) {
        std::error_code ec;
        fs::create_directories(root(mp), ec);
        if (ec) logWarn("cannot prepare ", root(mp), ": ", ec.message());
    }
}

std::string MultipartStore::root(std::size_t mp) const { return m_store.options().mountpaths[mp] + "/.tessera/s3mp"; }

std::size_t MultipartStore::mountpathOf(const std::string& bucket, const std::string& key) const
{
    return m_store.mountpathFor(bucket, key);
}

std::string MultipartStore::dirOf(const std::string& bucket, const std::string& key, const std::string& id) const
{
    return root(mountpathOf(bucket, key)) + "/" + id;
}

api::Result<api::MultipartUpload> MultipartStore::readRecord(const std::string& dir) const
{
    UniqueFd fd(::open((dir + "/" + kRecord).c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return noSuchUpload();
    std::string text(kMaxRecordBytes, '\0');
    const auto n = ::read(fd.get(), text.data(), text.size());
    if (n <= 0) return noSuchUpload();
    text.resize(static_cast<std::size_t>(n));
    auto rec = api::parseMessage<api::MultipartUpload>(text, "upload record");
    if (!rec) return noSuchUpload();
    return rec;
}

std::size_t MultipartStore::sweep() const
{
    const auto now = nowNs();
    const auto maxAgeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(kMaxAge).count();
    std::size_t removed = 0;
    for (std::size_t mp = 0; mp < m_store.options().mountpaths.size(); ++mp) {
        if (!m_store.checkMountpath(mp)) continue;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(root(mp), ec)) {
            const auto dir = e.path().string();
            auto rec = readRecord(dir);
            // A record never written (a crash in create) or one too old.
            bool expired = !rec;
            if (!expired) expired = now - rec->initiatedNs > maxAgeNs;
            if (expired) {
                if (removeDir(mp, dir)) ++removed;
                continue;
            }
            std::error_code pec;
            for (const auto& f : fs::directory_iterator(dir, pec)) {
                if (f.path().filename().string().find(".w-") != std::string::npos) fs::remove(f.path(), pec);
            }
        }
    }
    return removed;
}

api::Result<api::MultipartUpload> MultipartStore::create(const std::string& bucket, const std::string& key,
                                                         std::map<std::string, std::string> custom) const
{
    const auto mp = mountpathOf(bucket, key);
    if (auto st = m_store.checkMountpath(mp); !st) return st.error();
    // Expired uploads go at most once a minute (a sweep reads every record).
    const auto now = nowNs();
    auto last = m_lastSweepNs.load();
    if (now - last > kSweepIntervalNs && m_lastSweepNs.compare_exchange_strong(last, now)) {
        if (const auto swept = sweep(); swept > 0) logInfo("S3 multipart: removed ", swept, " expired upload(s)");
    }
    std::size_t inProgress = 0;
    for (std::size_t i = 0; i < m_store.options().mountpaths.size(); ++i) {
        std::error_code ec;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(root(i), ec)) ++inProgress;
    }
    if (inProgress >= kMaxUploads) {
        return api::Error{api::ErrorKind::TooManyRequests,
                          "SlowDown: this target keeps " + std::to_string(kMaxUploads) +
                              " multipart uploads in progress already; complete or abort some",
                          {}};
    }
    api::MultipartUpload up;
    up.bucket = bucket;
    up.key = key;
    up.uploadId = newUploadId();
    up.initiatedNs = nowNs();
    up.custom = std::move(custom);
    const auto dir = root(mp) + "/" + up.uploadId;
    if (::mkdir(dir.c_str(), 0755) != 0) return m_store.mountpathError(mp, errno, "cannot create the upload");
    // The record through a work name: a crash leaves no half record (and the
    // directory without one is swept).
    const auto work = dir + "/" + kRecord + ".w-" + meta::randomId(8);
    const std::string text = api::dumpJson(nlohmann::json(up));
    {
        UniqueFd fd(::open(work.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
        if (!fd.valid()) return m_store.mountpathError(mp, errno, "cannot write the upload's record");
        if (const int e = writeAll(fd.get(), text.data(), text.size()); e != 0) {
            return m_store.mountpathError(mp, e, "cannot write the upload's record");
        }
        if (m_store.options().fsync && ::fsync(fd.get()) != 0) {
            return m_store.mountpathError(mp, errno, "cannot make the upload's record durable");
        }
    }
    if (::rename(work.c_str(), (dir + "/" + kRecord).c_str()) != 0) {
        return m_store.mountpathError(mp, errno, "cannot store the upload's record");
    }
    if (m_store.options().fsync) {
        if (auto st = fsyncDir(dir); !st) return m_store.durabilityError(mp, st.error(), true);
        if (auto st = fsyncDir(root(mp)); !st) return m_store.durabilityError(mp, st.error(), true);
    }
    return up;
}

api::Result<api::MultipartUpload> MultipartStore::find(const std::string& bucket, const std::string& key,
                                                       const std::string& id) const
{
    if (!api::validMultipartId(id)) return noSuchUpload();
    const auto mp = mountpathOf(bucket, key);
    if (auto st = m_store.checkMountpath(mp); !st) return st.error();
    auto rec = readRecord(dirOf(bucket, key, id));
    if (!rec) return rec.error();
    if (rec->bucket != bucket || rec->key != key || rec->uploadId != id) return noSuchUpload();
    return rec;
}

api::Result<std::unique_ptr<MultipartPartWriter>> MultipartStore::beginPart(const api::MultipartUpload& upload,
                                                                            std::uint32_t number,
                                                                            std::optional<std::uint64_t> length) const
{
    if (number < 1 || number > api::kMultipartMaxParts) {
        return api::Error::badRequest("InvalidArgument: partNumber must be 1..10000");
    }
    const auto dir = dirOf(upload.bucket, upload.key, upload.uploadId);
    const auto final = dir + "/" + partFile(number);
    return MultipartPartWriter::create(m_store, mountpathOf(upload.bucket, upload.key),
                                       final + ".w-" + meta::randomId(8), final, number, length);
}

api::Result<std::vector<api::MultipartPart>> MultipartStore::parts(const api::MultipartUpload& upload) const
{
    const auto dir = dirOf(upload.bucket, upload.key, upload.uploadId);
    std::vector<api::MultipartPart> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const auto name = e.path().filename().string();
        if (name.size() != 10 || name.rfind("part-", 0) != 0) continue;
        UniqueFd fd(::open(e.path().c_str(), O_RDONLY | O_CLOEXEC));
        if (!fd.valid()) continue;  // replaced or removed meanwhile
        if (auto p = readPart(fd.get())) out.push_back(std::move(*p));
    }
    if (ec) return noSuchUpload();
    std::sort(out.begin(), out.end(),
              [](const api::MultipartPart& a, const api::MultipartPart& b) { return a.number < b.number; });
    return out;
}

api::Status MultipartStore::removeDir(std::size_t mp, const std::string& dir) const
{
    // Renamed away first, so the upload is gone at once for every caller.
    const auto trash = m_store.options().mountpaths[mp] + "/.tessera/trash/s3mp-" + meta::randomId(12);
    if (::rename(dir.c_str(), trash.c_str()) != 0) {
        if (errno == ENOENT) return noSuchUpload();
        return m_store.mountpathError(mp, errno, "cannot remove the upload");
    }
    if (m_store.options().fsync) (void)fsyncDir(root(mp));
    std::error_code ec;
    fs::remove_all(trash, ec);
    if (ec) logWarn("S3 multipart: ", trash, " stays until the next start: ", ec.message());
    return {};
}

api::Status MultipartStore::remove(const api::MultipartUpload& upload) const
{
    return removeDir(mountpathOf(upload.bucket, upload.key), dirOf(upload.bucket, upload.key, upload.uploadId));
}

api::Result<std::vector<api::MultipartUpload>> MultipartStore::list(const std::string& bucket,
                                                                    const std::string& prefix) const
{
    std::vector<api::MultipartUpload> out;
    for (std::size_t mp = 0; mp < m_store.options().mountpaths.size(); ++mp) {
        if (auto st = m_store.checkMountpath(mp); !st) return st.error();
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(root(mp), ec)) {
            auto rec = readRecord(e.path().string());
            if (!rec || rec->bucket != bucket || rec->key.compare(0, prefix.size(), prefix) != 0) continue;
            out.push_back(std::move(*rec));
        }
    }
    std::sort(out.begin(), out.end(), [](const api::MultipartUpload& a, const api::MultipartUpload& b) {
        return a.key != b.key ? a.key < b.key : a.initiatedNs < b.initiatedNs;
    });
    return out;
}

void MultipartStore::removeBucket(const std::string& bucket) const
{
    auto all = list(bucket, "");
    if (!all) return;
    for (const auto& up : *all) {
        if (auto st = remove(up); !st) logWarn("S3 multipart: upload ", up.uploadId, " stays: ", st.error().message);
    }
}

api::Result<MultipartStore::Assembly> MultipartStore::assemble(const api::MultipartUpload& upload,
                                                               const api::MultipartComplete& wanted) const
{
    const auto unquote = [](const std::string& s) {
        return s.size() >= 2 && s.front() == '"' && s.back() == '"' ? s.substr(1, s.size() - 2) : s;
    };
    std::uint32_t previous = 0;
    for (const auto& p : wanted.parts) {
        if (p.number <= previous) {
            return api::Error::badRequest("InvalidPartOrder: The list of parts was not in ascending order.");
        }
        previous = p.number;
    }
    const auto dir = dirOf(upload.bucket, upload.key, upload.uploadId);
    const auto mp = mountpathOf(upload.bucket, upload.key);
    Assembly out;
    s3::Md5Stream etags;
    for (std::size_t i = 0; i < wanted.parts.size(); ++i) {
        const auto& w = wanted.parts[i];
        UniqueFd fd(::open((dir + "/" + partFile(w.number)).c_str(), O_RDONLY | O_CLOEXEC));
        if (!fd.valid() && errno != ENOENT) return m_store.mountpathError(mp, errno, "cannot open a part");
        const auto stored = fd.valid() ? readPart(fd.get()) : std::nullopt;
        if (!stored || stored->etag != unquote(w.etag)) {
            return api::Error::badRequest(
                "InvalidPart: One or more of the specified parts could not be found or its ETag did not match.");
        }
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) != stored->size) {
            return api::Error::corruption("part " + std::to_string(w.number) + " of upload " + upload.uploadId +
                                          " is not the size it was stored with");
        }
        if (i + 1 < wanted.parts.size() && stored->size < api::kMultipartMinPartSize) {
            return api::Error::badRequest("EntityTooSmall: a part other than the last is smaller than 5 MiB");
        }
        std::string raw;
        for (std::size_t k = 0; k < 32; k += 2)
            raw.push_back(static_cast<char>(std::stoi(stored->etag.substr(k, 2), nullptr, 16)));
        etags.update(raw.data(), raw.size());
        out.total += stored->size;
        out.sizes.push_back(stored->size);
        out.parts.push_back(std::move(fd));
    }
    out.etag = etags.hex() + "-" + std::to_string(wanted.parts.size());
    return out;
}

}  // namespace tessera::daemon::target
