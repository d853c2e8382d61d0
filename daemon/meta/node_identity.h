#pragma once
// A node's persistent id, kept in <data-dir>/node_id so that a restarted
// node rejoins as itself (and a target finds its objects again).

#include "api/result.h"

#include <string>

namespace tessera::daemon::meta {

// Reads the id, or creates one ("p" or "t" + 10 random base-36 chars).
api::Result<std::string> loadOrCreateNodeId(const std::string& dataDir, char rolePrefix);

// Generates a random alphanumeric string of `len` characters.
std::string randomId(std::size_t len);

// The cluster's shared secret (64 hex digits from /dev/urandom) in `path`.
// With `create`, a missing file is created (mode 0600); without it, a
// missing or malformed file is an error naming the path.
api::Result<std::string> loadClusterKey(const std::string& path, bool create);

// Compares two secrets in time independent of where they differ.
bool sameSecret(const std::string& a, const std::string& b);

// Writes `content` to `path` through a temporary file and rename.
api::Status writeFileAtomic(const std::string& path, const std::string& content);

}  // namespace tessera::daemon::meta
