#include "ui/main_window.h"

#include "core/auth_session.h"
#include "core/cluster_connection.h"
#include "core/rest_client.h"
#include "core/token_store.h"
#include "models/console_session.h"
#include "ui/access_page.h"
#include "ui/auth_status.h"
#include "ui/buckets_page.h"
#include "ui/connection_dialog.h"
#include "ui/connection_status.h"
#include "ui/dashboard_page.h"
#include "ui/dsort_page.h"
#include "ui/etl_page.h"
#include "ui/ishard_page.h"
#include "ui/jobs_page.h"
#include "ui/login_dialog.h"
#include "ui/nodes_page.h"
#include "ui/theme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QHBoxLayout>
#include <QListWidget>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>

namespace tessera::console {

namespace {
constexpr int kMaxPageShortcuts = 9;  // Ctrl+1 .. Ctrl+9
}

MainWindow::MainWindow(ConsoleSession* session, Theme* theme, QWidget* parent)
    : QMainWindow(parent), m_session(session), m_theme(theme), m_rest(session->rest()),
      m_navigation(new QListWidget(this)), m_pages(new QStackedWidget(this)),
      m_status(new ConnectionStatus(session->connection(), this))
{
    setWindowTitle(tr("Tessera Console"));
    setObjectName(QStringLiteral("mainWindow"));
    ClusterConnection* connection = session->connection();
    m_rest->setEndpoint(connection->endpoint());
    connect(connection, &ClusterConnection::endpointChanged, this, [this, session](const QUrl& endpoint) {
        const QString where = session->profileName().isEmpty()
                                  ? endpoint.toString()
                                  : QStringLiteral("%1 (%2)").arg(session->profileName(), endpoint.toString());
        setWindowTitle(tr("Tessera Console — %1").arg(where));
    });

    m_navigation->setFixedWidth(150);
    m_navigation->setFocusPolicy(Qt::NoFocus);
    auto* central = new QWidget(this);
    auto* layout = new QHBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->addWidget(m_navigation);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);
    statusBar()->addWidget(m_status, 1);
    m_authStatus = new AuthStatus(session->auth(), this);
    statusBar()->addPermanentWidget(m_authStatus);
    connect(m_navigation, &QListWidget::currentRowChanged, m_pages, &QStackedWidget::setCurrentIndex);

    buildMenus();

