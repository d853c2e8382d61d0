#include "node_identity.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace tessera::daemon::meta {

namespace fs = std::filesystem;

std::string randomId(std::size_t len)
{
    static const char* kAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    thread_local std::mt19937_64 rng{std::random_device{}()};
    std::uniform_int_distribution<int> dist(0, 35);
    std::string s;
    for (std::size_t i = 0; i < len; ++i) s.push_back(kAlphabet[dist(rng)]);
    return s;
}

api::Status writeFileAtomic(const std::string& path, const std::string& content)
{
    const std::string tmp = path + ".tmp." + randomId(6);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return api::Error::ioError("cannot write " + tmp);
        out << content;
        if (!out.flush()) return api::Error::ioError("cannot write " + tmp);
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        return api::Error::ioError("cannot rename into " + path, ec.message());
    }
    return {};
}

api::Result<std::string> loadOrCreateNodeId(const std::string& dataDir, char rolePrefix)
{
    std::error_code ec;
    fs::create_directories(dataDir, ec);
    if (ec) return api::Error::ioError("cannot create data dir " + dataDir, ec.message());
    const auto path = (fs::path(dataDir) / "node_id").string();
    std::ifstream in(path);
    if (in) {
        std::string id;
        std::getline(in, id);
        if (!id.empty()) return id;
    }
    std::string id(1, rolePrefix);
    id += randomId(10);
    auto st = writeFileAtomic(path, id + "\n");
    if (!st) return st.error();
    return id;
}

}  // namespace tessera::daemon::meta
