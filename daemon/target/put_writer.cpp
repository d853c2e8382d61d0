// PutWriter: an object's bytes into a work file, committed by rename with
// its metadata (part of ObjectStore; see object_store.h).
#include "meta_record.h"
#include "object_store.h"
#include "store_files.h"

#include "api/checksum.h"
#include "api/hrw.h"
#include "api/json_util.h"
#include "common/fd_io.h"
#include "common/log.h"
#include "meta/node_identity.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <thread>
#include <unistd.h>

namespace tessera::daemon::target {

namespace fs = std::filesystem;
using namespace store_detail;

PutWriter::~PutWriter()
{
    if (!m_committed && !m_workPath.empty()) {
        m_fd.reset();
        ::unlink(m_workPath.c_str());
    }
    if (!m_undoPath.empty()) ::unlink(m_undoPath.c_str());
    for (auto& c : m_copies) {
        if (!c.workPath.empty()) ::unlink(c.workPath.c_str());
    }
}

api::Status PutWriter::writeMountpathCopies()
{
    if (m_copies.empty()) return {};
    // A named work file is open for writing only: read it through its name.
    UniqueFd in(m_unnamed ? -1 : ::open(m_workPath.c_str(), O_RDONLY | O_CLOEXEC));
    if (!m_unnamed && !in.valid()) return m_store->mountpathError(m_mp, errno, "cannot read the object's work file");
    const int src = m_unnamed ? m_fd.get() : in.get();
    for (auto& c : m_copies) {
        if (!c.workPath.empty()) continue;  // written by prepare()
        const auto root = m_store->bucketRoot(c.mp, m_bucket);
        if (const int e = makeDirsUnder(m_store->options().mountpaths[c.mp], root)) {
            return m_store->mountpathError(c.mp, e, "cannot create bucket directory");
        }
        c.workPath = m_store->workPath(c.mp);
        c.fd.reset(::open(c.workPath.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
        if (!c.fd.valid()) {
            const int e = errno;
            c.workPath.clear();
            return m_store->mountpathError(c.mp, e, "cannot create work file");
        }
        auto copied = copyToEnd(
            src, 0,
            [&](const char* p, std::size_t n) -> api::Status {
                if (const int e = writeAll(c.fd.get(), p, n); e != 0) {
                    return m_store->mountpathError(c.mp, e, "write failed");
                }
                return {};
            },
            "cannot read the object's work file");
        if (!copied) return copied;
        if (m_store->options().fsync && ::fdatasync(c.fd.get()) != 0) {
            return m_store->mountpathError(c.mp, errno, "fsync failed");
        }
    }
    return {};
}

api::Status PutWriter::placeMountpathCopies(const std::string& metaRecord)
{
    for (auto& c : m_copies) {
        if (::fsetxattr(c.fd.get(), kMetaXattr, metaRecord.data(), metaRecord.size(), 0) != 0) {
            return m_store->mountpathError(c.mp, errno, "cannot write object metadata");
        }
        const auto root = m_store->bucketRoot(c.mp, m_bucket);
        if (auto st = makeParents(root, c.finalPath); !st) return st;
        if (::rename(c.workPath.c_str(), c.finalPath.c_str()) != 0) {
            const int e = errno;
            if (e == EISDIR || e == ENOTEMPTY || e == EEXIST || e == ENOTDIR) {
                return api::Error::conflict("object name conflicts with an existing directory of objects");
            }
            return m_store->mountpathError(c.mp, e, "rename into place failed");
        }
        c.workPath.clear();
    }
    return {};
}

api::Status PutWriter::rollback()
{
    if (!m_committed) return {};
    {
        std::lock_guard nameLock(m_store->nameLock(m_bucket, m_name));
        UniqueFd now(::open(m_finalPath.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        if (now.valid()) {
            auto meta = readMetaFd(now.get());
            if (!meta || !meta->has_value() || (*meta)->stamp != m_stamp) return {};  // a newer write came after
        } else {
            return {};  // deleted since
        }
        // What is put back gets a fresh stamp: newer than the version taken
        // back, so that a copy of that version a holder may have committed
        // (its answer lost) is older than the owner's state and gets
        // replaced or dropped by the next rebalance or reprotect.
        if (!m_undoPath.empty()) {
            UniqueFd prev(::open(m_undoPath.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
            auto meta =
                prev.valid() ? readMetaFd(prev.get()) : api::Result<std::optional<api::ObjectMeta>>(std::nullopt);
            if (!prev.valid() || !meta || !meta->has_value()) {
                return m_store->mountpathError(m_mp, prev.valid() ? EIO : errno, "cannot read the replaced version");
            }
            auto restored = std::move(**meta);
            restored.stamp = m_store->nextStamp();
            const std::string json = encodeMetaRecord(restored);
            if (::fsetxattr(prev.get(), kMetaXattr, json.data(), json.size(), 0) != 0 ||
                (m_store->options().fsync && ::fsync(prev.get()) != 0)) {
                return m_store->mountpathError(m_mp, errno, "cannot restamp the replaced version");
            }
            if (::rename(m_undoPath.c_str(), m_finalPath.c_str()) != 0) {
                return m_store->mountpathError(m_mp, errno, "cannot restore the replaced version");
            }
            m_undoPath.clear();
        } else if (::unlink(m_finalPath.c_str()) != 0 && errno != ENOENT) {
            return m_store->mountpathError(m_mp, errno, "cannot remove a version that was not acknowledged");
        } else {
            pruneEmptyParents(m_bucketRoot, m_finalPath);
            if (auto ts = m_store->m_tombstones.write(m_mp, m_bucket, m_name, m_store->nextStamp()); !ts) return ts;
        }
        m_committed = false;
    }
    m_store->objectChanged(m_bucket, m_name);
    if (m_store->options().fsync) {
        std::string dir = m_finalPath.substr(0, m_finalPath.rfind('/'));
        while (dir.size() > m_bucketRoot.size() && ::access(dir.c_str(), F_OK) != 0) dir.resize(dir.rfind('/'));
        return fsyncDir(dir);
    }
    return {};
}

api::Status PutWriter::write(const char* data, std::size_t size)
{
    if (m_size + size > m_store->options().maxObjectSize) {
        return api::Error{
            api::ErrorKind::TooLarge,
            "object larger than the limit of " + std::to_string(m_store->options().maxObjectSize) + " bytes",
            {}};
    }
    if (const int err = writeAll(m_fd.get(), data, size); err != 0)
        return m_store->mountpathError(m_mp, err, "write failed");
    m_hash->stream.update(data, size);
    if (m_logged) {
        if (m_size + size <= m_store->options().commitLogMaxObject) {
            m_logRecord.append(data, size);
        } else {
            m_logged = false;
            std::string().swap(m_logRecord);
        }
    }
    if (m_params.s3Etag) {
        if (!m_hash->md5) m_hash->md5.emplace();
        m_hash->md5->update(data, size);
    }
    m_size += size;
    return {};
}

api::Result<api::ObjectMeta> PutWriter::finishBytes(bool sync)
{
    api::ObjectMeta meta;
    meta.size = static_cast<std::int64_t>(m_size);
    meta.checksumValue = m_hash->stream.hex();
    meta.custom = m_params.custom;
    meta.atimeNs = nowNs();
    if (m_params.s3Etag) {
        if (!m_hash->md5) m_hash->md5.emplace();
        meta.custom.try_emplace("s3-etag", m_hash->md5->hex());
        meta.custom["s3-mtime"] = std::to_string(meta.atimeNs / 1000000000);
    }
    if (!m_params.expectedChecksum.empty() && m_params.expectedChecksum != meta.checksumValue) {
        if (m_params.transferStamp > 0) {
            // A copy of a stored version: its bytes no longer match the
            // checksum they were stored with. Never stored under a new one.
            return api::Error::corruption("object \"" + m_bucket + "/" + m_name + "\" is corrupted: stored checksum " +
                                          m_params.expectedChecksum + ", its bytes hash to " + meta.checksumValue);
        }
        return api::Error::badRequest("checksum mismatch: client sent " + m_params.expectedChecksum +
                                      ", received bytes hash to " + meta.checksumValue);
    }
    // The bytes are made durable before the name's lock is taken: the lock
    // only covers deciding the version, the metadata and the rename.
    if (sync && m_store->options().fsync && ::fdatasync(m_fd.get()) != 0) {
        return m_store->mountpathError(m_mp, errno, "fsync failed");
    }
    return meta;
}

void PutWriter::decideVersion(const std::optional<api::ObjectMeta>& prev, api::ObjectMeta& meta) const
{
    // Newer than the version it replaces, even when that one was stamped by
    // a clock ahead of this one (a peer's, or this target's before a restart).
    if (prev) m_store->observeStamp(prev->stamp);
    meta.stamp = m_store->nextStamp();
    meta.version = "1";
    if (prev) {
        try {
            meta.version = std::to_string(std::stoll(prev->version) + 1);
        } catch (const std::exception&) {
            meta.version = "1";
        }
    }
}

bool PutWriter::syncs() const { return m_store->options().fsync; }

api::Result<api::ObjectMeta> PutWriter::prepare()
{
    if (m_prepared) return m_preparedMeta;
    auto meta = finishBytes();
    if (!meta) return meta.error();
    if (auto st = writeMountpathCopies(); !st) return st.error();
    if (m_params.transferStamp > 0) {
        // A peer's copy of an existing version (a rebalance moving it to its
        // owner) keeps that version: the holders are sent it, not a new one,
        // and commit() keeps the newer of it and what is here.
        meta->stamp = m_params.transferStamp;
        meta->version = m_params.transferVersion.empty() ? "1" : m_params.transferVersion;
    } else {
        std::lock_guard nameLock(m_store->nameLock(m_bucket, m_name));
        decideVersion(currentVersion(m_finalPath), *meta);
    }
    const std::string json = encodeMetaRecord(*meta);
    if (::fsetxattr(m_fd.get(), kMetaXattr, json.data(), json.size(), 0) != 0) {
        return m_store->mountpathError(m_mp, errno, "cannot write object metadata");
    }
    m_preparedMeta = *meta;
    m_prepared = true;
    return meta;
}

api::Result<api::ObjectMeta> PutWriter::commit()
{
    if (m_logged && !m_prepared) return commitLogged();
    api::ObjectMeta meta;
    if (m_prepared) {
        meta = m_preparedMeta;
    } else {
        auto bytes = finishBytes();
        if (!bytes) return bytes.error();
        meta = std::move(*bytes);
        if (auto st = writeMountpathCopies(); !st) return st.error();
    }
    {
        std::lock_guard nameLock(m_store->nameLock(m_bucket, m_name));
        const std::optional<api::ObjectMeta> prev = currentVersion(m_finalPath);
        if (m_params.baseStamp && *m_params.baseStamp != (prev ? prev->stamp : 0)) {
            m_baseChanged = true;
            return api::Error::conflict("object \"" + m_bucket + "/" + m_name + "\" changed while being rewritten");
        }
        if (m_params.transferStamp > 0) {
            if (prev &&
                (prev->stamp > m_params.transferStamp || (prev->stamp == m_params.transferStamp && !m_params.repair))) {
                m_superseded = true;
                return api::Error::conflict("object \"" + m_bucket + "/" + m_name +
                                            "\" is already here and not older than the delivered copy");
            }
            if (auto tomb = m_store->tombstone(m_bucket, m_name); tomb && *tomb >= m_params.transferStamp) {
                m_superseded = true;
                return api::Error::conflict("object \"" + m_bucket + "/" + m_name +
                                            "\" was deleted after the delivered copy was written");
            }
            meta.stamp = m_params.transferStamp;
            meta.version = m_params.transferVersion.empty() ? "1" : m_params.transferVersion;
            m_store->observeStamp(meta.stamp);
        } else if (m_prepared) {
            // Its copies went out with this version: a newer one committed
            // since (a concurrent write, or the same version brought back by
            // a reconciliation) stays; a deletion after it wins too.
            const auto tomb = m_store->tombstone(m_bucket, m_name);
            if ((prev && prev->stamp >= meta.stamp) || (!prev && tomb && *tomb > meta.stamp)) {
                m_superseded = true;
                return api::Error::conflict("object \"" + m_bucket + "/" + m_name +
                                            "\" was replaced or deleted by a newer write meanwhile");
            }
        } else {
            decideVersion(prev, meta);
        }
        if (m_params.undoable && prev) {
            // The replaced version stays reachable until the writer goes.
            const auto undo = m_store->workPath(m_mp);
            if (::link(m_finalPath.c_str(), undo.c_str()) != 0) {
                return m_store->mountpathError(m_mp, errno, "cannot keep the replaced version");
            }
            m_undoPath = undo;
        }
        m_stamp = meta.stamp;
        if (!m_prepared) {
            const std::string json = encodeMetaRecord(meta);
            if (::fsetxattr(m_fd.get(), kMetaXattr, json.data(), json.size(), 0) != 0) {
                return m_store->mountpathError(m_mp, errno, "cannot write object metadata");
            }
        }
        // The copies on the other mountpaths first, the name's own last.
        if (!m_copies.empty()) {
            if (auto st = placeMountpathCopies(encodeMetaRecord(meta)); !st) return st.error();
        }
        if (auto st = renameIntoPlace(); !st) return st.error();
        m_committed = true;
    }
    // The descriptor stays open (committedFd) until the writer goes: copies
    // of a mirrored object are sent from it, which is this version whatever
    // replaces the name meanwhile.
    // The index of the shard this replaced no longer matches (its reader
    // would notice by size, time and checksum; this frees the space).
    ::unlink(m_indexPath.c_str());
    m_store->objectChanged(m_bucket, m_name);
    if (m_store->options().fsync) {
        // An object that outgrew the commit log was written to an unnamed
        // file: its inode, now with its link, is synced first.
        if (m_linkedUnnamed && ::fsync(m_fd.get()) != 0) {
            return m_store->durabilityError(m_mp, m_store->mountpathError(m_mp, errno, "fsync failed"));
        }
        // Commits the rename and, with it, the metadata written before it.
        auto st = fsyncDir(m_finalPath.substr(0, m_finalPath.rfind('/')));
        if (!st) return m_store->durabilityError(m_mp, st.error());
        for (const auto& c : m_copies) {
            if (auto cs = fsyncDir(c.finalPath.substr(0, c.finalPath.rfind('/'))); !cs) {
                return m_store->durabilityError(c.mp, cs.error());
            }
        }
    }
    return meta;
}

api::Status PutWriter::renameIntoPlace()
{
    // The parent directories may be removed by a concurrent DELETE
    // pruning empty directories; retry a few times.
    for (int attempt = 0;; ++attempt) {
        auto st = makeParents(m_bucketRoot, m_finalPath);
        if (!st && !m_store->m_health.rootHealthy(m_mp)) {
            return m_store->mountpathError(m_mp, ENOTDIR, "cannot create the object's directory");
        }
        if (!st) return st;
        if (m_unnamed) {
            const auto self = "/proc/self/fd/" + std::to_string(m_fd.get());
            if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, m_finalPath.c_str(), AT_SYMLINK_FOLLOW) == 0) {
                m_unnamed = false;
                m_linkedUnnamed = true;
                return {};
            }
            const int e = errno;
            if (e == ENOENT && attempt < 5) continue;
            if (e == ENOTDIR)
                return api::Error::conflict("object name conflicts with an existing directory of objects");
            if (e != EEXIST) return m_store->mountpathError(m_mp, e, "cannot link the object into place");
            // The name is taken (a version to replace, or a folder): the
            // file gets a work name, renamed over it below.
            auto work = m_store->workPath(m_mp);
            if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, work.c_str(), AT_SYMLINK_FOLLOW) != 0) {
                return m_store->mountpathError(m_mp, errno, "cannot name the work file");
            }
            m_workPath = std::move(work);
            m_unnamed = false;
            m_linkedUnnamed = true;
        }
        if (::rename(m_workPath.c_str(), m_finalPath.c_str()) == 0) return {};
        const int e = errno;
        if (e == ENOENT && attempt < 5) continue;
        if (e == EISDIR || e == ENOTEMPTY || e == EEXIST || e == ENOTDIR) {
            return api::Error::conflict("object name conflicts with an existing directory of objects");
        }
        return m_store->mountpathError(m_mp, e, "rename into place failed");
    }
}

api::Result<api::ObjectMeta> PutWriter::commitLogged()
{
    auto bytes = finishBytes(false);
    if (!bytes) return bytes.error();
    api::ObjectMeta meta = std::move(*bytes);
    {
        std::lock_guard nameLock(m_store->nameLock(m_bucket, m_name));
        decideVersion(currentVersion(m_finalPath), meta);
    }
    const std::string record = encodeMetaRecord(meta);
    if (::fsetxattr(m_fd.get(), kMetaXattr, record.data(), record.size(), 0) != 0) {
        return m_store->mountpathError(m_mp, errno, "cannot write object metadata");
    }
    // Durable in the log before the name shows it: a crash from here on is
    // undone by applying the record at start, never by a torn file in place.
    auto ticket = m_store->m_logs[m_mp]->append(std::move(m_logRecord), record);
    if (const int e = ticket.error(); e != 0) return m_store->mountpathError(m_mp, e, "cannot write the commit log");
    {
        std::lock_guard nameLock(m_store->nameLock(m_bucket, m_name));
        // A newer version or deletion committed while the record was synced
        // stays: this write is acknowledged, and already replaced (its record
        // is older than the name's state, so a start does not apply it).
        const auto prev = currentVersion(m_finalPath);
        const auto tomb = prev ? std::nullopt : m_store->tombstone(m_bucket, m_name);
        if ((prev && prev->stamp >= meta.stamp) || (tomb && *tomb > meta.stamp)) return meta;
        if (auto st = renameIntoPlace(); !st) return st.error();
        m_committed = true;
        m_stamp = meta.stamp;
    }
    ticket.release();
    ::unlink(m_indexPath.c_str());
    m_store->objectChanged(m_bucket, m_name);
    return meta;
}

// -------------------------------------------------------------- ObjectStore

}  // namespace tessera::daemon::target
