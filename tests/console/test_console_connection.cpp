// ClusterConnection against a real local cluster: the snapshot and metrics
// of the live feed, the status bar through a killed and restarted proxy
// (reconnecting, then connected with a fresh snapshot), the polling fallback
// when the feed's WebSocket is refused while HTTP answers, and gap detection
// against a feed that skips a sequence number.
#include "console_test_util.h"
#include "core/cluster_connection.h"
#include "gap_feed_messages.h"
#include "local_cluster.h"
#include "models/console_session.h"
#include "models/node_model.h"
#include "ui/connection_dialog.h"
#include "ui/connection_status.h"
#include "ui/main_window.h"
#include "ui/theme.h"

#include <QApplication>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>
#include <functional>

using namespace tessera;
using namespace tessera::console;
using namespace std::chrono_literals;

namespace {

ClusterConnection::Options fastOptions()
{
    ClusterConnection::Options o;
    o.backoffInitial = 100ms;
    o.backoffMax = 800ms;
    o.pollInterval = 500ms;
    return o;
}

QUrl endpointOf(const tests::LocalCluster& c) { return QUrl(QString::fromStdString(c.proxyUrl())); }

}  // namespace

class TestConsoleConnection : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("tessera-test"));
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
    }

    void snapshotThenMetrics()
    {
        ClusterConnection conn(fastOptions(), nullptr);
        QSignalSpy snapshots(&conn, &ClusterConnection::snapshotReceived);
        QSignalSpy metrics(&conn, &ClusterConnection::metricsReceived);
        QSignalSpy jobs(&conn, &ClusterConnection::jobsListed);
        conn.setEndpoint(endpointOf(m_cluster));
        QVERIFY(QTest::qWaitFor([&] { return conn.state() == ClusterConnection::State::Connected; }, 10000));
        QVERIFY(snapshots.wait(5000) || snapshots.count() > 0);
        const auto smap = m_cluster.smap();
        QCOMPARE(conn.smapVersion(), smap.version);
        QCOMPARE(conn.nodeCount(), 1 + m_cluster.targetCount());
        QCOMPARE(conn.feedMode(), ClusterConnection::FeedMode::Live);
        // Metrics every interval (500 ms here), each naming every node.
        QVERIFY(QTest::qWaitFor([&] { return metrics.count() >= 3; }, 5000));
        const auto last = metrics.last().at(0).value<api::MetricsUpdate>();
        QCOMPARE(static_cast<int>(last.nodes.size()), 1 + m_cluster.targetCount());
        QCOMPARE(last.cluster.nodes, 1 + m_cluster.targetCount());
        QVERIFY(QTest::qWaitFor([&] { return jobs.count() >= 1; }, 5000));
        QCOMPARE(conn.gapsDetected(), 0);
    }

    void restartedProxyShowsReconnectingThenConnected()
    {
        QTemporaryDir dir;
        Theme theme(qApp);
        ConsoleSession session(dir.filePath(QStringLiteral("console.db")));
        MainWindow window(&session, &theme);
        window.show();
        ClusterConnection* conn = session.connection();
        std::vector<ClusterConnection::State> states;
        connect(conn, &ClusterConnection::stateChanged, this, [&](ClusterConnection::State s) { states.push_back(s); });
        QSignalSpy snapshots(conn, &ClusterConnection::snapshotReceived);
        session.connectTo({QString(), endpointOf(m_cluster), QString()});
        ConnectionStatus* status = window.connectionStatus();
        QVERIFY(QTest::qWaitFor([&] { return status->stateText().contains(QLatin1String("connected")); }, 10000));
        QVERIFY(QTest::qWaitFor([&] { return snapshots.count() == 1; }, 5000));
        QCOMPARE(status->smapText(), QStringLiteral("Smap v%1").arg(m_cluster.smap().version));
        QCOMPARE(status->nodesText(), QStringLiteral("%1 node(s)").arg(1 + m_cluster.targetCount()));
        QVERIFY(QTest::qWaitFor([&] { return session.nodes()->rowCount() == 1 + m_cluster.targetCount(); }, 5000));

        m_cluster.killProxy();
        QVERIFY(QTest::qWaitFor([&] { return conn->state() == ClusterConnection::State::Reconnecting; }, 10000));
        QVERIFY2(status->stateText().contains(QLatin1String("reconnecting")), qPrintable(status->stateText()));
        // Still reconnecting a while later: backoff retries, no false "connected".
        QTest::qWait(1000);
        QCOMPARE(conn->state(), ClusterConnection::State::Reconnecting);

        QVERIFY2(m_cluster.restartProxy(), m_cluster.error().c_str());
        QVERIFY(QTest::qWaitFor([&] { return conn->state() == ClusterConnection::State::Connected; }, 15000));
        QVERIFY2(status->stateText().contains(QLatin1String("connected")) &&
                     !status->stateText().contains(QLatin1String("reconnecting")),
                 qPrintable(status->stateText()));
        // A fresh snapshot re-read the state; the targets come back into the map.
        QVERIFY(QTest::qWaitFor([&] { return snapshots.count() >= 2; }, 5000));
        QVERIFY(QTest::qWaitFor([&] { return conn->nodeCount() == 1 + m_cluster.targetCount(); }, 15000));
        QCOMPARE(conn->reconnects(), 1);
        QCOMPARE(states.front(), ClusterConnection::State::Connecting);
        const auto reconnecting = std::find(states.begin(), states.end(), ClusterConnection::State::Reconnecting);
        QVERIFY(reconnecting != states.end());
        QVERIFY(std::find(reconnecting, states.end(), ClusterConnection::State::Connected) != states.end());
        QCOMPARE(states.back(), ClusterConnection::State::Connected);
        QCOMPARE(status->smapText(), QStringLiteral("Smap v%1").arg(conn->smapVersion()));
    }

    void connectionDialogSavesTheProfileThatReopens()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("console.db"));
        const QString endpoint = QString::fromStdString(m_cluster.proxyUrl());
        {
            Theme theme(qApp);
            ConsoleSession session(db);
            MainWindow window(&session, &theme);
            QVERIFY(!session.startupProfile(QUrl()).has_value());  // nothing saved yet
            // Fill the dialog as a user would: a bad endpoint first (refused, the dialog stays), then a good one.
            bool sawError = false;
            std::function<void()> fill = [&] {
                auto* dialog = qobject_cast<ConnectionDialog*>(QApplication::activeModalWidget());
                if (!dialog) {
                    QTimer::singleShot(10, fill);
                    return;
                }
                dialog->setForm(QStringLiteral("local"), QStringLiteral("ftp://nowhere"), QString());
                dialog->connectToProfile();
                sawError = dialog->isVisible() && !dialog->errorText().isEmpty();
                // No scheme (http:// is the default); a TLS cluster needs its https://.
                const QString typed = m_cluster.tls() ? endpoint : endpoint.section(QStringLiteral("://"), 1);
                dialog->setForm(QStringLiteral("local"), typed, QStringLiteral("t0ken"));
                QVERIFY(dialog->errorText().isEmpty());  // a new form, the old error gone
                test::saveScreenshotWithDialog(&window, dialog, QStringLiteral("console-connection"));
                dialog->connectToProfile();
            };
            QTimer::singleShot(0, fill);
            window.openConnectionDialog();
            QVERIFY(sawError);
            QCOMPARE(session.profileName(), QStringLiteral("local"));
            QCOMPARE(session.connection()->endpoint(), QUrl(endpoint));
            QCOMPARE(window.windowTitle(), QStringLiteral("Tessera Console — local (%1)").arg(endpoint));
            QVERIFY(QTest::qWaitFor(
                [&] { return session.connection()->state() == ClusterConnection::State::Connected; }, 10000));
        }
        // A restarted console (no --endpoint) reopens the saved profile, token included.
        ConsoleSession again(db);
        const auto profile = again.startupProfile(QUrl());
        QVERIFY(profile.has_value());
        QCOMPARE(profile->name, QStringLiteral("local"));
        QCOMPARE(profile->endpoint, QUrl(endpoint));
        QCOMPARE(profile->token, QStringLiteral("t0ken"));
        // --endpoint wins over the saved profile.
        QCOMPARE(again.startupProfile(QUrl(QStringLiteral("http://10.1.1.1:9000")))->endpoint,
                 QUrl(QStringLiteral("http://10.1.1.1:9000")));
    }

    void refusedFeedFallsBackToPolling()
    {
        // A second cluster whose proxy allows a single feed session, taken by a blocker.
        tests::LocalCluster::Options options;
        options.targets = 2;
        options.extraProxyArgs = {QStringLiteral("--ws-max-sessions"), QStringLiteral("1")};
        tests::LocalCluster cluster(options);
        QVERIFY2(cluster.start(), cluster.error().c_str());
        // http -> ws, https -> wss (the TLS suite: Qt's default configuration trusts its CA).
        QString wsUrl = QString::fromStdString(cluster.proxyUrl()).replace(QLatin1String("http"), QLatin1String("ws"));
        auto blocker = std::make_unique<QWebSocket>();
        blocker->open(QUrl(wsUrl + QStringLiteral("/v1/ws")));
        QVERIFY(QTest::qWaitFor([&] { return blocker->state() == QAbstractSocket::ConnectedState; }, 5000));

        ClusterConnection conn(fastOptions(), nullptr);
        QSignalSpy metrics(&conn, &ClusterConnection::metricsReceived);
        conn.setEndpoint(endpointOf(cluster));
        QVERIFY(QTest::qWaitFor([&] { return conn.feedMode() == ClusterConnection::FeedMode::Polling; }, 10000));
        QCOMPARE(conn.state(), ClusterConnection::State::Connected);
        QVERIFY2(conn.feedProblem().contains(QLatin1String("live feed unavailable")), qPrintable(conn.feedProblem()));
        // Polled node statistics arrive as metrics, rates derived from two polls.
        QVERIFY(QTest::qWaitFor([&] { return metrics.count() >= 3; }, 5000));
        const auto last = metrics.last().at(0).value<api::MetricsUpdate>();
        QCOMPARE(static_cast<int>(last.nodes.size()), 3);
        QVERIFY(last.intervalMs > 0);
        QVERIFY(QTest::qWaitFor([&] { return conn.nodeCount() == 3; }, 5000));
        QCOMPARE(conn.smapVersion(), cluster.smap().version);

        // The session frees up: the retried WebSocket takes over again.
        blocker.reset();
        QVERIFY(QTest::qWaitFor([&] { return conn.feedMode() == ClusterConnection::FeedMode::Live; }, 15000));
        QCOMPARE(conn.state(), ClusterConnection::State::Connected);
        QVERIFY(conn.feedProblem().isEmpty());
    }

    void aSkippedSequenceNumberReopensTheFeed()
    {
        // A feed that sends seq 1, 2, then 4: the console reopens and gets a new snapshot.
        QWebSocketServer server(QStringLiteral("gap"), QWebSocketServer::NonSecureMode);
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        int sessions = 0;
        const QString snapshot = QString::fromUtf8(test::kGapSnapshot);
        connect(&server, &QWebSocketServer::newConnection, this, [&] {
            QWebSocket* ws = server.nextPendingConnection();
            ++sessions;
            ws->sendTextMessage(snapshot);
            ws->sendTextMessage(QString::fromUtf8(test::kGapEventSeq2));
            if (sessions == 1) {
                ws->sendTextMessage(QString::fromUtf8(test::kGapEventSeq4));
            }
        });
        ClusterConnection conn(fastOptions(), nullptr);
        QSignalSpy gaps(&conn, &ClusterConnection::gapDetected);
        QSignalSpy snapshots(&conn, &ClusterConnection::snapshotReceived);
        QSignalSpy events(&conn, &ClusterConnection::eventReceived);
        conn.setEndpoint(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort())));
        QVERIFY(QTest::qWaitFor([&] { return snapshots.count() == 2; }, 5000));
        QCOMPARE(gaps.count(), 1);
        QCOMPARE(gaps.first().at(0).toLongLong(), 3);
        QCOMPARE(gaps.first().at(1).toLongLong(), 4);
        QCOMPARE(sessions, 2);
        QVERIFY(QTest::qWaitFor([&] { return events.count() == 2; }, 2000));  // seq 2 of each session, not seq 4
        QCOMPARE(conn.smapVersion(), std::int64_t{7});
        QCOMPARE(conn.state(), ClusterConnection::State::Connected);
    }

private:
    tests::LocalCluster m_cluster{[] {
        tests::LocalCluster::Options o;
        o.targets = 2;
        o.extraProxyArgs = {QStringLiteral("--stats-interval-ms"), QStringLiteral("500")};
        return o;
    }()};
};

QTEST_MAIN(TestConsoleConnection)
#include "test_console_connection.moc"
