#include "record_store.h"

#include "common/fd_io.h"
#include "common/log.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <unistd.h>

namespace tessera::daemon::dsort {

RecordStore::RecordStore(std::uint64_t memoryBudget, std::string spillDir)
    : m_budget(memoryBudget), m_dir(std::move(spillDir))
{
}

RecordStore::~RecordStore()
{
    m_spill.reset();  // closed here unless a region handed out still holds it
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
    if (ec) logWarn("cannot remove the dSort spill directory ", m_dir, ": ", ec.message());
}

api::Status RecordStore::openSpill()
{
    std::error_code ec;
    std::filesystem::create_directories(m_dir, ec);
    if (ec) return api::Error::ioError("cannot create the dSort spill directory " + m_dir, ec.message());
    const auto path = m_dir + "/records.spill";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return api::Error::ioError("cannot create " + path, std::strerror(errno));
    m_spill = std::make_shared<UniqueFd>(fd);
    return {};
}

api::Result<std::uint64_t> RecordStore::add(std::string encoded)
{
    std::lock_guard lock(m_mutex);
    Slot slot;
    slot.length = encoded.size();
    if (m_stats.memoryBytes + encoded.size() <= m_budget) {
        m_stats.memoryBytes += encoded.size();
        slot.data = std::move(encoded);
    } else {
        if (!m_spill) {
            if (auto st = openSpill(); !st) return st.error();
        }
        if (const int err = pwriteAll(m_spill->get(), encoded.data(), encoded.size(), m_spillEnd); err != 0) {
            return errnoError(err, "cannot spill dSort records to " + m_dir);
        }
        slot.spilled = true;
        slot.offset = m_spillEnd;
        m_spillEnd += encoded.size();
        ++m_stats.spilledRecords;
        m_stats.spilledBytes += encoded.size();
    }
    m_slots.push_back(std::move(slot));
    ++m_stats.records;
    return m_slots.size() - 1;
}

namespace {

// Reads fd[offset, offset + length) to the end of `out`.
api::Status preadAppend(int fd, std::uint64_t offset, std::uint64_t length, std::string& out, const std::string& what)
{
    const auto start = out.size();
    out.resize(start + length);
    if (const int err = preadExact(fd, out.data() + start, length, offset); err != 0) {
        return errnoError(err, "cannot read " + what);
    }
    return {};
}

}  // namespace

std::uint64_t RecordStore::addRef(std::shared_ptr<UniqueFd> shard, std::vector<FileRef> files)
{
    Slot slot;
    slot.length = kRecordCountBytes;
    for (const auto& f : files) slot.length += encodedFileBytes(f.name.size(), f.size);
    slot.shard = std::move(shard);
    slot.files = std::move(files);
    std::lock_guard lock(m_mutex);
    m_slots.push_back(std::move(slot));
    ++m_stats.records;
    ++m_stats.referencedRecords;
    return m_slots.size() - 1;
}

std::uint64_t RecordStore::length(std::uint64_t index) const
{
    std::lock_guard lock(m_mutex);
    return index < m_slots.size() ? m_slots[index].length : 0;
}

api::Status RecordStore::pieces(std::uint64_t index, std::uint64_t inlineBelow,
                                const std::function<api::Status(std::string_view)>& bytes,
                                const std::function<api::Status(const Region&)>& region) const
{
    const Slot* s = nullptr;
    std::shared_ptr<UniqueFd> spill;
    {
        std::lock_guard lock(m_mutex);
        if (index >= m_slots.size()) return api::Error::notFound("no record " + std::to_string(index));
        // Slots never move (a deque grown at the back) and never change once
        // added, so the slot can be read outside the lock.
        s = &m_slots[index];
        spill = m_spill;
    }
    if (s->shard) {
        std::string head;
        appendRecordCount(head, static_cast<std::uint32_t>(s->files.size()));
        for (const auto& f : s->files) {
            appendFileHeader(head, f.name, f.mtime, f.size);
            if (f.size < inlineBelow) {
                // Small files travel with the headers around them.
                if (auto st = preadAppend(s->shard->get(), f.offset, f.size, head, "an input shard of the job"); !st)
                    return st;
                continue;
            }
            if (auto st = bytes(head); !st) return st;
            head.clear();
            if (auto st = region(Region{s->shard, f.offset, f.size}); !st) return st;
        }
        return head.empty() ? api::Status{} : bytes(head);
    }
    if (!s->spilled) return bytes(s->data);
    if (!spill) return api::Error::internal("dSort record " + std::to_string(index) + " has no spill file");
    if (s->length >= inlineBelow) return region(Region{spill, s->offset, s->length});
    std::string small;
    if (auto st = preadAppend(spill->get(), s->offset, s->length, small, "spilled dSort records in " + m_dir); !st)
        return st;
    return bytes(small);
}

api::Result<std::string> RecordStore::get(std::uint64_t index) const
{
    std::string out;
    auto st = pieces(
        index, std::numeric_limits<std::uint64_t>::max(),
        [&out](std::string_view b) {
            out.append(b);
            return api::Status{};
        },
        [](const Region&) { return api::Status{}; });
    if (!st) return st.error();
    return out;
}

RecordStore::Stats RecordStore::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

}  // namespace tessera::daemon::dsort
