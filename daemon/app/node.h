#pragma once
// Wiring of one node: builds the server, the role's state and handlers,
// runs until a signal. Each role is a small class; no global state.

#include "config.h"

#include <memory>

namespace tessera::daemon {

class Node {
public:
    virtual ~Node() = default;
    // Start-up failures are thrown as std::runtime_error with a clear message.
    static std::unique_ptr<Node> create(const Config& config);
    // Serves until SIGINT/SIGTERM. Returns the process exit code.
    virtual int run() = 0;
};

}  // namespace tessera::daemon
