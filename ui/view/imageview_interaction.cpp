// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's facade for navigation and input (ViewInteraction, ViewCamera).
#include "view/imageview.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "view/viewcamera.h"
#include "view/viewinteraction.h"
#include "view/viewloupe.h"
#include "view/viewoverlays.h"
#include "view/viewscene.h"

void ImageView::keyPressEvent(QKeyEvent* e) { if (!interaction_->keyPress(e)) GLViewHost::keyPressEvent(e); }
void ImageView::keyReleaseEvent(QKeyEvent* e) { if (!interaction_->keyRelease(e)) GLViewHost::keyReleaseEvent(e); }
void ImageView::focusOutEvent(QFocusEvent* e) { interaction_->focusOut(); GLViewHost::focusOutEvent(e); }
void ImageView::wheelEvent(QWheelEvent* e) { interaction_->wheel(e); }

void ImageView::mousePressEvent(QMouseEvent* e)
{
    if (!interaction_->mousePress(e)) GLViewHost::mousePressEvent(e);
}

void ImageView::mouseMoveEvent(QMouseEvent* e) { interaction_->mouseMove(e); }

void ImageView::mouseReleaseEvent(QMouseEvent* e)
{
    if (!interaction_->mouseRelease(e)) GLViewHost::mouseReleaseEvent(e);
}

void ImageView::leaveEvent(QEvent* e) { interaction_->leave(); GLViewHost::leaveEvent(e); }

void ImageView::setSplitPosition(double t)
{
    if (!std::isfinite(t))
        return;
    scene_->split = std::clamp(t, 0.0, 1.0);
    placeOverlays();
    update();
}

double ImageView::splitPosition() const { return scene_->split; }

void ImageView::showDisplayState(const display::State& state)
{
    setViewMode(state.mode);
    setMapping(state.mapping);
    setDisplayChannel(state.channel);
    if (state.splitPosition != scene_->split) setSplitPosition(state.splitPosition);
    setDifferenceScale(state.differenceScale, state.differenceAbsoluteMax);
    setPixelGridEnabled(state.pixelGrid);
    setFloatRangeByValues(state.floatRangeByValues);
    if (state.edgeLoupe != overlays_->loupe().wanted()) setEdgeLoupeShown(state.edgeLoupe);
}

double ImageView::zoom() const { return camera_->zoom(); }
void ImageView::setZoom(double z, QPointF anchorWidgetPos) { interaction_->setZoom(z, anchorWidgetPos); }
QPointF ImageView::origin() const { return camera_->origin(); }
void ImageView::setViewTransform(double zoom, QPointF origin) { interaction_->setViewTransform(zoom, origin); }
void ImageView::fitToWindow() { interaction_->fitToWindow(); }
void ImageView::actualSize() { interaction_->actualSize(); }
void ImageView::applyLayout() { interaction_->applyLayout(); }
QPointF ImageView::widgetToImage(QPointF widgetPos) const { return camera_->widgetToImage(widgetPos); }
void ImageView::centreOnPixel(int x, int y) { interaction_->centreOnPixel(x, y); }
