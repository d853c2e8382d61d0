#include "record_store.h"

#include "common/log.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace tessera::daemon::dsort {

RecordStore::RecordStore(std::uint64_t memoryBudget, std::string spillDir)
    : m_budget(memoryBudget), m_dir(std::move(spillDir))
{
}

RecordStore::~RecordStore()
{
    m_spill.reset();
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
    m_spill.reset(fd);
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
        if (m_spill.get() < 0) {
            if (auto st = openSpill(); !st) return st.error();
        }
        std::size_t done = 0;
        while (done < encoded.size()) {
            const ssize_t n = ::pwrite(m_spill.get(), encoded.data() + done, encoded.size() - done,
                                       static_cast<off_t>(m_spillEnd + done));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == ENOSPC) return api::Error::noSpace("no space left to spill dSort records in " + m_dir);
            if (n <= 0) return api::Error::ioError("cannot spill dSort records to " + m_dir, std::strerror(errno));
            done += static_cast<std::size_t>(n);
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

api::Result<std::string> RecordStore::get(std::uint64_t index) const
{
    int fd = -1;
    std::uint64_t offset = 0, length = 0;
    {
        std::lock_guard lock(m_mutex);
        if (index >= m_slots.size()) return api::Error::notFound("no record " + std::to_string(index));
        const auto& s = m_slots[index];
        if (!s.spilled) return s.data;
        fd = m_spill.get();
        offset = s.offset;
        length = s.length;
    }
    std::string out(length, '\0');
    std::size_t done = 0;
    while (done < length) {
        const ssize_t n = ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return api::Error::ioError("cannot read spilled dSort records in " + m_dir, std::strerror(errno));
        done += static_cast<std::size_t>(n);
    }
    return out;
}

RecordStore::Stats RecordStore::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

}  // namespace tessera::daemon::dsort
