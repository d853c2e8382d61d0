#include "ui/theme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

namespace tessera::console {

namespace {

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1f, 0x20, 0x22);
    const QColor text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(0x64, 0xb5, 0xf6));
    p.setColor(QPalette::Highlight, QColor(0x1e, 0x88, 0xe5));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0x9e, 0x9e, 0x9e));
    p.setColor(QPalette::Mid, QColor(0x55, 0x57, 0x5a));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
    return p;
}

}  // namespace

QString themeChoiceName(ThemeChoice choice)
{
    switch (choice) {
    case ThemeChoice::Light: return QStringLiteral("light");
    case ThemeChoice::Dark: return QStringLiteral("dark");
    case ThemeChoice::System: break;
    }
    return QStringLiteral("system");
}

ThemeChoice themeChoiceFromName(const QString& name)
{
    if (name == QLatin1String("light")) {
        return ThemeChoice::Light;
    }
    if (name == QLatin1String("dark")) {
        return ThemeChoice::Dark;
    }
    return ThemeChoice::System;
}

bool isDarkPalette(const QPalette& palette) { return palette.color(QPalette::Window).lightness() < 128; }

Theme::Theme(QApplication* app)
    : m_app(app), m_systemPalette(QApplication::palette()), m_systemStyle(QApplication::style()->name())
{
}

void Theme::apply(ThemeChoice choice)
{
    m_choice = choice;
    switch (choice) {
    case ThemeChoice::System:
        QApplication::setStyle(QStyleFactory::create(m_systemStyle));
        QApplication::setPalette(m_systemPalette);
        break;
    case ThemeChoice::Light:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case ThemeChoice::Dark:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
        break;
    }
}

bool Theme::isDark() const { return isDarkPalette(QApplication::palette()); }

}  // namespace tessera::console
