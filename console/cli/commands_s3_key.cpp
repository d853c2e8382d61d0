// tessera s3-key create|ls|rm: S3 access keys that act as a Tessera user
// (docs/s3.md "Authentication"), over the REST API: admins manage anyone's,
// a user their own. Without --user a command acts for the logged-in user.
#include "api/auth_msg.h"
#include "api/json_util.h"
#include "api/s3_key_msg.h"
#include "arg_parser.h"
#include "commands.h"
#include "output.h"

#include <ctime>
#include <nlohmann/json.hpp>

namespace tessera::cli {

namespace {

// --user NAME, else the user the token names (GET /v1/whoami).
api::Result<std::string> keyOwner(client::Client& client, const ParsedArgs& args)
{
    if (args.options.count("--user") > 0) {
        auto name = args.value("--user");
        if (auto st = api::validateUserName(name); !st) throw UsageError(st.error().message);
        return name;
    }
    auto me = client.whoami();
    if (!me) return me.error();
    return me->name;
}

std::string isoDate(std::int64_t unixSeconds)
{
    const std::time_t t = static_cast<std::time_t>(unixSeconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &tm);
    return buf;
}

}  // namespace

int cmdS3KeyCreate(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--user", "--description"}, {});
    if (!args.positional.empty()) throw UsageError("s3-key create takes no positional arguments");
    const auto description = args.value("--description");
    if (description.size() > api::s3_key_limits::kMaxDescriptionBytes) {
        throw UsageError("--description is at most " + std::to_string(api::s3_key_limits::kMaxDescriptionBytes) +
                         " bytes");
    }
    auto client = ctx.makeClient();
    auto user = keyOwner(client, args);
    if (!user) return ctx.fail(user.error());
    auto key = client.createS3Key(*user, api::NewS3Key{description});
    if (!key) return ctx.fail(key.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(nlohmann::json(*key)) << "\n";
        return kExitOk;
    }
    *ctx.out << "access key: " << key->key.accessKey << "\n"
             << "secret key: " << key->secretKey << "\n"
             << "user:       " << key->key.user << "\n"
             << "The secret is shown this once; keep it (e.g. aws configure). Delete the key with\n"
             << "  tessera s3-key rm " << key->key.accessKey << " --user " << key->key.user << "\n";
    return kExitOk;
}

int cmdS3KeyList(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--user"}, {"--all"});
    if (!args.positional.empty()) throw UsageError("s3-key ls takes no positional arguments");
    if (args.has("--all") && args.options.count("--user") > 0)
        throw UsageError("s3-key ls takes --user or --all, not both");
    auto client = ctx.makeClient();
    std::string user;
    if (!args.has("--all")) {
        auto owner = keyOwner(client, args);
        if (!owner) return ctx.fail(owner.error());
        user = std::move(*owner);
    }
    auto keys = client.listS3Keys(user);
    if (!keys) return ctx.fail(keys.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(nlohmann::json(*keys)) << "\n";
        return kExitOk;
    }
    Table t({"ACCESS KEY", "USER", "CREATED", "DESCRIPTION"});
    for (const auto& k : *keys) {
        t.add({k.accessKey, k.user, isoDate(k.createdAt), k.description.empty() ? "-" : k.description});
    }
    *ctx.out << t.render();
    return kExitOk;
}

int cmdS3KeyRemove(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--user"}, {});
    if (args.positional.size() != 1) throw UsageError("s3-key rm needs exactly one ACCESS_KEY");
    const auto& key = args.positional[0];
    if (auto st = api::validateS3AccessKey(key); !st) throw UsageError(st.error().message);
    auto client = ctx.makeClient();
    auto user = keyOwner(client, args);
    if (!user) return ctx.fail(user.error());
    if (auto st = client.deleteS3Key(*user, key); !st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson({{"deleted", key}, {"user", *user}}) << "\n";
    else *ctx.out << "deleted S3 key " << key << " of \"" << *user << "\"\n";
    return kExitOk;
}

}  // namespace tessera::cli
