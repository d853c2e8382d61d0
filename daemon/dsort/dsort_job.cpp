#include "dsort_job.h"

#include "api/hrw.h"
#include "api/names.h"
#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "archive/member_name.h"
#include "common/fd_io.h"
#include "common/log.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace tessera::daemon::dsort {

namespace {

std::int64_t msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
}

api::Error prefixed(const api::Error& e, const std::string& what)
{
    return api::Error{e.kind, what + ": " + e.message, e.causedBy};
}

}  // namespace

api::Result<std::unique_ptr<jobs::JobWork>> DsortJob::create(const target::ObjectStore& store, DsortRegistry& registry,
                                                             const Options& options, const nlohmann::json& args)
{
    auto a = api::readMessage<api::DsortJobArgs>(args, "dsort job args");
    if (!a) return a.error();
    auto spec = spec::parseDsortSpec(a->spec);
    if (!spec) return spec.error();
    if (!a->ekm.empty()) {
        if (auto e = spec::parseEkm(a->ekm); !e) return e.error();
    }
    if (spec->algorithm.kind == spec::DsortAlgorithmKind::Shuffle && !spec->algorithm.seed) {
        return api::Error::badRequest("dsort job args: /spec: a shuffle needs its seed");
    }
    std::vector<std::pair<std::uint64_t, std::string>> inputs;
    inputs.reserve(a->inputs.size());
    for (auto& i : a->inputs) inputs.emplace_back(i.position, std::move(i.name));
    return std::unique_ptr<jobs::JobWork>(new DsortJob(store, registry, options, std::move(spec.value()),
                                                       std::move(a->peers), a->self, a->sorter, std::move(inputs),
                                                       std::move(a->ekm)));
}

DsortJob::DsortJob(const target::ObjectStore& store, DsortRegistry& registry, Options options, spec::DsortSpec spec,
                   std::vector<DsortPeer> peers, std::uint32_t self, std::uint32_t sorter,
                   std::vector<std::pair<std::uint64_t, std::string>> inputs, std::string ekm)
    : m_store(store), m_registry(registry), m_options(std::move(options)), m_spec(std::move(spec)),
      m_peers(std::move(peers)), m_self(self), m_sorter(sorter), m_inputs(std::move(inputs)), m_ekm(std::move(ekm))
{
}

DsortJob::~DsortJob()
{
    if (m_session) m_session->finish();
    if (m_journalFd >= 0) ::close(m_journalFd);  // run() did not end: the journal stays for the next start
}

bool DsortJob::stopped(const jobs::JobContext& ctx) const { return ctx.aborted() || m_session->failure().has_value(); }

api::Status DsortJob::run(jobs::JobContext& ctx)
{
    const auto id = ctx.id();
    m_session = std::make_shared<DsortSession>(id, m_peers, m_self, m_sorter);
    if (auto st = m_registry.add(m_session); !st) return st;
    m_spillDir = m_registry.spillDir(id);
    openJournal(id);
    api::Status st = phases(ctx);
    const auto peerFailure = m_session->failure();
    if (!st && !peerFailure) {
        // Our own failure: every peer stops too.
        PeerLink link(m_session->id(), m_options.peerTimeout, m_options.clusterKey);
        broadcast("fail", nlohmann::json(api::DsortFailure{m_peers[m_self].id, st.error().message}).dump(), link);
        m_session->fail(st.error().message);
    }
    if (!st || ctx.aborted() || peerFailure) cleanup();
    closeJournal();  // the outputs are final, or gone
    m_session->finish();
    if (!st) return st;
    if (ctx.aborted()) return {};
    if (peerFailure) return api::Error::unavailable(*peerFailure);
    return {};
}

namespace {
std::string journalDir(const target::ObjectStore& store)
{
    return store.options().mountpaths.front() + "/.tessera/dsort-out";
}
}  // namespace

