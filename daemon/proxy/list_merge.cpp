#include "list_merge.h"

#include "api/json_util.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::daemon::proxy {

namespace {

// How mergePages reads either kind of page.
struct DecodedPages {
    std::vector<api::ObjectList>& pages;
    std::size_t count(std::size_t p) const { return pages[p].entries.size(); }
    std::string_view name(std::size_t p, std::size_t i) const { return pages[p].entries[i].name; }
    std::uint32_t flags(std::size_t p, std::size_t i) const { return pages[p].entries[i].flags; }
    std::int64_t stamp(std::size_t p, std::size_t i) const { return pages[p].entries[i].stamp; }
    std::string_view token(std::size_t p) const { return pages[p].continuationToken; }
};

struct RawPages {
    const std::vector<api::RawObjectList>& pages;
    std::size_t count(std::size_t p) const { return pages[p].entries.size(); }
    std::string_view name(std::size_t p, std::size_t i) const { return pages[p].name(pages[p].entries[i]); }
    std::uint32_t flags(std::size_t p, std::size_t i) const { return pages[p].entries[i].flags; }
    std::int64_t stamp(std::size_t, std::size_t) const { return 0; }  // a raw page has none
    std::string_view token(std::size_t p) const { return pages[p].continuationToken(); }
};

// Where a merge stopped: `more` when objects are known beyond the page (it
// is cut after its last object); else `coveredUpTo`, the smallest target
// token, when a target has more (nullopt: every target reached its end).
struct MergeEnd {
    bool more = false;
    std::optional<std::string> coveredUpTo;
};

// The merge, over either kind of page: `take(p, from, to)` is given the
// entries [from, to) of page p (an object and its members) in page order.
template <typename Pages, typename Take>
MergeEnd mergePages(const Pages& pages, std::size_t pageCount, std::uint32_t pageSize, Take&& take)
{
    // Everything up to the smallest target token is known for every target;
    // nothing beyond it may be sent.
    std::optional<std::string_view> coveredUpTo;
    for (std::size_t p = 0; p < pageCount; ++p) {
        const auto token = pages.token(p);
        if (!token.empty() && (!coveredUpTo || token < *coveredUpTo)) coveredUpTo = token;
    }
    // A k-way merge of the pages (each in name order): at each step the page
    // whose next object has the smallest name gives that object and its
    // members; on a tie the earlier page wins and the others skip theirs.
    struct Cursor {
        std::size_t page;
        std::size_t at = 0;
        std::size_t end;
    };
    std::vector<Cursor> cursors;
    cursors.reserve(pageCount);
    for (std::size_t p = 0; p < pageCount; ++p) {
        Cursor c{p, 0, pages.count(p)};
        // A member before any object cannot be placed: a target never sends
        // one; drop it rather than misattribute it.
        while (c.at < c.end && (pages.flags(p, c.at) & api::kEntryInArch)) ++c.at;
        cursors.push_back(c);
    }
    const auto objectEnd = [&](const Cursor& c) {
        std::size_t end = c.at + 1;
        while (end < c.end && (pages.flags(c.page, end) & api::kEntryInArch)) ++end;
        return end;
    };
    const auto nameOf = [&](const Cursor& c) { return pages.name(c.page, c.at); };

    if (pageSize == 0) pageSize = api::kDefaultPageSize;
    std::uint32_t objects = 0;
    MergeEnd out;
    for (;;) {
        Cursor* best = nullptr;
        for (auto& c : cursors) {
            if (c.at >= c.end) continue;
            if (best == nullptr || nameOf(c) < nameOf(*best)) best = &c;
        }
        if (best == nullptr) break;
        const std::string_view name = nameOf(*best);
        if (coveredUpTo && name > *coveredUpTo) break;
        if (objects == pageSize) {
            out.more = true;
            break;
        }
        // The same object listed by several targets: the newest stamp wins
        // (a stand-in page's; 0 everywhere else, where the first wins).
        for (auto& c : cursors) {
            if (&c == best || c.at >= c.end) continue;
            if (nameOf(c) == name && pages.stamp(c.page, c.at) > pages.stamp(best->page, best->at)) best = &c;
        }
        // The other copies are passed over. (`name` is not read after the
        // chosen entries are taken: taking may move them out.)
        for (auto& c : cursors) {
            if (&c != best && c.at < c.end && nameOf(c) == name) c.at = objectEnd(c);
        }
        const auto end = objectEnd(*best);
        // A deletion newer than every version listed: the name is gone (as
        // a read of it answers), and the page does not count it.
        const bool deleted = (pages.flags(best->page, best->at) & api::kEntryStatusMask) == api::kEntryStatusDeleted;
        if (!deleted) {
            take(best->page, best->at, end);
            ++objects;
        }
        best->at = end;
    }
    if (!out.more && coveredUpTo) out.coveredUpTo = std::string(*coveredUpTo);
    return out;
}

}  // namespace

api::ObjectList mergeListPages(std::vector<api::ObjectList> pages, std::uint32_t pageSize)
{
    std::size_t total = 0;
    for (const auto& page : pages) total += page.entries.size();
    api::ObjectList out;
    out.entries.reserve(std::min<std::size_t>(total, pageSize == 0 ? api::kDefaultPageSize : pageSize));
    const auto end =
        mergePages(DecodedPages{pages}, pages.size(), pageSize, [&](std::size_t p, std::size_t from, std::size_t to) {
            for (std::size_t i = from; i < to; ++i) {
                out.entries.push_back(std::move(pages[p].entries[i]));
                out.entries.back().stamp = 0;  // between a target and the proxy only
            }
        });
    if (end.more) {
        // Cut after the last object of the page.
        for (auto it = out.entries.rbegin(); it != out.entries.rend(); ++it) {
            if (!(it->flags & api::kEntryInArch)) {
                out.continuationToken = it->name;
                break;
            }
        }
    } else if (end.coveredUpTo) {
        out.continuationToken = *end.coveredUpTo;  // every name up to here is in this page
    }
    return out;
}

std::string mergeRawListPages(const std::vector<api::RawObjectList>& pages, std::uint32_t pageSize,
                              std::string_view uuid)
{
    std::size_t bytes = 96 + uuid.size();
    for (const auto& page : pages) bytes += page.body.size();
    std::string entries;
    entries.reserve(std::min<std::size_t>(bytes, 64u << 20));
    std::string_view lastObject;  // the name of the last object taken
    const auto end =
        mergePages(RawPages{pages}, pages.size(), pageSize, [&](std::size_t p, std::size_t from, std::size_t to) {
            const auto& page = pages[p];
            lastObject = page.name(page.entries[from]);
            for (std::size_t i = from; i < to; ++i) {
                if (!entries.empty()) entries.push_back(',');
                entries += page.text(page.entries[i]);
            }
        });
    // The text dumpObjectList writes for the merged page (flags 0); the
    // token is a name or target token of the scanned form, which needs no
    // escape.
    const std::string_view token = end.more ? lastObject : end.coveredUpTo ? *end.coveredUpTo : std::string_view{};
    std::string out;
    out.reserve(entries.size() + token.size() + uuid.size() + 96);
    out += "{\"continuation_token\":\"";
    out += token;
    out += "\",\"entries\":[";
    out += entries;
    out += "],\"flags\":0,\"uuid\":";
    api::appendJsonString(out, uuid);
    out.push_back('}');
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
