#pragma once
// Reading typed messages off the wire. Every message that crosses a process
// boundary is a struct in shared/api with `to_json` (writing) and
// `readFields(FieldReader&, T&)` (reading); `parseMessage<T>` turns a body
// into the struct, and a missing field, a wrong type or an unknown field is a
// BadRequest naming the field by JSON pointer ("keepalive: /daemon_id: must
// be a string"), as the spec checkers do.
//
// Reading is strict: every field a message has is named in its readFields,
// and anything else in the object is refused. Types without readFields but
// with nlohmann's from_json (Smap, Bmd, JobStatus, ...) are read with it,
// and its exception becomes the field's error.

#include "result.h"

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tessera::api {

class FieldReader;

template <typename T>
concept WireMessage = requires(FieldReader& r, T& v)
{
    readFields(r, v);
};

namespace wire_detail {

template <typename T>
struct IsOptional : std::false_type {
};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {
};
template <typename T>
struct IsVector : std::false_type {
};
template <typename T, typename A>
struct IsVector<std::vector<T, A>> : std::true_type {
};
template <typename T>
struct IsStringMap : std::false_type {
};
template <typename T, typename C, typename A>
struct IsStringMap<std::map<std::string, T, C, A>> : std::true_type {
};

std::string escapePointerToken(std::string_view key);

}  // namespace wire_detail

// Reads the fields of one JSON object. Keeps the first problem; `finish()`
// adds "unknown field" for anything not read and returns it. It refers to
// the document it reads: the document must outlive it.
class FieldReader {
public:
    FieldReader(const nlohmann::json& j, std::string pointer) : m_j(j), m_pointer(std::move(pointer))
    {
        if (!m_j.is_object()) fail(m_pointer, "must be a JSON object");
    }
    FieldReader(nlohmann::json&&, std::string) = delete;  // would outlive its document

    // A field that must be present (and not null).
    template <typename T>
    FieldReader& required(std::string_view key, T& out)
    {
        return field(key, out, true);
    }
    // A field that may be absent or null; then `out` keeps its value.
    template <typename T>
    FieldReader& optional(std::string_view key, T& out)
    {
        return field(key, out, false);
    }
    // Marks a field as known without reading it (a field kept for
    // compatibility whose value does not matter).
    FieldReader& ignore(std::string_view key)
    {
        m_known.emplace(key);
        return *this;
    }

    bool ok() const { return !m_error; }
    const std::string& pointer() const { return m_pointer; }
    // The first problem, as "pointer: message".
    Status finish();

    // Records a problem found by a message's own check (a value out of range).
    void fail(const std::string& pointer, std::string message)
    {
        if (!m_error) m_error = (pointer.empty() ? std::string("/") : pointer) + ": " + std::move(message);
    }
    std::string pointerTo(std::string_view key) const { return m_pointer + "/" + wire_detail::escapePointerToken(key); }

    // One value of type T at `pointer` (used for fields, array elements and
    // map values; also the whole message).
    template <typename T>
    void read(const nlohmann::json& v, const std::string& pointer, T& out);

private:
    template <typename T>
    FieldReader& field(std::string_view key, T& out, bool mustHave)
    {
        m_known.emplace(key);
        if (m_error || !m_j.is_object()) return *this;
        auto it = m_j.find(key);
        if (it == m_j.end() || it->is_null()) {
            if (mustHave) fail(pointerTo(key), "required");
            return *this;
        }
        read(*it, pointerTo(key), out);
        return *this;
    }

    const nlohmann::json& m_j;
    std::string m_pointer;
    std::set<std::string, std::less<>> m_known;
    std::optional<std::string> m_error;
};

template <typename T>
void FieldReader::read(const nlohmann::json& v, const std::string& ptr, T& out)
{
    if (m_error) return;
    if constexpr (std::is_same_v<T, nlohmann::json>) {
        out = v;
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string()) return fail(ptr, "must be a string");
        out = v.get_ref<const std::string&>();
    } else if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean()) return fail(ptr, "must be true or false");
        out = v.get<bool>();
    } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
        // Parsed text keeps positive integers unsigned; a document built in
        // memory from an int keeps them signed.
        if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)) {
            return fail(ptr, "must be a non-negative whole number");
        }
        const auto n =
            v.is_number_unsigned() ? v.get<std::uint64_t>() : static_cast<std::uint64_t>(v.get<std::int64_t>());
        if (n > std::numeric_limits<T>::max()) return fail(ptr, "is too large");
        out = static_cast<T>(n);
    } else if constexpr (std::is_integral_v<T>) {
        if (!v.is_number_integer()) return fail(ptr, "must be a whole number");
        if (v.is_number_unsigned() &&
            v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
            return fail(ptr, "is too large");
        }
        const auto n = v.get<std::int64_t>();
        if (n < std::numeric_limits<T>::min() || n > std::numeric_limits<T>::max()) return fail(ptr, "is out of range");
        out = static_cast<T>(n);
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!v.is_number()) return fail(ptr, "must be a number");
        out = v.get<T>();
    } else if constexpr (wire_detail::IsOptional<T>::value) {
        typename T::value_type inner{};
        read(v, ptr, inner);
        if (!m_error) out = std::move(inner);
    } else if constexpr (wire_detail::IsVector<T>::value) {
        if (!v.is_array()) return fail(ptr, "must be an array");
        T items;
        items.reserve(v.size());
        for (std::size_t i = 0; i < v.size() && !m_error; ++i) {
            typename T::value_type item{};
            read(v[i], ptr + "/" + std::to_string(i), item);
            items.push_back(std::move(item));
        }
        if (!m_error) out = std::move(items);
    } else if constexpr (wire_detail::IsStringMap<T>::value) {
        if (!v.is_object()) return fail(ptr, "must be a JSON object");
        T items;
        for (const auto& [k, item] : v.items()) {
            if (m_error) break;
            read(item, ptr + "/" + wire_detail::escapePointerToken(k), items[k]);
        }
        if (!m_error) out = std::move(items);
    } else if constexpr (WireMessage<T>) {
        FieldReader nested(v, ptr);
        readFields(nested, out);
        if (auto st = nested.finish(); !st) m_error = st.error().message;
    } else {
        try {
            v.get_to(out);
        } catch (const nlohmann::json::exception& e) {
            fail(ptr, e.what());
        }
    }
}

