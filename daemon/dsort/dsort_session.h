#pragma once
// What one target knows of one running dSort job, shared between the job's
// thread and the internal handlers its peers call:
// - the records it extracted (a RecordStore, until the job ends);
// - on the designated (sorting) target, the record metadata every target
//   sent, until all have;
// - the output shards this target was assigned to create;
// - which targets finished creating (a barrier: a target keeps its records
//   until every peer has pulled what it needs);
// - a failure reported by a peer, which stops this target too.
// The job waits on it with waitChange(); handlers wake it.
//
// Thread safety: every member may be called from any thread.

#include "record_store.h"

#include "api/dsort_msg.h"
#include "spec/dsort_plan.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tessera::daemon::dsort {

using DsortPeer = api::DsortPeer;
using DsortAssignedRecord = api::DsortAssignedRecord;
using DsortAssignment = api::DsortAssignment;
using api::assignmentsFromJson;
using api::assignmentsToJson;

class DsortSession {
public:
    DsortSession(std::string jobId, std::vector<DsortPeer> peers, std::uint32_t self, std::uint32_t sorter);

    const std::string& id() const { return m_id; }
    const std::vector<DsortPeer>& peers() const { return m_peers; }
    std::uint32_t self() const { return m_self; }
    std::uint32_t sorter() const { return m_sorter; }
    bool isSorter() const { return m_self == m_sorter; }

    void setStore(std::shared_ptr<RecordStore> store);
    std::shared_ptr<RecordStore> store() const;  // null once released
    void releaseStore();

    // A chunk of `from`'s record metadata (sorter only); `last` completes it.
    // Conflict after the last chunk, BadRequest for an unknown peer.
    api::Status putRecords(std::uint32_t from, std::vector<spec::DsortRecord> records, bool last);
    bool allRecords() const;
    std::vector<std::uint32_t> missingRecords() const;
    std::vector<spec::DsortRecord> takeRecords();

    // Conflict when assigned twice.
    api::Status putAssignment(std::vector<DsortAssignment> shards);
    std::optional<std::vector<DsortAssignment>> takeAssignment();

    api::Status markDone(std::uint32_t from);
    bool allDone() const;
    std::vector<std::uint32_t> notDone() const;

    // A peer failed (or this target did): the first reason is kept.
    void fail(std::string reason);
    std::optional<std::string> failure() const;

    // Waits until a handler changed something or `timeout` passed.
    void waitChange(std::chrono::milliseconds timeout);

    // Metrics: numbers and strings under "phase.name" keys, shown by GET /v1/sort?uuid=.
    void setMetric(const std::string& key, nlohmann::json value);
    void addMetric(const std::string& key, std::uint64_t delta);
    nlohmann::json metrics() const;
    void finish();  // the job ended: the store goes, metrics stay
    bool finished() const;

private:
    std::string m_id;
    std::vector<DsortPeer> m_peers;
    std::uint32_t m_self;
    std::uint32_t m_sorter;

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::uint64_t m_changes = 0;
    std::shared_ptr<RecordStore> m_store;
    std::vector<spec::DsortRecord> m_records;
    std::set<std::uint32_t> m_recordsFrom;  // peers whose last chunk arrived
    std::optional<std::vector<DsortAssignment>> m_assignment;
    bool m_assigned = false;
    std::set<std::uint32_t> m_done;
    std::optional<std::string> m_failure;
    nlohmann::json m_metrics = nlohmann::json::object();
    bool m_finished = false;
};

}  // namespace tessera::daemon::dsort
