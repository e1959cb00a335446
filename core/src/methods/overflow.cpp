// SPDX-License-Identifier: GPL-3.0-or-later
#include "methods/overflow.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace convlab::detail {

namespace {

// Sample (c, y, x) of the job's source, float or packed 8/16-bit.
double sampleAt(const Job& job, int c, int y, int x)
{
    if (job.in) return job.in->at(c, y, x);
    const PackedImage& p = *job.packed;
    const std::size_t at = static_cast<std::size_t>(x) * p.channels + p.order[c];
    const std::uint8_t* row = p.samples().data() + static_cast<std::size_t>(y) * p.stride;
    if (p.depth == SampleDepth::U16) {
        std::uint16_t v;
        std::memcpy(&v, row + 2 * at, sizeof v);
        return v;
    }
    return row[at];
}

} // namespace

void rewriteOverflowedOutputs(const Job& job, int c, int y, int x0, int n, float* out, int step)
{
    const Kernel& k = job.kernel;
    const int w = job.width, h = job.height;
    for (int i = 0; i < n; ++i) {
        float& o = out[static_cast<std::size_t>(i) * step];
        if (std::isfinite(o)) continue;
        const int x = x0 + i;
        double acc = 0.0;
        bool finiteSamples = true;
        for (int v = 0; v < k.height && finiteSamples; ++v) {
            const int sy = borderIndex(static_cast<long long>(y) - k.ay() + v, h, job.border.mode);
            for (int u = 0; u < k.width; ++u) {
                const int sx = borderIndex(static_cast<long long>(x) - k.ax() + u, w, job.border.mode);
                const double s = (sy < 0 || sx < 0) ? double(job.border.value) : sampleAt(job, c, sy, sx);
                if (!std::isfinite(s)) {
                    finiteSamples = false;
                    break;
                }
                acc += double(k.at(v, u)) * s;
            }
        }
        if (finiteSamples) o = static_cast<float>(job.scale * acc + job.offset);
    }
}

} // namespace convlab::detail
