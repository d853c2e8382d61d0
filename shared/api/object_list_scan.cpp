#include "object_list_scan.h"

#include "json_scan.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tessera::api::detail {

namespace {

using Scanner = JsonScanner;

bool decimal(std::string_view s, std::int64_t& v)
{
    if (s.empty()) return false;
    std::uint64_t u = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (u > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - d) / 10) return false;
        u = u * 10 + d;
    }
    v = static_cast<std::int64_t>(u);
    return true;
}

bool entry(Scanner& s, ObjEntry& e)
{
    if (!s.eat('{')) return false;
    e.size = -1;  // absent: the listing did not ask for sizes
    bool named = false;
    if (s.eat('}')) return false;  // no name: the full parser says so
    do {
        std::string_view key, val;
        if (!s.str(key) || !s.eat(':')) return false;
        if (key == "name") {
            if (!s.str(val)) return false;
            e.name.assign(val);
            named = true;
        } else if (key == "size") {
            if (s.peek('"')) {
                if (!s.str(val) || !decimal(val, e.size)) return false;
            } else {
                std::uint64_t u = 0;
                if (!s.uint(u) || u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                    return false;
                }
                e.size = static_cast<std::int64_t>(u);
            }
        } else if (key == "stamp") {
            std::uint64_t u = 0;
            if (!s.uint(u) || u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
            e.stamp = static_cast<std::int64_t>(u);
        } else if (key == "flags" || key == "copies") {
            std::uint64_t u = 0;
            if (!s.uint(u) || u > (key == "flags" ? 0xffffffffu : 32767u)) return false;
            if (key == "flags") e.flags = static_cast<std::uint32_t>(u);
            else e.copies = static_cast<int>(u);
        } else {
            std::string* field = key == "checksum"    ? &e.checksum
                                 : key == "atime"     ? &e.atime
                                 : key == "version"   ? &e.version
                                 : key == "location"  ? &e.location
                                 : key == "custom-md" ? &e.custom
                                 : key == "error"     ? &e.error
                                                      : nullptr;
            if (field == nullptr || !s.str(val)) return false;
            field->assign(val);
        }
    } while (s.eat(','));
    return named && s.eat('}');
}

}  // namespace

bool scanObjectList(std::string_view json, ObjectList& out)
{
    Scanner s(json);
    bool sawToken = false;
    if (!s.eat('{')) return false;
    if (s.eat('}')) return false;  // no continuation_token
    do {
        std::string_view key, val;
        if (!s.str(key) || !s.eat(':')) return false;
        if (key == "continuation_token") {
            if (!s.str(val)) return false;
            out.continuationToken.assign(val);
            sawToken = true;
        } else if (key == "uuid") {
            if (s.null()) continue;
            if (!s.str(val)) return false;
            out.uuid.assign(val);
        } else if (key == "flags") {
            std::uint64_t u = 0;
            if (s.null()) continue;
            if (!s.uint(u) || u > 0xffffffffu) return false;
            out.flags = static_cast<std::uint32_t>(u);
        } else if (key == "entries") {
            if (s.null()) continue;
            // An entry takes at least 11 bytes ({"name":""}); a listing entry
            // with a name (and maybe a size) rarely takes less than 32.
            out.entries.reserve(std::min<std::size_t>(json.size() / 32, kMaxPageSize * 4));
            if (!s.array([&] { return entry(s, out.entries.emplace_back()); })) return false;
        } else {
            return false;  // an unknown field: the full parser skips it
        }
    } while (s.eat(','));
    return s.eat('}') && s.atEnd() && sawToken;
}

}  // namespace tessera::api::detail
