#include "ui/main_window.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QStackedWidget>
#include <QStatusBar>

namespace tessera::console {

MainWindow::MainWindow(const QUrl& endpoint, QWidget* parent) : QMainWindow(parent), m_endpoint(endpoint)
{
    setWindowTitle(tr("Tessera Console"));
    auto* central = new QWidget(this);
    auto* layout = new QHBoxLayout(central);
    m_navigation = new QListWidget(central);
    m_navigation->setFixedWidth(160);
    m_pages = new QStackedWidget(central);
    layout->addWidget(m_navigation);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);

    m_connectionLabel = new QLabel(tr("Endpoint %1").arg(endpoint.toString()), this);
    statusBar()->addWidget(m_connectionLabel);
    connect(m_navigation, &QListWidget::currentRowChanged, m_pages, &QStackedWidget::setCurrentIndex);
}

} // namespace tessera::console
