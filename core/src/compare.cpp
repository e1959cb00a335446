// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <cmath>
#include <limits>

#include "convlab/convolve.h"
#include "convlab/error.h"

namespace convlab {

DiffStats compareImages(const Image& a, const Image& b)
{
    if (!a.sameShape(b))
        throw Error("cannot compare a " + std::to_string(a.width) + "x" + std::to_string(a.height) + "x" +
                    std::to_string(a.channels) + " image with a " + std::to_string(b.width) + "x" +
                    std::to_string(b.height) + "x" + std::to_string(b.channels) + " one");
    DiffStats s;
    double sumAbs = 0.0, sumSq = 0.0, peak = 0.0;
    for (int c = 0; c < a.channels; ++c) {
        const float* pa = a.plane(c);
        const float* pb = b.plane(c);
        for (std::size_t i = 0; i < a.planeSize(); ++i) {
            const double d = std::fabs(double(pa[i]) - double(pb[i]));
            peak = std::max(peak, std::fabs(double(pa[i])));
            sumAbs += d;
            sumSq += d * d;
            if (d > s.maxAbs || std::isnan(d)) {
                s.maxAbs = d;
                s.maxC = c;
                s.maxY = static_cast<int>(i / a.width);
                s.maxX = static_cast<int>(i % a.width);
            }
        }
    }
    const double n = static_cast<double>(a.data.size());
    s.meanAbs = sumAbs / n;
    s.rmse = std::sqrt(sumSq / n);
    s.psnr = s.rmse > 0.0 ? 20.0 * std::log10(std::max(peak, 1e-30) / s.rmse)
                          : std::numeric_limits<double>::infinity();
    return s;
}

} // namespace convlab
