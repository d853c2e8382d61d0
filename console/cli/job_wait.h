#pragma once
// Waiting for a job from the CLI (`job wait`, and --wait of the commands
// that start one): progress on stderr, the final status on stdout.

#include "cli_context.h"

#include <cstdint>
#include <string>

namespace tessera::cli {

// Polls the job until it ends; kExitOk only when it finished. timeoutSec 0:
// no limit (kExitFailed when it runs out).
int waitForJob(CliContext& ctx, client::Client& client, const std::string& id, std::uint64_t timeoutSec);

}  // namespace tessera::cli
