#pragma once
// The processes an auth test runs besides curl: the real `tessera` CLI
// against a proxy (its session under its own $XDG_CONFIG_HOME), the proxy
// host's `tessera-node user` command (the first admin, password resets),
// and a login with curl.
#include "curl_run.h"
#include "local_cluster.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <filesystem>
#include <string>

namespace tessera::tests {

// The permission bits of `path` (-1 when it cannot be read): the CLI's
// session file is the user's alone.
inline int modeOf(const QString& path)
{
    std::error_code ec;
    const auto p = std::filesystem::status(path.toStdString(), ec).permissions();
    return ec ? -1 : static_cast<int>(p & std::filesystem::perms::mask);
}

struct CliRun {
    int code = -1;  // -1: did not end in 60 s, or crashed
    std::string out;
    std::string err;
};

// `tessera ARGS` against `endpoint`, its session under `config`, `stdinText`
// on its stdin (TESSERA_CLI_BINARY: the test's compile definition).
inline CliRun runCli(const std::string& endpoint, const QString& config, const QStringList& args,
                     const QByteArray& stdinText = {})
{
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("TESSERA_ENDPOINT", QString::fromStdString(endpoint));
    env.insert("XDG_CONFIG_HOME", config);
    env.remove("TESSERA_TOKEN");
    env.remove("TESSERA_TOKEN_FILE");
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(TESSERA_CLI_BINARY), args);
    p.write(stdinText);
    p.closeWriteChannel();
    CliRun r;
    if (!p.waitForFinished(60000)) return r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput().toStdString();
    r.err = p.readAllStandardError().toStdString();
    return r;
}

// `tessera-node --role proxy --data-dir PROXYDIR user ARGS` with `stdinText`;
// its exit code (-1: did not end in 30 s).
inline int userCommand(const QString& proxyDir, const QStringList& args, const QByteArray& stdinText)
{
    QProcess p;
    p.start(nodeBinary(), QStringList{"--role", "proxy", "--data-dir", proxyDir, "user"} + args);
    p.write(stdinText);
    p.closeWriteChannel();
    if (!p.waitForFinished(30000)) return -1;
    return p.exitCode();
}

// POST /v1/tokens with curl: the access token, or "" when the login failed
// or its answer lacks a token or a refresh token.
inline std::string login(const std::string& proxyUrl, const std::string& user, const std::string& password)
{
    const auto body = nlohmann::json{{"user", user}, {"password", password}}.dump();
    auto r = curl(
        {"-X", "POST", QString::fromStdString(proxyUrl + "/v1/tokens"), "--data-binary", QString::fromStdString(body)});
    if (r.status != 200) return {};
    auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (!j.is_object() || !j.contains("token") || !j.contains("refresh_token")) return {};
    return j["token"].get<std::string>();
}

}  // namespace tessera::tests
