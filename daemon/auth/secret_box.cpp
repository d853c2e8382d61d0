#include "secret_box.h"

#include "sodium_runtime.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::daemon::auth {

static_assert(SecretBox::kKeyBytes == crypto_secretbox_KEYBYTES);

namespace {

std::string toHex(const unsigned char* data, std::size_t n)
{
    std::string out(2 * n + 1, '\0');
    sodium_bin2hex(out.data(), out.size(), data, n);
    out.pop_back();
    return out;
}

// Decodes exactly hex digits; nullopt for anything else.
std::optional<std::string> fromHex(std::string_view hex)
{
    if (hex.size() % 2 != 0) return std::nullopt;
    std::string out(hex.size() / 2, '\0');
    std::size_t len = 0;
    const char* end = nullptr;
    if (sodium_hex2bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), hex.data(), hex.size(), nullptr, &len,
                       &end) != 0 ||
        len != out.size() || end != hex.data() + hex.size()) {
        return std::nullopt;
    }
    return out;
}

api::Status writeKeyFile(const std::string& path, const std::string& line)
{
    const std::string tmp = path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) return api::Error::ioError("cannot create " + tmp + ": " + std::strerror(errno));
    std::size_t done = 0;
    bool ok = true;
    while (ok && done < line.size()) {
        const auto n = ::write(fd, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        if (ok) done += static_cast<std::size_t>(n);
    }
    ok = ok && ::fsync(fd) == 0;
    ::close(fd);
    if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return api::Error::ioError("cannot write the key file " + path);
    }
    return {};
}

}  // namespace

SecretBox::~SecretBox() { sodium_memzero(m_key.data(), m_key.size()); }

api::Result<std::unique_ptr<SecretBox>> SecretBox::fromKey(std::string_view key)
{
    ensureSodium();
    if (key.size() != kKeyBytes) return api::Error::badRequest("a secret box key is 32 bytes");
    return std::unique_ptr<SecretBox>(new SecretBox(std::string(key)));
}

api::Result<std::unique_ptr<SecretBox>> SecretBox::loadOrCreate(const std::string& path)
{
    ensureSodium();
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno != ENOENT)
            return api::Error::ioError("cannot stat the key file " + path + ": " + std::strerror(errno));
        unsigned char raw[kKeyBytes];
        randombytes_buf(raw, sizeof raw);
        std::string key(reinterpret_cast<const char*>(raw), sizeof raw);
        std::string line = toHex(raw, sizeof raw) + "\n";
        sodium_memzero(raw, sizeof raw);
        auto written = writeKeyFile(path, line);
        sodium_memzero(line.data(), line.size());
        if (!written) return written.error();
        return std::unique_ptr<SecretBox>(new SecretBox(std::move(key)));
    }
    std::ifstream in(path);
    if (!in) return api::Error::ioError("cannot read the key file " + path);
    std::string line;
    std::getline(in, line);
    auto key = fromHex(line);
    sodium_memzero(line.data(), line.size());
    if (!key || key->size() != kKeyBytes) {
        return api::Error::corruption("the key file " + path + " must hold 64 hex digits (" +
                                      std::to_string(kKeyBytes) + " bytes); it is kept as it is");
    }
    return std::unique_ptr<SecretBox>(new SecretBox(std::move(*key)));
}

std::string SecretBox::seal(std::string_view plain, std::string_view context) const
{
    std::string message;
    message.reserve(context.size() + 1 + plain.size());
    message.append(context).push_back('\n');
    message.append(plain);
    std::string out(crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + message.size(), '\0');
    auto* bytes = reinterpret_cast<unsigned char*>(out.data());
    randombytes_buf(bytes, crypto_secretbox_NONCEBYTES);
    crypto_secretbox_easy(bytes + crypto_secretbox_NONCEBYTES, reinterpret_cast<const unsigned char*>(message.data()),
                          message.size(), bytes, reinterpret_cast<const unsigned char*>(m_key.data()));
    sodium_memzero(message.data(), message.size());
    return toHex(bytes, out.size());
}

api::Result<std::string> SecretBox::open(std::string_view sealed, std::string_view context) const
{
    const auto refused = api::Error::corruption("a sealed secret does not open under this node's key");
    auto raw = fromHex(sealed);
    if (!raw || raw->size() < crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES) return refused;
    const auto* bytes = reinterpret_cast<const unsigned char*>(raw->data());
    const std::size_t boxed = raw->size() - crypto_secretbox_NONCEBYTES;
    std::string message(boxed - crypto_secretbox_MACBYTES, '\0');
    if (crypto_secretbox_open_easy(reinterpret_cast<unsigned char*>(message.data()),
                                   bytes + crypto_secretbox_NONCEBYTES, boxed, bytes,
                                   reinterpret_cast<const unsigned char*>(m_key.data())) != 0) {
        return refused;
    }
    if (message.size() <= context.size() || std::string_view(message).substr(0, context.size()) != context ||
        message[context.size()] != '\n') {
        sodium_memzero(message.data(), message.size());
        return refused;
    }
    std::string plain = message.substr(context.size() + 1);
    sodium_memzero(message.data(), message.size());
    return plain;
}

}  // namespace tessera::daemon::auth
