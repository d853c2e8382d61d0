#pragma once
// Many requests at once, each from its own client on its own thread: what
// many users, or a loader's workers, send together. For tests that a node
// answers more concurrent calls than it has worker threads.

#include "client/http_client.h"

#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <vector>

namespace tessera::tests {

struct AtOnceCall {
    client::Method method = client::Method::Get;
    std::string url;
    std::string body;
    client::Headers headers;
};

struct AtOnceAnswer {
    int status = 0;  // 0: no answer within the timeout (then `body` says why)
    std::string body;
};

struct AtOnceResult {
    std::vector<AtOnceAnswer> answers;  // in the order of the calls
    std::chrono::milliseconds took{0};  // from the first send to the last answer
    std::string tookText() const
    {
        return std::to_string(answers.size()) + " calls at once took " + std::to_string(took.count()) + " ms";
    }
};

// Sends call(0) .. call(n-1) at once. No retries on 503: each call is
// answered once.
inline AtOnceResult sendAtOnce(int n, const std::function<AtOnceCall(int)>& call,
                               std::chrono::milliseconds timeout = std::chrono::seconds(30))
{
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::future<AtOnceAnswer>> pending;
    for (int i = 0; i < n; ++i) {
        pending.push_back(std::async(std::launch::async, [c = call(i), timeout] {
            client::HttpClient::Options o;
            o.ioTimeout = timeout;
            o.retriesOn503 = 0;
            client::HttpClient http(o);
            auto r = http.send(c.method, c.url, c.body.empty() ? client::Body::none() : client::Body::string(c.body),
                               c.headers);
            return r ? AtOnceAnswer{r->status, r->body} : AtOnceAnswer{0, r.error().message};
        }));
    }
    AtOnceResult out;
    for (auto& p : pending) out.answers.push_back(p.get());
    out.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    return out;
}

}  // namespace tessera::tests
