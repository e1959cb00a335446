// SPDX-License-Identifier: GPL-3.0-or-later
// What the view shows of the probe's sweep: the region outlined (dashed white), and while a
// sweep is under way its output pixels not yet computed veiled in dark grey over the result
// (not over the original, in Split or Original), so that each output appears in the picture
// as its sum completes. A Shift-drag on the view draws a new
// region (regionPicked); a plain drag or click is left to the view.
#pragma once
#include <QColor>
#include <QPoint>
#include <QRect>

#include "view/viewoverlay.h"

class SweepOverlay : public ViewOverlay {
    Q_OBJECT
public:
    explicit SweepOverlay(ImageView* view);

    static QColor outlineColour();
    static QColor veilColour();

    // Drawn only while shown (the probe panel on screen).
    void setShown(bool on);
    bool shown() const { return shown_; }
    void setRegion(const QRect& region);
    QRect region() const { return region_; }
    // The region's first `done` pixels in the sweep's order are computed; the rest are veiled.
    // A negative `done`: no sweep under way, nothing veiled.
    void setDone(int done);
    int done() const { return done_; }
    // The veiled pixels as rectangles of image pixels (the rest of the current row, the rows
    // below): empty without a sweep under way.
    QVector<QRect> veiled() const;

    void paint(QPainter& p, const ProbeOverlay::Frame& f, const ImageView& view) const override;

signals:
    // A region drawn on the view with Shift held (image pixels, cut to the image).
    void regionPicked(const QRect& region);

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    // The rectangle between the drag's start and `pixel`, both included, cut to the image.
    QRect dragged(QPoint pixel) const;
    QPoint pixelUnder(QPointF widgetPos) const;

    bool shown_ = false;
    QRect region_;
    int done_ = -1;
    bool dragging_ = false;
    QPoint dragStart_;
};
