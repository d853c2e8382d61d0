// tessera-node: one proxy or target of a Tessera cluster.
#include "common/log.h"
#include "config.h"
#include "node.h"
#include "user_command.h"

#include "client/http_client.h"

#include <clocale>
#include <csignal>
#include <iostream>
#include <malloc.h>

namespace {
// Blocks below this come from the heap; the heap's free top above this is
// given back to the kernel.
constexpr int kMallocMmapThreshold = 32 << 20;
constexpr int kMallocTrimThreshold = 128 << 20;
}  // namespace

int main(int argc, char** argv)
{
    using namespace tessera::daemon;
    // Names are UTF-8 throughout; libarchive writes shard member names as
    // UTF-8 pax paths only under a UTF-8 character type.
    std::setlocale(LC_CTYPE, "C.UTF-8");
    // A listing page is a few hundred KiB of text built and freed per call.
    // glibc's defaults hand such blocks back to the kernel (mmap, or trimming
    // the heap's top) and fault fresh zeroed pages in for the next page; a
    // fixed threshold keeps them in the heap (names/s through the proxy x 1.35,
    // docs/benchmarks.md). What stays is bounded by the node's own peak use.
    mallopt(M_MMAP_THRESHOLD, kMallocMmapThreshold);
    mallopt(M_TRIM_THRESHOLD, kMallocTrimThreshold);
    // "... user add NAME": the options before "user" configure, the words after it are the command.
    const auto userAt = userCommandIndex(argc, argv);
    std::string help;
    auto config = parseConfig(userAt.value_or(argc), argv, help);
    if (!config) {
        if (!help.empty()) {
            std::cout << help;
            return 0;
        }
        std::cerr << "tessera-node: " << config.error().message << "\n";
        return 2;
    }
    if (userAt) {
        return runUserCommand(*config, std::vector<std::string>(argv + *userAt + 1, argv + argc), std::cin, std::cout,
                              std::cerr);
    }
    const auto& lvl = config->logLevel;
    setLogLevel(lvl == "debug"   ? LogLevel::Debug
                : lvl == "warn"  ? LogLevel::Warn
                : lvl == "error" ? LogLevel::Error
                                 : LogLevel::Info);
    // Signals are handled by the node's signal_set: block them in every thread it starts.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    // Calls to other nodes trust the cluster's CA (tls.ca_file).
    if (!config->tlsCaFile.empty()) {
        tessera::client::HttpClient::Options::Tls tls;
        tls.caFile = config->tlsCaFile;
        tessera::client::HttpClient::Options::Tls::setProcessDefault(tls);
    }
    try {
        return Node::create(*config)->run();
    } catch (const std::exception& e) {
        std::cerr << "tessera-node: " << e.what() << "\n";
        return 1;
    }
}
