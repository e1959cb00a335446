// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/sweepregion.h"

#include <algorithm>

#include "convlab/probe.h"

namespace sweep {

QRect around(QPoint pixel, QSize image, QSize size)
{
    if (image.isEmpty() || size.isEmpty()) return {};
    const int w = std::min(size.width(), image.width()), h = std::min(size.height(), image.height());
    // The pixel a little left of and above the middle, as a centred window of even side puts it.
    const int x = std::clamp(pixel.x() - w / 2, 0, image.width() - w);
    const int y = std::clamp(pixel.y() - h / 2, 0, image.height() - h);
    return QRect(x, y, w, h);
}

QRect clamped(const QRect& region, QSize image)
{
    return region.intersected(QRect(QPoint(0, 0), image));
}

QPoint next(QPoint p, const QRect& region)
{
    if (region.isEmpty()) return p;
    if (!region.contains(p)) return region.topLeft();
    if (p.x() < region.right()) return QPoint(p.x() + 1, p.y());
    if (p.y() < region.bottom()) return QPoint(region.left(), p.y() + 1);
    return p; // the last pixel: nowhere further to slide
}

int indexOf(QPoint p, const QRect& region)
{
    if (!region.contains(p)) return -1;
    return (p.y() - region.top()) * region.width() + (p.x() - region.left());
}

double partialSum(const convlab::PixelProbe& probe, int rows)
{
    const int width = probe.applied.width;
    const int last = std::clamp(rows, 0, probe.applied.height);
    double sum = 0.0;
    for (int v = 0; v < last; ++v)
        for (int u = 0; u < width; ++u) sum += probe.taps[static_cast<std::size_t>(v) * width + u].product;
    return sum;
}

float outputOf(const convlab::PixelProbe& probe, double sum)
{
    return static_cast<float>(probe.scale * sum + probe.offset);
}

} // namespace sweep
