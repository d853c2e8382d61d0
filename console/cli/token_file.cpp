#include "token_file.h"

#include "api/json_util.h"
#include "file_descriptor.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace tessera::cli {

namespace fs = std::filesystem;

void to_json(nlohmann::json& j, const Session& v)
{
    j = nlohmann::json{{"endpoint", v.endpoint}, {"tokens", v.tokens}};
}

void readFields(api::FieldReader& r, Session& v) { r.required("endpoint", v.endpoint).required("tokens", v.tokens); }

namespace {

std::string errnoText() { return std::strerror(errno); }

const char* envOrNull(const char* name)
{
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? v : nullptr;
}

}  // namespace

api::Result<std::string> TokenFile::defaultPath()
{
    if (const char* f = envOrNull("TESSERA_TOKEN_FILE")) return std::string(f);
    if (const char* xdg = envOrNull("XDG_CONFIG_HOME")) return (fs::path(xdg) / "tessera" / "token").string();
    if (const char* home = envOrNull("HOME")) return (fs::path(home) / ".config" / "tessera" / "token").string();
    return api::Error::badRequest(
        "no place for the token file: set TESSERA_TOKEN_FILE, XDG_CONFIG_HOME or HOME, or pass --token-file");
}

api::Result<std::optional<Session>> TokenFile::load() const
{
    Fd fd(::open(m_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (fd.get() < 0) {
        if (errno == ENOENT) return std::optional<Session>();
        return api::Error::ioError("cannot read the token file " + m_path, errnoText());
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return api::Error::ioError("cannot read the token file " + m_path, errnoText());
    if (!S_ISREG(st.st_mode)) return api::Error::badRequest("the token file " + m_path + " is not a regular file");
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        return api::Error::badRequest("the token file " + m_path +
                                      " may be read by others; not using it (chmod 600 it, or log in again)");
    }
    if (st.st_uid != ::geteuid()) {
        return api::Error::badRequest("the token file " + m_path + " belongs to another user; not using it");
    }
    if (static_cast<std::uint64_t>(st.st_size) > kMaxFileBytes) {
        return api::Error::badRequest("the token file " + m_path + " is larger than 64 KiB; it is not a session");
    }
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const auto n = ::read(fd.get(), text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return api::Error::ioError("cannot read the token file " + m_path, errnoText());
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    auto session = api::parseMessage<Session>(text, "token file " + m_path);
    if (!session) return session.error();
    return std::optional<Session>(std::move(session.value()));
}

api::Status TokenFile::save(const Session& session) const
{
    const fs::path path(m_path);
    const auto dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::exists(dir, ec)) {
        fs::create_directories(dir, ec);
        if (ec) return api::Error::ioError("cannot create " + dir.string(), ec.message());
        fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
        if (ec) return api::Error::ioError("cannot restrict " + dir.string(), ec.message());
    }
    const std::string tmp = m_path + ".tmp." + std::to_string(::getpid());
    Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (fd.get() < 0) return api::Error::ioError("cannot write the token file " + tmp, errnoText());
    const std::string text = api::dumpJson(nlohmann::json(session)) + "\n";
    std::size_t put = 0;
    while (put < text.size()) {
        const auto n = ::write(fd.get(), text.data() + put, text.size() - put);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const auto why = errnoText();
            ::unlink(tmp.c_str());
            return api::Error::ioError("cannot write the token file " + tmp, why);
        }
        put += static_cast<std::size_t>(n);
    }
    if (::fsync(fd.get()) != 0 || ::close(fd.release()) != 0) {
        const auto why = errnoText();
        ::unlink(tmp.c_str());
        return api::Error::ioError("cannot write the token file " + tmp, why);
    }
    if (::rename(tmp.c_str(), m_path.c_str()) != 0) {
        const auto why = errnoText();
        ::unlink(tmp.c_str());
        return api::Error::ioError("cannot replace the token file " + m_path, why);
    }
    return {};
}

api::Status TokenFile::remove() const
{
    if (::unlink(m_path.c_str()) != 0 && errno != ENOENT) {
        return api::Error::ioError("cannot remove the token file " + m_path, errnoText());
    }
    return {};
}

}  // namespace tessera::cli
