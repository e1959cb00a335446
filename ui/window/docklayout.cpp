// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/docklayout.h"

#include <QDockWidget>
#include <QEvent>
#include <QLabel>
#include <QMainWindow>
#include <QTimer>
#include <algorithm>
#include <cmath>

namespace docklayout {

int sideBudget(int windowWidth, double sideShare, int floorWidth, int overhead)
{
    if (windowWidth <= 0) return QWIDGETSIZE_MAX;
    const double docks = std::floor(windowWidth * (1.0 - kMinViewShare)) - std::max(0, overhead);
    // A window too narrow for the floor gives the floor up before the view.
    const int floor = std::min(floorWidth, windowWidth / 4);
    return std::max(static_cast<int>(std::floor(docks * std::clamp(sideShare, 0.0, 1.0))), floor);
}

void keepNotesFromWidening(QWidget* root)
{
    for (QLabel* label : root->findChildren<QLabel*>()) {
        if (!label->wordWrap()) continue;
        // Ignored: the label's width hint (its text on one line, or ~80 characters) never
        // asks the dock for room; the layout's width is all it gets and the text wraps in it.
        QSizePolicy policy = label->sizePolicy();
        policy.setHorizontalPolicy(QSizePolicy::Ignored);
        label->setSizePolicy(policy);
        label->setMinimumWidth(0);
    }
}

} // namespace docklayout

DockLayout::DockLayout(QMainWindow* window) : QObject(window), window_(window)
{
    for (QDockWidget* d : window_->findChildren<QDockWidget*>()) watch(d);
    window_->installEventFilter(this);
    // The view resizes when a dock does (a dragged separator, a panel that grew): the limits
    // are checked again then, since the room the docks left each other has changed.
    centre_ = window_->centralWidget();
    if (centre_) centre_->installEventFilter(this);
    defaultState_ = window_->saveState();
    enforce();
}

void DockLayout::watch(QDockWidget* dock)
{
    docklayout::keepNotesFromWidening(dock);
    // A dock moved to the other side or floated changes what each side may take.
    auto later = [this] { enforceLater(); };
    connect(dock, &QDockWidget::dockLocationChanged, this, later);
    // Floated, a dock is free at once (a resize right after must not meet the docked limit).
    connect(dock, &QDockWidget::topLevelChanged, this, [this] {
        enforce();
        enforceLater();
    });
    connect(dock, &QDockWidget::visibilityChanged, this, later);
}

void DockLayout::enforce()
{
    const int left = sideWidth(Qt::LeftDockWidgetArea), right = sideWidth(Qt::RightDockWidgetArea);
    const int overhead = measuredOverhead(left + right);
    const bool both = left > 0 && right > 0;
    const double leftShare = both ? docklayout::kLeftShare : 1.0, rightShare = both ? 1.0 - docklayout::kLeftShare : 1.0;
    const int leftBudget = docklayout::sideBudget(window_->width(), leftShare, kFloorWidth, overhead);
    const int rightBudget = docklayout::sideBudget(window_->width(), rightShare, kPanelFloorWidth, overhead);
    for (QDockWidget* d : window_->findChildren<QDockWidget*>()) {
        const Qt::DockWidgetArea area = window_->dockWidgetArea(d);
        int budget = QWIDGETSIZE_MAX;
        if (!d->isFloating() && area == Qt::LeftDockWidgetArea) budget = leftBudget;
        if (!d->isFloating() && area == Qt::RightDockWidgetArea) budget = rightBudget;
        d->setMaximumWidth(budget);
    }
}

void DockLayout::enforceLater()
{
    if (queued_) return;
    queued_ = true;
    QTimer::singleShot(0, this, [this] {
        queued_ = false;
        enforce();
    });
}

int DockLayout::sideWidth(Qt::DockWidgetArea area) const
{
    int widest = 0; // docks tabbed or stacked on one side share its width
    for (QDockWidget* d : window_->findChildren<QDockWidget*>())
        if (!d->isFloating() && !d->isHidden() && window_->dockWidgetArea(d) == area) widest = std::max(widest, d->width());
    return widest;
}

int DockLayout::measuredOverhead(int docks) const
{
    const QWidget* centre = window_->centralWidget();
    if (!centre || centre->width() <= 0 || docks == 0) return 0;
    // What the view and the docks do not hold, within reason (a layout not yet done says more).
    return std::clamp(window_->width() - centre->width() - docks, 0, 80);
}

bool DockLayout::restore(const QByteArray& state)
{
    const bool taken = !state.isEmpty() && window_->restoreState(state);
    enforce();
    return taken;
}

void DockLayout::reset()
{
    window_->restoreState(defaultState_);
    for (QDockWidget* d : window_->findChildren<QDockWidget*>()) {
        d->setFloating(false);
        d->show();
    }
    enforce();
}

double DockLayout::viewShare() const
{
    const QWidget* centre = window_->centralWidget();
    return centre && window_->width() > 0 ? double(centre->width()) / window_->width() : 0.0;
}

bool DockLayout::eventFilter(QObject* watched, QEvent* e)
{
    // The type first, and no call into the window for the view's events: the view sends some
    // while the window destroys it, when the window's own layout is already gone.
    if (e->type() != QEvent::Resize && e->type() != QEvent::Show) return QObject::eventFilter(watched, e);
    if (watched == window_) {
        enforce();
        enforceLater(); // once laid out at this size the separators and tab bars are known
    } else if (watched == centre_ && e->type() == QEvent::Resize) {
        enforceLater();
    }
    return QObject::eventFilter(watched, e);
}