    // The pages. A later page (the dSort or ETL editor) is one more addPage() line.
    m_dashboard = new DashboardPage(connection, session->metrics(), session->nodes(), session->events(), this);
    m_nodes = new NodesPage(connection, session->nodes(), session->metrics(), this);
    m_jobs = new JobsPage(connection, session->jobs(), session->jobClient(), session->bucketsModels().buckets, this);
    auto* buckets = new BucketsPage(m_rest, session->bucketsModels(), this);
    m_buckets = buckets;
    // "Scrub bucket" and "Re-protect bucket": started and followed on the Jobs page.
    connect(buckets, &BucketsPage::bucketJobRequested, this, [this](const QString& kind, const QString& bucket) {
        showPage(m_pages->indexOf(m_jobs));
        m_jobs->startBucketJob(kind, bucket);
    });
    connect(connection, &ClusterConnection::bucketsChanged, buckets, &BucketsPage::onBucketsChanged);
    connect(buckets, &BucketsPage::statusMessage, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(m_dashboard, &DashboardPage::nodeActivated, this, [this](const QString& id) {
        showPage(m_pages->indexOf(m_nodes));
        m_nodes->selectNode(id);
    });
    addPage(tr("Dashboard"), m_dashboard);
    addPage(tr("Nodes"), m_nodes);
    addPage(tr("Buckets"), buckets);
    addPage(tr("Jobs"), m_jobs);
    // The job composers: their status line and "Open output bucket".
    m_dsort = new DsortPage(m_rest, session->specs(), this);
    m_ishard = new IshardPage(m_rest, session->specs(), this);
    for (SpecComposerPage* composer : std::initializer_list<SpecComposerPage*>{m_dsort, m_ishard}) {
        connect(composer, &SpecComposerPage::statusMessage, this,
                [this](const QString& text) { statusBar()->showMessage(text, 8000); });
        connect(composer, &SpecComposerPage::openBucket, this, [this](const QString& bucket) {
            showPage(m_pages->indexOf(m_buckets));
            m_buckets->selectBucket(bucket);
        });
    }
    addPage(tr("dSort"), m_dsort);
    addPage(tr("ishard"), m_ishard);
    m_etl = new EtlPage(m_rest, this);
    connect(m_etl, &EtlPage::statusMessage, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(m_etl, &EtlPage::openBucket, this, [this](const QString& bucket) {
        showPage(m_pages->indexOf(m_buckets));
        m_buckets->selectBucket(bucket);
    });
    addPage(tr("ETL"), m_etl);
    connect(buckets, &BucketsPage::transformRequested, this,
            [this](const QString& bucket, const QString& object, const QString& member) {
                showPage(m_pages->indexOf(m_etl));
                m_etl->showSample(bucket, object, member);
            });

    // Access: listed for admins only; the page itself says why it is disabled.
    m_access = new AccessPage(session->users(), session->auth(), this);
    connect(m_access, &AccessPage::statusMessage, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    addPage(tr("Access"), m_access);

    AuthSession* auth = session->auth();
    connect(auth, &AuthSession::stateChanged, this, &MainWindow::updateAuth);
    connect(auth, &AuthSession::signInNeeded, this, [this](const QString& reason) {
        // The pages' own 401 messages ("buckets: this call needs a token")
        // say less than the sign-in state beside them.
        statusBar()->clearMessage();
        openSignInDialog(reason);
    });
    connect(auth, &AuthSession::notice, this, [this](const QString& text) { statusBar()->showMessage(text, 15000); });
    connect(session->tokenStore(), &TokenStore::notice, this,
            [this](const QString& text) { statusBar()->showMessage(text, 15000); });
    connect(m_authStatus, &AuthStatus::signInRequested, this, [this] { openSignInDialog(); });
    connect(m_authStatus, &AuthStatus::signOutRequested, this, &MainWindow::signOut);

    if (!session->storageError().isEmpty()) {
        statusBar()->showMessage(tr("Local database unavailable, nothing is saved: %1").arg(session->storageError()));
    }
    restoreSettings();
    updateAuth();
}

MainWindow::~MainWindow() = default;

LoginDialog* MainWindow::loginDialog() const { return m_loginDialog.data(); }

bool MainWindow::accessPageListed() const
{
    const int index = m_pages->indexOf(m_access);
    return index >= 0 && !m_navigation->item(index)->isHidden();
}

void MainWindow::updateAuth()
{
    AuthSession* auth = m_session->auth();
    const int index = m_pages->indexOf(m_access);
    const bool admin = auth->isAdmin();
    m_navigation->item(index)->setHidden(!admin);
    m_pageActions.at(static_cast<std::size_t>(index))->setEnabled(admin);
    if (!admin && currentPage() == index) showPage(0);
    m_signOutAction->setEnabled(auth->state() == AuthSession::State::SignedIn && auth->canSignOut());
}

void MainWindow::openSignInDialog(const QString& reason)
{
    if (m_loginDialog) {
        m_loginDialog->raise();
        return;
    }
    const QUrl endpoint = m_session->connection()->endpoint();
    const QString where = m_session->profileName().isEmpty()
                              ? endpoint.toString()
                              : QStringLiteral("%1 (%2)").arg(m_session->profileName(), endpoint.toString());
    AuthSession* auth = m_session->auth();
    QString why = reason;
    if (auth->state() == AuthSession::State::Expired) {
        why = tr("Session expired — sign in again (%1).").arg(reason);
    } else if (!reason.isEmpty()) {
        why = tr("The cluster needs a sign-in: %1").arg(reason);
    }
    m_loginDialog = new LoginDialog(auth, where, why, this);
    m_loginDialog->setAttribute(Qt::WA_DeleteOnClose);
    m_loginDialog->open();
}

void MainWindow::signOut()
{
    AuthSession* auth = m_session->auth();
    if (!auth->canSignOut()) return;
    statusBar()->showMessage(tr("Signing out…"), 5000);
    auth->signOut();
}

int MainWindow::addPage(const QString& title, QWidget* page)
{
    page->setObjectName(title.toLower() + QStringLiteral("Page"));
    m_pages->addWidget(page);
    m_navigation->addItem(title);
    const int index = m_pages->count() - 1;
    auto* action = m_goMenu->addAction(title);
    if (index < kMaxPageShortcuts) {
        action->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + index)));
    }
    connect(action, &QAction::triggered, this, [this, index] { showPage(index); });
    addAction(action);
    m_pageActions.push_back(action);
    if (m_navigation->currentRow() < 0) {
        showPage(0);
    }
    return index;
}

void MainWindow::showPage(int index)
{
    if (index >= 0 && index < m_pages->count()) {
        m_navigation->setCurrentRow(index);
    }
}

int MainWindow::currentPage() const { return m_pages->currentIndex(); }

