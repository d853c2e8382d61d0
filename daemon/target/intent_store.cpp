#include "intent_store.h"

#include "api/checksum.h"
#include "common/fd_io.h"
#include "common/log.h"
#include "common/unique_fd.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::daemon::target {

namespace {
constexpr std::size_t kMaxRecordBytes = 64 * 1024;  // a bucket and a name, with room to spare
}

IntentStore::IntentStore(std::vector<std::string> mountpaths) : m_mountpaths(std::move(mountpaths)) {}

std::string IntentStore::recordPath(std::size_t mp, std::string_view bucket, std::string_view name) const
{
    // Two hashes of the name (bucket and name both in each): one record per name.
    std::string key(bucket);
    key += '\n';
    key += name;
    const auto h1 = api::xxhash64(key, 0);
    const auto h2 = api::xxhash64(key, 0x9e3779b97f4a7c15ULL);
    char hex[40];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(h1),
                  static_cast<unsigned long long>(h2));
    return m_mountpaths[mp] + "/.tessera/intent/" + hex;
}

void IntentStore::load()
{
    std::lock_guard lock(m_mutex);
    for (std::size_t mp = 0; mp < m_mountpaths.size(); ++mp) {
        const auto dir = m_mountpaths[mp] + "/.tessera/intent";
        DIR* d = ::opendir(dir.c_str());
        if (d == nullptr) continue;
        std::unique_ptr<DIR, int (*)(DIR*)> guard(d, ::closedir);
        while (dirent* e = ::readdir(d)) {
            const std::string_view n = e->d_name;
            if (n == "." || n == "..") continue;
            const auto path = dir + "/" + std::string(n);
            UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
            if (!fd.valid()) continue;
            std::string text(kMaxRecordBytes, '\0');
            const auto got = ::read(fd.get(), text.data(), text.size());
            const auto nl = got > 0 ? text.find('\n') : std::string::npos;
            if (got <= 0 || nl == std::string::npos || nl >= static_cast<std::size_t>(got)) {
                // Torn while it was written: the change had not reached any holder yet.
                ::unlink(path.c_str());
                continue;
            }
            text.resize(static_cast<std::size_t>(got));
            auto key = std::make_pair(text.substr(0, nl), text.substr(nl + 1));
            // Kept under the name begin() and settle() use for it.
            const auto canonical = recordPath(mp, key.first, key.second);
            if (canonical != path && ::rename(path.c_str(), canonical.c_str()) != 0) continue;
            auto& entry = m_entries[key];
            entry.mp = mp;
            entry.recorded = true;
            if (!entry.suspect) {
                entry.suspect = true;
                m_suspectCount.fetch_add(1, std::memory_order_acq_rel);
            }
        }
    }
    if (const auto n = m_suspectCount.load(); n > 0) {
        logInfo(n,
                " mirrored object(s) were being changed when this target stopped: reconciled with their copies "
                "before they are served");
    }
}

api::Status IntentStore::begin(std::size_t mp, std::string_view bucket, std::string_view name)
{
    std::lock_guard lock(m_mutex);
    auto [it, fresh] = m_entries.try_emplace(std::make_pair(std::string(bucket), std::string(name)));
    if (it->second.reconciling) {
        return api::Error::unavailable("\"" + std::string(bucket) + "/" + std::string(name) +
                                       "\" is being reconciled with its holders");
    }
    if (it->second.inFlight > 0 || it->second.suspect) {
        ++it->second.inFlight;  // its record is there already
        return {};
    }
    const auto dir = m_mountpaths[mp] + "/.tessera/intent";
    const auto path = recordPath(mp, bucket, name);
    std::string text(bucket);
    text += '\n';
    text += name;
    UniqueFd fd(::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644));
    if (!fd.valid() && errno == ENOENT && (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST)) {
        fd.reset(::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644));  // the first record here
    }
    int err = fd.valid() ? writeAll(fd.get(), text.data(), text.size()) : errno;
    if (err != 0) {
        ::unlink(path.c_str());
        if (fresh) m_entries.erase(it);
        return errnoError(err, "cannot record a change of a mirrored object in " + dir);
    }
    it->second.mp = mp;
    it->second.inFlight = 1;
    it->second.recorded = true;
    return {};
}

