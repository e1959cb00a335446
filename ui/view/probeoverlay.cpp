// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/probeoverlay.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <string>

#include "convlab/error.h"

namespace {

constexpr int kTintAlpha = 120;      // the invented taps' tint over the padding preview
constexpr double kLineWidth = 2.0;   // screen pixels, drawn over a darker halo
constexpr double kHaloWidth = 4.0;
constexpr double kRingMinRadius = 10.0; // screen pixels: visible around a pixel at any zoom

std::string text(QPoint p) { return "(" + std::to_string(p.x()) + ", " + std::to_string(p.y()) + ")"; }
std::string text(QSize s) { return std::to_string(s.width()) + "x" + std::to_string(s.height()); }

// A line in `colour` over a dark halo, so that it shows on white, black and the heat map alike.
void strokeOutlined(QPainter& p, const QPainterPath& path, const QColor& colour)
{
    p.strokePath(path, QPen(QColor(0, 0, 0, 170), kHaloWidth));
    p.strokePath(path, QPen(colour, kLineWidth));
}

} // namespace

KernelFootprint kernelFootprint(QPoint pixel, QSize image, QSize kernel, QPoint anchor, convlab::Semantics semantics)
{
    if (image.isEmpty()) throw convlab::Error("kernel footprint: the image " + text(image) + " is empty");
    if (kernel.isEmpty()) throw convlab::Error("kernel footprint: the kernel " + text(kernel) + " is empty");
    const QRect imageRect(QPoint(0, 0), image);
    if (!imageRect.contains(pixel))
        throw convlab::Error("kernel footprint: pixel " + text(pixel) + " is outside the " + text(image) + " image");
    // The anchor as convlab::Kernel resolves it: negative means the middle.
    int ax = anchor.x() >= 0 ? anchor.x() : kernel.width() / 2;
    int ay = anchor.y() >= 0 ? anchor.y() : kernel.height() / 2;
    if (ax >= kernel.width() || ay >= kernel.height())
        throw convlab::Error("kernel footprint: anchor " + text(anchor) + " is outside the " + text(kernel) + " kernel");
    // The taps of the applied (correlation-form) kernel read pixel - anchor + (u, v); convolution
    // applies the kernel rotated, whose anchor is the written one mirrored.
    if (semantics == convlab::Semantics::Convolution) {
        ax = kernel.width() - 1 - ax;
        ay = kernel.height() - 1 - ay;
    }
    KernelFootprint f;
    f.window = QRect(pixel - QPoint(ax, ay), kernel);
    f.inside = f.window.intersected(imageRect);
    return f;
}

QColor inventedValueTint(bool borderConstant)
{
    return borderConstant ? QColor(214, 222, 240) : QColor(255, 226, 180);
}

QColor ProbeOverlay::probeColour() { return QColor(0, 230, 255); }
QColor ProbeOverlay::footprintColour() { return QColor(255, 200, 0); }
QColor ProbeOverlay::ringColour() { return QColor(255, 40, 255); }

void ProbeOverlay::setProbe(QPoint pixel, const KernelFootprint& footprint) { probe_ = Probe{pixel, footprint}; }

void ProbeOverlay::clearProbe() { probe_.reset(); }

void ProbeOverlay::setRing(QPoint pixel) { ring_ = pixel; }

void ProbeOverlay::clearRing() { ring_.reset(); }

QRectF ProbeOverlay::widgetRect(const Frame& f, const QRect& pixels)
{
    return QRectF(f.origin + QPointF(pixels.x(), pixels.y()) * f.zoom,
                  QSizeF(pixels.width(), pixels.height()) * f.zoom);
}

double ProbeOverlay::ringRadius(double zoom) { return std::max(kRingMinRadius, 0.5 * zoom * 1.5); }

QRect ProbeOverlay::drawnWindow(const Frame& f, const KernelFootprint& footprint)
{
    if (f.paddingMargin <= 0) return footprint.inside;
    const int m = f.paddingMargin;
    return footprint.window.intersected(QRect(-m, -m, f.image.width() + 2 * m, f.image.height() + 2 * m));
}

QRect outputsFedBy(QPoint pixel, QSize image, QSize kernel, QPoint anchor, convlab::Semantics semantics)
{
    const convlab::Semantics other = semantics == convlab::Semantics::Convolution ? convlab::Semantics::Correlation
                                                                                   : convlab::Semantics::Convolution;
    return kernelFootprint(pixel, image, kernel, anchor, other).inside;
}

QColor ProbeOverlay::fedColour() { return QColor(60, 220, 90); }

void ProbeOverlay::setFed(QPoint input, const QRect& outputs) { fed_ = Fed{input, outputs}; }

void ProbeOverlay::clearFed() { fed_.reset(); }

void ProbeOverlay::paintFed(QPainter& p, const Frame& f) const
{
    QPainterPath outputs;
    outputs.addRect(widgetRect(f, fed_->outputs));
    QPainterPath input;
    input.addRect(widgetRect(f, QRect(fed_->input, QSize(1, 1))));
    p.save();
    QPen dashed(fedColour(), 2, Qt::DashLine);
    p.setPen(dashed);
    p.setBrush(Qt::NoBrush);
    p.drawPath(outputs);
    p.restore();
    strokeOutlined(p, input, fedColour());
}

void ProbeOverlay::paint(QPainter& p, const Frame& f) const
{
    if (f.image.isEmpty() || empty()) return;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    if (fed_) paintFed(p, f);
    if (probe_) paintProbe(p, f);
    if (ring_) paintRing(p, f);
    p.restore();
}

void ProbeOverlay::paintProbe(QPainter& p, const Frame& f) const
{
    const QRect window = drawnWindow(f, probe_->footprint);
    // With the padding preview, the taps outside the image are tinted as the probe's table
    // tints their values: the border constant, or a value the rule reads from inside.
    if (f.paddingMargin > 0 && probe_->footprint.reachesOutside()) {
        QPainterPath outside;
        outside.addRect(widgetRect(f, window));
        QPainterPath image;
        image.addRect(widgetRect(f, QRect(QPoint(0, 0), f.image)));
        QColor tint = inventedValueTint(f.border == convlab::BorderMode::Constant);
        tint.setAlpha(kTintAlpha);
        p.fillPath(outside.subtracted(image), tint);
    }
    QPainterPath footprint;
    footprint.addRect(widgetRect(f, window));
    strokeOutlined(p, footprint, footprintColour());
    QPainterPath pixel;
    pixel.addRect(widgetRect(f, QRect(probe_->pixel, QSize(1, 1))));
    strokeOutlined(p, pixel, probeColour());
}

void ProbeOverlay::paintRing(QPainter& p, const Frame& f) const
{
    const QPointF centre = widgetRect(f, QRect(*ring_, QSize(1, 1))).center();
    const double r = ringRadius(f.zoom);
    QPainterPath ring;
    ring.addEllipse(centre, r, r);
    strokeOutlined(p, ring, ringColour());
}
