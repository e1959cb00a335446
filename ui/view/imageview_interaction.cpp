// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's navigation: zoom, pan, fitting, the split divider, hover, keys and mouse.
#include "view/imageview.h"

#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QStyleHints>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "view/imageview_internal.h"

using imageview_detail::Slot;

namespace {

constexpr double kMinZoom = 1.0 / 64.0;
constexpr double kMaxZoom = 128.0;
constexpr double kWheelFactor = 1.25;  // zoom per wheel notch (120 eighths of a degree)
constexpr double kDividerGrab = 5.0;   // widget px either side of the split divider

} // namespace

void ImageView::keyPressEvent(QKeyEvent* e)
{
    // Auto-repeat presses of a held Space change nothing.
    if (e->key() == Qt::Key_Space && e->modifiers() == Qt::NoModifier) {
        if (!e->isAutoRepeat())
            setOriginal(true, d->originalToggled);
        e->accept();
        return;
    }
    GLViewHost::keyPressEvent(e);
}

void ImageView::keyReleaseEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_Space) {
        if (!e->isAutoRepeat())
            setOriginal(false, d->originalToggled);
        e->accept();
        return;
    }
    GLViewHost::keyReleaseEvent(e);
}

void ImageView::focusOutEvent(QFocusEvent* e)
{
    // The release of a Space held while the focus left would never arrive here.
    setOriginal(false, d->originalToggled);
    GLViewHost::focusOutEvent(e);
}

void ImageView::setSplitPosition(double t)
{
    if (!std::isfinite(t))
        return;
    d->split = std::clamp(t, 0.0, 1.0);
    placeOverlays();
    update();
}

double ImageView::splitPosition() const
{
    return d->split;
}

void ImageView::showDisplayState(const display::State& state)
{
    setViewMode(state.mode);
    setMapping(state.mapping);
    setDisplayChannel(state.channel);
    if (state.splitPosition != d->split) setSplitPosition(state.splitPosition);
    setDifferenceScale(state.differenceScale, state.differenceAbsoluteMax);
    setPixelGridEnabled(state.pixelGrid);
    setFloatRangeByValues(state.floatRangeByValues);
    if (state.edgeLoupe != d->loupeWanted) setEdgeLoupeShown(state.edgeLoupe);
}

double ImageView::zoom() const
{
    return d->zoom;
}

void ImageView::setZoom(double z, QPointF anchorWidgetPos)
{
    d->autoFit = false;
    const bool aboutCentre = anchorWidgetPos == QPointF(-1, -1);
    if (aboutCentre)
        anchorWidgetPos = QPointF(width() / 2.0, height() / 2.0);
    zoomTo(z, anchorWidgetPos, aboutCentre && d->centred);
}

void ImageView::zoomTo(double z, QPointF anchor, bool keepCentred)
{
    if (!std::isfinite(z))
        return;
    z = std::clamp(z, kMinZoom, kMaxZoom);
    d->centred = keepCentred;
    assignTransform(z, anchor - (anchor - d->origin) * (z / d->zoom));
    applyLayout();
    update();
}

void ImageView::assignTransform(double zoom, QPointF origin)
{
    const bool zoomed = zoom != d->zoom;
    if (!zoomed && origin == d->origin)
        return;
    d->zoom = zoom;
    d->origin = origin;
    if (zoomed) {
        for (auto* s : {&d->source, &d->result, &d->diff})
            if (d->reductionStale(*s))
                s->pending = imageview_detail::Slot::Pending::FromHost; // the next frame uploads it again
        update();
        emit zoomChanged(zoom);
    }
    emit viewChanged(zoom, origin);
}

QPointF ImageView::origin() const
{
    return d->origin;
}

void ImageView::setViewTransform(double zoom, QPointF origin)
{
    if (!std::isfinite(zoom) || !std::isfinite(origin.x()) || !std::isfinite(origin.y()))
        return;
    d->autoFit = d->centred = false;
    assignTransform(std::clamp(zoom, kMinZoom, kMaxZoom), origin);
    update();
}

void ImageView::fitToWindow()
{
    d->autoFit = d->centred = true;
    const double before = d->zoom;
    applyLayout();
    if (d->zoom == before)
        emit zoomChanged(d->zoom); // said even when it stays: a status display may be empty yet
    update();
}

void ImageView::actualSize()
{
    d->autoFit = false;
    const double before = d->zoom;
    zoomTo(1.0, QPointF(width() / 2.0, height() / 2.0), true);
    if (d->zoom == before)
        emit zoomChanged(d->zoom);
}

