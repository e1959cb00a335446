// SPDX-License-Identifier: GPL-3.0-or-later
// The pixel probe: one output value of the reference method taken apart. It follows
// reference.cpp step by step (correlation-form kernel, border rule per coordinate, double
// accumulation over v then u, one rounding at the end) so its value is that output exactly.
#include <cmath>

#include "convlab/probe.h"
#include "convlab/border.h"
#include "convlab/error.h"
#include "methods/methods.h"

namespace convlab {

PixelProbe probePixel(const Image& in, const ConvolveParams& p, int x, int y, int channel)
{
    if (in.empty() || in.channels < 1 || in.channels > 4 ||
        in.data.size() != in.planeSize() * static_cast<std::size_t>(in.channels))
        throw Error("probe: the input image is empty or malformed");
    if (x < 0 || x >= in.width || y < 0 || y >= in.height)
        throw Error("probe: pixel (" + std::to_string(x) + "," + std::to_string(y) + ") lies outside the " +
                    std::to_string(in.width) + "x" + std::to_string(in.height) + " image");
    if (channel < 0 || channel >= in.channels)
        throw Error("probe: channel " + std::to_string(channel) + " does not exist (the image has " +
                    std::to_string(in.channels) + (in.channels == 1 ? " channel)" : " channels)"));
    p.kernel.validate();
    if (!std::isfinite(p.scale) || !std::isfinite(p.offset) || !std::isfinite(p.border.value))
        throw Error("scale, offset and border constant must be finite numbers");

    PixelProbe r;
    r.x = x;
    r.y = y;
    r.channel = channel;
    r.semantics = p.semantics;
    r.border = p.border;
    r.applied = correlationKernel(p.kernel, p.semantics);
    r.scale = detail::effectiveScale(p, r.notices);
    r.offset = p.offset;
    if (in.hasAlpha && !p.filterAlpha && in.channels > 1 && channel == in.channels - 1) {
        r.passedThrough = true;
        r.value = in.at(channel, y, x);
        return r;
    }

    const Kernel& k = r.applied;
    const int ax = k.ax(), ay = k.ay();
    r.taps.reserve(k.values.size());
    double acc = 0.0;
    for (int v = 0; v < k.height; ++v) {
        const long long py = static_cast<long long>(y) - ay + v;
        const int sy = borderIndex(py, in.height, p.border.mode);
        for (int u = 0; u < k.width; ++u) {
            const long long px = static_cast<long long>(x) - ax + u;
            const int sx = borderIndex(px, in.width, p.border.mode);
            ProbeTap t;
            t.x = px;
            t.y = py;
            t.padded = px < 0 || px >= in.width || py < 0 || py >= in.height;
            const bool constant = sx < 0 || sy < 0;
            t.sourceX = constant ? -1 : sx;
            t.sourceY = constant ? -1 : sy;
            t.value = constant ? p.border.value : in.at(channel, sy, sx);
            t.weight = k.at(v, u);
            t.product = double(t.weight) * double(t.value);
            acc += double(k.at(v, u)) * double(t.value);
            r.taps.push_back(t);
        }
    }
    r.sum = acc;
    r.value = static_cast<float>(r.scale * acc + r.offset);
    return r;
}

} // namespace convlab
