#pragma once
// The `tessera` command line: global options, then a command found in a
// table of (words -> function).

#include <iosfwd>

namespace tessera::cli {

class CliApp {
public:
    int run(int argc, char** argv, std::ostream& out, std::ostream& err);
};

}  // namespace tessera::cli
