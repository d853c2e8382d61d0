#include "cli_app.h"

#include "commands.h"

#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace tessera::cli {

namespace {

struct Command {
    std::vector<std::string> words;
    std::string synopsis;
    std::function<int(CliContext&)> run;
};

const std::vector<Command>& commands()
{
    static const std::vector<Command> kCommands = {
        {{"cluster", "show"}, "cluster show                      cluster map, buckets, capacity", cmdClusterShow},
        {{"bucket", "create"}, "bucket create NAME                create a bucket", cmdBucketCreate},
        {{"bucket", "ls"}, "bucket ls                         list buckets", cmdBucketList},
        {{"bucket", "rm"}, "bucket rm NAME [--yes]            destroy a bucket and its objects", cmdBucketRemove},
        {{"bucket", "props"}, "bucket props NAME [--set k=v]...  show or change bucket properties",
         cmdBucketProps},
        {{"ls"}, "ls BUCKET[/PREFIX] [--prefix P] [--limit N] [--paged] [--props LIST]", cmdList},
        {{"put"}, "put FILE|DIR BUCKET[/NAME] [--workers N] [--verify] [--via-proxy]", cmdPut},
        {{"get"}, "get BUCKET/NAME [FILE|-]", cmdGet},
        {{"cat"}, "cat BUCKET/NAME", cmdCat},
        {{"head"}, "head BUCKET/NAME", cmdHead},
        {{"rm"}, "rm BUCKET/NAME...", cmdRemove},
    };
    return kCommands;
}

void usage(std::ostream& os)
{
    os << "usage: tessera [--endpoint URL] [--json] COMMAND [ARGS]\n\n"
          "The endpoint is --endpoint, else $TESSERA_ENDPOINT, else http://127.0.0.1:8080.\n"
          "Exit codes: 0 ok, 1 the cluster said no (or could not be reached), 2 usage.\n\n"
          "commands:\n";
    for (const auto& c : commands()) os << "  " << c.synopsis << "\n";
}

}  // namespace

int CliApp::run(int argc, char** argv, std::ostream& out, std::ostream& err)
{
    CliContext ctx;
    ctx.out = &out;
    ctx.err = &err;
    const char* env = std::getenv("TESSERA_ENDPOINT");
    ctx.endpoint = (env != nullptr && *env != '\0') ? env : "http://127.0.0.1:8080";

    std::vector<std::string> words;
    bool help = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--endpoint") {
            if (i + 1 >= argc) {
                err << "error: --endpoint needs a URL\n";
                return kExitUsage;
            }
            ctx.endpoint = argv[++i];
        } else if (a.rfind("--endpoint=", 0) == 0) {
            ctx.endpoint = a.substr(11);
        } else if (a == "--json") {
            ctx.json = true;
        } else if (a == "-h" || a == "--help") {
            help = true;
        } else {
            words.push_back(a);
        }
    }
    if (words.empty()) {
        usage(help ? out : err);
        return help ? kExitOk : kExitUsage;
    }
    for (const auto& c : commands()) {
        if (words.size() < c.words.size()) continue;
        if (!std::equal(c.words.begin(), c.words.end(), words.begin())) continue;
        if (help) {
            out << "usage: tessera " << c.synopsis << "\n";
            return kExitOk;
        }
        ctx.args.assign(words.begin() + static_cast<long>(c.words.size()), words.end());
        try {
            return c.run(ctx);
        } catch (const UsageError& e) {
            err << "error: " << e.what() << "\nusage: tessera " << c.synopsis << "\n";
            return kExitUsage;
        }
    }
    err << "error: unknown command \"" << words.front() << (words.size() > 1 ? " " + words[1] : "") << "\"\n";
    usage(err);
    return kExitUsage;
}

int CliContext::fail(const api::Error& e) const
{
    *err << "error: " << e.message;
    if (!e.causedBy.empty()) *err << " (" << e.causedBy << ")";
    *err << "\n";
    return kExitFailed;
}

std::pair<std::string, std::string> splitBucketPath(const std::string& s)
{
    auto slash = s.find('/');
    if (slash == std::string::npos) return {s, {}};
    return {s.substr(0, slash), s.substr(slash + 1)};
}

}  // namespace tessera::cli
