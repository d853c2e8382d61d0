#pragma once
// Reading documents whose numbers are all whole (cluster map, bucket
// metadata, object and slice metadata) through nlohmann's from_json.
// nlohmann converts a float read into an integer field with a plain cast,
// which is undefined behaviour when the value does not fit (found by
// fuzzing: {"atime":1.79e21}, a port of 1e52); these documents are written
// with integers only, so a float in one is refused before any field is read.

#include "json_util.h"

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

// True when any number in `root` has a fraction or an exponent.
inline bool hasFloat(const nlohmann::json& root)
{
    std::vector<const nlohmann::json*> left{&root};  // iterative: no recursion on deep input
    while (!left.empty()) {
        const auto* v = left.back();
        left.pop_back();
        if (v->is_number_float()) return true;
        if (v->is_structured()) {
            for (const auto& item : *v) left.push_back(&item);
        }
    }
    return false;
}

// hasFloat for documents with a few fields of their own that are doubles
// (rates, percentages: node statistics, the live feed): true when a float is
// anywhere but as the value of a member named in `floatFields`, in [0, 2^63).
// The range, because a map with names of its own (a job's counters, a
// node's errors by status) may hold a member of that name, read as an
// integer: every integer field of these documents is 64 bits wide, and a
// cast of a float in that range to one is defined (found by fuzz_node_stats:
// {"errors_by_status":{"get":{"used_percent":1e300}}}).
inline bool hasFloatOutside(const nlohmann::json& root, std::initializer_list<std::string_view> floatFields)
{
    const auto allowed = [&](std::string_view key, double v) {
        return v >= 0.0 && v < 9223372036854775808.0 &&
               std::find(floatFields.begin(), floatFields.end(), key) != floatFields.end();
    };
    if (root.is_number_float()) return true;
    std::vector<const nlohmann::json*> left{&root};
    while (!left.empty()) {
        const auto* v = left.back();
        left.pop_back();
        if (v->is_object()) {
            for (const auto& [key, item] : v->items()) {
                if (item.is_number_float()) {
                    if (!allowed(key, item.get<double>())) return true;
                } else if (item.is_structured()) {
                    left.push_back(&item);
                }
            }
        } else if (v->is_array()) {
            for (const auto& item : *v) {
                if (item.is_number_float()) return true;
                if (item.is_structured()) left.push_back(&item);
            }
        }
    }
    return false;
}

// parseJsonAs, with a float anywhere a BadRequest.
template <typename T>
Result<T> parseWholeNumberJsonAs(std::string_view text, const char* what)
{
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_discarded() && hasFloat(j)) {
        return Error::badRequest(std::string("invalid ") + what + ": a number that is not a whole number");
    }
    return parseJsonAs<T>(text, what);
}

}  // namespace tessera::api
