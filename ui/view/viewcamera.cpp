// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's camera: transform, fitting, what is on screen, and the press state.
#include "view/viewcamera.h"

#include <algorithm>
#include <cmath>

#include "view/imageslot.h"

double ViewCamera::clampZoom(double z)
{
    return std::clamp(z, kMinZoom, kMaxZoom);
}

ViewCamera::Change ViewCamera::assign(double zoom, QPointF origin)
{
    Change c;
    c.zoomed = zoom != zoom_;
    c.moved = c.zoomed || origin != origin_;
    zoom_ = zoom;
    origin_ = origin;
    return c;
}

std::pair<double, QPointF> ViewCamera::laidOut(QSize image, int margin, QSizeF widget) const
{
    double zoom = zoom_;
    QPointF origin = origin_;
    if (autoFit_) {
        // The padding margin is part of what is fitted (it is symmetric: the centre stays).
        const int extra = 2 * margin;
        const double z = std::min(widget.width() / (image.width() + extra), widget.height() / (image.height() + extra));
        zoom = clampZoom(z);
    }
    if (autoFit_ || centred_) {
        // Whole widget pixels keep single image pixels crisp at integer zooms.
        origin = QPointF(std::round((widget.width() - image.width() * zoom) / 2.0),
                         std::round((widget.height() - image.height() * zoom) / 2.0));
    }
    return {zoom, origin};
}

QPointF ViewCamera::anchoredOrigin(double z, QPointF anchor) const
{
    return anchor - (anchor - origin_) * (z / zoom_);
}

void ViewCamera::setFrame(double dpr, QSizeF viewSize)
{
    dpr_ = dpr;
    viewSize_ = viewSize;
}

QPoint ViewCamera::pixelAt(QPointF widgetPos, QSize image) const
{
    const QPointF p = widgetToImage(widgetPos);
    const int x = static_cast<int>(std::floor(p.x()));
    const int y = static_cast<int>(std::floor(p.y()));
    return x >= 0 && y >= 0 && x < image.width() && y < image.height() ? QPoint(x, y) : QPoint(-1, -1);
}

QRectF ViewCamera::visibleImageRect() const
{
    return QRectF(-origin_ / zoom_, viewSize_ / zoom_);
}

int ViewCamera::zoomFactor() const
{
    const double pixelsPerTexel = zoom_ * dpr_;
    int f = 1;
    while (f < 1024 && pixelsPerTexel * 2 * f <= 1.0)
        f *= 2;
    return f;
}

std::pair<int, int> ViewCamera::zoomFactors(const ImageSlot& s) const
{
    const int f = zoomFactor();
    return {std::max(1, std::min(f, s.width)), std::max(1, std::min(f, s.height))};
}

bool ViewCamera::reductionStale(const ImageSlot& s) const
{
    if (!s.channels || !s.hostValid || s.overLimit || s.pending != ImageSlot::Pending::None)
        return false;
    return zoomFactors(s) != std::pair{s.factorX, s.factorY};
}

displaymap::Region ViewCamera::regionFor(const ImageSlot& s, bool padding) const
{
    const displaymap::Region whole{0, 0, s.width, s.height};
    if (s.factorX != 1 || s.factorY != 1 || padding || viewSize_.isEmpty())
        return whole;
    const QRectF v = visibleImageRect();
    const double mx = std::max(64.0, v.width() / 2), my = std::max(64.0, v.height() / 2);
    const auto down = [](double p) { return std::max(0, int(std::floor(p / 64.0)) * 64); };
    const int x0 = down(v.left() - mx), y0 = down(v.top() - my);
    const int x1 = std::min(s.width, int(std::ceil((v.right() + mx) / 64.0)) * 64);
    const int y1 = std::min(s.height, int(std::ceil((v.bottom() + my) / 64.0)) * 64);
    if (x1 <= x0 || y1 <= y0 || double(x1 - x0) * (y1 - y0) > 0.75 * double(s.width) * s.height)
        return whole;
    return {x0, y0, x1 - x0, y1 - y0};
}

bool ViewCamera::regionStale(const ImageSlot& s, bool padding) const
{
    if (!s.premapped || !s.hostValid || s.pending != ImageSlot::Pending::None || s.factorX != 1 || s.factorY != 1)
        return false;
    const displaymap::Region& r = s.region;
    if (r == displaymap::Region{0, 0, s.width, s.height})
        return false;
    if (padding)
        return true;
    const QRectF held(r.x, r.y, r.width, r.height);
    return !held.contains(visibleImageRect().intersected(QRectF(0, 0, s.width, s.height)));
}

void ViewCamera::press(QPointF pos, bool onDivider)
{
    pressPos_ = pos;
    originAtPress_ = origin_;
    drag_ = onDivider ? Drag::Divider : Drag::Pending;
}

bool ViewCamera::startPanIfMoved(QPointF pos, int threshold)
{
    if ((pos - pressPos_).manhattanLength() < threshold)
        return false;
    drag_ = Drag::Pan;
    return true;
}
