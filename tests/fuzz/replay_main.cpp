// Replays inputs through a harness without libFuzzer, so the normal (g++)
// build runs every harness over its seed corpus in CI (the fuzz_short
// test): each argument is a file, or a directory whose files are all read.
// A broken property aborts, which fails the test; a clean run prints how
// many inputs passed.

#include "fuzz_check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;

namespace {

bool replay(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
        return false;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    return true;
}

}  // namespace

int main(int argc, char** argv)
{
    std::size_t count = 0;
    for (int i = 1; i < argc; ++i) {
        std::vector<fs::path> files;
        std::error_code ec;
        if (fs::is_directory(argv[i], ec)) {
            for (const auto& e : fs::directory_iterator(argv[i])) {
                if (e.is_regular_file()) files.push_back(e.path());
            }
            std::sort(files.begin(), files.end());
            if (files.empty()) {
                std::fprintf(stderr, "replay: %s holds no inputs\n", argv[i]);
                return 1;
            }
        } else {
            files.emplace_back(argv[i]);
        }
        for (const auto& f : files) {
            if (!replay(f)) return 1;
            ++count;
        }
    }
    if (count == 0) {
        std::fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    std::printf("replay: %zu inputs passed\n", count);
    return 0;
}