bool IntentStore::beginReconcile(std::string_view bucket, std::string_view name, std::chrono::milliseconds wait,
                                 bool* waited)
{
    const auto key = std::make_pair(std::string(bucket), std::string(name));
    const auto deadline = std::chrono::steady_clock::now() + wait;
    std::unique_lock lock(m_mutex);
    for (;;) {
        // Looked up again after each wait: the entry may have been dropped.
        auto it = m_entries.try_emplace(key).first;
        if (it->second.inFlight == 0 && !it->second.reconciling) {
            it->second.reconciling = true;
            return true;
        }
        if (waited != nullptr) *waited = true;
        if (m_idle.wait_until(lock, deadline) == std::cv_status::timeout) {
            it = m_entries.find(key);
            if (it != m_entries.end() && it->second.inFlight == 0 && !it->second.reconciling) continue;
            return false;
        }
    }
}

void IntentStore::endReconcile(std::string_view bucket, std::string_view name)
{
    {
        std::lock_guard lock(m_mutex);
        auto it = m_entries.find(std::make_pair(std::string(bucket), std::string(name)));
        if (it == m_entries.end()) return;
        it->second.reconciling = false;
        dropIfIdle(it);
    }
    m_idle.notify_all();
}

void IntentStore::dropIfIdle(std::map<std::pair<std::string, std::string>, Entry>::iterator it)
{
    if (it->second.inFlight > 0 || it->second.suspect || it->second.reconciling) return;
    if (it->second.recorded) ::unlink(recordPath(it->second.mp, it->first.first, it->first.second).c_str());
    m_entries.erase(it);
}

void IntentStore::end(std::string_view bucket, std::string_view name, Ended how)
{
    endChange(bucket, name, how);
    m_idle.notify_all();  // a reconciliation may wait for this change
}

void IntentStore::endChange(std::string_view bucket, std::string_view name, Ended how)
{
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(std::make_pair(std::string(bucket), std::string(name)));
    if (it == m_entries.end()) return;
    if (it->second.inFlight > 0) --it->second.inFlight;
    if (how != Ended::Settled) {
        it->second.caughtUp = false;  // a new change may have reached holders
        if (!it->second.suspect) {
            it->second.suspect = true;
            it->second.pinned = how == Ended::Pinned;
            m_suspectCount.fetch_add(1, std::memory_order_acq_rel);
        } else if (how == Ended::Unknown) {
            it->second.pinned = false;
        }
    }
    dropIfIdle(it);
}

void IntentStore::settle(std::string_view bucket, std::string_view name)
{
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(std::make_pair(std::string(bucket), std::string(name)));
    if (it == m_entries.end() || !it->second.suspect) return;
    it->second.suspect = false;
    it->second.pinned = false;
    it->second.caughtUp = false;
    m_suspectCount.fetch_sub(1, std::memory_order_acq_rel);
    dropIfIdle(it);
}

void IntentStore::pinCaughtUp(std::string_view bucket, std::string_view name)
{
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(std::make_pair(std::string(bucket), std::string(name)));
    if (it == m_entries.end() || !it->second.suspect || it->second.inFlight > 0) return;
    it->second.pinned = true;
    it->second.caughtUp = true;
}

bool IntentStore::holdersCaughtUp(std::string_view bucket, std::string_view name) const
{
    if (!anySuspect()) return true;
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(std::make_pair(std::string(bucket), std::string(name)));
    return it == m_entries.end() || !it->second.suspect || (it->second.caughtUp && it->second.inFlight == 0);
}

bool IntentStore::suspect(std::string_view bucket, std::string_view name) const
{
    if (!anySuspect()) return false;
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(std::make_pair(std::string(bucket), std::string(name)));
    return it != m_entries.end() && it->second.suspect;
}

bool IntentStore::mustCompare(std::string_view bucket, std::string_view name) const
{
    if (!anySuspect()) return false;
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(std::make_pair(std::string(bucket), std::string(name)));
    return it != m_entries.end() && it->second.suspect && !it->second.pinned;
}

std::vector<std::pair<std::string, std::string>> IntentStore::suspects(std::string_view bucket,
                                                                       bool mustCompareOnly) const
{
    std::vector<std::pair<std::string, std::string>> out;
    if (!anySuspect()) return out;
    std::lock_guard lock(m_mutex);
    for (const auto& [key, e] : m_entries) {
        if (e.suspect && (bucket.empty() || key.first == bucket) && !(mustCompareOnly && e.pinned)) {
            out.push_back(key);
        }
    }
    return out;
}

}  // namespace tessera::daemon::target
