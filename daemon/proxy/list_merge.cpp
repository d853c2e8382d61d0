#include "list_merge.h"

#include "api/json_util.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
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

// Names compared as std::string compares them (bytes as unsigned), eight
// bytes at a time: listing names share long prefixes ("train/000123.jpg"),
// and a merge compares each object's name with the other pages' next one.
int compareNames(std::string_view a, std::string_view b)
{
    static_assert(std::endian::native == std::endian::little, "words are byte-swapped to compare");
    const std::size_t n = std::min(a.size(), b.size());
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t x, y;
        std::memcpy(&x, a.data() + i, 8);
        std::memcpy(&y, b.data() + i, 8);
        if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
    }
    for (; i < n; ++i) {
        if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]) ? -1 : 1;
    }
    return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

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
        std::size_t end;  // after the last object at or before coveredUpTo (and its members)
    };
    std::vector<Cursor> cursors;
    cursors.reserve(pageCount);
    for (std::size_t p = 0; p < pageCount; ++p) {
        Cursor c{p, 0, pages.count(p)};
        // A member before any object cannot be placed: a target never sends
        // one; drop it rather than misattribute it.
        while (c.at < c.end && (pages.flags(p, c.at) & api::kEntryInArch)) ++c.at;
        // Objects past coveredUpTo end the page: they sit at the page's tail
        // (objects are in name order), dropped here once instead of each
        // name being compared with the token.
        if (coveredUpTo) {
            for (std::size_t i = c.end; i > c.at; --i) {
                if (pages.flags(p, i - 1) & api::kEntryInArch) continue;
                if (compareNames(pages.name(p, i - 1), *coveredUpTo) <= 0) break;
                c.end = i - 1;
            }
        }
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
    std::vector<Cursor*> same;  // the other pages whose next object has the chosen name
    same.reserve(pageCount);
    for (;;) {
        Cursor* best = nullptr;
        same.clear();
        for (auto& c : cursors) {
            if (c.at >= c.end) continue;
            const int order = best == nullptr ? -1 : compareNames(nameOf(c), nameOf(*best));
            if (order < 0) {
                best = &c;
                same.clear();
            } else if (order == 0) {
                same.push_back(&c);
            }
        }
        if (best == nullptr) break;
        if (objects == pageSize) {
            out.more = true;
            break;
        }
        // The same object listed by several targets: the newest stamp wins
        // (a stand-in page's; 0 everywhere else, where the first wins), and
        // the other copies are passed over.
        if (!same.empty()) {
            Cursor* first = best;
            for (auto* c : same) {
                if (pages.stamp(c->page, c->at) > pages.stamp(best->page, best->at)) best = c;
            }
            if (best != first) first->at = objectEnd(*first);
            for (auto* c : same) {
                if (c != best) c->at = objectEnd(*c);
            }
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
    // The chosen runs of entries first, then the answer written once at its
    // size (a page is about 350 KB for 10,000 names).
    struct Run {
        std::size_t page, from, to;
    };
    std::vector<Run> runs;
    runs.reserve(pageSize == 0 ? api::kDefaultPageSize : pageSize);
    std::size_t bytes = 0;
    const auto end =
        mergePages(RawPages{pages}, pages.size(), pageSize, [&](std::size_t p, std::size_t from, std::size_t to) {
            runs.push_back({p, from, to});
            const auto& entries = pages[p].entries;
            bytes += entries[to - 1].textAt + entries[to - 1].textSize - entries[from].textAt + (to - from);
        });
    // The text dumpObjectList writes for the merged page (flags 0). The
    // token is a name or a target's token in the scanned form: no escape.
    std::string_view token;
    if (end.more) {
        const auto& last = runs.back();
        token = pages[last.page].name(pages[last.page].entries[last.from]);
    } else if (end.coveredUpTo) {
        token = *end.coveredUpTo;
    }
    std::string out;
    out.reserve(bytes + token.size() + uuid.size() + 96);
    out += "{\"continuation_token\":\"";
    out += token;
    out += "\",\"entries\":[";
    bool first = true;
    for (const auto& run : runs) {
        const auto& page = pages[run.page];
        // An object and its members are adjacent in the target's text.
        const auto& a = page.entries[run.from];
        const auto& b = page.entries[run.to - 1];
        if (!first) out.push_back(',');
        first = false;
        out.append(page.body, a.textAt, b.textAt + b.textSize - a.textAt);
    }
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