void DsortJob::openJournal(const std::string& id)
{
    const auto dir = journalDir(m_store);
    ::mkdir(dir.c_str(), 0755);
    m_journalPath = dir + "/" + id;
    m_journalFd = ::open(m_journalPath.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
    if (m_journalFd < 0) {
        logWarn("dsort ", id, ": cannot journal its output in ", m_journalPath, ": ", std::strerror(errno));
        return;
    }
    // Output written under these names from now on is this job's.
    journal(m_spec.outputBck + "\t" + std::to_string(m_store.nextStamp()));
}

void DsortJob::journal(const std::string& line)
{
    if (m_journalFd < 0) return;
    const std::string text = line + "\n";
    int err = writeAll(m_journalFd, text.data(), text.size());
    if (err == 0 && m_store.options().fsync && ::fdatasync(m_journalFd) != 0) err = errno;
    if (err != 0) logWarn("dsort: cannot journal output ", line, ": ", std::strerror(err));
}

void DsortJob::closeJournal()
{
    if (m_journalFd < 0) return;
    ::close(m_journalFd);
    m_journalFd = -1;
    ::unlink(m_journalPath.c_str());
}

std::size_t DsortJob::removeOrphanedOutputs(const target::ObjectStore& store)
{
    std::size_t removed = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(journalDir(store), ec)) {
        std::ifstream in(e.path());
        std::string head;
        std::getline(in, head);
        const auto tab = head.find('\t');
        std::int64_t since = 0;
        try {
            if (tab != std::string::npos) since = std::stoll(head.substr(tab + 1));
        } catch (const std::exception&) {
            since = 0;
        }
        const std::string bucket = tab == std::string::npos ? std::string() : head.substr(0, tab);
        std::string name;
        while (!bucket.empty() && since > 0 && std::getline(in, name)) {
            if (!api::validateObjectName(name)) continue;
            auto obj = store.openUncached(bucket, name);
            // A name written since the job started here is the job's.
            if (!obj || obj->meta.stamp < since) continue;
            if (store.remove(bucket, name)) ++removed;
        }
        std::error_code rec;
        std::filesystem::remove(e.path(), rec);
        logWarn("dsort job ", e.path().filename().string(), " ended while this target was down: removed its ", removed,
                " output shard(s) here");
    }
    return removed;
}

void DsortJob::cleanup()
{
    std::vector<std::string> names;
    {
        std::lock_guard lock(m_mutex);
        names.swap(m_committed);
    }
    for (const auto& n : names) {
        if (auto st = m_store.remove(m_spec.outputBck, n); !st && st.kind() != api::ErrorKind::NotFound) {
            logWarn("dsort ", m_session->id(), ": cannot remove ", m_spec.outputBck, "/", n, ": ", st.error().message);
        }
    }
    if (!names.empty())
        logInfo("dsort ", m_session->id(), ": removed ", names.size(), " output shard(s) it had created");
}

void DsortJob::broadcast(const std::string& what, const std::string& body, PeerLink& link)
{
    const auto& peers = m_session->peers();
    for (std::uint32_t i = 0; i < peers.size(); ++i) {
        if (i == m_session->self()) continue;
        auto st = link.post(peers[i], what, "from=" + std::to_string(m_session->self()), body, [] { return true; });
        if (!st) logWarn("dsort ", m_session->id(), ": ", what, " to ", peers[i].id, ": ", st.error().message);
    }
}

void DsortJob::runParallel(unsigned threads, std::size_t items, const std::function<void(std::size_t)>& fn)
{
    const auto n = static_cast<std::size_t>(std::max(1u, threads));
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < items; i = next++) fn(i);
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < std::min(n, items); ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
}

api::Status DsortJob::waitFor(jobs::JobContext& ctx, const std::function<bool()>& ready,
                              const std::function<std::vector<std::uint32_t>()>& watched, PeerLink& link)
{
    std::map<std::uint32_t, int> misses;
    auto nextCheck = std::chrono::steady_clock::now() + m_options.healthInterval;
    while (true) {
        if (ready() || ctx.aborted()) return {};
        if (auto f = m_session->failure()) return api::Error::unavailable(*f);
        m_session->waitChange(std::chrono::milliseconds(200));
        if (std::chrono::steady_clock::now() < nextCheck) continue;
        for (auto i : watched()) {
            if (i == m_session->self()) continue;
            const auto& peer = m_session->peers()[i];
            if (link.healthy(peer)) {
                misses[i] = 0;
            } else if (++misses[i] >= m_options.missedHealthChecks) {
                return api::Error::unavailable("target " + peer.id + " is unreachable (" + peer.url +
                                               " failed its last " + std::to_string(misses[i]) + " health checks)");
            }
        }
        nextCheck = std::chrono::steady_clock::now() + m_options.healthInterval;
    }
}

