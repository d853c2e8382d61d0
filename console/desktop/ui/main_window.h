#pragma once

#include <QMainWindow>
#include <QUrl>

class QLabel;
class QListWidget;
class QStackedWidget;

namespace tessera::console {

// The console's top window: a navigation list on the left, one page per entry on
// the right, the connection state in the status bar.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(const QUrl& endpoint, QWidget* parent = nullptr);

    QUrl endpoint() const { return m_endpoint; }

private:
    QUrl m_endpoint;
    QListWidget* m_navigation = nullptr;
    QStackedWidget* m_pages = nullptr;
    QLabel* m_connectionLabel = nullptr;
};

} // namespace tessera::console
