#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QRect>
#include <QSize>
#include <QString>
#include <vector>

class QAction;
class QActionGroup;
class QListWidget;
class QMenu;
class QStackedWidget;

namespace tessera::console {

class AccessPage;
class AuthStatus;
class LoginDialog;
class BucketsPage;
class ConnectionStatus;
class ConsoleSession;
class DashboardPage;
class DsortPage;
class EtlPage;
class IshardPage;
class JobsPage;
class NodesPage;
class RestClient;
class Theme;

// The console's top window: navigation on the left (one entry per page,
// Ctrl+1..n), the pages on the right, the connection in the status bar.
// F5 refreshes, Ctrl+F searches and Ctrl+U uploads on the current page when it
// has the `refresh`, `focusSearch` or `startUpload` slot. Window geometry,
// the current page and the theme persist in QSettings.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Without a saved geometry the window opens centred at this fraction of the
    // screen's available area, but at least kDefaultSize where the screen has
    // room for it (never larger than the screen).
    static constexpr double kDefaultScreenFraction = 0.8;
    static constexpr QSize kDefaultSize{1280, 800};
    // The smallest the window can be made (or the screen, if smaller); the
    // pages are laid out to be readable down to it.
    static constexpr QSize kMinimumSize{960, 600};

    // Where a window with no saved geometry opens on a screen whose available
    // area is `available`.
    static QRect defaultGeometry(const QRect& available);

    // `session` and `theme` must outlive the window.
    MainWindow(ConsoleSession* session, Theme* theme, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Adds a page to the navigation; returns its index (Ctrl+<index+1> shows it).
    int addPage(const QString& title, QWidget* page);
    void showPage(int index);
    int currentPage() const;
    int pageIndex(const QString& title) const;
    QWidget* pageWidget(int index) const;

    DashboardPage* dashboard() const { return m_dashboard; }
    NodesPage* nodesPage() const { return m_nodes; }
    JobsPage* jobsPage() const { return m_jobs; }
    BucketsPage* bucketsPage() const { return m_buckets; }
    DsortPage* dsortPage() const { return m_dsort; }
    IshardPage* ishardPage() const { return m_ishard; }
    EtlPage* etlPage() const { return m_etl; }
    ConnectionStatus* connectionStatus() const { return m_status; }
    AccessPage* accessPage() const { return m_access; }
    AuthStatus* authStatus() const { return m_authStatus; }
    // The sign-in dialog while it is open (null otherwise).
    LoginDialog* loginDialog() const;
    // Whether the Access page is in the navigation (signed in as an admin).
    bool accessPageListed() const;

public slots:
    void refreshCurrent();
    void focusSearch();
    void startUpload();
    void openConnectionDialog();
    // Opens the sign-in dialog (window-modal, not blocking) unless it is open;
    // `reason` says why it opened by itself.
    void openSignInDialog(const QString& reason = {});
    void signOut();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    void restoreSettings();
    void saveSettings() const;
    void invokeOnPage(QWidget* page, const char* slot);
    void updateAuth();

    ConsoleSession* m_session;
    Theme* m_theme;
    RestClient* m_rest;
    QListWidget* m_navigation;
    QStackedWidget* m_pages;
    ConnectionStatus* m_status;
    DashboardPage* m_dashboard;
    NodesPage* m_nodes;
    JobsPage* m_jobs;
    BucketsPage* m_buckets = nullptr;
    DsortPage* m_dsort = nullptr;
    IshardPage* m_ishard = nullptr;
    EtlPage* m_etl = nullptr;
    AccessPage* m_access = nullptr;
    AuthStatus* m_authStatus = nullptr;
    QPointer<LoginDialog> m_loginDialog;
    QAction* m_signInAction = nullptr;
    QAction* m_signOutAction = nullptr;
    QMenu* m_goMenu = nullptr;
    QActionGroup* m_themeGroup = nullptr;
    std::vector<QAction*> m_pageActions;
};

}  // namespace tessera::console
