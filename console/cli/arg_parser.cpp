#include "arg_parser.h"

#include <charconv>

namespace tessera::cli {

std::string ParsedArgs::value(const std::string& opt, const std::string& fallback) const
{
    auto it = options.find(opt);
    return it == options.end() || it->second.empty() ? fallback : it->second.back();
}

std::uint64_t ParsedArgs::number(const std::string& opt, std::uint64_t fallback) const
{
    auto it = options.find(opt);
    if (it == options.end() || it->second.empty()) return fallback;
    const auto& s = it->second.back();
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
        throw UsageError(opt + " needs a non-negative integer, got \"" + s + "\"");
    }
    return v;
}

ParsedArgs parseArgs(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
                     const std::set<std::string>& flagOptions)
{
    ParsedArgs out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a;
            std::string value;
            bool inlineValue = false;
            if (auto eq = a.find('='); eq != std::string::npos) {
                name = a.substr(0, eq);
                value = a.substr(eq + 1);
                inlineValue = true;
            }
            if (valueOptions.count(name)) {
                if (!inlineValue) {
                    if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
                    value = args[++i];
                }
                out.options[name].push_back(value);
            } else if (flagOptions.count(name) && !inlineValue) {
                out.flags.insert(name);
            } else {
                throw UsageError("unknown option " + name);
            }
        } else {
            out.positional.push_back(a);
        }
    }
    return out;
}

}  // namespace tessera::cli
