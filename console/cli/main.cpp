// tessera: the terminal console of a Tessera cluster.
#include "cli_app.h"

#include <iostream>

int main(int argc, char** argv)
{
    return tessera::cli::CliApp().run(argc, argv, std::cout, std::cerr);
}
