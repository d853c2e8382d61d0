// tessera: the terminal console of a Tessera cluster.
#include "cli_app.h"

#include <clocale>
#include <iostream>
#include <malloc.h>

int main(int argc, char** argv)
{
    std::setlocale(LC_CTYPE, "C.UTF-8");  // UTF-8 member names in the shards it writes
    // Listing pages and bench buffers are built and freed over and over: keep
    // such blocks in the heap instead of faulting in fresh pages for each.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
    return tessera::cli::CliApp().run(argc, argv, std::cout, std::cerr);
}
