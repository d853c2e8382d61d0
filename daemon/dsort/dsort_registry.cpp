#include "dsort_registry.h"

#include "common/log.h"

#include <filesystem>

namespace tessera::daemon::dsort {

namespace {
std::string dsortRoot(const std::string& mountpath) { return mountpath + "/.tessera/dsort"; }
}  // namespace

DsortRegistry::DsortRegistry(std::vector<std::string> mountpaths) : m_mountpaths(std::move(mountpaths))
{
    for (const auto& mp : m_mountpaths) {
        std::error_code ec;
        std::filesystem::remove_all(dsortRoot(mp), ec);
        if (ec) logWarn("cannot remove leftover dSort spill files under ", dsortRoot(mp), ": ", ec.message());
    }
}

std::string DsortRegistry::spillDir(const std::string& id) const
{
    return dsortRoot(m_mountpaths.empty() ? std::string("/tmp") : m_mountpaths.front()) + "/" + id;
}

api::Status DsortRegistry::add(std::shared_ptr<DsortSession> session)
{
    std::lock_guard lock(m_mutex);
    if (m_sessions.count(session->id())) return api::Error::conflict("dSort job " + session->id() + " already exists");
    if (m_order.size() >= kHistory) {
        for (auto it = m_order.begin(); it != m_order.end(); ++it) {
            auto s = m_sessions.find(*it);
            if (s != m_sessions.end() && s->second->finished()) {
                m_sessions.erase(s);
                m_order.erase(it);
                break;
            }
        }
    }
    if (auto early = m_earlyFailures.find(session->id()); early != m_earlyFailures.end()) {
        session->fail(early->second);
        m_earlyFailures.erase(early);
    }
    m_order.push_back(session->id());
    m_sessions.emplace(session->id(), std::move(session));
    return {};
}

void DsortRegistry::fail(const std::string& id, std::string reason)
{
    std::shared_ptr<DsortSession> session;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_sessions.find(id);
        if (it == m_sessions.end()) {
            if (m_earlyFailures.emplace(id, std::move(reason)).second) m_earlyOrder.push_back(id);
            while (m_earlyOrder.size() > kMaxEarlyFailures) {
                m_earlyFailures.erase(m_earlyOrder.front());
                m_earlyOrder.pop_front();
            }
            return;
        }
        session = it->second;
    }
    session->fail(std::move(reason));
}

std::shared_ptr<DsortSession> DsortRegistry::find(const std::string& id) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_sessions.find(id);
    return it == m_sessions.end() ? nullptr : it->second;
}

}  // namespace tessera::daemon::dsort
