#include "list_merge.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace tessera::daemon::proxy {

api::ObjectList mergeListPages(std::vector<api::ObjectList> pages, std::uint32_t pageSize)
{
    // Everything up to the smallest target token is known for every target;
    // nothing beyond it may be sent.
    const std::string* coveredUpTo = nullptr;  // null: every target reached its end
    for (const auto& page : pages) {
        if (!page.continuationToken.empty() && (!coveredUpTo || page.continuationToken < *coveredUpTo)) {
            coveredUpTo = &page.continuationToken;
        }
    }
    // A k-way merge of the pages (each in name order): at each step the page
    // whose next object has the smallest name gives that object and its
    // members; on a tie the earlier page wins and the others skip theirs.
    struct Cursor {
        std::vector<api::ObjEntry>* entries;
        std::size_t at = 0;
    };
    std::vector<Cursor> cursors;
    cursors.reserve(pages.size());
    std::size_t total = 0;
    for (auto& page : pages) {
        Cursor c{&page.entries};
        // A member before any object cannot be placed: a target never sends
        // one; drop it rather than misattribute it.
        while (c.at < c.entries->size() && ((*c.entries)[c.at].flags & api::kEntryInArch)) ++c.at;
        total += c.entries->size();
        cursors.push_back(c);
    }
    const auto objectEnd = [](const Cursor& c) {
        std::size_t end = c.at + 1;
        while (end < c.entries->size() && ((*c.entries)[end].flags & api::kEntryInArch)) ++end;
        return end;
    };

    api::ObjectList out;
    if (pageSize == 0) pageSize = api::kDefaultPageSize;
    out.entries.reserve(std::min<std::size_t>(total, pageSize));
    std::uint32_t objects = 0;
    bool more = false;  // objects known beyond this page
    for (;;) {
        Cursor* best = nullptr;
        for (auto& c : cursors) {
            if (c.at >= c.entries->size()) continue;
            if (best == nullptr || (*c.entries)[c.at].name < (*best->entries)[best->at].name) best = &c;
        }
        if (best == nullptr) break;
        const std::string& name = (*best->entries)[best->at].name;
        if (coveredUpTo && name > *coveredUpTo) break;
        if (objects == pageSize) {
            more = true;
            break;
        }
        // The same object listed by several targets: the newest stamp wins
        // (a stand-in page's; 0 everywhere else, where the first wins).
        // (`name` is read until the chosen entry is moved out, after both loops.)
        for (auto& c : cursors) {
            if (&c == best || c.at >= c.entries->size()) continue;
            const auto& e = (*c.entries)[c.at];
            if (e.name == name && e.stamp > (*best->entries)[best->at].stamp) best = &c;
        }
        // The other copies are passed over (no copy of the name kept).
        for (auto& c : cursors) {
            if (&c != best && c.at < c.entries->size() && (*c.entries)[c.at].name == name) c.at = objectEnd(c);
        }
        const auto end = objectEnd(*best);
        // A deletion newer than every version listed: the name is gone (as
        // a read of it answers), and the page does not count it.
        const bool deleted = ((*best->entries)[best->at].flags & api::kEntryStatusMask) == api::kEntryStatusDeleted;
        if (!deleted) {
            for (std::size_t i = best->at; i < end; ++i) {
                out.entries.push_back(std::move((*best->entries)[i]));
                out.entries.back().stamp = 0;  // between a target and the proxy only
            }
            ++objects;
        }
        best->at = end;
    }
    if (more) {
        // Cut after the last object of the page.
        for (auto it = out.entries.rbegin(); it != out.entries.rend(); ++it) {
            if (!(it->flags & api::kEntryInArch)) {
                out.continuationToken = it->name;
                break;
            }
        }
    } else if (coveredUpTo) {
        out.continuationToken = *coveredUpTo;  // every name up to here is in this page
    }
    return out;
}

std::uint32_t perTargetPageSize(std::uint32_t pageSize, std::uint32_t targets)
{
    if (pageSize == 0) pageSize = api::kDefaultPageSize;
    if (targets <= 1) return pageSize;
    const std::uint64_t even = (std::uint64_t{pageSize} + targets - 1) / targets;
    const std::uint64_t quarter =
        (std::uint64_t{pageSize} * 5 + std::uint64_t{targets} * 4 - 1) / (std::uint64_t{targets} * 4) - even;
    const auto spread = static_cast<std::uint64_t>(std::ceil(4 * std::sqrt(static_cast<double>(even))));
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(pageSize, even + std::min(quarter, spread) + 16));
}

}  // namespace tessera::daemon::proxy
