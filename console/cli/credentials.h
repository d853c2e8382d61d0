#pragma once
// Which token a command sends (auth on; docs/security.md#cli), decided once
// before it runs:
//   - $TESSERA_TOKEN: an access token, sent as is (scripts; never stored or
//     refreshed; an environment variable, not an option, so it does not
//     show in `ps`);
//   - else the session `tessera login` stored (token_file.h), only to the
//     proxy that issued it; an access token within kRefreshMargin of its
//     expiry is first exchanged with the refresh token and the file
//     rewritten;
//   - else none (auth off needs none; auth on answers 401 and the CLI says
//     to log in).

#include "cli_context.h"

#include "api/result.h"

#include <cstdint>

namespace tessera::cli {

// An access token this close to its expiry is refreshed first, so it does
// not expire in the middle of the command's first calls.
inline constexpr std::int64_t kRefreshMargin = 60;

// Sets ctx.token. An error only for a session file that must not be used
// (readable by others, malformed); an expired session or a refused refresh
// is a note on stderr and no token.
api::Status useCredentials(CliContext& ctx);

}  // namespace tessera::cli
