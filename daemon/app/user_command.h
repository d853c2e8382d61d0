#pragma once
// Managing the proxy's users on its host, without a token: how the first
// admin comes to exist (there is no default user or password).
//   tessera-node [--config F | --role proxy --data-dir D] user add NAME [--admin]
//   tessera-node ... user passwd NAME
//   tessera-node ... user rm NAME
//   tessera-node ... user ls
//   tessera-node ... user grant NAME BUCKET PERMISSION[,PERMISSION...]
// Passwords are read from stdin (one line), never from the command line
// where `ps` and shell history would show them. It opens the same SQLite
// file as a running proxy (WAL: both may use it at once). Whoever can run
// this can read the data directory anyway, so it needs no other check.

#include "config.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace tessera::daemon {

// The position of the "user" word in argv (options before it configure the
// node, words after it are the command); nullopt when there is none.
std::optional<int> userCommandIndex(int argc, char** argv);

// Runs the command; the exit status (0 ok, 1 refused, 2 usage).
int runUserCommand(const Config& c, const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                   std::ostream& err);

}  // namespace tessera::daemon
