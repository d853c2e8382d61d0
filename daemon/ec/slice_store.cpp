#include "slice_store.h"

#include "common/fd_io.h"
#include "target/store_files.h"

#include "api/json_util.h"

#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace tessera::daemon::ec {

using namespace target::store_detail;

namespace {

constexpr std::size_t kMaxSliceMetaBytes = 64 * 1024;

// The slice metadata of an open slice file; nullopt when it has none (a
// file whose write never finished cannot be here: the rename comes last).
api::Result<SliceMeta> readSliceMeta(int fd)
{
    std::string buf(kMaxSliceMetaBytes, '\0');
    const ssize_t n = ::fgetxattr(fd, kSliceXattr, buf.data(), buf.size());
    if (n < 0) return api::Error::corruption("the slice has no readable metadata: " + errnoText(errno));
    buf.resize(static_cast<std::size_t>(n));
    return parseSliceMeta(buf);
}

}  // namespace

SliceWriter::~SliceWriter()
{
    if (!m_committed && !m_workPath.empty()) {
        m_fd.reset();
        ::unlink(m_workPath.c_str());
    }
}

api::Status SliceWriter::write(const char* data, std::size_t size)
{
    if (m_size + size > m_meta.sliceSize) {
        return api::Error{api::ErrorKind::TooLarge,
                          "slice longer than its announced " + std::to_string(m_meta.sliceSize) + " bytes",
                          {}};
    }
    if (const int err = writeAll(m_fd.get(), data, size); err != 0) {
        return m_slices->objects().mountpathError(m_mp, err, "cannot write a slice");
    }
    m_hash.update(data, size);
    m_size += size;
    return {};
}

