#include "s3_keys.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tessera::daemon::s3 {

api::Result<std::map<std::string, S3Api::Key, std::less<>>> parseS3Keys(std::string_view text)
{
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("keys") || !j["keys"].is_array()) {
        return api::Error::badRequest("S3 keys: expected {\"keys\":[{\"access_key\",\"secret_key\",\"user\"}...]}");
    }
    std::map<std::string, S3Api::Key, std::less<>> out;
    std::size_t i = 0;
    for (const auto& e : j["keys"]) {
        const std::string where = "S3 keys: /keys/" + std::to_string(i++);
        const auto str = [&](const char* k) -> std::string {
            return e.is_object() && e.contains(k) && e[k].is_string() ? e[k].get<std::string>() : std::string();
        };
        const auto ak = str("access_key");
        const auto sk = str("secret_key");
        const auto user = str("user");
        if (ak.size() < 3 || ak.size() > 128 ||
            !std::all_of(ak.begin(), ak.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); })) {
            return api::Error::badRequest(where + "/access_key: 3..128 letters and digits");
        }
        if (sk.size() < 8 || sk.size() > 256) return api::Error::badRequest(where + "/secret_key: 8..256 bytes");
        if (user.empty()) return api::Error::badRequest(where + "/user: missing");
        if (!out.emplace(ak, S3Api::Key{sk, user}).second) {
            return api::Error::badRequest(where + "/access_key: \"" + ak + "\" appears twice");
        }
    }
    return out;
}

api::Result<std::map<std::string, S3Api::Key, std::less<>>> loadS3Keys(const std::string& path)
{
    std::ifstream in(path);
    if (!in) return api::Error::badRequest("cannot read the S3 keys file " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return parseS3Keys(ss.str());
}

}  // namespace tessera::daemon::s3
