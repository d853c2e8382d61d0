#include "ui/main_window.h"

#include <QApplication>
#include <QCommandLineParser>

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
    const QCommandLineOption endpointOption(QStringLiteral("endpoint"),
        QStringLiteral("Proxy URL to connect to, e.g. http://127.0.0.1:8080."), QStringLiteral("url"));
    parser.addOption(endpointOption);
    parser.process(app);

    tessera::console::MainWindow window(QUrl(parser.value(endpointOption)));
    window.show();
    return QApplication::exec();
}
