#pragma once
// Parses a command's arguments: positionals, "--name value" options (which
// may repeat) and "--flag" switches. Unknown options are a UsageError.

#include "cli_context.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tessera::cli {

struct ParsedArgs {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> options;
    std::set<std::string> flags;

    bool has(const std::string& flag) const { return flags.count(flag) > 0; }
    std::string value(const std::string& opt, const std::string& fallback = {}) const;
    // A non-negative integer option; UsageError when malformed.
    std::uint64_t number(const std::string& opt, std::uint64_t fallback) const;
};

ParsedArgs parseArgs(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
                     const std::set<std::string>& flagOptions);

}  // namespace tessera::cli
