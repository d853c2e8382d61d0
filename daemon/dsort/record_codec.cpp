#include "record_codec.h"

#include <cstring>

namespace tessera::daemon::dsort {

namespace {

template <class T>
void put(std::string& out, T v)
{
    char b[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i)
        b[i] = static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff);
    out.append(b, sizeof(T));
}

template <class T>
bool get(std::string_view in, std::size_t& pos, T& v)
{
    if (in.size() - pos < sizeof(T)) return false;
    std::uint64_t x = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) x |= std::uint64_t{static_cast<unsigned char>(in[pos + i])} << (8 * i);
    v = static_cast<T>(x);
    pos += sizeof(T);
    return true;
}

}  // namespace

std::string encodeRecord(const std::vector<RecordFile>& files)
{
    std::size_t total = 4;
    for (const auto& f : files) total += 4 + f.name.size() + 16 + f.data.size();
    std::string out;
    out.reserve(total);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(files.size()));
    for (const auto& f : files) {
        put<std::uint32_t>(out, static_cast<std::uint32_t>(f.name.size()));
        out += f.name;
        put<std::int64_t>(out, f.mtime);
        put<std::uint64_t>(out, f.data.size());
        out += f.data;
    }
    return out;
}

api::Result<std::vector<RecordFileView>> decodeRecord(std::string_view in, std::size_t& consumed)
{
    const auto bad = [] { return api::Error::corruption("a dSort record is truncated or malformed"); };
    std::size_t pos = 0;
    std::uint32_t n = 0;
    if (!get(in, pos, n)) return bad();
    std::vector<RecordFileView> out;
    out.reserve(std::min<std::uint32_t>(n, 1024));
    for (std::uint32_t i = 0; i < n; ++i) {
        RecordFileView f;
        std::uint32_t nameLen = 0;
        if (!get(in, pos, nameLen) || in.size() - pos < nameLen) return bad();
        f.name = in.substr(pos, nameLen);
        pos += nameLen;
        std::uint64_t size = 0;
        if (!get(in, pos, f.mtime) || !get(in, pos, size) || in.size() - pos < size) return bad();
        f.data = in.substr(pos, size);
        pos += size;
        out.push_back(f);
    }
    consumed = pos;
    return out;
}

}  // namespace tessera::daemon::dsort