// The whole message from an already parsed document.
template <WireMessage T>
Result<T> readMessage(const nlohmann::json& j, std::string_view what)
{
    T out{};
    FieldReader r(j, "");
    readFields(r, out);
    if (auto st = r.finish(); !st) return Error::badRequest(std::string(what) + ": " + st.error().message);
    return out;
}

// The whole message from a request or response body.
template <WireMessage T>
Result<T> parseMessage(std::string_view body, std::string_view what)
{
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded()) return Error::badRequest(std::string(what) + ": malformed JSON");
    return readMessage<T>(j, what);
}

// A JSON array of messages (a list answer such as GET /v1/etl); the first
// bad element is named by its index.
template <WireMessage T>
Result<std::vector<T>> readMessageList(const nlohmann::json& j, std::string_view what)
{
    if (!j.is_array()) return Error::badRequest(std::string(what) + ": must be a JSON array");
    std::vector<T> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        auto v = readMessage<T>(j[i], std::string(what) + " [" + std::to_string(i) + "]");
        if (!v) return v.error();
        out.push_back(std::move(*v));
    }
    return out;
}

template <WireMessage T>
Result<std::vector<T>> parseMessageList(std::string_view body, std::string_view what)
{
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded()) return Error::badRequest(std::string(what) + ": malformed JSON");
    return readMessageList<T>(j, what);
}

// nlohmann's `j.get<T>()` for a message (inside a type that is still read
// with from_json): throws nlohmann::json::other_error naming the field.
void throwIfBad(const Status& st);

template <WireMessage T>
void fromJsonStrict(const nlohmann::json& j, T& out)
{
    FieldReader r(j, "");
    readFields(r, out);
    throwIfBad(r.finish());
}

}  // namespace tessera::api