int MainWindow::pageIndex(const QString& title) const
{
    for (int i = 0; i < m_navigation->count(); ++i) {
        if (m_navigation->item(i)->text() == title) {
            return i;
        }
    }
    return -1;
}

QWidget* MainWindow::pageWidget(int index) const { return m_pages->widget(index); }

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* connectAction = file->addAction(tr("&Connect…"), this, &MainWindow::openConnectionDialog);
    connectAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
    QAction* upload = file->addAction(tr("&Upload…"), this, &MainWindow::startUpload);
    upload->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_U));
    m_signInAction = file->addAction(tr("Sign &in…"), this, [this] { openSignInDialog(); });
    m_signInAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
    m_signOutAction = file->addAction(tr("Sign o&ut"), this, &MainWindow::signOut);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    m_goMenu = view->addMenu(tr("&Go to"));
    QAction* refresh = view->addAction(tr("&Refresh"), this, &MainWindow::refreshCurrent);
    refresh->setShortcut(QKeySequence(Qt::Key_F5));
    QAction* find = view->addAction(tr("&Search"), this, &MainWindow::focusSearch);
    find->setShortcut(QKeySequence::Find);
    view->addSeparator();
    QMenu* themeMenu = view->addMenu(tr("&Theme"));
    m_themeGroup = new QActionGroup(this);
    for (ThemeChoice choice : {ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark}) {
        const QString label = choice == ThemeChoice::System  ? tr("Follow the system")
                              : choice == ThemeChoice::Light ? tr("Light")
                                                             : tr("Dark");
        QAction* action = themeMenu->addAction(label);
        action->setCheckable(true);
        action->setData(themeChoiceName(choice));
        m_themeGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, choice] { m_theme->apply(choice); });
    }
}

void MainWindow::refreshCurrent() { invokeOnPage(m_pages->currentWidget(), "refresh"); }

void MainWindow::focusSearch() { invokeOnPage(m_pages->currentWidget(), "focusSearch"); }

void MainWindow::startUpload()
{
    if (!m_buckets) {
        statusBar()->showMessage(tr("Uploading needs the Buckets page."), 5000);
        return;
    }
    showPage(m_pages->indexOf(m_buckets));
    invokeOnPage(m_buckets, "startUpload");
}

void MainWindow::invokeOnPage(QWidget* page, const char* slot)
{
    if (!page) {
        return;
    }
    const QMetaObject* meta = page->metaObject();
    if (meta->indexOfMethod(QMetaObject::normalizedSignature((QByteArray(slot) + "()").constData())) < 0) {
        return;  // this page has nothing to refresh / search / upload
    }
    QMetaObject::invokeMethod(page, slot);
}

void MainWindow::openConnectionDialog()
{
    ConnectionDialog dialog(m_session->profiles(), m_session->profileName(), this);
    if (dialog.exec() == QDialog::Accepted && dialog.chosen()) {
        m_session->connectTo(*dialog.chosen());
    }
}

QRect MainWindow::defaultGeometry(const QRect& available)
{
    const QSize fraction(qRound(available.width() * kDefaultScreenFraction),
                         qRound(available.height() * kDefaultScreenFraction));
    const QSize size = fraction.expandedTo(kDefaultSize).boundedTo(available.size());
    return {available.left() + (available.width() - size.width()) / 2,
            available.top() + (available.height() - size.height()) / 2, size.width(), size.height()};
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    // Qt's own default (the layouts' size hint) opened the window at 915x600,
    // too small for the dashboard's charts; the saved geometry still wins.
    const QScreen* shownOn = screen() != nullptr ? screen() : QGuiApplication::primaryScreen();
    const QRect available = shownOn != nullptr ? shownOn->availableGeometry() : QRect(QPoint(), kDefaultSize);
    setMinimumSize(kMinimumSize.boundedTo(available.size()));
    const QByteArray geometry = settings.value(QStringLiteral("window/geometry")).toByteArray();
    if (geometry.isEmpty() || !restoreGeometry(geometry)) setGeometry(defaultGeometry(available));
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    showPage(settings.value(QStringLiteral("window/page"), 0).toInt());
    const ThemeChoice choice = themeChoiceFromName(settings.value(QStringLiteral("view/theme")).toString());
    for (QAction* action : m_themeGroup->actions()) {
        action->setChecked(action->data().toString() == themeChoiceName(choice));
    }
    if (choice != ThemeChoice::System) {
        m_theme->apply(choice);
    }
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/page"), currentPage());
    settings.setValue(QStringLiteral("view/theme"), themeChoiceName(m_theme->choice()));
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveSettings();
    QMainWindow::closeEvent(event);
}

}  // namespace tessera::console
