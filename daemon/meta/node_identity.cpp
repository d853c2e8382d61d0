#include "node_identity.h"

#include "common/fd_io.h"

#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

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

namespace {
bool isKeyText(const std::string& k)
{
    if (k.size() < 32 || k.size() > 256) return false;
    for (char c : k) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_')) {
            return false;
        }
    }
    return true;
}
}  // namespace

api::Result<std::string> loadClusterKey(const std::string& path, bool create)
{
    std::ifstream in(path);
    if (in) {
        std::string key;
        std::getline(in, key);
        if (!isKeyText(key)) {
            return api::Error::badRequest("cluster key file " + path +
                                          " must hold one line of 32..256 letters, digits, '-' or '_'");
        }
        return key;
    }
    if (!create) return api::Error::badRequest("cannot read the cluster key file " + path);
    unsigned char raw[32];
    {
        FILE* f = std::fopen("/dev/urandom", "rb");
        if (f == nullptr) return api::Error::ioError("cannot open /dev/urandom");
        const auto n = std::fread(raw, 1, sizeof raw, f);
        std::fclose(f);
        if (n != sizeof raw) return api::Error::ioError("cannot read /dev/urandom");
    }
    static const char* kHex = "0123456789abcdef";
    std::string key;
    for (unsigned char b : raw) {
        key.push_back(kHex[b >> 4]);
        key.push_back(kHex[b & 15]);
    }
    const std::string tmp = path + ".tmp." + randomId(6);
    const int fd = ::open(tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) return api::Error::ioError("cannot create " + tmp);
    const std::string line = key + "\n";
    const bool ok = writeAll(fd, line.data(), line.size()) == 0 && ::fsync(fd) == 0;
    ::close(fd);
    if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return api::Error::ioError("cannot write the cluster key file " + path);
    }
    return key;
}

bool sameSecret(const std::string& a, const std::string& b)
{
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace tessera::daemon::meta
