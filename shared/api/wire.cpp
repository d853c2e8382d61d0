#include "wire.h"

namespace tessera::api {

namespace wire_detail {

std::string escapePointerToken(std::string_view key)
{
    std::string out;
    out.reserve(key.size());
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

}  // namespace wire_detail

Status FieldReader::finish()
{
    if (!m_error && m_j.is_object()) {
        for (const auto& [k, v] : m_j.items()) {
            if (!m_known.count(k)) {
                fail(pointerTo(k), "unknown field");
                break;
            }
        }
    }
    if (m_error) return Error::badRequest(*m_error);
    return {};
}

void throwIfBad(const Status& st)
{
    if (!st) throw nlohmann::json::other_error::create(501, st.error().message, nullptr);
}

}  // namespace tessera::api
