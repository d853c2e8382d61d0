#include "core/console_paths.h"
#include "models/console_session.h"
#include "ui/main_window.h"
#include "ui/theme.h"

#include <QApplication>
#include <QCommandLineParser>

using namespace tessera::console;

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("tessera"));
    QApplication::setApplicationName(QStringLiteral("tessera-console"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Tessera desktop console"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption endpointOption(
        QStringLiteral("endpoint"),
        QStringLiteral("Proxy URL to connect to, e.g. http://127.0.0.1:8080 (default: the last used profile)."),
        QStringLiteral("url"));
    const QCommandLineOption databaseOption(QStringLiteral("db"),
                                            QStringLiteral("The console's SQLite database (profiles, metric history)."),
                                            QStringLiteral("path"), defaultDatabasePath());
    const QCommandLineOption caFileOption(
        QStringLiteral("ca-file"), QStringLiteral("With an https:// --endpoint: trust the CAs of this PEM file."),
        QStringLiteral("path"));
    const QCommandLineOption insecureOption(
        QStringLiteral("insecure"), QStringLiteral("With an https:// --endpoint: do not check the certificate."));
    parser.addOptions({endpointOption, databaseOption, caFileOption, insecureOption});
    parser.process(app);

    QUrl endpoint;
    if (parser.isSet(endpointOption)) {
        endpoint = normalizeEndpoint(parser.value(endpointOption));
        if (!endpoint.isValid()) {
            qCritical("tessera-console: --endpoint must be an http(s) URL, not '%s'",
                      qPrintable(parser.value(endpointOption)));
            return 2;
        }
    }

    Theme theme(&app);
    ConsoleSession session(parser.value(databaseOption));
    MainWindow window(&session, &theme);
    window.show();
    const TlsSettings tls{parser.value(caFileOption), parser.isSet(insecureOption)};
    if (const auto profile = session.startupProfile(endpoint, tls)) {
        session.connectTo(*profile);
    } else {
        window.openConnectionDialog();
    }
    return QApplication::exec();
}