api::Status DsortJob::phases(jobs::JobContext& ctx)
{
    auto& s = *m_session;
    PeerLink link(s.id(), m_options.peerTimeout, m_options.clusterKey);

    auto t0 = std::chrono::steady_clock::now();
    std::vector<spec::DsortRecord> mine;
    if (auto st = extract(ctx, mine); !st) return st;
    s.setMetric("extract.ms", msSince(t0));
    if (stopped(ctx)) return {};

    ctx.startPhase("sort", 0, 0);
    t0 = std::chrono::steady_clock::now();
    if (auto st = sendRecords(ctx, std::move(mine), link); !st) return st;
    if (s.isSorter()) {
        if (auto st = sortAndAssign(ctx, link); !st) return st;
    }
    std::optional<std::vector<DsortAssignment>> assigned;
    auto st = waitFor(
        ctx,
        [&] {
            if (!assigned) assigned = s.takeAssignment();
            return assigned.has_value();
        },
        [&] { return std::vector<std::uint32_t>{s.sorter()}; }, link);
    if (!st) return st;
    s.setMetric("sort.ms", msSince(t0));
    if (stopped(ctx)) return {};

    t0 = std::chrono::steady_clock::now();
    if (auto c = create(ctx, *assigned); !c) return c;
    if (stopped(ctx)) return {};
    s.setMetric("create.ms", msSince(t0));
    // Done here; peers may still pull this target's records until they are done too.
    if (auto d = s.markDone(s.self()); !d) return d;
    const auto& peers = s.peers();
    for (std::uint32_t i = 0; i < peers.size(); ++i) {
        if (i == s.self()) continue;
        if (auto p =
                link.post(peers[i], "done", "from=" + std::to_string(s.self()), "{}", [&] { return stopped(ctx); });
            !p) {
            if (stopped(ctx)) return {};
            return p;
        }
    }
    t0 = std::chrono::steady_clock::now();
    st = waitFor(
        ctx, [&] { return s.allDone(); }, [&] { return s.notDone(); }, link);
    s.setMetric("wait.ms", msSince(t0));
    return st;
}

api::Status DsortJob::extract(jobs::JobContext& ctx, std::vector<spec::DsortRecord>& out)
{
    std::int64_t bytes = 0;
    for (const auto& [pos, name] : m_inputs) {
        if (auto meta = m_store.stat(m_spec.inputBck, name)) bytes += static_cast<std::int64_t>(meta->size);
    }
    ctx.startPhase("extract", static_cast<std::int64_t>(m_inputs.size()), bytes);
    const auto budget = m_spec.memoryBudget(m_options.physicalMemory);
    auto store = std::make_shared<RecordStore>(budget, m_spillDir);
    m_session->setStore(store);
    m_session->setMetric("extract.shards", m_inputs.size());
    m_session->setMetric("memory.budget", budget);
    std::mutex outMutex;
    runParallel(m_spec.extractConcurrency, m_inputs.size(), [&](std::size_t i) {
        if (stopped(ctx)) return;
        {
            std::lock_guard lock(m_mutex);
            if (!m_firstError.empty()) return;
        }
        std::vector<spec::DsortRecord> local;
        api::Status st;
        try {
            st = extractShard(ctx, m_inputs[i].first, m_inputs[i].second, *store, local);
        } catch (const std::exception& e) {
            st = api::Error::internal(std::string("extraction failed unexpectedly: ") + e.what());
        }
        if (!st) {
            std::lock_guard lock(m_mutex);
            if (m_firstError.empty()) m_firstError = st.error().message;
            return;
        }
        std::lock_guard lock(outMutex);
        for (auto& r : local) out.push_back(std::move(r));
    });
    std::lock_guard lock(m_mutex);
    if (!m_firstError.empty()) return api::Error::badRequest(m_firstError);
    m_session->setMetric("extract.records", out.size());
    return {};
}

