#pragma once
// A blocking client of the proxy's live feed (`GET /v1/ws`): connects,
// optionally sends a subscription, then returns one message at a time.
// For the CLI (`tessera watch`) and scripts; the console has its own
// asynchronous client on QWebSocket.
//
// Not thread-safe; one owner.

#include "api/result.h"
#include "http_client.h"

#include <memory>
#include <string>
#include <vector>

namespace tessera::client {

class FeedClient {
public:
    // `endpoint` is the proxy URL ("http://127.0.0.1:8080"; https:// gives
    // wss, its certificate checked as `tls` says, as HttpClient does);
    // `headers` go with the upgrade request (the CLI's `Authorization:
    // Bearer`). Errors: those of HttpClient::send for resolving, connecting
    // and the TLS handshake; Unavailable "feed refused" when the upgrade is;
    // Timeout when one of these steps takes over 10 s.
    static api::Result<std::unique_ptr<FeedClient>> connect(const std::string& endpoint, const Headers& headers = {},
                                                            const HttpClient::Options::Tls& tls = {});
    ~FeedClient();

    // Sends {"subscribe":[...]} and/or {"interval_ms":N} (0 / empty: leave as is).
    api::Status subscribe(const std::vector<std::string>& topics, int intervalMs);
    // The next message's JSON text; Unavailable when the server closed the
    // feed (with its close reason), IoError on a broken connection.
    api::Result<std::string> next();

private:
    struct Impl;
    explicit FeedClient(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace tessera::client
