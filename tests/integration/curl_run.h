#pragma once
// The real curl, as the integration tests run it: its body on stdout
// followed by a line with the last HTTP status.

#include <QProcess>
#include <QString>
#include <QStringList>
#include <cstdlib>
#include <string>

namespace tessera::tests {

struct CurlResult {
    int exitCode = -1;
    int status = 0;    // the last HTTP status (-w %{http_code})
    std::string body;  // without the status line (with `writeOut`'s text after the body)
    std::string log;   // stderr (with -v: the headers curl sent)
};

// curl -sS with `args`; `writeOut` (curl's -w text) is written after the body.
inline CurlResult curl(QStringList args, const QString& writeOut = {})
{
    args.prepend("-sS");
    args << "-w" << writeOut + "\n%{http_code}";
    QProcess p;
    p.start("curl", args);
    CurlResult r;
    if (!p.waitForFinished(30000)) return r;
    r.exitCode = p.exitCode();
    r.log = p.readAllStandardError().toStdString();
    auto out = p.readAllStandardOutput().toStdString();
    const auto nl = out.rfind('\n');
    if (nl == std::string::npos) return r;
    r.status = std::atoi(out.c_str() + nl + 1);
    r.body = out.substr(0, nl);
    return r;
}

}  // namespace tessera::tests
