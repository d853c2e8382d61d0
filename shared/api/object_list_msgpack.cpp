// The msgpack form of a listing page (see object_list.h): what AIStore's Go
// client (api.ListObjects, with Accept: application/msgpack) and its Python
// SDK (BucketList, a msgspec struct) decode.
#include "object_list.h"

#include <msgpack.hpp>

namespace tessera::api {

namespace {

template <typename Packer>
void packStr(Packer& pk, std::string_view s)
{
    pk.pack_str(static_cast<std::uint32_t>(s.size()));
    pk.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
}

template <typename Packer>
void packEntry(Packer& pk, const ObjEntry& e)
{
    // msgp's omitempty: an empty string or a zero number is left out (the
    // name never is); a size of 0 is thus absent, which reads as 0.
    std::uint32_t n = 1;
    n += !e.checksum.empty();
    n += !e.atime.empty();
    n += !e.version.empty();
    n += !e.location.empty();
    n += !e.custom.empty();
    n += e.size > 0;
    n += e.copies != 0;
    n += e.flags != 0;
    pk.pack_map(n);
    packStr(pk, "n"), packStr(pk, e.name);
    if (!e.checksum.empty()) packStr(pk, "cs"), packStr(pk, e.checksum);
    if (!e.atime.empty()) packStr(pk, "a"), packStr(pk, e.atime);
    if (!e.version.empty()) packStr(pk, "v"), packStr(pk, e.version);
    if (!e.location.empty()) packStr(pk, "t"), packStr(pk, e.location);
    if (!e.custom.empty()) packStr(pk, "m"), packStr(pk, e.custom);
    if (e.size > 0) packStr(pk, "s"), pk.pack_int64(e.size);
    if (e.copies != 0) packStr(pk, "c"), pk.pack_int16(static_cast<std::int16_t>(e.copies));
    if (e.flags != 0) packStr(pk, "f"), pk.pack_uint16(static_cast<std::uint16_t>(e.flags));
}

Error bad(const std::string& why) { return Error::badRequest("invalid msgpack object list: " + why); }

Result<std::string> str(const msgpack::object& o, std::string_view what)
{
    if (o.type != msgpack::type::STR) return bad(std::string(what) + " must be a string");
    return std::string(o.via.str.ptr, o.via.str.size);
}

Result<std::int64_t> integer(const msgpack::object& o, std::string_view what, std::int64_t lo, std::int64_t hi)
{
    std::int64_t v = 0;
    if (o.type == msgpack::type::POSITIVE_INTEGER && o.via.u64 <= static_cast<std::uint64_t>(INT64_MAX)) {
        v = static_cast<std::int64_t>(o.via.u64);
    } else if (o.type == msgpack::type::NEGATIVE_INTEGER) {
        v = o.via.i64;
    } else {
        return bad(std::string(what) + " must be an integer");
    }
    if (v < lo || v > hi) return bad(std::string(what) + " is out of range");
    return v;
}

Result<ObjEntry> entryFrom(const msgpack::object& o)
{
    if (o.type != msgpack::type::MAP) return bad("an entry must be a map");
    ObjEntry e;
    e.size = 0;  // msgp leaves a zero size out
    bool named = false;
    for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
        const auto& kv = o.via.map.ptr[i];
        auto key = str(kv.key, "a key");
        if (!key) return key.error();
        const auto& k = *key;
        if (k == "n" || k == "cs" || k == "a" || k == "v" || k == "t" || k == "m") {
            auto v = str(kv.val, "an entry's \"" + k + "\"");
            if (!v) return v.error();
            (k == "n"    ? e.name
             : k == "cs" ? e.checksum
             : k == "a"  ? e.atime
             : k == "v"  ? e.version
             : k == "t"  ? e.location
                         : e.custom) = std::move(v.value());
            named = named || k == "n";
        } else if (k == "s") {
            auto v = integer(kv.val, "an entry's \"s\"", 0, INT64_MAX);
            if (!v) return v.error();
            e.size = *v;
        } else if (k == "c") {
            auto v = integer(kv.val, "an entry's \"c\"", INT16_MIN, INT16_MAX);
            if (!v) return v.error();
            e.copies = static_cast<int>(*v);
        } else if (k == "f") {
            auto v = integer(kv.val, "an entry's \"f\"", 0, UINT16_MAX);
            if (!v) return v.error();
            e.flags = static_cast<std::uint32_t>(*v);
        } else {
            return bad("unknown entry key \"" + k + "\"");
        }
    }
    if (!named) return bad("an entry has no \"n\"");
    return e;
}

}  // namespace

std::string dumpObjectListMsgpack(const ObjectList& list)
{
    msgpack::sbuffer buf(64 + list.entries.size() * 48);
    msgpack::packer<msgpack::sbuffer> pk(buf);
    pk.pack_map(4);
    packStr(pk, "UUID"), packStr(pk, list.uuid);
    packStr(pk, "ContinuationToken"), packStr(pk, list.continuationToken);
    packStr(pk, "Entries");
    pk.pack_array(static_cast<std::uint32_t>(list.entries.size()));
    for (const auto& e : list.entries) packEntry(pk, e);
    packStr(pk, "Flags"), pk.pack_uint32(list.flags);
    return std::string(buf.data(), buf.size());
}

Result<ObjectList> parseObjectListMsgpack(std::string_view bytes)
{
    msgpack::object_handle handle;
    try {
        std::size_t off = 0;
        handle = msgpack::unpack(bytes.data(), bytes.size(), off);
        if (off != bytes.size()) return bad("trailing bytes after the page");
    } catch (const std::exception& e) {
        return bad(std::string("malformed msgpack: ") + e.what());
    }
    const auto& o = handle.get();
    if (o.type != msgpack::type::MAP) return bad("not a map");
    ObjectList out;
    bool sawToken = false;
    for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
        const auto& kv = o.via.map.ptr[i];
        auto key = str(kv.key, "a key");
        if (!key) return key.error();
        const auto& k = *key;
        if (k == "UUID" || k == "ContinuationToken") {
            auto v = str(kv.val, "\"" + k + "\"");
            if (!v) return v.error();
            (k == "UUID" ? out.uuid : out.continuationToken) = std::move(v.value());
            sawToken = sawToken || k == "ContinuationToken";
        } else if (k == "Flags") {
            auto v = integer(kv.val, "\"Flags\"", 0, UINT32_MAX);
            if (!v) return v.error();
            out.flags = static_cast<std::uint32_t>(*v);
        } else if (k == "Entries") {
            if (kv.val.type == msgpack::type::NIL) continue;
            if (kv.val.type != msgpack::type::ARRAY) return bad("\"Entries\" must be an array");
            out.entries.reserve(kv.val.via.array.size);
            for (std::uint32_t n = 0; n < kv.val.via.array.size; ++n) {
                auto e = entryFrom(kv.val.via.array.ptr[n]);
                if (!e) return e.error();
                out.entries.push_back(std::move(e.value()));
            }
        } else {
            return bad("unknown key \"" + k + "\"");
        }
    }
    if (!sawToken) return bad("\"ContinuationToken\" is missing");
    return out;
}

}  // namespace tessera::api
