#include "commit_log.h"

#include "api/checksum.h"
#include "common/fd_io.h"
#include "common/log.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::daemon::target {

namespace {

constexpr std::uint32_t kMagic = 0x4C435354;  // "TSCL" little-endian
// Offsets in the header.
constexpr std::size_t kOffUseId = 8;
constexpr std::size_t kOffSeq = 16;
constexpr std::size_t kOffLens = 24;
constexpr std::size_t kOffHash = 40;

void putU32(char* p, std::uint32_t v) { std::memcpy(p, &v, 4); }
void putU64(char* p, std::uint64_t v) { std::memcpy(p, &v, 8); }
std::uint32_t getU32(const char* p)
{
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
std::uint64_t getU64(const char* p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// The record's hash: its header with the hash field zero, then the payload.
std::uint64_t recordHash(std::string_view record)
{
    char header[CommitLog::kHeaderBytes];
    std::memcpy(header, record.data(), CommitLog::kHeaderBytes);
    putU64(header + kOffHash, 0);
    api::Xxh64Stream h;
    h.update(header, CommitLog::kHeaderBytes);
    h.update(record.data() + CommitLog::kHeaderBytes, record.size() - CommitLog::kHeaderBytes);
    return h.digest();
}

// Fills in the use id and sequence of an encoded record, and its hash.
void stampRecord(std::string& record, std::uint64_t useId, std::uint64_t seq)
{
    putU64(record.data() + kOffUseId, useId);
    putU64(record.data() + kOffSeq, seq);
    putU64(record.data() + kOffHash, recordHash(record));
}

std::uint64_t randomUseId()
{
    std::uint64_t v = 0;
    while (v == 0) {
        if (::getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
            v = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                (static_cast<std::uint64_t>(::getpid()) << 40);
        }
    }
    return v;
}

int preadAll(int fd, char* p, std::size_t n, std::uint64_t off)
{
    while (n > 0) {
        const auto r = ::pread(fd, p, n, static_cast<off_t>(off));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return errno;
        if (r == 0) return EIO;  // past the end
        p += r;
        n -= static_cast<std::size_t>(r);
        off += static_cast<std::uint64_t>(r);
    }
    return 0;
}

}  // namespace

// ------------------------------------------------------------------ Ticket

CommitLog::Ticket::Ticket(Ticket&& o) noexcept
    : m_log(std::exchange(o.m_log, nullptr)), m_segment(std::exchange(o.m_segment, -1)), m_error(o.m_error)
{
}

CommitLog::Ticket& CommitLog::Ticket::operator=(Ticket&& o) noexcept
{
    if (this != &o) {
        release();
        m_log = std::exchange(o.m_log, nullptr);
        m_segment = std::exchange(o.m_segment, -1);
        m_error = o.m_error;
    }
    return *this;
}

void CommitLog::Ticket::release()
{
    if (m_log == nullptr || m_segment < 0) return;
    {
        std::lock_guard lock(m_log->m_mutex);
        auto& seg = m_log->m_segs[static_cast<std::size_t>(m_segment)];
        if (seg.inflight > 0 && --seg.inflight == 0) m_log->m_closingCv.notify_all();
    }
    m_log = nullptr;
    m_segment = -1;
}

// --------------------------------------------------------------- CommitLog

std::string CommitLog::encodeRecord(std::uint64_t useId, std::uint64_t seq, std::string_view bucket,
                                    std::string_view name, std::string_view meta, std::string_view data)
{
    auto r = layoutRecord(bucket, name, meta, data);
    stampRecord(r, useId, seq);
    return r;
}

std::string CommitLog::layoutRecord(std::string_view bucket, std::string_view name, std::string_view meta,
                                    std::string_view data)
{
    auto r = startRecord(bucket, name);
    r.append(data);
    finishRecord(r, meta);
    return r;
}

std::string CommitLog::startRecord(std::string_view bucket, std::string_view name)
{
    std::string r(kHeaderBytes, '\0');
    putU32(r.data(), kMagic);
    putU32(r.data() + 4, static_cast<std::uint32_t>(kHeaderBytes));
    putU32(r.data() + kOffLens, static_cast<std::uint32_t>(bucket.size()));
    putU32(r.data() + kOffLens + 4, static_cast<std::uint32_t>(name.size()));
    r.append(bucket);
    r.append(name);
    return r;
}

void CommitLog::finishRecord(std::string& record, std::string_view meta)
{
    const auto data =
        record.size() - kHeaderBytes - getU32(record.data() + kOffLens) - getU32(record.data() + kOffLens + 4);
    putU32(record.data() + kOffLens + 8, static_cast<std::uint32_t>(data));
    putU32(record.data() + kOffLens + 12, static_cast<std::uint32_t>(meta.size()));
    record.append(meta);
}

std::vector<CommitLog::Record> CommitLog::scanSegment(int fd, std::uint64_t size)
{
    std::vector<Record> out;
    std::uint64_t off = 0;
    std::uint64_t useId = 0;
    std::uint64_t lastSeq = 0;
    std::string record;
    while (off + kHeaderBytes <= size) {
        char h[kHeaderBytes];
        if (preadAll(fd, h, kHeaderBytes, off) != 0) break;
        if (getU32(h) != kMagic || getU32(h + 4) != kHeaderBytes) break;
        const auto id = getU64(h + kOffUseId);
        const auto seq = getU64(h + kOffSeq);
        if (off == 0 ? id == 0 : (id != useId || seq != lastSeq + 1)) break;
        std::uint64_t lens[4];
        std::uint64_t payload = 0;
        for (int i = 0; i < 4; ++i) {
            lens[i] = getU32(h + kOffLens + 4 * i);
            payload += lens[i];
        }
        if (payload > size - off - kHeaderBytes) break;
        record.assign(h, kHeaderBytes);
        record.resize(kHeaderBytes + payload);
        if (preadAll(fd, record.data() + kHeaderBytes, payload, off + kHeaderBytes) != 0) break;
        if (recordHash(record) != getU64(h + kOffHash)) break;
        Record r;
        r.seq = seq;
        std::size_t at = kHeaderBytes;
        std::string* parts[4] = {&r.bucket, &r.name, &r.data, &r.meta};
        for (int i = 0; i < 4; ++i) {
            parts[i]->assign(record.data() + at, lens[i]);
            at += lens[i];
        }
        out.push_back(std::move(r));
        useId = id;
        lastSeq = seq;
        off += kHeaderBytes + payload;
    }
    return out;
}

CommitLog::CommitLog(Options options, UniqueFd syncFd) : m_options(options), m_syncFd(std::move(syncFd)) {}

api::Result<std::unique_ptr<CommitLog>> CommitLog::open(const std::string& dir, const std::string& syncPath,
                                                        Options options, std::vector<Record>* leftover)
{
    const auto fail = [](const std::string& what, int e) { return api::Error::ioError(what, std::strerror(e)); };
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return fail("cannot create " + dir, errno);
    UniqueFd syncFd(::open(syncPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!syncFd.valid()) return fail("cannot open " + syncPath, errno);
    std::unique_ptr<CommitLog> log(new CommitLog(options, std::move(syncFd)));
    std::vector<Record> found;
    for (std::size_t s = 0; s < 2; ++s) {
        const auto path = dir + "/seg-" + std::to_string(s);
        UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
        if (!fd.valid()) return fail("cannot open " + path, errno);
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) return fail("cannot stat " + path, errno);
        const auto size = static_cast<std::uint64_t>(st.st_size);
        auto records = scanSegment(fd.get(), size);
        for (auto& r : records) found.push_back(std::move(r));
        if (size < options.segmentBytes) {
            // Preallocated, so that an append changes no file size: its
            // sync writes the bytes, not the inode.
            int e = ::posix_fallocate(fd.get(), 0, static_cast<off_t>(options.segmentBytes));
            if (e == EOPNOTSUPP || e == EINVAL) {
                e = ::ftruncate(fd.get(), static_cast<off_t>(options.segmentBytes)) == 0 ? 0 : errno;
            }
            if (e != 0) return fail("cannot preallocate " + path, e);
            if (::fsync(fd.get()) != 0) return fail("cannot sync " + path, errno);
        }
        log->m_segs[s].fd = std::move(fd);
    }
    std::stable_sort(found.begin(), found.end(), [](const Record& a, const Record& b) { return a.seq < b.seq; });
    for (const auto& r : found) log->m_seq = std::max(log->m_seq, r.seq);
    log->m_active = 0;
    log->m_segs[0].state = SegState::Active;
    log->m_segs[0].useId = randomUseId();
    if (leftover != nullptr) *leftover = std::move(found);
    log->m_writer = std::thread([l = log.get()] { l->writerLoop(); });
    log->m_checkpointer = std::thread([l = log.get()] { l->checkpointLoop(); });
    return log;
}

CommitLog::~CommitLog()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_closingCv.notify_all();
    m_freeCv.notify_all();
    if (m_writer.joinable()) m_writer.join();
    if (m_checkpointer.joinable()) m_checkpointer.join();
}

int CommitLog::clearSegment(int s)
{
    // A zero header ends every scan of the segment at its start.
    const char zeros[kHeaderBytes] = {};
    const int fd = m_segs[static_cast<std::size_t>(s)].fd.get();
    if (const int e = pwriteAll(fd, zeros, sizeof zeros, 0); e != 0) return e;
    if (::fdatasync(fd) != 0) return errno;
    return 0;
}

int CommitLog::clearLeftovers()
{
    if (::syncfs(m_syncFd.get()) != 0) return errno;
    for (int s = 0; s < 2; ++s) {
        if (const int e = clearSegment(s); e != 0) return e;
    }
    return 0;
}

CommitLog::Ticket CommitLog::append(std::string_view bucket, std::string_view name, std::string_view meta,
                                    std::string_view data)
{
    if (bucket.size() > UINT32_MAX || name.size() > UINT32_MAX || data.size() > m_options.segmentBytes) {
        Ticket t;
        t.m_error = EFBIG;
        return t;
    }
    auto record = startRecord(bucket, name);
    record.append(data);
    return append(std::move(record), meta);
}

CommitLog::Ticket CommitLog::append(std::string record, std::string_view meta)
{
    Ticket t;
    if (record.size() + meta.size() > m_options.segmentBytes) {
        t.m_error = EFBIG;
        return t;
    }
    Pending p;
    finishRecord(record, meta);
    p.bytes = std::move(record);  // use id, sequence and hash: by the writer
    std::unique_lock lock(m_mutex);
    if (m_failed != 0 || m_stop) {
        t.m_error = m_failed != 0 ? m_failed : ECANCELED;
        return t;
    }
    m_pending.push_back(&p);
    m_wake.notify_one();
    p.cv.wait(lock, [&] { return p.done; });
    t.m_error = p.error;
    if (p.error == 0) {
        t.m_log = this;
        t.m_segment = p.segment;
    }
    return t;
}

bool CommitLog::switchSegments(std::unique_lock<std::mutex>& lock)
{
    auto& cur = m_segs[static_cast<std::size_t>(m_active)];
    if (cur.offset > 0) {
        cur.state = SegState::Closing;
        m_closingCv.notify_all();
    } else {
        cur.state = SegState::Free;
    }
    const int next = 1 - m_active;
    m_freeCv.wait(lock, [&] {
        return m_stop || m_failed != 0 || m_segs[static_cast<std::size_t>(next)].state == SegState::Free;
    });
    if (m_stop || m_failed != 0) {
        // Nothing is written from here on; the segment stays as it is.
        if (cur.state == SegState::Free) cur.state = SegState::Active;
        return false;
    }
    m_active = next;
    auto& seg = m_segs[static_cast<std::size_t>(next)];
    seg.state = SegState::Active;
    seg.useId = randomUseId();
    seg.offset = 0;
    ++m_switches;
    m_freeCv.notify_all();
    return true;
}

void CommitLog::writerLoop()
{
    std::vector<Pending*> batch;
    std::unique_lock lock(m_mutex);
    for (;;) {
        const auto due = [&] {
            const auto& a = m_segs[static_cast<std::size_t>(m_active)];
            return a.offset > 0 && std::chrono::steady_clock::now() >= a.firstRecord + m_options.checkpointAfter &&
                   m_segs[static_cast<std::size_t>(1 - m_active)].state == SegState::Free;
        };
        const auto woken = [&] { return m_stop || !m_pending.empty() || m_checkpointWanted > 0 || due(); };
        const auto& active = m_segs[static_cast<std::size_t>(m_active)];
        if (active.offset > 0) {
            m_wake.wait_until(lock, active.firstRecord + m_options.checkpointAfter, woken);
            // After the deadline with the other segment still closing:
            // wait for it (or for records) rather than spin.
            if (!woken()) m_freeCv.wait_for(lock, std::chrono::milliseconds(50));
        } else {
            m_wake.wait(lock, woken);
        }
        if (m_stop) {
            for (auto* p : m_pending) {
                p->error = ECANCELED;
                p->done = true;
                p->cv.notify_one();
            }
            m_pending.clear();
            return;
        }
        if (m_checkpointWanted > 0 || due()) {
            if (m_segs[static_cast<std::size_t>(m_active)].offset > 0) {
                if (!switchSegments(lock) && m_stop) continue;
            } else {
                ++m_switches;
            }
            m_checkpointWanted = 0;
            m_freeCv.notify_all();
        }
        if (m_pending.empty()) continue;
        batch.assign(m_pending.begin(), m_pending.end());
        m_pending.clear();

        // Each record gets its segment, place and sequence (under the lock:
        // a full segment is handed to the checkpoint and the other taken);
        // the hashing and copying into one buffer per segment come after.
        std::size_t assigned = 0;
        int failed = m_failed;
        bool switched = false;
        for (auto* p : batch) {
            if (failed != 0) break;
            auto* seg = &m_segs[static_cast<std::size_t>(m_active)];
            if (seg->offset + p->bytes.size() > m_options.segmentBytes) {
                // One switch per batch: the segment left behind cannot be
                // checkpointed while this batch's records in it are not
                // written, so the rest wait for the next batch.
                if (switched) break;
                switched = true;
                if (!switchSegments(lock)) {
                    failed = m_failed != 0 ? m_failed : ECANCELED;
                    break;
                }
                seg = &m_segs[static_cast<std::size_t>(m_active)];
            }
            if (seg->offset == 0) seg->firstRecord = std::chrono::steady_clock::now();
            putU64(p->bytes.data() + kOffUseId, seg->useId);
            putU64(p->bytes.data() + kOffSeq, ++m_seq);
            p->segment = m_active;
            p->offset = seg->offset;
            seg->offset += p->bytes.size();
            ++seg->inflight;  // until its ticket goes: no checkpoint before
            ++assigned;
        }
        lock.unlock();
        struct Write {
            int segment;
            std::uint64_t offset;
            std::string bytes;
        };
        std::vector<Write> writes;
        for (std::size_t i = 0; failed == 0 && i < assigned; ++i) {
            auto* p = batch[i];
            putU64(p->bytes.data() + kOffHash, recordHash(p->bytes));
            if (writes.empty() || writes.back().segment != p->segment) writes.push_back({p->segment, p->offset, {}});
            writes.back().bytes += p->bytes;
        }
        int error = failed;
        bool synced[2] = {false, false};
        for (const auto& w : writes) {
            if (error != 0) break;
            error = pwriteAll(m_segs[static_cast<std::size_t>(w.segment)].fd.get(), w.bytes.data(), w.bytes.size(),
                              w.offset);
        }
        for (const auto& w : writes) {
            if (error != 0 || synced[w.segment]) continue;
            if (::fdatasync(m_segs[static_cast<std::size_t>(w.segment)].fd.get()) != 0) error = errno;
            synced[w.segment] = true;
        }
        lock.lock();
        if (failed == 0 && assigned < batch.size()) {
            // Not taken by this batch: first in the next.
            m_pending.insert(m_pending.begin(), batch.begin() + static_cast<std::ptrdiff_t>(assigned), batch.end());
            batch.resize(assigned);
        }
        m_syncs += static_cast<std::uint64_t>(synced[0]) + static_cast<std::uint64_t>(synced[1]);
        if (error != 0 && m_failed == 0) {
            m_failed = error;
            logWarn("commit log: a write or sync failed (", std::strerror(error), "); small PUTs fail from now on");
        }
        for (std::size_t i = 0; i < batch.size(); ++i) {
            auto* p = batch[i];
            if (error != 0) {
                if (i < assigned) {
                    auto& seg = m_segs[static_cast<std::size_t>(p->segment)];
                    if (seg.inflight > 0) --seg.inflight;
                }
                p->error = error != 0 ? error : EIO;
            } else {
                ++m_appended;
            }
        }
        // Each appender is woken alone, with the mutex held: its Pending
        // (on its stack) outlives the notification.
        for (auto* p : batch) {
            p->done = true;
            p->cv.notify_one();
        }
        m_closingCv.notify_all();
        m_freeCv.notify_all();
        batch.clear();
    }
}

void CommitLog::checkpointLoop()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        int closing = -1;
        m_closingCv.wait(lock, [&] {
            if (m_stop) return true;
            for (int s = 0; s < 2; ++s) {
                const auto& seg = m_segs[static_cast<std::size_t>(s)];
                if (seg.state == SegState::Closing && seg.inflight == 0 && m_failed == 0) {
                    closing = s;
                    return true;
                }
            }
            return false;
        });
        if (m_stop) return;
        lock.unlock();
        // Every record of the segment is in place as a file (or given up):
        // one sync of the filesystem makes them durable without the log.
        int e = ::syncfs(m_syncFd.get()) == 0 ? 0 : errno;
        if (e == 0) e = clearSegment(closing);
        lock.lock();
        if (e != 0) {
            if (m_failed == 0) {
                m_failed = e;
                logWarn("commit log: a checkpoint failed (", std::strerror(e),
                        "); its records stay for the next start, small PUTs fail from now on");
            }
        } else {
            auto& seg = m_segs[static_cast<std::size_t>(closing)];
            seg.state = SegState::Free;
            seg.offset = 0;
            ++m_cleared;
        }
        m_freeCv.notify_all();
        m_wake.notify_all();
    }
}