api::Status DsortJob::extractShard(jobs::JobContext& ctx, std::uint64_t position, const std::string& name,
                                   RecordStore& store, std::vector<spec::DsortRecord>& out)
{
    const auto what = m_spec.inputBck + "/" + name;
    auto obj = m_store.openUncached(m_spec.inputBck, name);
    if (!obj) {
        if (obj.kind() != api::ErrorKind::NotFound) return prefixed(obj.error(), what);
        m_session->addMetric("extract.missing_shards", 1);
        switch (m_spec.missingShards) {
        case spec::DsortPolicy::Abort: return api::Error::notFound("input shard " + what + " does not exist");
        case spec::DsortPolicy::Warn:
            logWarn("dsort ", m_session->id(), ": input shard ", what, " does not exist");
            ctx.addSkipped("input shard " + what + " does not exist");
            break;
        case spec::DsortPolicy::Ignore: break;
        }
        ctx.addDone(1, 0);
        return {};
    }
    // An input shard whose bytes no longer match its checksum fails the job
    // naming it: its records would go into new shards under fresh checksums.
    if (auto st = m_store.verify(*obj); !st) return prefixed(st.error(), what);
    auto reader = archive::ArchiveReader::openFd(obj->fd->get(), obj->meta.size, m_spec.inputFormat, m_options.limits);
    if (!reader) return prefixed(reader.error(), what);
    const bool content = m_spec.algorithm.kind == spec::DsortAlgorithmKind::Content;
    // A plain .tar's members are read in place when pulled: only their
    // offsets are kept (and the content key's bytes).
    const bool byRef = m_spec.inputFormat == archive::ArchiveFormat::Tar && m_inPlaceShards++ < kMaxInPlaceShards;
    std::vector<RecordFile> files;
    std::vector<RecordStore::FileRef> refs;
    std::string key;
    std::string contentKey;
    bool hasContentKey = false;
    std::uint64_t seq = 0, tarBytes = 0;
    auto flush = [&]() -> api::Status {
        if (files.empty() && refs.empty()) return {};
        spec::DsortRecord r;
        r.key = key;
        r.shardIndex = position;
        r.seq = seq++;
        r.size = tarBytes;
        r.files = static_cast<std::uint32_t>(byRef ? refs.size() : files.size());
        if (content) {
            if (!hasContentKey) {
                return api::Error::badRequest("record \"" + key + "\" of " + what + " has no " +
                                              m_spec.algorithm.extension + " file to sort by");
            }
            r.contentKey = std::move(contentKey);
        }
        if (byRef) {
            r.index = store.addRef(obj->fd, std::move(refs));
        } else {
            auto idx = store.add(encodeRecord(files));
            if (!idx) return idx.error();
            r.index = *idx;
        }
        out.push_back(std::move(r));
        files.clear();
        refs.clear();
        contentKey.clear();
        hasContentKey = false;
        tarBytes = 0;
        return {};
    };
    while (true) {
        if (stopped(ctx)) return {};
        auto m = (*reader)->next();
        if (!m) return prefixed(m.error(), what);
        if (!m->has_value()) break;
        const auto& info = **m;
        const auto k = std::string(archive::wdsKey(info.name));
        if ((!files.empty() || !refs.empty()) && k != key) {
            if (auto st = flush(); !st) return st;
        }
        key = k;
        tarBytes += archive::tarMemberBytes(info.name, info.size);
        const bool isKey = content && !hasContentKey && archive::wdsExtension(info.name) == m_spec.algorithm.extension;
        if (byRef) {
            refs.push_back({info.name, info.mtime, info.dataOffset, info.size});
            if (isKey) {
                auto data = (*reader)->readAll();
                if (!data) return prefixed(data.error(), what);
                contentKey = data->substr(0, kMaxContentKeyBytes);
                hasContentKey = true;
            }
            continue;
        }
        auto data = (*reader)->readAll();
        if (!data) return prefixed(data.error(), what);
        if (isKey) {
            contentKey = data->substr(0, kMaxContentKeyBytes);
            hasContentKey = true;
        }
        files.push_back({info.name, info.mtime, std::move(data.value())});
    }
    if (auto st = flush(); !st) return st;
    m_session->addMetric("extract.bytes", obj->meta.size);
    ctx.addDone(1, obj->meta.size);
    return {};
}

api::Status DsortJob::sendRecords(jobs::JobContext& ctx, std::vector<spec::DsortRecord> records, PeerLink& link)
{
    auto& s = *m_session;
    if (s.isSorter()) return s.putRecords(s.self(), std::move(records), true);
    const auto& sorter = s.peers()[s.sorter()];
    std::size_t from = 0;
    do {
        const auto to = std::min(records.size(), from + kRecordsPerChunk);
        std::vector<spec::DsortRecord> chunk(
            std::make_move_iterator(records.begin() + static_cast<std::ptrdiff_t>(from)),
            std::make_move_iterator(records.begin() + static_cast<std::ptrdiff_t>(to)));
        const bool last = to == records.size();
        auto st =
            link.post(sorter, "records", "from=" + std::to_string(s.self()) + "&last=" + (last ? "true" : "false"),
                      spec::recordsToJson(chunk).dump(), [&] { return stopped(ctx); });
        if (!st) return stopped(ctx) ? api::Status{} : st;
        from = to;
    } while (from < records.size());
    return {};
}

