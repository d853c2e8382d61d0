#pragma once

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QMessageBox>
#include <QPainter>
#include <QPen>
#include <QPixmap>
#include <QString>
#include <QTest>
#include <QTimer>
#include <QWidget>

#ifndef TESSERA_DOCS_IMAGES_DIR
#error "TESSERA_DOCS_IMAGES_DIR must name docs/images in the source tree"
#endif

namespace tessera::console::test {

// Grabs `w` into docs/images/<name>.png in the source tree. The top-level window
// is resized to 1280×800 first so that every screenshot has the same frame.
inline void saveScreenshot(QWidget* w, const QString& name)
{
    QWidget* top = w->window();
    top->resize(1280, 800);
    if (!top->isVisible()) {
        top->show();
    }
    QCoreApplication::processEvents();
    const QDir dir(QStringLiteral(TESSERA_DOCS_IMAGES_DIR));
    QVERIFY2(dir.exists() || QDir().mkpath(dir.path()), qPrintable(dir.path()));
    const QString path = dir.filePath(name + QStringLiteral(".png"));
    const QPixmap pixmap = w->grab();
    QVERIFY2(!pixmap.isNull(), "grab() returned an empty pixmap");
    QVERIFY2(pixmap.save(path, "PNG"), qPrintable(QStringLiteral("cannot write ") + path));
}

// The same, with `dialog` (a window of its own) drawn over `w` where it sits
// on the screen, framed, and centred when it lies outside: the offscreen
// platform has no window manager to compose the two.
inline void saveScreenshotWithDialog(QWidget* w, QWidget* dialog, const QString& name)
{
    QWidget* top = w->window();
    top->resize(1280, 800);
    if (!top->isVisible()) {
        top->show();
    }
    QCoreApplication::processEvents();
    QPixmap pixmap = w->grab();
    QVERIFY2(!pixmap.isNull(), "grab() returned an empty pixmap");
    const QPixmap over = dialog->grab();
    QPoint at = dialog->mapToGlobal(QPoint(0, 0)) - w->mapToGlobal(QPoint(0, 0));
    if (!pixmap.rect().contains(QRect(at, over.size()))) {
        at = QPoint((pixmap.width() - over.width()) / 2, (pixmap.height() - over.height()) / 2);
    }
    {
        QPainter painter(&pixmap);
        painter.drawPixmap(at, over);
        painter.setPen(QPen(dialog->palette().color(QPalette::Shadow), 1));
        painter.drawRect(QRect(at, over.size()).adjusted(-1, -1, 0, 0));
    }
    const QDir dir(QStringLiteral(TESSERA_DOCS_IMAGES_DIR));
    QVERIFY2(dir.exists() || QDir().mkpath(dir.path()), qPrintable(dir.path()));
    const QString path = dir.filePath(name + QStringLiteral(".png"));
    QVERIFY2(pixmap.save(path, "PNG"), qPrintable(QStringLiteral("cannot write ") + path));
}

// Clicks `button` on the message box named `objectName` as soon as it is
// open (it is modal: called before the action that opens it), recording
// its text in `*text`.
inline void answerConfirmation(const QString& objectName, QMessageBox::StandardButton button, QString* text)
{
    QTimer::singleShot(0, [=] {
        for (QWidget* w : QApplication::topLevelWidgets()) {
            auto* box = qobject_cast<QMessageBox*>(w);
            if (box && box->objectName() == objectName && box->isVisible()) {
                *text = box->text();
                box->button(button)->click();
                return;
            }
        }
        answerConfirmation(objectName, button, text);  // not open yet: try on the next turn
    });
}

}  // namespace tessera::console::test