int CommitLog::checkpoint()
{
    std::unique_lock lock(m_mutex);
    if (m_failed != 0) return m_failed;
    const auto hasRecords = [&] {
        for (const auto& seg : m_segs) {
            if (seg.state == SegState::Closing || (seg.state == SegState::Active && seg.offset > 0)) return true;
        }
        return false;
    };
    if (!hasRecords()) return 0;
    if (m_segs[static_cast<std::size_t>(m_active)].offset > 0) {
        const auto want = m_switches + 1;
        ++m_checkpointWanted;
        m_wake.notify_all();
        m_freeCv.wait(lock, [&] { return m_stop || m_failed != 0 || m_switches >= want; });
    }
    m_freeCv.wait(lock, [&] {
        return m_stop || m_failed != 0 || std::none_of(m_segs.begin(), m_segs.end(), [](const Segment& s) {
                   return s.state == SegState::Closing;
               });
    });
    if (m_failed != 0) return m_failed;
    return m_stop ? ECANCELED : 0;
}

std::uint64_t CommitLog::syncs() const
{
    std::lock_guard lock(m_mutex);
    return m_syncs;
}

std::uint64_t CommitLog::appended() const
{
    std::lock_guard lock(m_mutex);
    return m_appended;
}

std::uint64_t CommitLog::checkpoints() const
{
    std::lock_guard lock(m_mutex);
    return m_cleared;
}

}  // namespace tessera::daemon::target
