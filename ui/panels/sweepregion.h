// SPDX-License-Identifier: GPL-3.0-or-later
// The probe's sweep over a region: the rectangle of output pixels the kernel slides over, in
// the order the engine visits them (along each row of the region, then the next row's start),
// and the sum as it builds up a kernel row at a time. Plain functions, free of widgets, so
// that a test checks the order and the sums for any region.
#pragma once
#include <QPoint>
#include <QRect>
#include <QSize>

namespace convlab {
struct PixelProbe;
}

namespace sweep {

// The region a sweep starts with: kDefaultSize pixels around `pixel`, moved (not cut) to lie
// inside the image where it fits, cut to the image where the image is smaller. Empty for an
// empty image.
inline constexpr QSize kDefaultSize{8, 6};
QRect around(QPoint pixel, QSize image, QSize size = kDefaultSize);

// `region` cut to the image; empty when nothing of it lies inside (or it is empty itself).
QRect clamped(const QRect& region, QSize image);

// The pixel after `p` in the sweep's order over `region`; a `p` outside the region starts it
// (its first pixel), the last pixel stays. An empty region gives `p`.
QPoint next(QPoint p, const QRect& region);

// The place of `p` in the sweep's order (0 for the region's first pixel), -1 outside.
int indexOf(QPoint p, const QRect& region);

// The sum over the first `rows` kernel rows of the probe's products, added as the reference
// method adds them (over v, then u, in double): with every row, probe.sum exactly.
double partialSum(const convlab::PixelProbe& probe, int rows);

// The value a complete sum gives: scale x sum + offset, rounded to float (the probe's value).
float outputOf(const convlab::PixelProbe& probe, double sum);

} // namespace sweep
