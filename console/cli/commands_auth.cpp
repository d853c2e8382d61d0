// tessera login | logout | whoami: the CLI's session (credentials.h,
// token_file.h).
#include "api/auth_msg.h"
#include "api/json_util.h"
#include "arg_parser.h"
#include "commands.h"
#include "token_file.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <termios.h>
#include <unistd.h>

namespace tessera::cli {

namespace {

// Turns the terminal's echo off while it lives.
class NoEcho {
public:
    NoEcho()
    {
        if (::tcgetattr(STDIN_FILENO, &m_saved) != 0) return;
        termios quiet = m_saved;
        quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        m_active = ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == 0;
    }
    ~NoEcho()
    {
        if (m_active) ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &m_saved);
    }
    NoEcho(const NoEcho&) = delete;
    NoEcho& operator=(const NoEcho&) = delete;

private:
    termios m_saved{};
    bool m_active = false;
};

}  // namespace

api::Result<std::string> readPassword(CliContext& ctx, const std::string& user)
{
    std::string line;
    const bool tty = ::isatty(STDIN_FILENO) != 0;
    if (tty) {
        *ctx.err << "password for " << user << " at " << ctx.endpoint << ": " << std::flush;
        NoEcho quiet;
        std::getline(std::cin, line);
        *ctx.err << "\n";
    } else {
        std::getline(std::cin, line);
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
        return api::Error::badRequest(tty ? "no password given"
                                          : "no password on stdin (its first line is the password)");
    }
    if (line.size() > api::auth_limits::kMaxPasswordBytes) {
        return api::Error::badRequest("a password is at most " + std::to_string(api::auth_limits::kMaxPasswordBytes) +
                                      " bytes");
    }
    return line;
}

int cmdLogin(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--user"}, {});
    if (!args.positional.empty()) throw UsageError("login takes no arguments; the user is --user NAME");
    const auto user = args.value("--user");
    if (user.empty()) throw UsageError("login needs --user NAME");
    if (auto st = api::validateUserName(user); !st) throw UsageError(st.error().message);
    auto password = readPassword(ctx, user);
    if (!password) return ctx.fail(password.error());
    client::Client anonymous(ctx.endpoint, ctx.transportOptions());
    auto reply = anonymous.login(user, *password);
    if (!reply) return ctx.fail(reply.error());
    const TokenFile file(ctx.tokenFile);
    if (auto st = file.save(Session{ctx.endpoint, *reply}); !st) return ctx.fail(st.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson({{"user", user},
                                   {"endpoint", ctx.endpoint},
                                   {"token_file", file.path()},
                                   {"expires_at", reply->expiresAt},
                                   {"refresh_expires_at", reply->refreshExpiresAt.value_or(0)}})
                 << "\n";
    } else {
        *ctx.out << "logged in as " << user << " at " << ctx.endpoint << "; the session is in " << file.path() << "\n";
    }
    return kExitOk;
}

int cmdLogout(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("logout takes no arguments");
    const TokenFile file(ctx.tokenFile);
    auto loaded = file.load();
    if (!loaded) return ctx.fail(loaded.error());
    if (!*loaded) {
        *ctx.out << "not logged in (no session in " << file.path() << ")\n";
        return kExitOk;
    }
    const auto& session = **loaded;
    // Both tokens are revoked at the proxy that issued them, the access
    // token last (it authorizes the calls). One already expired or revoked
    // is refused as such: nothing is left to revoke.
    client::HttpClient::Options o = ctx.transportOptions();
    o.headers.emplace_back("Authorization", "Bearer " + session.tokens.token);
    client::Client issuer(session.endpoint, o);
    api::Status revoked;
    if (session.tokens.refreshToken) revoked = issuer.revokeToken(*session.tokens.refreshToken);
    if (revoked) revoked = issuer.revokeToken(session.tokens.token);
    const bool stale = !revoked && revoked.kind() == api::ErrorKind::Unauthorized;
    if (auto st = file.remove(); !st) return ctx.fail(st.error());
    if (!revoked && !stale) {
        *ctx.err << "note: " << file.path() << " was removed, but the tokens could not be revoked\n";
        return ctx.fail(revoked.error());
    }
    *ctx.out << "logged out of " << session.endpoint << (stale ? " (the session had already expired)" : "")
             << "; removed " << file.path() << "\n";
    return kExitOk;
}

int cmdWhoami(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("whoami takes no arguments");
    auto client = ctx.makeClient();
    auto me = client.whoami();
    if (!me) return ctx.fail(me.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(nlohmann::json(*me)) << "\n";
        return kExitOk;
    }
    *ctx.out << me->name << (me->admin ? " (admin)" : "") << " at " << ctx.endpoint << "\n";
    for (const auto& g : me->grants) {
        *ctx.out << "  " << g.bucket << ":";
        for (auto p : g.permissions) *ctx.out << " " << api::permissionName(p);
        *ctx.out << "\n";
    }
    return kExitOk;
}

}  // namespace tessera::cli
