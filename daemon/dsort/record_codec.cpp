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

}  // namespace

std::string encodeRecord(const std::vector<RecordFile>& files)
{
    std::uint64_t total = kRecordCountBytes;
    for (const auto& f : files) total += encodedFileBytes(f.name.size(), f.data.size());
    std::string out;
    out.reserve(total);
    appendRecordCount(out, static_cast<std::uint32_t>(files.size()));
    for (const auto& f : files) {
        appendFileHeader(out, f.name, f.mtime, f.data.size());
        out += f.data;
    }
    return out;
}

void appendRecordCount(std::string& out, std::uint32_t files) { put<std::uint32_t>(out, files); }

void appendFileHeader(std::string& out, std::string_view name, std::int64_t mtime, std::uint64_t size)
{
    put<std::uint32_t>(out, static_cast<std::uint32_t>(name.size()));
    out += name;
    put<std::int64_t>(out, mtime);
    put<std::uint64_t>(out, size);
}

RecordStreamParser::RecordStreamParser(FileFn file, DataFn data) : m_file(std::move(file)), m_data(std::move(data)) {}

namespace {
std::uint64_t le(std::string_view b)
{
    std::uint64_t x = 0;
    for (std::size_t i = 0; i < b.size(); ++i) x |= std::uint64_t{static_cast<unsigned char>(b[i])} << (8 * i);
    return x;
}
}  // namespace

void RecordStreamParser::fileDone()
{
    if (--m_filesLeft > 0) {
        m_state = State::NameLength;
        return;
    }
    ++m_records;
    m_state = State::Count;
}

api::Status RecordStreamParser::feed(const char* p, std::size_t n)
{
    if (!m_error) return m_error;
    auto fail = [this](api::Status st) {
        m_error = st;
        return st;
    };
    // Gathers `want` bytes of a field into m_field; true once it is whole.
    auto gather = [&](std::size_t want) {
        const auto take = std::min(n, want - m_field.size());
        m_field.append(p, take);
        p += take;
        n -= take;
        return m_field.size() == want;
    };
    while (n > 0) {
        switch (m_state) {
        case State::Count:
            if (!gather(4)) return {};
            m_filesLeft = static_cast<std::uint32_t>(le(m_field));
            m_field.clear();
            if (m_filesLeft == 0) ++m_records;
            else m_state = State::NameLength;
            break;
        case State::NameLength:
            if (!gather(4)) return {};
            m_nameLength = static_cast<std::uint32_t>(le(m_field));
            m_field.clear();
            if (m_nameLength > kMaxNameBytes) {
                return fail(api::Error::corruption("a dSort record names a file of " + std::to_string(m_nameLength) +
                                                   " bytes"));
            }
            m_state = State::Name;
            break;
        case State::Name:
            if (!gather(m_nameLength)) return {};
            m_name.swap(m_field);
            m_field.clear();
            m_state = State::Times;
            break;
        case State::Times: {
            if (!gather(16)) return {};
            const auto mtime = static_cast<std::int64_t>(le(std::string_view(m_field).substr(0, 8)));
            m_dataLeft = le(std::string_view(m_field).substr(8, 8));
            m_field.clear();
            if (auto st = m_file(m_name, mtime, m_dataLeft); !st) return fail(st);
            if (m_dataLeft == 0) fileDone();
            else m_state = State::Data;
            break;
        }
        case State::Data: {
            const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(n, m_dataLeft));
            if (auto st = m_data(p, take); !st) return fail(st);
            p += take;
            n -= take;
            m_dataLeft -= take;
            if (m_dataLeft == 0) fileDone();
            break;
        }
        }
    }
    return {};
}

api::Status RecordStreamParser::atRecordEnd() const
{
    if (!m_error) return m_error;
    if (m_state != State::Count || !m_field.empty()) {
        return api::Error::corruption("a dSort record is truncated or malformed");
    }
    return {};
}

}  // namespace tessera::daemon::dsort