api::Status DsortJob::sortAndAssign(jobs::JobContext& ctx, PeerLink& link)
{
    auto& s = *m_session;
    auto st = waitFor(
        ctx, [&] { return s.allRecords(); }, [&] { return s.missingRecords(); }, link);
    if (!st || stopped(ctx)) return st;
    const auto t0 = std::chrono::steady_clock::now();
    auto records = s.takeRecords();
    ctx.startPhase("sort", static_cast<std::int64_t>(records.size()), 0);
    if (m_spec.duplicatedRecords != spec::DsortPolicy::Ignore) {
        std::size_t count = 0;
        auto dups = spec::duplicateKeys(records, 5, count);
        if (count > 0) {
            std::string list;
            for (const auto& d : dups) list += (list.empty() ? "\"" : ", \"") + d + "\"";
            const auto msg = std::to_string(count) + " record key(s) appear more than once: " + list +
                             (count > dups.size() ? ", ..." : "");
            s.setMetric("sort.duplicates", count);
            if (m_spec.duplicatedRecords == spec::DsortPolicy::Abort) return api::Error::conflict(msg);
            logWarn("dsort ", s.id(), ": ", msg);
            ctx.addSkipped(msg);
        }
    }
    if (auto o = spec::orderRecords(records, m_spec.algorithm); !o) return o;
    api::Result<std::vector<spec::DsortOutputShard>> shards = std::vector<spec::DsortOutputShard>{};
    if (m_ekm.empty()) {
        shards = spec::cutShards(records, m_spec);
    } else {
        auto ekm = spec::parseEkm(m_ekm);
        if (!ekm) return ekm.error();
        shards = spec::placeByEkm(records, *ekm, m_spec);
    }
    if (!shards) return shards.error();
    const auto& peers = s.peers();
    std::vector<std::string> ids;
    for (const auto& p : peers) ids.push_back(p.id);
    std::vector<std::vector<DsortAssignment>> perTarget(peers.size());
    for (auto& shard : *shards) {
        DsortAssignment a;
        a.name = shard.name;
        a.bytes = shard.bytes;
        a.records.reserve(shard.records.size());
        for (auto i : shard.records) a.records.push_back({records[i].owner, records[i].index, records[i].size});
        perTarget[api::hrwIndex(ids, api::objectUname(m_spec.outputBck, shard.name))].push_back(std::move(a));
    }
    s.setMetric("sort.records", records.size());
    s.setMetric("sort.output_shards", shards->size());
    s.setMetric("sort.compute_ms", msSince(t0));
    ctx.addDone(records.size(), 0);
    logInfo("dsort ", s.id(), ": ", records.size(), " records into ", shards->size(), " shard(s)");
    for (std::uint32_t i = 0; i < peers.size(); ++i) {
        if (i == s.self()) {
            if (auto p = s.putAssignment(std::move(perTarget[i])); !p) return p;
            continue;
        }
        auto p =
            link.post(peers[i], "assign", {}, assignmentsToJson(perTarget[i]).dump(), [&] { return stopped(ctx); });
        if (!p) return stopped(ctx) ? api::Status{} : p;
    }
    return {};
}

