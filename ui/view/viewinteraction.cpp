// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's navigation: zoom, pan, fitting, the split divider, hover, keys and mouse.
#include "view/viewinteraction.h"

#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QStyleHints>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "view/imageview.h"
#include "view/viewcamera.h"
#include "view/viewscene.h"

ViewInteraction::ViewInteraction(ImageView& view, ViewScene& scene, ViewCamera& camera)
    : view_(view), scene_(scene), camera_(camera)
{
}

void ViewInteraction::setZoom(double z, QPointF anchor)
{
    camera_.setAutoFit(false);
    const bool aboutCentre = anchor == QPointF(-1, -1);
    if (aboutCentre)
        anchor = QPointF(view_.width() / 2.0, view_.height() / 2.0);
    zoomTo(z, anchor, aboutCentre && camera_.centred());
}

void ViewInteraction::zoomTo(double z, QPointF anchor, bool keepCentred)
{
    if (!std::isfinite(z))
        return;
    z = ViewCamera::clampZoom(z);
    camera_.setCentred(keepCentred);
    assignTransform(z, camera_.anchoredOrigin(z, anchor));
    applyLayout();
    view_.update();
}

void ViewInteraction::assignTransform(double zoom, QPointF origin)
{
    const ViewCamera::Change change = camera_.assign(zoom, origin);
    if (!change.moved)
        return;
    if (change.zoomed) {
        for (ImageSlot* s : {&scene_.source, &scene_.result, &scene_.diff})
            if (camera_.reductionStale(*s))
                s->pending = ImageSlot::Pending::FromHost; // the next frame uploads it again
        view_.update();
        emit view_.zoomChanged(zoom);
    }
    emit view_.viewChanged(zoom, origin);
}

void ViewInteraction::setViewTransform(double zoom, QPointF origin)
{
    if (!std::isfinite(zoom) || !std::isfinite(origin.x()) || !std::isfinite(origin.y()))
        return;
    camera_.setAutoFit(false);
    camera_.setCentred(false);
    assignTransform(ViewCamera::clampZoom(zoom), origin);
    view_.update();
}

void ViewInteraction::fitToWindow()
{
    camera_.setAutoFit(true);
    camera_.setCentred(true);
    const double before = camera_.zoom();
    applyLayout();
    if (camera_.zoom() == before)
        emit view_.zoomChanged(before); // said even when it stays: a status display may be empty yet
    view_.update();
}

void ViewInteraction::actualSize()
{
    camera_.setAutoFit(false);
    const double before = camera_.zoom();
    zoomTo(1.0, QPointF(view_.width() / 2.0, view_.height() / 2.0), true);
    if (camera_.zoom() == before)
        emit view_.zoomChanged(before);
}

void ViewInteraction::applyLayout()
{
    const QSize image = view_.imageSize();
    if (image.isEmpty() || view_.width() <= 0 || view_.height() <= 0)
        return;
    const int margin = scene_.padding ? scene_.padMargin : 0;
    const auto [zoom, origin] = camera_.laidOut(image, margin, QSizeF(view_.width(), view_.height()));
    assignTransform(zoom, origin);
}

void ViewInteraction::centreOnPixel(int x, int y)
{
    // Zoom in (about the point itself, so it stays put) until single pixels are visible.
    auto widgetPos = [this](QPointF img) {
        const QPointF o = camera_.widgetToImage(QPointF(0, 0));
        const QPointF e = camera_.widgetToImage(QPointF(1, 1)) - o; // image pixels per widget pixel
        return QPointF((img.x() - o.x()) / e.x(), (img.y() - o.y()) / e.y());
    };
    const QPointF pixel(x + 0.5, y + 0.5);
    const double z = std::max(camera_.zoom(), 4.0);
    setZoom(z, widgetPos(pixel));
    // The view zooms about a fixed point; a zoom by f about A followed by 1/f about B moves
    // every point by (B - A)(1 - 1/f): a pure pan that brings the pixel to the centre.
    const QPointF shift = QPointF(view_.width() / 2.0, view_.height() / 2.0) - widgetPos(pixel);
    const double f = 0.5;
    const QPointF a = widgetPos(pixel);
    const QPointF b = a + shift / (1.0 - 1.0 / f);
    setZoom(z * f, a);
    setZoom(z, b);
}