void ImageView::applyLayout()
{
    const Slot& ref = d->reference();
    if (ref.channels == 0 || width() <= 0 || height() <= 0)
        return;
    double zoom = d->zoom;
    QPointF origin = d->origin;
    if (d->autoFit) {
        // The padding margin is part of what is fitted (it is symmetric: the centre stays).
        const int extra = d->padding ? 2 * d->padMargin : 0;
        const double z = std::min(double(width()) / (ref.width + extra), double(height()) / (ref.height + extra));
        zoom = std::clamp(z, kMinZoom, kMaxZoom);
    }
    if (d->autoFit || d->centred) {
        // Whole widget pixels keep single image pixels crisp at integer zooms.
        origin = QPointF(std::round((width() - ref.width * zoom) / 2.0),
                         std::round((height() - ref.height * zoom) / 2.0));
    }
    assignTransform(zoom, origin);
}

QPointF ImageView::widgetToImage(QPointF widgetPos) const
{
    return (widgetPos - d->origin) / d->zoom;
}

QPoint ImageView::pixelAt(QPointF widgetPos) const
{
    const QPointF p = widgetToImage(widgetPos);
    const int x = static_cast<int>(std::floor(p.x()));
    const int y = static_cast<int>(std::floor(p.y()));
    const Slot& ref = d->reference();
    return ref.contains(x, y) ? QPoint(x, y) : QPoint(-1, -1);
}

void ImageView::updateHover(QPointF widgetPos)
{
    const QPoint px = QRectF(rect()).contains(widgetPos) ? pixelAt(widgetPos) : QPoint(-1, -1);
    if (px == d->hovered)
        return;
    d->hovered = px;
    emit pixelHovered(px.x(), px.y());
}

bool ImageView::nearDivider(QPointF widgetPos) const
{
    return d->shownMode() == ViewMode::Split && std::abs(widgetPos.x() - d->split * width()) <= kDividerGrab;
}

void ImageView::wheelEvent(QWheelEvent* e)
{
    const double notches = e->angleDelta().y() / 120.0;
    if (notches == 0.0) {
        e->ignore();
        return;
    }
    d->autoFit = false;
    zoomTo(d->zoom * std::pow(kWheelFactor, notches), e->position(), false);
    updateHover(e->position());
    e->accept();
}

void ImageView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton) {
        GLViewHost::mousePressEvent(e);
        return;
    }
    d->pressPos = e->position();
    d->originAtPress = d->origin;
    d->drag = nearDivider(e->position()) ? State::Drag::Divider : State::Drag::Pending;
    e->accept();
}

void ImageView::mouseMoveEvent(QMouseEvent* e)
{
    const QPointF pos = e->position();
    switch (d->drag) {
    case State::Drag::Divider:
        setSplitPosition(width() > 0 ? pos.x() / width() : 0.5);
        emit splitDragged(d->split);
        break;
    case State::Drag::Pending:
        if ((pos - d->pressPos).manhattanLength() < QGuiApplication::styleHints()->startDragDistance())
            break;
        d->drag = State::Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
        [[fallthrough]];
    case State::Drag::Pan:
        d->autoFit = d->centred = false;
        assignTransform(d->zoom, d->originAtPress + (pos - d->pressPos));
        update();
        break;
    case State::Drag::None:
        if (nearDivider(pos))
            setCursor(Qt::SplitHCursor);
        else
            unsetCursor();
        break;
    }
    updateHover(pos);
}

void ImageView::mouseReleaseEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton) {
        GLViewHost::mouseReleaseEvent(e);
        return;
    }
    if (d->drag == State::Drag::Pending) {
        const QPoint px = pixelAt(e->position());
        if (px.x() >= 0) {
            emit pixelClicked(px.x(), px.y());
            const ViewMode shown = shownMode();
            const bool onOriginal = shown == ViewMode::Original ||
                                    (shown == ViewMode::Split && e->position().x() < d->split * width());
            if (onOriginal) emit inputPixelClicked(px.x(), px.y());
        }
    }
    if (d->drag == State::Drag::Pan)
        unsetCursor();
    d->drag = State::Drag::None;
    e->accept();
}

void ImageView::leaveEvent(QEvent* e)
{
    updateHover(QPointF(-1, -1));
    GLViewHost::leaveEvent(e);
}

void ImageView::centreOnPixel(int x, int y)
{
    // Zoom in (about the point itself, so it stays put) until single pixels are visible.
    auto widgetPos = [this](QPointF img) {
        const QPointF o = widgetToImage(QPointF(0, 0));
        const QPointF e = widgetToImage(QPointF(1, 1)) - o; // image pixels per widget pixel
        return QPointF((img.x() - o.x()) / e.x(), (img.y() - o.y()) / e.y());
    };
    const QPointF pixel(x + 0.5, y + 0.5);
    const double z = std::max(zoom(), 4.0);
    setZoom(z, widgetPos(pixel));
    // The view zooms about a fixed point; a zoom by f about A followed by 1/f about B moves
    // every point by (B - A)(1 - 1/f): a pure pan that brings the pixel to the centre.
    const QPointF shift = QPointF(width() / 2.0, height() / 2.0) - widgetPos(pixel);
    const double f = 0.5;
    const QPointF a = widgetPos(pixel);
    const QPointF b = a + shift / (1.0 - 1.0 / f);
    setZoom(z * f, a);
    setZoom(z, b);
}