api::Status SliceWriter::commit()
{
    const auto& store = m_slices->objects();
    if (m_size != m_meta.sliceSize || m_hash.hex() != m_meta.sliceChecksum) {
        return api::Error::corruption("slice " + std::to_string(m_meta.index) + " of \"" + m_bucket + "/" + m_name +
                                      "\" arrived damaged: " + std::to_string(m_size) + " bytes hashing to " +
                                      m_hash.hex() + ", announced " + std::to_string(m_meta.sliceSize) +
                                      " bytes hashing to " + m_meta.sliceChecksum);
    }
    if (store.options().fsync && ::fdatasync(m_fd.get()) != 0) {
        return store.mountpathError(m_mp, errno, "slice fsync failed");
    }
    const std::string json = api::dumpJson(nlohmann::json(m_meta));
    const auto stamp = m_meta.object.stamp;
    {
        auto lock = store.lockName(m_bucket, m_name);
        if (auto tomb = store.tombstone(m_bucket, m_name); tomb && *tomb >= stamp) {
            m_superseded = true;
            return {};
        }
        UniqueFd old(::open(m_finalPath.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        if (old.valid()) {
            // An unreadable slice here is replaced.
            if (auto prev = readSliceMeta(old.get()); prev) {
                const bool newer = prev->object.stamp > stamp;
                const bool same = prev->object.stamp == stamp && prev->index == m_meta.index &&
                                  prev->data == m_meta.data && prev->parity == m_meta.parity;
                if (newer || same) {
                    m_superseded = true;
                    return {};
                }
            }
        }
        store.observeStamp(stamp);
        if (::fsetxattr(m_fd.get(), kSliceXattr, json.data(), json.size(), 0) != 0) {
            return store.mountpathError(m_mp, errno, "cannot write slice metadata");
        }
        const auto root = m_slices->root(m_mp, m_bucket);
        if (const int e = makeDirsUnder(store.options().mountpaths[m_mp], root)) {
            return store.mountpathError(m_mp, e, "cannot create the slice directory");
        }
        // The parents may be pruned by the removal of another name's slice
        // (not under this name's lock): a few tries.
        for (int attempt = 0;; ++attempt) {
            if (auto st = makeParents(root, m_finalPath); !st) return st;
            if (::rename(m_workPath.c_str(), m_finalPath.c_str()) == 0) break;
            const int e = errno;
            if (e == ENOENT && attempt < 5) continue;
            if (e == EISDIR || e == ENOTEMPTY || e == EEXIST || e == ENOTDIR) {
                return api::Error::conflict("slice name conflicts with an existing directory of slices");
            }
            return store.mountpathError(m_mp, e, "cannot rename the slice into place");
        }
        m_committed = true;
    }
    if (store.options().fsync) {
        if (auto st = fsyncDir(m_finalPath.substr(0, m_finalPath.rfind('/'))); !st) return st;
    }
    // A whole copy of an older small version here stays until every slice
    // of this one is kept (EcProtector drops it then): until that, it may
    // be what the version this one replaces is read from.
    return {};
}

std::string SliceStore::root(std::size_t mp, std::string_view bucket) const
{
    return m_store.options().mountpaths[mp] + "/.tessera/ec/" + std::string(bucket);
}

std::string SliceStore::slicePath(std::string_view bucket, std::string_view name) const
{
    return root(m_store.mountpathFor(bucket, name), bucket) + "/" + std::string(name);
}

api::Result<std::unique_ptr<SliceWriter>> SliceStore::beginPut(std::string_view bucket, std::string_view name,
                                                               SliceMeta meta) const
{
    if (auto st = validate(meta); !st) return st.error();
    const auto mp = m_store.mountpathFor(bucket, name);
    if (auto st = m_store.checkMountpath(mp); !st) return st.error();
    std::unique_ptr<SliceWriter> w(new SliceWriter());
    w->m_slices = this;
    w->m_meta = std::move(meta);
    w->m_bucket = std::string(bucket);
    w->m_name = std::string(name);
    w->m_mp = mp;
    w->m_finalPath = slicePath(bucket, name);
    w->m_workPath = m_store.newWorkPath(mp);
    w->m_fd.reset(::open(w->m_workPath.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
    if (!w->m_fd.valid()) {
        const int e = errno;
        w->m_workPath.clear();
        return m_store.mountpathError(mp, e, "cannot create a slice work file");
    }
    return w;
}

api::Result<SliceStore::Page> SliceStore::list(std::string_view bucket, std::string_view prefix, std::string_view after,
                                               std::size_t limit,
                                               const std::function<bool(const std::string& name)>& wanted) const
{
    namespace fs = std::filesystem;
    std::set<std::string> names;  // the smallest `limit` names taken so far
    for (std::size_t mp = 0; mp < m_store.options().mountpaths.size(); ++mp) {
        if (auto st = m_store.checkMountpath(mp); !st) return st.error();
        const fs::path top(root(mp, bucket));
        std::error_code ec;
        fs::recursive_directory_iterator it(top, fs::directory_options::skip_permission_denied, ec);
        if (ec) {
            if (ec == std::errc::no_such_file_or_directory) continue;
            return m_store.mountpathError(mp, ec.value(), "cannot list the slices of " + std::string(bucket));
        }
        for (fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
            if (ec) return m_store.mountpathError(mp, ec.value(), "cannot list the slices of " + std::string(bucket));
            std::error_code fec;
            if (!it->is_regular_file(fec)) {
                // A directory no name below which can have the prefix: skipped.
                if (!fec && it->is_directory(fec)) {
                    const auto dir = it->path().lexically_relative(top).generic_string() + "/";
                    if (!dir.starts_with(prefix) && !std::string_view(prefix).starts_with(dir)) {
                        it.disable_recursion_pending();
                    }
                }
                continue;
            }
            auto name = it->path().lexically_relative(top).generic_string();
            if (!name.starts_with(prefix) || name <= after) continue;
            if (names.size() >= limit && name >= *names.rbegin()) continue;
            if (!wanted(name)) continue;
            names.insert(std::move(name));
            if (names.size() > limit) names.erase(std::prev(names.end()));
        }
    }
    Page out;
    if (limit > 0 && names.size() >= limit) out.last = *names.rbegin();
    out.slices.reserve(names.size());
    for (const auto& name : names) {
        auto s = open(bucket, name);
        if (!s) {
            if (s.kind() == api::ErrorKind::Unavailable) return s.error();
            continue;  // removed, replaced by a damaged one, or on another mountpath than its name's
        }
        out.slices.push_back({name, std::move(s->meta)});
    }
    return out;
}

api::Result<OpenSlice> SliceStore::open(std::string_view bucket, std::string_view name) const
{
    const auto mp = m_store.mountpathFor(bucket, name);
    if (auto st = m_store.checkMountpath(mp); !st) return st.error();
    const auto path = slicePath(bucket, name);
    auto fd = std::make_shared<UniqueFd>(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd->valid()) {
        const int e = errno;
        if (e == ENOENT || e == ENOTDIR || e == ELOOP || e == EISDIR) {
            return api::Error::notFound("no slice of \"" + std::string(bucket) + "/" + std::string(name) + "\" here");
        }
        return m_store.mountpathError(mp, e, "cannot open a slice");
    }
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return api::Error::notFound("no slice of \"" + std::string(bucket) + "/" + std::string(name) + "\" here");
    }
    auto meta = readSliceMeta(fd->get());
    if (!meta) return meta.error();
    if (static_cast<std::uint64_t>(st.st_size) != meta->sliceSize) {
        return api::Error::corruption("slice of \"" + std::string(bucket) + "/" + std::string(name) + "\" has " +
                                      std::to_string(st.st_size) + " bytes, its metadata says " +
                                      std::to_string(meta->sliceSize));
    }
    return OpenSlice{std::move(fd), std::move(meta.value())};
}

api::Status SliceStore::verify(const OpenSlice& slice) const
{
    api::Xxh64Stream h;
    auto st = copyRange(
        slice.fd->get(), 0, slice.meta.sliceSize,
        [&h](const char* p, std::size_t n) {
            h.update(p, n);
            return api::Status{};
        },
        "cannot read a slice");
    if (!st) return st;
    if (h.hex() != slice.meta.sliceChecksum) {
        return api::Error::corruption("slice " + std::to_string(slice.meta.index) + " is damaged: stored checksum " +
                                      slice.meta.sliceChecksum + ", its bytes hash to " + h.hex());
    }
    return {};
}

api::Status SliceStore::removeIf(std::string_view bucket, std::string_view name,
                                 const std::function<api::Result<bool>(const SliceMeta&)>& drop) const
{
    const auto mp = m_store.mountpathFor(bucket, name);
    if (auto st = m_store.checkMountpath(mp); !st) return st;
    const auto path = slicePath(bucket, name);
    {
        auto lock = m_store.lockName(bucket, name);
        UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        if (!fd.valid()) return {};  // none here
        auto meta = readSliceMeta(fd.get());
        if (meta) {
            auto yes = drop(*meta);
            if (!yes) return yes.error();
            if (!*yes) return {};
        }
        // An unreadable slice is no use to anyone: it goes too.
        if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
            return m_store.mountpathError(mp, errno, "cannot remove a slice");
        }
    }
    const auto r = root(mp, bucket);
    pruneEmptyParents(r, path);
    if (!m_store.options().fsync) return {};
    std::string dir = path.substr(0, path.rfind('/'));
    while (dir.size() > r.size() && ::access(dir.c_str(), F_OK) != 0) dir.resize(dir.rfind('/'));
    return ::access(dir.c_str(), F_OK) == 0 ? fsyncDir(dir) : api::Status{};
}

api::Status SliceStore::remove(std::string_view bucket, std::string_view name, std::int64_t stamp) const
{
    return removeIf(bucket, name, [&](const SliceMeta& m) -> api::Result<bool> {
        if (m.object.stamp > stamp) {
            return api::Error::conflict("the slice of \"" + std::string(bucket) + "/" + std::string(name) +
                                        "\" here is newer than the deletion");
        }
        return true;
    });
}

api::Status SliceStore::removeOlder(std::string_view bucket, std::string_view name, std::int64_t stamp) const
{
    return removeIf(bucket, name, [&](const SliceMeta& m) -> api::Result<bool> { return m.object.stamp < stamp; });
}

}  // namespace tessera::daemon::ec