api::Status DsortJob::create(jobs::JobContext& ctx, const std::vector<DsortAssignment>& shards)
{
    std::int64_t bytes = 0;
    std::uint64_t records = 0;
    for (const auto& sh : shards) {
        bytes += static_cast<std::int64_t>(sh.bytes);
        records += sh.records.size();
    }
    ctx.startPhase("create", static_cast<std::int64_t>(shards.size()), bytes);
    {
        std::lock_guard lock(m_mutex);
        m_createShards = static_cast<std::int64_t>(shards.size());
        m_createBytesTotal = bytes;
    }
    m_session->setMetric("create.shards", shards.size());
    m_session->setMetric("create.records", records);
    runParallel(m_spec.createConcurrency, shards.size(), [&](std::size_t i) {
        if (stopped(ctx)) return;
        {
            std::lock_guard lock(m_mutex);
            if (!m_firstError.empty()) return;
        }
        PeerLink link(m_session->id(), m_options.peerTimeout, m_options.clusterKey);
        api::Status st;
        try {
            st = createShard(ctx, shards[i], link);
        } catch (const std::exception& e) {
            st = api::Error::internal(std::string("creation failed unexpectedly: ") + e.what());
        }
        if (!st) {
            std::lock_guard lock(m_mutex);
            if (m_firstError.empty())
                m_firstError = m_spec.outputBck + "/" + shards[i].name + ": " + st.error().message;
        }
    });
    std::lock_guard lock(m_mutex);
    if (!m_firstError.empty()) return api::Error::unavailable(m_firstError);
    return {};
}

api::Status DsortJob::createShard(jobs::JobContext& ctx, const DsortAssignment& shard, PeerLink& link)
{
    if (m_spec.dryRun) {
        ctx.addDone(1, shard.bytes);
        return {};
    }
    auto store = m_session->store();
    if (!store) return api::Error::unavailable("the job's records are gone");
    auto put = m_store.beginPut(m_spec.outputBck, shard.name, {});
    if (!put) return put.error();
    auto& out = **put;
    auto writer = archive::ArchiveWriter::create(m_spec.outputArchiveFormat,
                                                 [&out](const char* d, std::size_t n) { return out.write(d, n); });
    if (!writer) return writer.error();
    auto& aw = **writer;
    const auto& peers = m_session->peers();
    // Records go into the shard as they arrive, file by file: no batch is
    // gathered in memory first.
    RecordStreamParser parser(
        [&aw](std::string_view name, std::int64_t mtime, std::uint64_t size) { return aw.begin(name, size, mtime); },
        [&aw](const char* p, std::size_t n) { return aw.write(p, n); });
    const client::Sink toParser = [&parser](const char* p, std::size_t n) { return parser.feed(p, n); };
    std::size_t i = 0;
    while (i < shard.records.size()) {
        if (stopped(ctx)) return {};  // the work file goes with `put`
        const auto owner = shard.records[i].owner;
        std::vector<std::uint64_t> batch;
        std::uint64_t batchBytes = 0;
        while (i < shard.records.size() && shard.records[i].owner == owner && batch.size() < kMaxPullBatch &&
               (batch.empty() || batchBytes + shard.records[i].size <= kMaxPullBytes)) {
            batch.push_back(shard.records[i].index);
            batchBytes += shard.records[i].size;
            ++i;
        }
        const auto before = parser.records();
        if (owner == m_session->self()) {
            // This target's own files are read in pieces of kLocalChunk.
            auto onRegion = [&](const RecordStore::Region& r) {
                return copyRange(r.fd->get(), r.offset, r.length, toParser, "cannot read the job's records",
                                 kLocalChunk);
            };
            for (auto idx : batch) {
                if (auto st = store->pieces(
                        idx, kLocalChunk, [&](std::string_view b) { return parser.feed(b.data(), b.size()); },
                        onRegion);
                    !st)
                    return st;
            }
        } else if (auto st = link.pull(peers[owner], batch, toParser); !st) {
            return st;
        }
        if (auto st = parser.atRecordEnd(); !st) return prefixed(st.error(), "from target " + peers[owner].id);
        if (parser.records() - before != batch.size()) {
            return api::Error::corruption("target " + peers[owner].id + " sent " +
                                          std::to_string(parser.records() - before) + " records for " +
                                          std::to_string(batch.size()) + " asked");
        }
    }
    if (auto st = aw.finish(); !st) return st;
    if (stopped(ctx)) return {};
    {
        // Listed before the rename, so a cleanup racing the commit (or a
        // restart after a crash) still removes it.
        std::lock_guard lock(m_mutex);
        m_committed.push_back(shard.name);
        journal(shard.name);
    }
    auto committed = out.commit();
    if (!committed) return committed.error();
    {
        std::lock_guard lock(m_mutex);
        m_createBytesTotal += committed->size - static_cast<std::int64_t>(shard.bytes);
        ctx.setTotals(m_createShards, m_createBytesTotal);
    }
    ctx.addDone(1, static_cast<std::uint64_t>(committed->size));
    return {};
}

}  // namespace tessera::daemon::dsort
