// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/presentation.h"

#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <algorithm>

QFont& TextScale::base()
{
    static QFont font = QApplication::font(); // as the application started
    return font;
}

double& TextScale::scale()
{
    static double s = 1.0;
    return s;
}

void TextScale::set(double s)
{
    const QFont& start = base();
    scale() = std::clamp(s, kMin, kMax);
    QFont f = start;
    if (start.pointSizeF() > 0)
        f.setPointSizeF(start.pointSizeF() * scale());
    else
        f.setPixelSize(std::max(1, int(start.pixelSize() * scale() + 0.5)));
    QApplication::setFont(f);
}

double TextScale::current() { return scale(); }

Presentation::Presentation(QMainWindow* window) : QObject(window), window_(window) {}

void Presentation::setActive(bool on)
{
    if (on == active_) return;
    on ? enter() : leave();
    active_ = on;
    emit activeChanged(on);
}

void Presentation::setDock(const QString& dockName)
{
    dock_ = dockName;
    if (!active_) return;
    for (QDockWidget* d : window_->findChildren<QDockWidget*>()) d->setVisible(d->objectName() == dock_);
}

void Presentation::enter()
{
    savedState_ = window_->saveState();
    savedGeometry_ = window_->saveGeometry();
    savedTextScale_ = TextScale::current();
    wasFullScreen_ = window_->isFullScreen();
    for (QDockWidget* d : window_->findChildren<QDockWidget*>()) {
        const bool chosen = d->objectName() == dock_;
        if (chosen && d->isFloating()) d->setFloating(false);
        d->setVisible(chosen);
        if (chosen) d->raise();
    }
    TextScale::set(std::max(savedTextScale_, kTextScale));
    window_->showFullScreen();
}

void Presentation::leave()
{
    TextScale::set(savedTextScale_);
    if (!wasFullScreen_) window_->showNormal();
    window_->restoreGeometry(savedGeometry_);
    window_->restoreState(savedState_);
}
