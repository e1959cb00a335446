// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/paneldock.h"

#include <QStyleOptionDockWidget>
#include <QStylePainter>

PanelDock::PanelDock(const QString& title, QWidget* parent) : QDockWidget(title, parent) {}

void PanelDock::paintEvent(QPaintEvent* e)
{
    // Floating, the window manager draws the title (or Qt its frame and title): left to Qt.
    if (isFloating() || titleBarWidget()) {
        QDockWidget::paintEvent(e);
        return;
    }
    // Docked, the title is all Qt draws; here in the dock's font, which follows the text size.
    QStylePainter p(this);
    QStyleOptionDockWidget title;
    initStyleOption(&title);
    p.drawControl(QStyle::CE_DockWidgetTitle, title);
}
