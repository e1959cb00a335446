// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "convlab/error.h"

namespace convlab {

namespace {

// 0 for a finite value, else its kind: NaN, +inf or -inf.
int nonFiniteKind(float v)
{
    if (std::isfinite(v)) return 0;
    if (std::isnan(v)) return 1;
    return v > 0.0f ? 2 : 3;
}

} // namespace

DiffStats compareImages(const Image& a, const Image& b, int channel)
{
    if (!a.sameShape(b))
        throw Error("cannot compare a " + std::to_string(a.width) + "x" + std::to_string(a.height) + "x" +
                    std::to_string(a.channels) + " image with a " + std::to_string(b.width) + "x" +
                    std::to_string(b.height) + "x" + std::to_string(b.channels) + " one");
    if (channel < -1 || channel >= a.channels)
        throw Error("cannot compare channel " + std::to_string(channel) + " of images with " +
                    std::to_string(a.channels) + " channels");
    DiffStats s;
    double sumAbs = 0.0, sumSq = 0.0, peak = 0.0;
    bool located = false;
    const int first = channel < 0 ? 0 : channel, end = channel < 0 ? a.channels : channel + 1;
    for (int c = first; c < end; ++c) {
        const float* pa = a.plane(c);
        const float* pb = b.plane(c);
        for (std::size_t i = 0; i < a.planeSize(); ++i) {
            const int ka = nonFiniteKind(pa[i]), kb = nonFiniteKind(pb[i]);
            if (ka | kb) {
                s.nonFiniteA += ka != 0;
                s.nonFiniteB += kb != 0;
                s.nonFiniteMismatch += ka != kb;
                continue;
            }
            const double d = std::fabs(double(pa[i]) - double(pb[i]));
            ++s.finiteBoth;
            peak = std::max(peak, std::fabs(double(pa[i])));
            sumAbs += d;
            sumSq += d * d;
            if (d > s.maxAbs || !located) {
                located = true;
                s.maxAbs = d;
                s.maxC = c;
                s.maxY = static_cast<int>(i / a.width);
                s.maxX = static_cast<int>(i % a.width);
            }
        }
    }
    const double n = static_cast<double>(std::max<long long>(s.finiteBoth, 1));
    s.meanAbs = sumAbs / n;
    s.rmse = std::sqrt(sumSq / n);
    s.psnr = s.rmse > 0.0 ? 20.0 * std::log10(std::max(peak, 1e-30) / s.rmse)
                          : std::numeric_limits<double>::infinity();
    return s;
}

Image differenceImage(const Image& a, const Image& b)
{
    if (!a.sameShape(b))
        throw Error("cannot subtract a " + std::to_string(b.width) + "x" + std::to_string(b.height) + "x" +
                    std::to_string(b.channels) + " image from a " + std::to_string(a.width) + "x" +
                    std::to_string(a.height) + "x" + std::to_string(a.channels) + " one");
    Image d = Image::uninitialized(a.width, a.height, a.channels);
    for (std::size_t i = 0; i < d.data.size(); ++i) d.data[i] = a.data[i] - b.data[i];
    return d;
}

BorderDifference compareBorderResults(const Image& a, const Image& b, Image* diff)
{
    if (!a.sameShape(b) || a.data.size() != b.data.size())
        throw Error("cannot compare a " + std::to_string(a.width) + "x" +
                             std::to_string(a.height) + "x" + std::to_string(a.channels) + " result with a " +
                             std::to_string(b.width) + "x" + std::to_string(b.height) + "x" +
                             std::to_string(b.channels) + " one");
    const int w = a.width, h = a.height;
    if (diff)
        *diff = Image(w, h, a.channels);
    std::vector<unsigned char> differs(a.planeSize(), 0);
    for (int c = 0; c < a.channels; ++c) {
        const float* pa = a.plane(c);
        const float* pb = b.plane(c);
        float* pd = diff ? diff->plane(c) : nullptr;
        for (std::size_t i = 0, n = a.planeSize(); i < n; ++i) {
            const float d = pa[i] - pb[i];
            if (pd)
                pd[i] = d;
            if (d != 0.0f || pa[i] != pb[i]) // also NaN and equal infinities that differ in sign
                differs[i] = 1;
        }
    }
    // Distance of a pixel from the nearest left/right edge (dx) and top/bottom edge (dy), 1 at
    // the edge. maxDx[dy]: the largest dx of a differing pixel in rows at distance dy.
    BorderDifference r;
    const int yMax = (h + 1) / 2;
    std::vector<int> maxDx(static_cast<std::size_t>(yMax) + 2, 0);
    for (int y = 0; y < h; ++y) {
        const int dy = std::min(y + 1, h - y);
        for (int x = 0; x < w; ++x) {
            if (!differs[static_cast<std::size_t>(y) * w + x])
                continue;
            ++r.differing;
            maxDx[dy] = std::max(maxDx[dy], std::min(x + 1, w - x));
        }
    }
    // A band of bandY rows needs bandX = the largest dx beyond those rows; keep the one of least
    // area (then the narrowest) over every bandY.
    std::vector<int> beyond(static_cast<std::size_t>(yMax) + 2, 0);
    for (int dy = yMax; dy >= 0; --dy)
        beyond[dy] = std::max(beyond[dy + 1], maxDx[dy + 1]);
    long long bestArea = -1;
    for (int by = 0; by <= yMax; ++by) {
        const int bx = beyond[by];
        const long long area = static_cast<long long>(w) * h -
                               static_cast<long long>(std::max(0, w - 2 * bx)) * std::max(0, h - 2 * by);
        if (bestArea < 0 || area < bestArea || (area == bestArea && bx + by < r.bandX + r.bandY)) {
            bestArea = area;
            r.bandX = bx;
            r.bandY = by;
        }
    }
    return r;
}

} // namespace convlab
