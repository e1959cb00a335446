// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's camera: where the image sits in the widget (zoom and the widget position of
// its top-left corner), how it is fitted and centred, what of it is on screen and at which
// reduction it needs uploading, and the state of a press that may become a pan or a drag of the
// split divider. Plain geometry, free of widgets and GL: the view (ImageView) asks it and
// emits the signals.
#pragma once
#include <QPoint>
#include <QPointF>
#include <QRectF>
#include <QSize>
#include <QSizeF>

#include <utility>

#include "view/displaymap.h"

class ImageSlot;

class ViewCamera {
public:
    static constexpr double kMinZoom = 1.0 / 64.0;
    static constexpr double kMaxZoom = 128.0;
    static constexpr double kWheelFactor = 1.25; // zoom per wheel notch (120 eighths of a degree)
    static constexpr double kDividerGrab = 5.0;  // widget px either side of the split divider

    enum class Drag { None, Pending, Pan, Divider };

    static double clampZoom(double z);

    double zoom() const { return zoom_; }
    QPointF origin() const { return origin_; }
    // What assign changed.
    struct Change {
        bool zoomed = false;
        bool moved = false; // zoom or origin
    };
    Change assign(double zoom, QPointF origin);

    // Refit on resize and on a new image shape; recentre on them.
    bool autoFit() const { return autoFit_; }
    bool centred() const { return centred_; }
    void setAutoFit(bool on) { autoFit_ = on; }
    void setCentred(bool on) { centred_ = on; }
    // The transform the fitting and centring ask for an image of `image` pixels, with `margin`
    // more on every side fitted too, in a widget of `widget` pixels (the current one when
    // neither applies).
    std::pair<double, QPointF> laidOut(QSize image, int margin, QSizeF widget) const;
    // The origin that keeps widget point `anchor` over the same image point at zoom z.
    QPointF anchoredOrigin(double z, QPointF anchor) const;

    // The frame's device pixel ratio and widget size (set as each frame starts).
    void setFrame(double dpr, QSizeF viewSize);
    double dpr() const { return dpr_; }
    QSizeF viewSize() const { return viewSize_; }

    QPointF widgetToImage(QPointF widgetPos) const { return (widgetPos - origin_) / zoom_; }
    // The image pixel under widgetPos, (-1, -1) outside an image of `image` pixels.
    QPoint pixelAt(QPointF widgetPos, QSize image) const;
    // The image pixels on screen, as of the last frame.
    QRectF visibleImageRect() const;

    // The reduction the zoom allows: the largest power of two of image pixels per device pixel
    // (1 from half size up). A texture of more texels than the screen has pixels only costs
    // upload time and texture reads; powers of two keep the texture while a zoom stays in one
    // octave.
    int zoomFactor() const;
    // zoomFactor along each side of a slot, at most the side itself.
    std::pair<int, int> zoomFactors(const ImageSlot& s) const;
    // Whether a zoom change asks for another reduction of a slot drawn from its host copy (the
    // upload then happens at the next frame). GPU-written contents stay as they are: reducing
    // them would read them back.
    bool reductionStale(const ImageSlot& s) const;
    // What of a slot's image its colours hold: at a zoom where the texture is full resolution,
    // the pixels on screen and half a screen around them (panning stays within it for a while),
    // in 64-pixel steps, unless that is most of the image anyway; else the whole image. The
    // padding preview reads any pixel of the image (wrap reads the far side): the whole image.
    displaymap::Region regionFor(const ImageSlot& s, bool padding) const;
    // Whether the screen shows pixels of a slot's image that its colours do not hold (a pan or
    // a zoom out of the region), or the padding preview needs the whole image: the next frame
    // maps and uploads again.
    bool regionStale(const ImageSlot& s, bool padding) const;

    // A left press at pos: on the divider it drags it, elsewhere it waits to be a click or a pan.
    void press(QPointF pos, bool onDivider);
    Drag drag() const { return drag_; }
    // A pending press becomes a pan once moved `threshold` px (manhattan); true when it does.
    bool startPanIfMoved(QPointF pos, int threshold);
    // The origin a pan to pos asks for.
    QPointF pannedOrigin(QPointF pos) const { return originAtPress_ + (pos - pressPos_); }
    void release() { drag_ = Drag::None; }

private:
    double zoom_ = 1.0;
    QPointF origin_;      // widget position of the image's top-left corner
    bool autoFit_ = true;
    bool centred_ = true;
    double dpr_ = 1.0;    // device pixels per widget pixel, as of the last frame
    QSizeF viewSize_;     // the widget's size, as of the last frame
    Drag drag_ = Drag::None;
    QPointF pressPos_, originAtPress_;
};
