#include "member_name.h"

#include "api/names.h"

namespace tessera::archive {

api::Status validateMemberName(std::string_view name, std::size_t maxBytes)
{
    const auto bad = [&](const char* why) {
        return api::Error::badRequest("archive member name \"" + std::string(name.substr(0, 256)) + "\" " + why);
    };
    if (name.empty()) return bad("is empty");
    if (name.size() > maxBytes) return bad(("is longer than " + std::to_string(maxBytes) + " bytes").c_str());
    if (!api::isValidUtf8(name)) return bad("is not valid UTF-8");
    for (unsigned char c : name) {
        if (c < 0x20 || c == 0x7f) return bad("contains a control character");
    }
    if (name.front() == '/') return bad("is an absolute path");
    const auto n = normalizeMemberName(name);
    if (n.empty()) return bad("names no file");
    std::size_t start = 0;
    while (start <= n.size()) {
        auto end = n.find('/', start);
        if (end == std::string_view::npos) end = n.size();
        const auto comp = n.substr(start, end - start);
        if (comp == "..") return bad("has a \"..\" component");
        if (end == n.size()) {
            if (comp.empty()) return bad("ends with '/'");
            break;
        }
        start = end + 1;
    }
    return {};
}

std::string_view normalizeMemberName(std::string_view name)
{
    while (name.size() >= 2 && name.substr(0, 2) == "./") {
        name.remove_prefix(2);
        while (!name.empty() && name.front() == '/') name.remove_prefix(1);
    }
    return name;
}

std::string_view wdsKey(std::string_view name)
{
    const auto slash = name.rfind('/');
    const auto base = slash == std::string_view::npos ? 0 : slash + 1;
    const auto dot = name.find('.', base);
    return dot == std::string_view::npos ? name : name.substr(0, dot);
}

std::string_view wdsExtension(std::string_view name) { return name.substr(wdsKey(name).size()); }

}  // namespace tessera::archive
