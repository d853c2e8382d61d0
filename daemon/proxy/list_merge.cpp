#include "list_merge.h"

#include <algorithm>
#include <optional>
#include <string>

namespace tessera::daemon::proxy {

namespace {

// One object and the member entries that follow it.
struct Group {
    api::ObjEntry object;
    std::vector<api::ObjEntry> members;
};

}  // namespace

api::ObjectList mergeListPages(std::vector<api::ObjectList> pages, std::uint32_t pageSize)
{
    // Everything up to the smallest target token is known for every target;
    // nothing beyond it may be sent.
    std::optional<std::string> coveredUpTo;  // unset: every target reached its end
    std::vector<Group> groups;
    for (auto& page : pages) {
        if (!page.continuationToken.empty() && (!coveredUpTo || page.continuationToken < *coveredUpTo)) {
            coveredUpTo = page.continuationToken;
        }
        bool haveGroup = false;
        for (auto& e : page.entries) {
            if (e.flags & api::kEntryInArch) {
                // A member before any object cannot be placed: a target
                // never sends one; drop it rather than misattribute it.
                if (haveGroup) groups.back().members.push_back(std::move(e));
                continue;
            }
            groups.push_back({std::move(e), {}});
            haveGroup = true;
        }
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const Group& a, const Group& b) { return a.object.name < b.object.name; });
    groups.erase(std::unique(groups.begin(), groups.end(),
                             [](const Group& a, const Group& b) { return a.object.name == b.object.name; }),
                 groups.end());
    if (coveredUpTo) {
        groups.erase(std::upper_bound(groups.begin(), groups.end(), *coveredUpTo,
                                      [](const std::string& n, const Group& g) { return n < g.object.name; }),
                     groups.end());
    }
    api::ObjectList out;
    if (pageSize == 0) pageSize = api::kDefaultPageSize;
    if (groups.size() > pageSize) {
        groups.resize(pageSize);
        out.continuationToken = groups.back().object.name;
    } else if (coveredUpTo) {
        out.continuationToken = *coveredUpTo;  // every name up to here is in this page
    }
    for (auto& g : groups) {
        out.entries.push_back(std::move(g.object));
        for (auto& m : g.members) out.entries.push_back(std::move(m));
    }
    return out;
}

}  // namespace tessera::daemon::proxy
