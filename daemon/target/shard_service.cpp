#include "shard_service.h"

#include "api/hrw.h"
#include "archive/archive_writer.h"
#include "archive/tar_index.h"
#include "common/fd_io.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <unistd.h>
#include <vector>

namespace tessera::daemon::target {

namespace {

api::Status writeTemp(int fd, const char* p, std::size_t n)
{
    if (const int err = writeAll(fd, p, n); err != 0) return errnoError(err, "cannot write a temporary file");
    return {};
}

api::Error memberNotFound(std::string_view bucket, std::string_view name, std::string_view member)
{
    return api::Error::notFound("shard \"" + std::string(bucket) + "/" + std::string(name) + "\" has no member \"" +
                                std::string(member) + "\"");
}

std::string errorText(const api::Error& e)
{
    return e.causedBy.empty() ? e.message : e.message + " (" + e.causedBy + ")";
}

}  // namespace

ShardService::ShardService(const ObjectStore& store, ArchiveIndexStore& indexes, Options options)
    : m_store(store), m_indexes(indexes), m_options(options)
{
}

api::Result<ShardPayload> ShardService::readMember(std::string_view bucket, std::string_view name,
                                                   const OpenObject& obj, archive::ArchiveFormat format,
                                                   std::string_view member)
{
    const auto size = static_cast<std::uint64_t>(obj.meta.size);
    ShardPayload out;
    out.indexUse = "none";
    if (format == archive::ArchiveFormat::Tar && m_options.useIndex) {
        auto idx = m_indexes.get(bucket, name, obj);
        if (!idx) return idx.error();
        const auto* e = idx->index->find(member);
        if (e == nullptr) return memberNotFound(bucket, name, member);
        if (e->offset > size || e->size > size - e->offset) {
            return api::Error::corruption("damaged tar shard: member \"" + e->name + "\" runs past the end");
        }
        out.indexUse = std::string(indexSourceName(idx->source));
        out.size = e->size;
        out.file = std::make_unique<net::FileRegion>(net::FileRegion{obj.fd, e->offset, e->size});
        return out;
    }
    auto reader = archive::ArchiveReader::openFd(obj.fd->get(), size, format, m_options.limits);
    if (!reader) return reader.error();
    for (;;) {
        auto m = (*reader)->next();
        if (!m) return m.error();
        if (!m->has_value()) return memberNotFound(bucket, name, member);
        if ((**m).name != member) continue;
        out.size = (**m).size;
        if (out.size <= kMemoryMemberBytes) {
            auto bytes = (*reader)->readAll();
            if (!bytes) return bytes.error();
            out.bytes = std::move(bytes.value());
            return out;
        }
        // Too big for memory: an unnamed file on the shard's mountpath.
        auto tmp = m_store.openTempFile(bucket, name);
        if (!tmp) return tmp.error();
        auto fd = std::make_shared<UniqueFd>(std::move(tmp.value()));
        auto st = (*reader)->readData([&fd](const char* p, std::size_t n) { return writeTemp(fd->get(), p, n); });
        if (!st) return st.error();
        out.file = std::make_unique<net::FileRegion>(net::FileRegion{std::move(fd), 0, out.size});
        return out;
    }
}

api::Result<ShardPayload> ShardService::readMatches(std::string_view bucket, std::string_view name,
                                                    const OpenObject& obj, archive::ArchiveFormat format,
                                                    const archive::MemberMatcher& matcher)
{
    auto tmp = m_store.openTempFile(bucket, name);
    if (!tmp) return tmp.error();
    auto fd = std::make_shared<UniqueFd>(std::move(tmp.value()));
    auto writer = archive::ArchiveWriter::create(
        archive::ArchiveFormat::Tar, [&fd](const char* p, std::size_t n) { return writeTemp(fd->get(), p, n); });
    if (!writer) return writer.error();
    auto& w = **writer;
    const archive::DataSink toWriter = [&w](const char* p, std::size_t n) { return w.write(p, n); };
    std::size_t matched = 0;
    ShardPayload out;
    out.indexUse = "none";
    const auto size = static_cast<std::uint64_t>(obj.meta.size);
    if (format == archive::ArchiveFormat::Tar && m_options.useIndex) {
        auto idx = m_indexes.get(bucket, name, obj);
        if (!idx) return idx.error();
        out.indexUse = std::string(indexSourceName(idx->source));
        for (const auto& e : idx->index->entries()) {
            if (!matcher.matches(e.name)) continue;
            if (e.offset > size || e.size > size - e.offset) {
                return api::Error::corruption("damaged tar shard: member \"" + e.name + "\" runs past the end");
            }
            if (auto st = w.begin(e.name, e.size, e.mtime); !st) return st.error();
            if (auto st = copyRange(obj.fd->get(), e.offset, e.size, toWriter, "cannot read the shard", kCopyChunk);
                !st)
                return st.error();
            ++matched;
        }
    } else {
        auto reader = archive::ArchiveReader::openFd(obj.fd->get(), size, format, m_options.limits);
        if (!reader) return reader.error();
        for (;;) {
            auto m = (*reader)->next();
            if (!m) return m.error();
            if (!m->has_value()) break;
            const auto& info = **m;
            if (!matcher.matches(info.name)) continue;
            if (auto st = w.begin(info.name, info.size, info.mtime); !st) return st.error();
            if (auto st = (*reader)->readData(toWriter); !st) return st.error();
            ++matched;
        }
    }
    if (matched == 0) {
        return api::Error::notFound("no member of shard \"" + std::string(bucket) + "/" + std::string(name) +
                                    "\" matches");
    }
    if (auto st = w.finish(); !st) return st.error();
    out.size = w.bytesOut();
    out.file = std::make_unique<net::FileRegion>(net::FileRegion{std::move(fd), 0, out.size});
    return out;
}

api::Result<std::vector<archive::MemberInfo>> ShardService::members(std::string_view bucket, std::string_view name,
                                                                    const OpenObject& obj,
                                                                    archive::ArchiveFormat format)
{
    std::vector<archive::MemberInfo> out;
    if (format == archive::ArchiveFormat::Tar && m_options.useIndex) {
        auto idx = m_indexes.get(bucket, name, obj);
        if (!idx) return idx.error();
        out.reserve(idx->index->entries().size());
        for (const auto& e : idx->index->entries()) {
            archive::MemberInfo m;
            m.name = e.name;
            m.size = e.size;
            m.mtime = e.mtime;
            m.dataOffset = e.offset;
            out.push_back(std::move(m));
        }
        return out;
    }
    auto reader = archive::ArchiveReader::openFd(obj.fd->get(), static_cast<std::uint64_t>(obj.meta.size), format,
                                                 m_options.limits);
    if (!reader) return reader.error();
    for (;;) {
        auto m = (*reader)->next();
        if (!m) return m.error();
        if (!m->has_value()) return out;
        out.push_back(std::move(**m));
    }
}

void ShardService::addMembers(std::string_view bucket, api::ObjectList& page)
{
    std::vector<api::ObjEntry> out;
    out.reserve(page.entries.size());
    for (auto& e : page.entries) {
        const auto format = archive::formatFromName(e.name);
        // A shard already marked (listed from its slices) or a deletion
        // record: nothing of it here to open.
        const bool passOver =
            (e.flags & api::kEntryArchError) || (e.flags & api::kEntryStatusMask) == api::kEntryStatusDeleted;
        out.push_back(std::move(e));
        if (!format || passOver) continue;
        auto& shard = out.back();
        auto obj = m_store.open(bucket, shard.name);
        if (!obj) {
            if (obj.kind() == api::ErrorKind::NotFound) continue;  // deleted since the page was cut
            shard.flags |= api::kEntryArchError;
            shard.error = errorText(obj.error());
            continue;
        }
        auto ms = members(bucket, shard.name, *obj, *format);
        if (!ms) {
            shard.flags |= api::kEntryArchError;
            shard.error = errorText(ms.error());
            continue;
        }
        shard.flags |= api::kEntryIsArchive;
        const std::string shardName = shard.name;  // `shard` dangles once members are pushed
        for (auto& m : *ms) {
            api::ObjEntry me;
            me.name = shardName + "/" + m.name;
            me.size = static_cast<std::int64_t>(m.size);
            me.flags = api::kEntryInArch;
            out.push_back(std::move(me));
        }
    }
    page.entries = std::move(out);
}

std::shared_ptr<std::mutex> ShardService::shardLock(const std::string& uname)
{
    std::lock_guard lock(m_locksMutex);
    // Forget locks nobody holds any more, so the map stays as small as the
    // number of shards being appended to right now.
    for (auto it = m_locks.begin(); it != m_locks.end();) {
        it = it->second.expired() ? m_locks.erase(it) : std::next(it);
    }
    auto& weak = m_locks[uname];
    auto strong = weak.lock();
    if (!strong) {
        strong = std::make_shared<std::mutex>();
        weak = strong;
    }
    return strong;
}

api::Result<api::ObjectMeta> ShardService::append(std::string_view bucket, std::string_view name,
                                                  archive::ArchiveFormat format, std::string_view member, int bodyFd,
                                                  std::uint64_t size)
{
    // A PUT of the whole shard committed meanwhile: append to that one.
    constexpr int kAttempts = 8;
    for (int attempt = 1;; ++attempt) {
        bool baseChanged = false;
        auto r = appendOnce(bucket, name, format, member, bodyFd, size, baseChanged);
        if (r || !baseChanged || attempt == kAttempts) return r;
    }
}

api::Result<api::ObjectMeta> ShardService::appendOnce(std::string_view bucket, std::string_view name,
                                                      archive::ArchiveFormat format, std::string_view member,
                                                      int bodyFd, std::uint64_t size, bool& baseChanged)
{
    const auto& limits = m_options.limits;
    if (size > limits.maxMemberSize) {
        return api::Error{api::ErrorKind::TooLarge,
                          "member larger than the limit of " + std::to_string(limits.maxMemberSize) +
                              " bytes (archive_max_member_size)",
                          {}};
    }
    const auto mutex = shardLock(api::objectUname(bucket, name));
    std::lock_guard serialized(*mutex);

    auto old = m_store.open(bucket, name);
    if (!old && old.kind() != api::ErrorKind::NotFound) return old.error();
    // Appends are serialized here, but a plain PUT of the shard is not: the
    // commit checks that the shard read is still the one in place, so that
    // an acknowledged overwrite is never replaced by "old shard + member".
    PutParams params;
    params.baseStamp = old ? old->meta.stamp : 0;
    auto put = m_store.beginPut(bucket, name, std::move(params));
    if (!put) return put.error();
    auto& shardOut = **put;
    const archive::DataSink toShard = [&shardOut](const char* p, std::size_t n) { return shardOut.write(p, n); };
    auto created = archive::ArchiveWriter::create(format, toShard);
    if (!created) return created.error();
    auto& w = **created;
    const archive::DataSink toWriter = [&w](const char* p, std::size_t n) { return w.write(p, n); };
    const auto refuseGrowth = [&](std::uint64_t members, std::uint64_t total) -> api::Status {
        // The shard would break a limit and be unreadable from now on.
        if (members + 1 > limits.maxMembers) {
            return api::Error::badRequest("shard \"" + std::string(name) + "\" already has " + std::to_string(members) +
                                          " members (archive_max_members)");
        }
        if (total + size > limits.maxTotalSize) {
            return api::Error::badRequest("shard \"" + std::string(name) + "\" would hold more than " +
                                          std::to_string(limits.maxTotalSize) + " bytes (archive_max_total_size)");
        }
        return {};
    };

    if (old && format == archive::ArchiveFormat::Tar) {
        // Keep the old bytes up to the end-of-archive marker; the new member
        // and a new marker follow.
        std::shared_ptr<const archive::TarIndex> idx;
        if (m_options.useIndex) {
            auto got = m_indexes.get(bucket, name, *old);
            if (!got) return got.error();
            idx = got->index;
        } else {
            auto built = archive::TarIndex::build(old->fd->get(), static_cast<std::uint64_t>(old->meta.size), limits);
            if (!built) return built.error();
            idx = std::make_shared<const archive::TarIndex>(std::move(built.value()));
        }
        std::uint64_t total = 0;
        for (const auto& e : idx->entries()) total += e.size;
        if (auto st = refuseGrowth(idx->entries().size(), total); !st) return st.error();
        if (auto st = copyRange(old->fd->get(), 0, idx->endOffset(), toShard, "cannot read the shard", kCopyChunk); !st)
            return st.error();
    } else if (old) {
        // Compressed and zip shards are rewritten member by member.
        auto reader =
            archive::ArchiveReader::openFd(old->fd->get(), static_cast<std::uint64_t>(old->meta.size), format, limits);
        if (!reader) return reader.error();
        std::uint64_t members = 0, total = 0;
        for (;;) {
            auto m = (*reader)->next();
            if (!m) return m.error();
            if (!m->has_value()) break;
            const auto& info = **m;
            if (info.name == member) continue;  // replaced by the new one
            if (auto st = w.begin(info.name, info.size, info.mtime); !st) return st.error();
            if (auto st = (*reader)->readData(toWriter); !st) return st.error();
            ++members;
            total += info.size;
        }
        if (auto st = refuseGrowth(members, total); !st) return st.error();
    }
    if (auto st = w.begin(member, size, static_cast<std::int64_t>(std::time(nullptr))); !st) return st.error();
    if (auto st = copyRange(bodyFd, 0, size, toWriter, "cannot read the appended body", kCopyChunk); !st)
        return st.error();
    if (auto st = w.finish(); !st) return st.error();
    auto meta = shardOut.commit();
    if (!meta) {
        baseChanged = shardOut.baseChanged();
        return meta.error();
    }
    if (format == archive::ArchiveFormat::Tar && m_options.useIndex) {
        // Index the new shard now, while its headers are in the page cache.
        if (auto fresh = m_store.open(bucket, name)) (void)m_indexes.get(bucket, name, *fresh);
    }
    return meta;
}

}  // namespace tessera::daemon::target
