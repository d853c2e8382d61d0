#include "api/go_time_format.h"
#include "api/json_util.h"
#include "api/object_list.h"
#include "arg_parser.h"
#include "commands.h"
#include "output.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tessera::cli {

int cmdBucketCreate(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError("bucket create needs exactly one NAME");
    auto client = ctx.makeClient();
    auto st = client.createBucket(args.positional[0]);
    if (!st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson({{"created", args.positional[0]}}) << "\n";
    else *ctx.out << "created bucket \"" << args.positional[0] << "\"\n";
    return kExitOk;
}

int cmdBucketList(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("bucket ls takes no arguments");
    auto client = ctx.makeClient();
    auto list = client.listBuckets();
    if (!list) return ctx.fail(list.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson(nlohmann::json(*list)) << "\n";
        return kExitOk;
    }
    Table t({"BUCKET", "PROVIDER"});
    for (const auto& b : *list) t.add({b.name, b.provider});
    *ctx.out << t.render() << list->size() << " bucket(s)\n";
    return kExitOk;
}

int cmdBucketRemove(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {"--yes"});
    if (args.positional.size() != 1) throw UsageError("bucket rm needs exactly one NAME");
    const auto& name = args.positional[0];
    if (!args.has("--yes")) {
        if (!::isatty(STDIN_FILENO)) {
            throw UsageError("destroying a bucket needs --yes when not run interactively");
        }
        *ctx.err << "Destroy bucket \"" << name << "\" and every object in it? Type the bucket name to confirm: ";
        std::string answer;
        std::getline(std::cin, answer);
        if (answer != name) {
            *ctx.err << "not confirmed; nothing was changed\n";
            return kExitFailed;
        }
    }
    auto client = ctx.makeClient();
    auto st = client.destroyBucket(name);
    if (!st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson({{"destroyed", name}}) << "\n";
    else *ctx.out << "destroyed bucket \"" << name << "\"\n";
    return kExitOk;
}

int cmdBucketProps(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--set"}, {});
    if (args.positional.size() != 1) throw UsageError("bucket props needs exactly one NAME");
    auto client = ctx.makeClient();
    api::Result<api::BucketProps> props = api::Error::internal("unset");
    auto it = args.options.find("--set");
    if (it != args.options.end()) {
        // "checksum.validate_warm_get=true" -> {"checksum":{"validate_warm_get":true}}
        nlohmann::json update = nlohmann::json::object();
        for (const auto& kv : it->second) {
            auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) throw UsageError("--set needs key=value, got \"" + kv + "\"");
            const std::string key = kv.substr(0, eq);
            const std::string raw = kv.substr(eq + 1);
            auto value = nlohmann::json::parse(raw, nullptr, false);
            if (value.is_discarded()) value = raw;  // a bare string
            nlohmann::json* node = &update;
            std::size_t start = 0;
            while (true) {
                auto dot = key.find('.', start);
                const auto part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
                if (part.empty()) throw UsageError("bad property name \"" + key + "\"");
                if (dot == std::string::npos) {
                    (*node)[part] = value;
                    break;
                }
                node = &(*node)[part];
                start = dot + 1;
            }
        }
        props = client.setBucketProps(args.positional[0], update);
    } else {
        props = client.bucketProps(args.positional[0]);
    }
    if (!props) return ctx.fail(props.error());
    *ctx.out << nlohmann::json(*props).dump(ctx.json ? -1 : 2) << "\n";
    return kExitOk;
}

int cmdList(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--prefix", "--limit", "--props", "--pagesize"}, {"--paged"});
    if (args.positional.size() != 1) throw UsageError("ls needs BUCKET[/PREFIX]");
    auto [bucket, pathPrefix] = splitBucketPath(args.positional[0]);
    api::ListRequest req;
    req.prefix = args.value("--prefix", pathPrefix);
    const auto limit = args.number("--limit", 0);
    req.pageSize = static_cast<std::uint32_t>(args.number("--pagesize", api::kDefaultPageSize));
    if (req.pageSize == 0 || req.pageSize > api::kMaxPageSize) throw UsageError("--pagesize must be 1..10000");
    if (!args.value("--props").empty()) {
        auto props = api::parseListProps(args.value("--props"));
        if (!props) throw UsageError(props.error().message);
        req.props = *props;
    }
    // The listing's atime is AIStore's RFC822 (minutes) unless asked otherwise.
    req.timeFormat = std::string(api::kGoRfc3339Nano);
    auto client = ctx.makeClient();
    const bool paged = args.has("--paged");
    std::uint64_t shown = 0;
    std::uint64_t bytes = 0;
    bool complete = false;
    bool moreKnown = false;  // entries were left unshown, so more certainly exist
    int page = 0;
    nlohmann::json all = nlohmann::json::array();
    while (true) {
        auto list = client.listObjects(bucket, req);
        if (!list) return ctx.fail(list.error());
        ++page;
        if (paged && !ctx.json) *ctx.out << "-- page " << page << " (" << list->entries.size() << ")\n";
        nlohmann::json pageJson = nlohmann::json::array();
        for (const auto& e : list->entries) {
            if (limit && shown >= limit) {
                moreKnown = true;
                break;
            }
            ++shown;
            bytes += static_cast<std::uint64_t>(std::max<std::int64_t>(e.size, 0));
            if (ctx.json) {
                (paged ? pageJson : all).push_back(e);
                continue;
            }
            std::string line = e.name;
            if (req.props & api::kPropSize) {
                line += "  " + formatBytes(static_cast<std::uint64_t>(std::max<std::int64_t>(e.size, 0)));
            }
            if (req.props & api::kPropChecksum) line += "  " + e.checksum;
            if (req.props & api::kPropVersion) line += "  v" + e.version;
            if (req.props & api::kPropAtime) line += "  " + e.atime;
            *ctx.out << line << "\n";
        }
        complete = !moreKnown && list->continuationToken.empty();
        if (paged && ctx.json) {
            // One document per page, written as it arrives (JSON Lines).
            *ctx.out << api::dumpJson({{"page", page}, {"entries", pageJson}, {"complete", complete}}) << "\n"
                     << std::flush;
        }
        if (complete || moreKnown || (limit && shown >= limit)) break;
        req.continuationToken = list->continuationToken;
    }
    if (ctx.json) {
        if (!paged) *ctx.out << api::dumpJson({{"entries", all}, {"complete", complete}}) << "\n";
        return kExitOk;
    }
    const std::string sizeNote = (req.props & api::kPropSize) ? formatBytes(bytes) + ", " : std::string();
    if (complete) {
        *ctx.out << shown << (shown == 1 ? " object, " : " objects, ") << sizeNote << "listing complete\n";
    } else {
        *ctx.out << shown << (shown == 1 ? " object shown, " : " objects shown, ") << "listing incomplete ("
                 << (moreKnown ? "more available" : "stopped at --limit; the cluster has more pages") << ")\n";
    }
    return kExitOk;
}

}  // namespace tessera::cli
