#pragma once
// Spec files for `-f`: JSON or YAML, by the file's extension (.yaml/.yml are
// YAML); standard input ("-") is JSON when it starts with "{", YAML
// otherwise. A file that cannot be read or parsed is a UsageError naming
// the line and column.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tessera::cli {

// The spec as a JSON object; `what` names it in errors ("dsort").
nlohmann::json readSpecFile(const std::string& path, std::string_view what, std::size_t maxBytes);

}  // namespace tessera::cli
