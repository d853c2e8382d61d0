#pragma once
// What every CLI command receives: the endpoint, the output mode, the
// command's own arguments, and the streams to write to.

#include "client/api_client.h"

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::cli {

// Thrown for a malformed command line; the app prints usage and exits 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;  // the server said no, or it could not be reached
constexpr int kExitUsage = 2;

struct CliContext {
    std::string endpoint;
    bool json = false;
    std::vector<std::string> args;  // after the command words
    std::ostream* out = nullptr;
    std::ostream* err = nullptr;
    // The session file (token_file.h) and the access token every call
    // sends as `Authorization: Bearer` (empty: none; auth off needs none).
    std::string tokenFile;
    std::string token;
    // How https:// endpoints are checked: --ca-file / $TESSERA_CA_FILE and
    // --insecure / $TESSERA_INSECURE=1.
    client::HttpClient::Options::Tls tls;

    // Every HTTP call of a command goes through these options: the TLS
    // settings are applied here, and the token added in clientOptions,
    // and nowhere else. A call that must send no token (logging in) uses
    // transportOptions.
    client::HttpClient::Options transportOptions() const
    {
        client::HttpClient::Options o;
        o.tls = tls;
        return o;
    }
    client::HttpClient::Options clientOptions() const
    {
        client::HttpClient::Options o = transportOptions();
        if (!token.empty()) o.headers.emplace_back("Authorization", "Bearer " + token);
        return o;
    }
    client::Client makeClient() const { return client::Client(endpoint, clientOptions()); }
    // Prints "error: ..." for a failed call and returns kExitFailed.
    int fail(const api::Error& e) const;
};

// "bucket/name/with/slashes" -> {bucket, name}; name may be empty.
std::pair<std::string, std::string> splitBucketPath(const std::string& s);
// The same, with both parts required: a UsageError "expected BUCKET/<what>"
// otherwise (what: "NAME", "SHARD").
std::pair<std::string, std::string> needBucketPath(const std::string& s, const char* what);

}  // namespace tessera::cli
