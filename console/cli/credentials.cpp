#include "credentials.h"

#include "token_file.h"

#include <chrono>
#include <cstdlib>
#include <ostream>

namespace tessera::cli {

namespace {
std::int64_t nowSeconds()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}
}  // namespace

api::Status useCredentials(CliContext& ctx)
{
    if (const char* env = std::getenv("TESSERA_TOKEN"); env != nullptr && *env != '\0') {
        ctx.token = env;
        return {};
    }
    const TokenFile file(ctx.tokenFile);
    auto loaded = file.load();
    if (!loaded) return loaded.error();
    if (!*loaded) return {};
    auto session = std::move(**loaded);
    if (session.endpoint != ctx.endpoint) {
        *ctx.err << "note: the session in " << file.path() << " is for " << session.endpoint << "; sending no token to "
                 << ctx.endpoint << " (tessera login logs in there)\n";
        return {};
    }
    const auto now = nowSeconds();
    if (session.tokens.expiresAt > now + kRefreshMargin) {
        ctx.token = session.tokens.token;
        return {};
    }
    const bool canRefresh = session.tokens.refreshToken && session.tokens.refreshExpiresAt.value_or(0) > now;
    if (!canRefresh) {
        *ctx.err << "note: the session in " << file.path()
                 << " has expired; sending no token (log in again: tessera login --user NAME)\n";
        return {};
    }
    client::Client anonymous(ctx.endpoint, ctx.transportOptions());
    auto renewed = anonymous.refreshTokens(*session.tokens.refreshToken);
    if (!renewed) {
        *ctx.err << "note: the session in " << file.path() << " could not be refreshed (" << renewed.error().message
                 << "); sending no token (log in again: tessera login --user NAME)\n";
        return {};
    }
    session.tokens = std::move(renewed.value());
    // A refresh token is spent once redeemed: without the new pair on disk
    // the next command could not refresh, so a failed write is an error.
    if (auto st = file.save(session); !st) return st.error();
    ctx.token = session.tokens.token;
    return {};
}

}  // namespace tessera::cli
