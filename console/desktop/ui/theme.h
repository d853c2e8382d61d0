#pragma once

#include <QPalette>
#include <QString>

class QApplication;
class QStyle;

namespace tessera::console {

enum class ThemeChoice { System, Light, Dark };
QString themeChoiceName(ThemeChoice choice);
ThemeChoice themeChoiceFromName(const QString& name);  // System for anything unknown

// True when `palette` is a dark one (Qt 6.4 has no QStyleHints::colorScheme;
// the window colour's lightness tells).
bool isDarkPalette(const QPalette& palette);

// Follows the OS (the palette and style the application started with) or
// forces light or dark (Fusion with a light or dark palette).
class Theme {
public:
    // Remembers `app`'s start-up palette and style name as "the system's".
    explicit Theme(QApplication* app);

    void apply(ThemeChoice choice);
    ThemeChoice choice() const { return m_choice; }
    bool isDark() const;

private:
    QApplication* m_app;
    QPalette m_systemPalette;
    QString m_systemStyle;
    ThemeChoice m_choice = ThemeChoice::System;
};

}  // namespace tessera::console
