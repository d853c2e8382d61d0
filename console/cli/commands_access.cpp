// tessera user ls|add|rm|passwd, bucket grant|revoke, auth keys|rotate|
// push-keys|drop-key: the proxy's users, their per-bucket permissions and the
// token-key ring, over the REST API (admins; docs/api.md "Auth").
#include "api/auth_msg.h"
#include "api/json_util.h"
#include "arg_parser.h"
#include "commands.h"
#include "output.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tessera::cli {

namespace {

std::string permissionList(const std::vector<api::Permission>& permissions)
{
    std::string out;
    for (auto p : permissions) out += (out.empty() ? "" : ",") + std::string(api::permissionName(p));
    return out;
}

// "read,list" -> permissions; UsageError naming a bad one.
std::vector<api::Permission> parsePermissions(const std::string& text)
{
    std::vector<api::Permission> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const auto name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        auto p = api::permissionFromName(name);
        if (!p) throw UsageError("\"" + name + "\" is not a permission: read, list, write, delete or admin-bucket");
        out.push_back(*p);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

void checkUser(const std::string& name)
{
    if (auto st = api::validateUserName(name); !st) throw UsageError(st.error().message);
}

int printRing(CliContext& ctx, const api::TokenKeyRing& ring, const char* what)
{
    if (ctx.json) {
        *ctx.out << api::dumpJson(nlohmann::json(ring)) << "\n";
        return kExitOk;
    }
    if (what != nullptr) *ctx.out << what << "\n";
    Table t({"KEY", "USE"});
    for (std::size_t i = 0; i < ring.kids.size(); ++i) {
        t.add({ring.kids[i], i + 1 == ring.kids.size() ? "signs new tokens" : "verifies older tokens"});
    }
    *ctx.out << "token key ring v" << ring.version << "\n" << t.render();
    return kExitOk;
}

}  // namespace

int cmdUserList(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("user ls takes no arguments");
    auto client = ctx.makeClient();
    auto users = client.listUsers();
    if (!users) return ctx.fail(users.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(nlohmann::json(*users)) << "\n";
        return kExitOk;
    }
    Table t({"USER", "ADMIN", "GRANTS"});
    for (const auto& u : *users) {
        std::string grants;
        for (const auto& g : u.grants)
            grants += (grants.empty() ? "" : " ") + g.bucket + ":" + permissionList(g.permissions);
        t.add({u.name, u.admin ? "yes" : "no", grants.empty() ? "-" : grants});
    }
    *ctx.out << t.render();
    return kExitOk;
}

int cmdUserAdd(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {"--admin"});
    if (args.positional.size() != 1) throw UsageError("user add needs exactly one NAME");
    const auto& name = args.positional[0];
    checkUser(name);
    auto password = readPassword(ctx, name);
    if (!password) return ctx.fail(password.error());
    auto client = ctx.makeClient();
    if (auto st = client.addUser(api::NewUser{name, *password, args.has("--admin")}); !st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson({{"added", name}, {"admin", args.has("--admin")}}) << "\n";
    else *ctx.out << "added user \"" << name << "\"" << (args.has("--admin") ? " (admin)" : "") << "\n";
    return kExitOk;
}

int cmdUserRemove(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {"--yes"});
    if (args.positional.size() != 1) throw UsageError("user rm needs exactly one NAME");
    const auto& name = args.positional[0];
    checkUser(name);
    if (!args.has("--yes")) {
        if (!::isatty(STDIN_FILENO)) throw UsageError("removing a user needs --yes when not run interactively");
        *ctx.err << "Remove user \"" << name << "\" and all its grants? Type the user name to confirm: ";
        std::string answer;
        std::getline(std::cin, answer);
        if (answer != name) {
            *ctx.err << "not confirmed; nothing was changed\n";
            return kExitFailed;
        }
    }
    auto client = ctx.makeClient();
    if (auto st = client.deleteUser(name); !st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson({{"removed", name}}) << "\n";
    else *ctx.out << "removed user \"" << name << "\"\n";
    return kExitOk;
}

int cmdUserPasswd(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError("user passwd needs exactly one NAME");
    const auto& name = args.positional[0];
    checkUser(name);
    auto password = readPassword(ctx, name);
    if (!password) return ctx.fail(password.error());
    auto client = ctx.makeClient();
    if (auto st = client.setPassword(name, *password); !st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson({{"password_set", name}}) << "\n";
    else *ctx.out << "set the password of \"" << name << "\"\n";
    return kExitOk;
}

int cmdBucketGrant(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 3) throw UsageError("bucket grant needs BUCKET USER PERMISSIONS");
    const auto& bucket = args.positional[0];
    const auto& user = args.positional[1];
    checkUser(user);
    const api::Grant g{bucket, parsePermissions(args.positional[2])};
    auto client = ctx.makeClient();
    if (auto st = client.grant(user, g); !st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson({{"user", user}, {"grant", nlohmann::json(g)}}) << "\n";
    else *ctx.out << "granted " << permissionList(g.permissions) << " on \"" << bucket << "\" to \"" << user << "\"\n";
    return kExitOk;
}

int cmdBucketRevoke(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 3) throw UsageError("bucket revoke needs BUCKET USER PERMISSIONS");
    const auto& bucket = args.positional[0];
    const auto& user = args.positional[1];
    checkUser(user);
    const auto permissions = parsePermissions(args.positional[2]);
    auto client = ctx.makeClient();
    for (auto p : permissions) {
        if (auto st = client.revokeGrant(user, bucket, p); !st) return ctx.fail(st.error());
    }
    if (ctx.json) {
        *ctx.out << api::dumpJson({{"user", user}, {"bucket", bucket}, {"revoked", permissionList(permissions)}})
                 << "\n";
    } else {
        *ctx.out << "revoked " << permissionList(permissions) << " on \"" << bucket << "\" from \"" << user << "\"\n";
    }
    return kExitOk;
}

int cmdAuthKeys(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("auth keys takes no arguments");
    auto client = ctx.makeClient();
    auto ring = client.tokenKeys();
    if (!ring) return ctx.fail(ring.error());
    return printRing(ctx, *ring, nullptr);
}

int cmdAuthRotate(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("auth rotate takes no arguments");
    auto client = ctx.makeClient();
    auto ring = client.rotateTokenKey();
    if (!ring) return ctx.fail(ring.error());
    return printRing(ctx, *ring, "rotated: new tokens are signed with the newest key; log in again to get one");
}

int cmdAuthPushKeys(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("auth push-keys takes no arguments");
    auto client = ctx.makeClient();
    auto ring = client.pushTokenKeys();
    if (!ring) return ctx.fail(ring.error());
    return printRing(ctx, *ring, "every present target holds the ring");
}

int cmdAuthDropKey(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError("auth drop-key needs exactly one KEY id");
    if (auto st = api::validateKeyId(args.positional[0]); !st) throw UsageError(st.error().message);
    auto client = ctx.makeClient();
    auto ring = client.dropTokenKey(args.positional[0]);
    if (!ring) return ctx.fail(ring.error());
    return printRing(ctx, *ring, "dropped: the tokens that key signed are refused by every node");
}

}  // namespace tessera::cli