bool ViewInteraction::keyPress(QKeyEvent* e)
{
    if (e->key() != Qt::Key_Space || e->modifiers() != Qt::NoModifier)
        return false;
    // Auto-repeat presses of a held Space change nothing.
    if (!e->isAutoRepeat())
        view_.setOriginal(true, scene_.originalToggled);
    e->accept();
    return true;
}

bool ViewInteraction::keyRelease(QKeyEvent* e)
{
    if (e->key() != Qt::Key_Space)
        return false;
    if (!e->isAutoRepeat())
        view_.setOriginal(false, scene_.originalToggled);
    e->accept();
    return true;
}

void ViewInteraction::focusOut()
{
    view_.setOriginal(false, scene_.originalToggled);
}

QPoint ViewInteraction::pixelAt(QPointF widgetPos) const
{
    return camera_.pixelAt(widgetPos, view_.imageSize());
}

void ViewInteraction::updateHover(QPointF widgetPos)
{
    const QPoint px = QRectF(view_.rect()).contains(widgetPos) ? pixelAt(widgetPos) : QPoint(-1, -1);
    if (px == hovered_)
        return;
    hovered_ = px;
    emit view_.pixelHovered(px.x(), px.y());
}

bool ViewInteraction::nearDivider(QPointF widgetPos) const
{
    return scene_.shownMode() == display::Mode::Split &&
           std::abs(widgetPos.x() - scene_.split * view_.width()) <= ViewCamera::kDividerGrab;
}

void ViewInteraction::wheel(QWheelEvent* e)
{
    const double notches = e->angleDelta().y() / 120.0;
    if (notches == 0.0) {
        e->ignore();
        return;
    }
    camera_.setAutoFit(false);
    zoomTo(camera_.zoom() * std::pow(ViewCamera::kWheelFactor, notches), e->position(), false);
    updateHover(e->position());
    e->accept();
}

bool ViewInteraction::mousePress(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton)
        return false;
    camera_.press(e->position(), nearDivider(e->position()));
    e->accept();
    return true;
}

void ViewInteraction::mouseMove(QMouseEvent* e)
{
    const QPointF pos = e->position();
    switch (camera_.drag()) {
    case ViewCamera::Drag::Divider:
        view_.setSplitPosition(view_.width() > 0 ? pos.x() / view_.width() : 0.5);
        emit view_.splitDragged(scene_.split);
        break;
    case ViewCamera::Drag::Pending:
        if (!camera_.startPanIfMoved(pos, QGuiApplication::styleHints()->startDragDistance()))
            break;
        view_.setCursor(Qt::ClosedHandCursor);
        [[fallthrough]];
    case ViewCamera::Drag::Pan:
        camera_.setAutoFit(false);
        camera_.setCentred(false);
        assignTransform(camera_.zoom(), camera_.pannedOrigin(pos));
        view_.update();
        break;
    case ViewCamera::Drag::None:
        if (nearDivider(pos))
            view_.setCursor(Qt::SplitHCursor);
        else
            view_.unsetCursor();
        break;
    }
    updateHover(pos);
}

bool ViewInteraction::mouseRelease(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton)
        return false;
    if (camera_.drag() == ViewCamera::Drag::Pending)
        click(e->position());
    if (camera_.drag() == ViewCamera::Drag::Pan)
        view_.unsetCursor();
    camera_.release();
    e->accept();
    return true;
}

void ViewInteraction::click(QPointF widgetPos)
{
    const QPoint px = pixelAt(widgetPos);
    if (px.x() < 0)
        return;
    emit view_.pixelClicked(px.x(), px.y());
    const display::Mode shown = scene_.shownMode();
    const bool onOriginal = shown == display::Mode::Original ||
                            (shown == display::Mode::Split && widgetPos.x() < scene_.split * view_.width());
    if (onOriginal) emit view_.inputPixelClicked(px.x(), px.y());
}

void ViewInteraction::leave()
{
    updateHover(QPointF(-1, -1));
}
