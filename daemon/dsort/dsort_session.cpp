#include "dsort_session.h"

namespace tessera::daemon::dsort {

DsortSession::DsortSession(std::string jobId, std::vector<DsortPeer> peers, std::uint32_t self, std::uint32_t sorter)
    : m_id(std::move(jobId)), m_peers(std::move(peers)), m_self(self), m_sorter(sorter)
{
}

void DsortSession::setStore(std::shared_ptr<RecordStore> store)
{
    std::lock_guard lock(m_mutex);
    m_store = std::move(store);
}

std::shared_ptr<RecordStore> DsortSession::store() const
{
    std::lock_guard lock(m_mutex);
    return m_store;
}

void DsortSession::releaseStore()
{
    std::shared_ptr<RecordStore> old;
    {
        std::lock_guard lock(m_mutex);
        old = std::move(m_store);
    }
    // Destroyed outside the lock: removing a spill file may take a while.
}

api::Status DsortSession::putRecords(std::uint32_t from, std::vector<spec::DsortRecord> records, bool last)
{
    {
        std::lock_guard lock(m_mutex);
        if (from >= m_peers.size()) return api::Error::badRequest("unknown target #" + std::to_string(from));
        if (!isSorter()) return api::Error::badRequest("target " + m_peers[m_self].id + " does not sort job " + m_id);
        if (m_recordsFrom.count(from)) {
            return api::Error::conflict("records of " + m_peers[from].id + " already arrived for job " + m_id);
        }
        for (auto& r : records) {
            r.owner = from;
            m_records.push_back(std::move(r));
        }
        if (last) m_recordsFrom.insert(from);
        ++m_changes;
    }
    m_cv.notify_all();
    return {};
}

bool DsortSession::allRecords() const
{
    std::lock_guard lock(m_mutex);
    return m_recordsFrom.size() == m_peers.size();
}

std::vector<std::uint32_t> DsortSession::missingRecords() const
{
    std::lock_guard lock(m_mutex);
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < m_peers.size(); ++i) {
        if (!m_recordsFrom.count(i)) out.push_back(i);
    }
    return out;
}

std::vector<spec::DsortRecord> DsortSession::takeRecords()
{
    std::lock_guard lock(m_mutex);
    return std::move(m_records);
}

api::Status DsortSession::putAssignment(std::vector<DsortAssignment> shards)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_assigned) return api::Error::conflict("job " + m_id + " already has its assignment here");
        m_assigned = true;
        m_assignment = std::move(shards);
        ++m_changes;
    }
    m_cv.notify_all();
    return {};
}

std::optional<std::vector<DsortAssignment>> DsortSession::takeAssignment()
{
    std::lock_guard lock(m_mutex);
    auto out = std::move(m_assignment);
    m_assignment.reset();
    return out;
}

api::Status DsortSession::markDone(std::uint32_t from)
{
    {
        std::lock_guard lock(m_mutex);
        if (from >= m_peers.size()) return api::Error::badRequest("unknown target #" + std::to_string(from));
        m_done.insert(from);
        ++m_changes;
    }
    m_cv.notify_all();
    return {};
}

bool DsortSession::allDone() const
{
    std::lock_guard lock(m_mutex);
    return m_done.size() == m_peers.size();
}

std::vector<std::uint32_t> DsortSession::notDone() const
{
    std::lock_guard lock(m_mutex);
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < m_peers.size(); ++i) {
        if (!m_done.count(i)) out.push_back(i);
    }
    return out;
}

void DsortSession::fail(std::string reason)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_failure) m_failure = std::move(reason);
        ++m_changes;
    }
    m_cv.notify_all();
}

std::optional<std::string> DsortSession::failure() const
{
    std::lock_guard lock(m_mutex);
    return m_failure;
}

void DsortSession::waitChange(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    const auto seen = m_changes;
    m_cv.wait_for(lock, timeout, [&] { return m_changes != seen; });
}

void DsortSession::setMetric(const std::string& key, nlohmann::json value)
{
    std::lock_guard lock(m_mutex);
    m_metrics[key] = std::move(value);
}

void DsortSession::addMetric(const std::string& key, std::uint64_t delta)
{
    std::lock_guard lock(m_mutex);
    auto& v = m_metrics[key];
    v = (v.is_number_unsigned() ? v.get<std::uint64_t>() : 0) + delta;
}

nlohmann::json DsortSession::metrics() const
{
    std::lock_guard lock(m_mutex);
    auto out = m_metrics;
    if (m_store) {
        const auto st = m_store->stats();
        out["memory.bytes"] = st.memoryBytes;
        out["spill.records"] = st.spilledRecords;
        out["spill.bytes"] = st.spilledBytes;
        out["extract.in_place_records"] = st.referencedRecords;
    }
    out["sorter"] = isSorter();
    return out;
}

void DsortSession::finish()
{
    std::shared_ptr<RecordStore> old;
    {
        std::lock_guard lock(m_mutex);
        if (m_store) {
            const auto st = m_store->stats();
            m_metrics["memory.bytes"] = st.memoryBytes;
            m_metrics["spill.records"] = st.spilledRecords;
            m_metrics["spill.bytes"] = st.spilledBytes;
            m_metrics["extract.in_place_records"] = st.referencedRecords;
        }
        old = std::move(m_store);
        m_records.clear();
        m_assignment.reset();
        m_finished = true;
    }
}

bool DsortSession::finished() const
{
    std::lock_guard lock(m_mutex);
    return m_finished;
}

}  // namespace tessera::daemon::dsort
