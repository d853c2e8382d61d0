#include "spec_file.h"

#include "cli_context.h"
#include "spec/spec_text.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace tessera::cli {

nlohmann::json readSpecFile(const std::string& path, std::string_view what, std::size_t maxBytes)
{
    std::ostringstream buf;
    if (path == "-") {
        buf << std::cin.rdbuf();
    } else {
        std::ifstream f(path, std::ios::binary);
        if (!f) throw UsageError("cannot read the spec file " + path);
        buf << f.rdbuf();
    }
    const auto text = buf.str();
    if (text.size() > maxBytes) {
        throw UsageError("the spec is larger than " + std::to_string(maxBytes >> 10) + " KiB");
    }
    auto format = spec::specFormatForPath(path);
    if (path == "-") {
        const auto first = text.find_first_not_of(" \t\r\n");
        format = first != std::string::npos && text[first] == '{' ? spec::SpecFormat::Json : spec::SpecFormat::Yaml;
    }
    auto j = spec::parseSpecText(text, format, what);
    if (!j) throw UsageError(j.error().message);
    if (!j->is_object()) {
        throw UsageError("invalid " + std::string(what) + " spec: the document must be a mapping of fields");
    }
    return std::move(j.value());
}

}  // namespace tessera::cli
