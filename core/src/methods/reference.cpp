// SPDX-License-Identifier: GPL-3.0-or-later
// The oracle: the definition written out, one tap at a time, with double accumulation and the
// border rule applied per coordinate (no padding buffer, nothing shared with the fast paths).
#include "methods/methods.h"
#include "engine/threadpool.h"

namespace convlab::detail {

void runReference(const Job& job, const OutputPlanes& out, StageClock& clock)
{
    const ImagePlanes& in = *job.in;
    const Kernel& k = job.kernel;
    const int ax = k.ax(), ay = k.ay();
    const int w = in.width, h = in.height;
    parallelFor(h, job.threads, [&](int y0, int y1) {
        for (int c = 0; c < job.channels; ++c) {
            const float* src = in.plane(c);
            float* dst = out.plane(c);
            for (int y = y0; y < y1; ++y) {
                job.checkCancel();
                for (int x = 0; x < w; ++x) {
                    double acc = 0.0;
                    for (int v = 0; v < k.height; ++v) {
                        const int sy = borderIndex(static_cast<long long>(y) - ay + v, h, job.border.mode);
                        for (int u = 0; u < k.width; ++u) {
                            const int sx = borderIndex(static_cast<long long>(x) - ax + u, w, job.border.mode);
                            const double p = (sy < 0 || sx < 0)
                                                 ? double(job.border.value)
                                                 : double(src[static_cast<std::size_t>(sy) * w + sx]);
                            acc += double(k.at(v, u)) * p;
                        }
                    }
                    dst[static_cast<std::size_t>(y) * w + x] = static_cast<float>(job.scale * acc + job.offset);
                }
            }
        }
    });
    clock.mark("convolve");
}

// Never weighed by auto: it is the oracle the others are measured against, not a schedule.
const MethodEngine kReferenceEngine{.readsPacked = false,
                                    .needsFactors = false,
                                    .runsBands = false,
                                    .runsWholePixels = false,
                                    .run = runReference,
                                    .costTerms = nullptr,
                                    .calibrate = nullptr};

} // namespace convlab::detail
