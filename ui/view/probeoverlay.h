// SPDX-License-Identifier: GPL-3.0-or-later
// What the image view draws over its picture to tie a number in a panel to a place in the image:
// the probed pixel and the kernel's footprint around it (the input pixels its output reads),
// and a ring around a pixel the Difference panel points at ("show" on the largest difference).
//
// The footprint is pure geometry (kernelFootprint), so that a test can check it for any kernel,
// anchor and semantics without drawing. The overlay draws in widget coordinates from a Frame
// (zoom, origin, image size, padding preview), like the pixel grid, into the view's own frame.
#pragma once
#include <QColor>
#include <QPoint>
#include <QPointF>
#include <QRect>
#include <QRectF>
#include <QSize>
#include <optional>

#include "convlab/border.h"
#include "convlab/kernel.h"

class QPainter;

// The input pixels the output at `pixel` reads, in image coordinates.
struct KernelFootprint {
    QRect window; // every tap, also those outside the image (the border rule's values)
    QRect inside; // the part inside the image
    bool reachesOutside() const { return window != inside; }
};

// The footprint of a `kernel`-sized kernel whose anchor, as written, is `anchor` (a negative
// coordinate: the default, the middle), for `pixel` of an image of size `image`. Convolution
// applies the kernel rotated by 180 degrees with the anchor mirrored (convlab::correlationKernel),
// so its window lies mirrored about the pixel. Throws convlab::Error for an empty image or kernel,
// an anchor outside the kernel or a pixel outside the image.
KernelFootprint kernelFootprint(QPoint pixel, QSize image, QSize kernel, QPoint anchor, convlab::Semantics semantics);

// The output pixels that read input `pixel` (clipped to the image: outputs exist only there):
// the footprint of the other semantics, since an output at x reads x + ax - u under
// convolution, so the input x feeds the outputs x - ax + u. Throws as kernelFootprint.
QRect outputsFedBy(QPoint pixel, QSize image, QSize kernel, QPoint anchor, convlab::Semantics semantics);

// The tint of values the border rule invents, as the probe's table and the view's footprint
// show them: the border constant, or a value read from inside the image.
QColor inventedValueTint(bool borderConstant);

class ProbeOverlay {
public:
    // The view's geometry as the overlay needs it.
    struct Frame {
        double zoom = 1.0;      // screen pixels per image pixel
        QPointF origin;         // where the image's top-left corner lies in the widget
        QSize image;            // the image's size (empty: nothing is drawn)
        int paddingMargin = 0;  // the padding preview's margin in image pixels (0: not shown)
        convlab::BorderMode border = convlab::BorderMode::Constant;
    };
    // The outlines' colours (also what a test looks for in a grab).
    static QColor probeColour();
    static QColor footprintColour();
    static QColor ringColour();

    void setProbe(QPoint pixel, const KernelFootprint& footprint);
    void clearProbe();
    bool hasProbe() const { return probe_.has_value(); }
    QPoint probePixel() const { return probe_ ? probe_->pixel : QPoint(-1, -1); }
    KernelFootprint footprint() const { return probe_ ? probe_->footprint : KernelFootprint{}; }

    // An input pixel clicked on the original and the outputs it feeds.
    static QColor fedColour();
    void setFed(QPoint input, const QRect& outputs);
    void clearFed();
    std::optional<QRect> fedOutputs() const { return fed_ ? std::optional<QRect>(fed_->outputs) : std::nullopt; }

    void setRing(QPoint pixel);
    void clearRing();
    std::optional<QPoint> ring() const { return ring_; }

    bool empty() const { return !probe_ && !ring_ && !fed_; }
    void paint(QPainter& p, const Frame& f) const;

    // Widget geometry (for the tests): a rectangle of image pixels, and the ring's radius, at
    // least a few screen pixels wider than the pixel at any zoom.
    static QRectF widgetRect(const Frame& f, const QRect& pixels);
    static double ringRadius(double zoom);
    // The part of the footprint drawn: inside the image, or with the padding preview also the
    // taps in its margin.
    static QRect drawnWindow(const Frame& f, const KernelFootprint& footprint);

private:
    struct Probe {
        QPoint pixel;
        KernelFootprint footprint;
    };
    void paintProbe(QPainter& p, const Frame& f) const;
    void paintRing(QPainter& p, const Frame& f) const;
    void paintFed(QPainter& p, const Frame& f) const;

    struct Fed {
        QPoint input;
        QRect outputs;
    };
    std::optional<Fed> fed_;
    std::optional<Probe> probe_;
    std::optional<QPoint> ring_;
};
