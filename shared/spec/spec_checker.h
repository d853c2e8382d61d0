#pragma once
// Field-level validation of a JSON spec (ishard, dSort): each problem is a
// FieldError naming its field by JSON pointer, so the console can show it
// beside the field. SpecChecker holds what every spec's checker needs; a
// spec's own checker derives from it and adds its fields.
//
// Thread safety: a checker is used by one thread.

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tessera::spec {

// One problem with one field: where (a JSON pointer into the spec, such as
// "/shard_size") and what.
struct FieldError {
    std::string pointer;
    std::string message;
    bool operator==(const FieldError&) const = default;
};

// "pointer: message; pointer: message" (for one-line error messages).
std::string describe(const std::vector<FieldError>& errors);

// Both plain names and AIStore's {"name": ...} bucket objects.
std::optional<std::string> bucketField(const nlohmann::json& v);

class SpecChecker {
public:
    explicit SpecChecker(const nlohmann::json& j) : m_j(j) {}

protected:
    // False (with the error) unless the spec is a JSON object; every field
    // not in `fields` is an "unknown field" error.
    bool checkObject(const std::set<std::string, std::less<>>& fields);
    // The field's value; null and absent are both nullptr.
    const nlohmann::json* get(const char* key) const { return getIn(m_j, key); }
    static const nlohmann::json* getIn(const nlohmann::json& obj, const char* key);
    void add(std::string pointer, std::string message) { m_errors.push_back({std::move(pointer), std::move(message)}); }
    // A bucket name (validated) into `out`.
    void bucket(const char* key, std::string& out, bool required);
    void boolean(const char* key, bool& out);

    const nlohmann::json& m_j;
    std::vector<FieldError> m_errors;
};

}  // namespace tessera::spec
