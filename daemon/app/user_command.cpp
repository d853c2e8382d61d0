#include "user_command.h"

#include "node_auth.h"

#include "auth/user_store.h"

#include <istream>
#include <ostream>
#include <sstream>

namespace tessera::daemon {

namespace {

constexpr const char* kUsage =
    "usage: tessera-node [--config F | --role proxy --data-dir D] user add NAME [--admin] | passwd NAME | rm NAME | ls "
    "|"
    " grant NAME BUCKET PERMISSION[,PERMISSION...]\n";

// One line of stdin without its line end; nullopt at end of input.
std::optional<std::string> readPassword(std::istream& in)
{
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
}

int report(const api::Status& st, std::ostream& out, std::ostream& err, const std::string& done)
{
    if (!st) {
        err << "tessera-node: " << st.error().message << "\n";
        return 1;
    }
    out << done << "\n";
    return 0;
}

}  // namespace

std::optional<int> userCommandIndex(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "user") return i;
    }
    return std::nullopt;
}

int runUserCommand(const Config& c, const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                   std::ostream& err)
{
    if (args.empty()) {
        err << kUsage;
        return 2;
    }
    if (c.dataDir.empty()) {
        err << "tessera-node: the user command needs the proxy's data directory (--data-dir or --config)\n";
        return 2;
    }
    auto store = auth::UserStore::open(NodeAuth::userStorePath(c));
    if (!store) {
        err << "tessera-node: " << store.error().message << " " << store.error().causedBy << "\n";
        return 1;
    }
    auto& users = **store;
    const auto& verb = args[0];
    if (verb == "add" && (args.size() == 2 || (args.size() == 3 && args[2] == "--admin"))) {
        auto pw = readPassword(in);
        if (!pw) {
            err << "tessera-node: no password on stdin\n";
            return 1;
        }
        return report(users.addUser(args[1], *pw, args.size() == 3), out, err,
                      "added " + args[1] + (args.size() == 3 ? " (admin)" : ""));
    }
    if (verb == "passwd" && args.size() == 2) {
        auto pw = readPassword(in);
        if (!pw) {
            err << "tessera-node: no password on stdin\n";
            return 1;
        }
        return report(users.setPassword(args[1], *pw), out, err, "password of " + args[1] + " changed");
    }
    if (verb == "rm" && args.size() == 2) return report(users.deleteUser(args[1]), out, err, "removed " + args[1]);
    if (verb == "ls" && args.size() == 1) {
        auto all = users.listUsers();
        if (!all) return report(all.error(), out, err, "");
        for (const auto& u : *all) out << nlohmann::json(u).dump() << "\n";
        return 0;
    }
    if (verb == "grant" && args.size() == 4) {
        api::Grant g{args[2], {}};
        std::stringstream names(args[3]);
        for (std::string name; std::getline(names, name, ',');) {
            auto p = api::permissionFromName(name);
            if (!p) {
                err << "tessera-node: \"" << name << "\" is not read, list, write, delete or admin-bucket\n";
                return 2;
            }
            g.permissions.push_back(*p);
        }
        return report(users.grant(args[1], g), out, err, "granted " + args[3] + " on " + args[2] + " to " + args[1]);
    }
    err << kUsage;
    return 2;
}

}  // namespace tessera::daemon
