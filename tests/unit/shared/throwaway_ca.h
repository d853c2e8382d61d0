#pragma once
// A throwaway certificate authority for TLS tests, made with the openssl CLI
// in a temporary folder: certificates it issues with chosen subjectAltNames,
// and `openssl s_server` processes serving the files of www/ with one of
// them. Everything goes with the object.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

class ThrowawayCa {
public:
    ThrowawayCa() = default;
    ThrowawayCa(const ThrowawayCa&) = delete;
    ThrowawayCa& operator=(const ThrowawayCa&) = delete;
    ~ThrowawayCa()
    {
        for (auto& p : m_servers) {
            p->kill();
            p->waitForFinished(5000);
        }
    }

    // The CA's key and certificate, and the www/ folder; false (with a
    // warning naming the command) when openssl fails.
    bool create()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("openssl")).isEmpty()) {
            qWarning("no openssl command (Debian package openssl)");
            return false;
        }
        return m_dir.isValid() && QDir(m_dir.path()).mkpath(QStringLiteral("www")) &&
               openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Tessera test CA", "-addext",
                        "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"});
    }

    // NAME.key and NAME.pem, signed by the CA, for `altNames`
    // ("IP:127.0.0.1,DNS:localhost").
    bool issue(const QString& name, const QByteArray& altNames)
    {
        return write(name + QStringLiteral(".ext"), "subjectAltName=" + altNames + "\n") &&
               openssl({"req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                        name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name}) &&
               openssl({"x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                        "-days", "2", "-out", name + ".pem", "-extfile", name + ".ext"});
    }

    // How s_server answers `GET /path`: with the file www/path after an
    // HTTP/1.0 200 header, its end the connection's (Www), or with the
    // file as the whole response, header included (Http).
    enum class Mode { Www, Http };

    // `openssl s_server` with NAME's certificate on a free port, once it
    // accepts connections; 0 when it did not start.
    quint16 serve(const QString& name, Mode mode = Mode::Www)
    {
        quint16 port = 0;
        {
            QTcpServer probe;  // s_server cannot report a port it picked itself
            if (!probe.listen(QHostAddress::LocalHost, 0)) return 0;
            port = probe.serverPort();
        }
        auto p = std::make_unique<QProcess>();
        p->setWorkingDirectory(path(QStringLiteral("www")));
        p->setStandardOutputFile(path(name + QStringLiteral(".log")));
        p->setStandardErrorFile(path(name + QStringLiteral(".log")), QIODevice::Append);
        p->start(QStringLiteral("openssl"),
                 {"s_server", "-accept", QString::number(port), "-cert", path(name + ".pem"), "-key",
                  path(name + ".key"), mode == Mode::Www ? "-WWW" : "-HTTP", "-quiet"});
        if (!p->waitForStarted(5000)) return 0;
        QProcess* raw = p.get();
        m_servers.push_back(std::move(p));
        const auto accepts = [&] {
            QTcpSocket s;
            s.connectToHost(QHostAddress::LocalHost, port);
            return raw->state() == QProcess::Running && s.waitForConnected(200);
        };
        return QTest::qWaitFor(accepts, 5000) ? port : 0;
    }

    bool write(const QString& name, const QByteArray& bytes) const
    {
        QFile f(path(name));
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    }

    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString caFile() const { return path(QStringLiteral("ca.pem")); }

private:
    bool openssl(const QStringList& args) const
    {
        QProcess p;
        p.setWorkingDirectory(m_dir.path());
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral("openssl"), args);
        if (!p.waitForFinished(20000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
            qWarning().noquote() << "openssl" << args.join(QLatin1Char(' ')) << "failed:" << p.readAll();
            return false;
        }
        return true;
    }

    QTemporaryDir m_dir;
    std::vector<std::unique_ptr<QProcess>> m_servers;
};
