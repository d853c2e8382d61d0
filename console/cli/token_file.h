#pragma once
// The CLI's session: the tokens `tessera login` got, with the proxy that
// issued them, in a file only its owner may read (mode 0600 in a 0700
// directory, written through a temporary file renamed into place, as ssh
// and the cloud CLIs keep their credentials). A file that others may read
// is refused rather than used: the refresh token in it is a day's access.
//
// Where: --token-file, else $TESSERA_TOKEN_FILE, else
// $XDG_CONFIG_HOME/tessera/token, else $HOME/.config/tessera/token.

#include "api/auth_msg.h"
#include "api/result.h"
#include "api/wire.h"

#include <optional>
#include <string>

namespace tessera::cli {

struct Session {
    std::string endpoint;  // the proxy the tokens are for; never sent elsewhere
    api::TokenReply tokens;
    bool operator==(const Session&) const = default;
};
void to_json(nlohmann::json& j, const Session& v);
void readFields(api::FieldReader& r, Session& v);

class TokenFile {
public:
    // A session file is a few hundred bytes; anything far larger is not one.
    static constexpr std::size_t kMaxFileBytes = 64 * 1024;

    explicit TokenFile(std::string path) : m_path(std::move(path)) {}
    // The path from the environment (see above); BadRequest when neither
    // $TESSERA_TOKEN_FILE, $XDG_CONFIG_HOME nor $HOME is set.
    static api::Result<std::string> defaultPath();

    const std::string& path() const { return m_path; }
    // nullopt when there is no file. BadRequest for a file others may read
    // or one that is not a session; IoError when it cannot be read.
    api::Result<std::optional<Session>> load() const;
    // Creates the directory (0700) when missing; the file is 0600 from its
    // first byte.
    api::Status save(const Session& session) const;
    // Success when there was no file.
    api::Status remove() const;

private:
    std::string m_path;
};

}  // namespace tessera::cli
