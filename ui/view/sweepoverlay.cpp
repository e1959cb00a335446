// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/sweepoverlay.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "panels/sweepregion.h"
#include "view/imageview.h"

SweepOverlay::SweepOverlay(ImageView* view) : ViewOverlay(view)
{
    if (view) view->installEventFilter(this);
}

QColor SweepOverlay::outlineColour() { return QColor(255, 255, 255); }
QColor SweepOverlay::veilColour() { return QColor(40, 40, 48, 225); }

void SweepOverlay::setShown(bool on)
{
    if (on == shown_) return;
    shown_ = on;
    changed();
}

void SweepOverlay::setRegion(const QRect& region)
{
    if (region == region_) return;
    region_ = region;
    changed();
}

void SweepOverlay::setDone(int done)
{
    if (done == done_) return;
    done_ = done;
    changed();
}

QVector<QRect> SweepOverlay::veiled() const
{
    if (done_ < 0 || region_.isEmpty()) return {};
    const int w = region_.width();
    const int rowsDone = done_ / w, inRow = done_ % w;
    QVector<QRect> out;
    if (rowsDone >= region_.height()) return out; // the sweep has covered the region
    if (inRow > 0) { // the current row's pixels still to come
        out << QRect(region_.left() + inRow, region_.top() + rowsDone, w - inRow, 1);
        if (rowsDone + 1 < region_.height())
            out << QRect(region_.left(), region_.top() + rowsDone + 1, w, region_.height() - rowsDone - 1);
    } else {
        out << QRect(region_.left(), region_.top() + rowsDone, w, region_.height() - rowsDone);
    }
    return out;
}

void SweepOverlay::paint(QPainter& p, const ProbeOverlay::Frame& f, const ImageView& view) const
{
    if (!shown_ || region_.isEmpty() || view.shownMode() == display::Mode::Difference) return;
    p.save();
    // The veil hides outputs: over the result only (the original's pixels are all there).
    p.save();
    if (clipToResult(p, view))
        for (const QRect& r : veiled()) p.fillRect(ProbeOverlay::widgetRect(f, r), veilColour());
    p.restore();
    // Dashed white over a dark line: visible on any picture, and unlike the probe's outlines.
    const QRectF outline = ProbeOverlay::widgetRect(f, region_).adjusted(-1, -1, 1, 1);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(0, 0, 0, 200), 2.0));
    p.drawRect(outline);
    p.setPen(QPen(outlineColour(), 2.0, Qt::DashLine));
    p.drawRect(outline);
    p.restore();
}

QPoint SweepOverlay::pixelUnder(QPointF widgetPos) const
{
    const QPointF at = view()->widgetToImage(widgetPos);
    return QPoint(int(std::floor(at.x())), int(std::floor(at.y())));
}

QRect SweepOverlay::dragged(QPoint pixel) const
{
    // (Not QRect::normalized(): for a reversed rectangle it leaves both corners out.)
    const QPoint topLeft(std::min(dragStart_.x(), pixel.x()), std::min(dragStart_.y(), pixel.y()));
    const QPoint bottomRight(std::max(dragStart_.x(), pixel.x()), std::max(dragStart_.y(), pixel.y()));
    return sweep::clamped(QRect(topLeft, bottomRight), view()->imageSize());
}

bool SweepOverlay::eventFilter(QObject* watched, QEvent* e)
{
    if (watched != view() || !shown_) return false;
    const auto* m = static_cast<QMouseEvent*>(e);
    switch (e->type()) {
    case QEvent::MouseButtonPress:
        if (m->button() != Qt::LeftButton || !(m->modifiers() & Qt::ShiftModifier)) return false;
        dragging_ = true;
        dragStart_ = pixelUnder(m->position());
        setRegion(dragged(dragStart_));
        return true;
    case QEvent::MouseMove:
        if (!dragging_) return false;
        setRegion(dragged(pixelUnder(m->position())));
        return true;
    case QEvent::MouseButtonRelease: {
        if (!dragging_ || m->button() != Qt::LeftButton) return false;
        dragging_ = false;
        const QRect region = dragged(pixelUnder(m->position()));
        if (!region.isEmpty()) emit regionPicked(region);
        return true;
    }
    default: return false;
    }
}
