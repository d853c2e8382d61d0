// tessera: the terminal console of a Tessera cluster.
#include "cli_app.h"

#include <clocale>
#include <iostream>

int main(int argc, char** argv)
{
    std::setlocale(LC_CTYPE, "C.UTF-8");  // UTF-8 member names in the shards it writes
    return tessera::cli::CliApp().run(argc, argv, std::cout, std::cerr);
}
