// The console's window at the sizes a new user meets: it opens at 80 % of the
// screen (at least 1280x800 where it fits, centred) unless a geometry was
// saved. No cluster.
#include "models/console_session.h"
#include "ui/main_window.h"
#include "ui/theme.h"

#include <QApplication>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

using namespace tessera::console;

class TestConsoleLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("tessera-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_console_layout"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_session = std::make_unique<ConsoleSession>(m_dir.filePath(QStringLiteral("console.db")));
        m_theme = std::make_unique<Theme>(qApp);
    }

    void defaultGeometryIsEightyPercentAtLeast1280x800Centred_data()
    {
        QTest::addColumn<QRect>("available");
        QTest::addColumn<QRect>("expected");
        // 80 % would be 1120x720: raised to 1280x800, centred.
        QTest::newRow("1400x900") << QRect(0, 0, 1400, 900) << QRect(60, 50, 1280, 800);
        QTest::newRow("1920x1080") << QRect(0, 0, 1920, 1080) << QRect(192, 108, 1536, 864);
        // A panel takes the top 32 px; a second screen to the right of the first.
        QTest::newRow("2560x1408 at 1920,32") << QRect(1920, 32, 2560, 1408) << QRect(2176, 173, 2048, 1126);
        // Smaller than 1280x800: the whole screen, never more.
        QTest::newRow("1280x720") << QRect(0, 0, 1280, 720) << QRect(0, 0, 1280, 720);
        QTest::newRow("1366x705") << QRect(0, 0, 1366, 705) << QRect(43, 0, 1280, 705);
        QTest::newRow("1024x768") << QRect(0, 0, 1024, 768) << QRect(0, 0, 1024, 768);
    }

    void defaultGeometryIsEightyPercentAtLeast1280x800Centred()
    {
        QFETCH(QRect, available);
        QFETCH(QRect, expected);
        QCOMPARE(MainWindow::defaultGeometry(available), expected);
    }

    void windowOpensAtTheDefaultGeometryUnlessOneWasSaved()
    {
        QSettings().clear();
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        {
            MainWindow window(m_session.get(), m_theme.get());
            QCOMPARE(window.geometry(), MainWindow::defaultGeometry(available));
            QCOMPARE(window.minimumSize(), MainWindow::kMinimumSize.boundedTo(available.size()));
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.resize(1100, 700);
            window.close();  // saves the geometry
        }
        MainWindow again(m_session.get(), m_theme.get());
        QCOMPARE(again.size(), QSize(1100, 700));
        QSettings().clear();
    }

    void cleanupTestCase() { QSettings().clear(); }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<Theme> m_theme;
};

QTEST_MAIN(TestConsoleLayout)
#include "test_console_layout.moc"
