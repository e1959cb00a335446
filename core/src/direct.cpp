// SPDX-License-Identifier: GPL-3.0-or-later
// Direct method: the plane is padded once with the border rule, so the inner loop is a plain
// multiply-add over contiguous rows that the compiler vectorises; rows are split over threads.
#include <algorithm>
#include <vector>

#include "methods.h"
#include "threadpool.h"

namespace convlab::detail {

void runDirect(const Job& job, Image& out, StageClock& clock)
{
    const Image& in = *job.in;
    const Kernel& k = job.kernel;
    const int w = in.width, h = in.height;
    const int left = k.ax(), right = k.width - 1 - k.ax();
    const int top = k.ay(), bottom = k.height - 1 - k.ay();
    const int pw = w + left + right, ph = h + top + bottom;
    const float scale = static_cast<float>(job.scale), offset = static_cast<float>(job.offset);

    std::vector<float> padded(static_cast<std::size_t>(pw) * ph);
    for (int c = 0; c < job.channels; ++c) {
        job.checkCancel();
        padPlane(in.plane(c), w, h, job.border, top, bottom, left, right, padded.data());
        clock.mark("pad");
        float* dst = out.plane(c);
        parallelFor(h, job.threads, [&](int y0, int y1) {
            std::vector<float> acc(static_cast<std::size_t>(w));
            for (int y = y0; y < y1; ++y) {
                job.checkCancel();
                std::fill(acc.begin(), acc.end(), 0.0f);
                float* a = acc.data();
                for (int v = 0; v < k.height; ++v) {
                    const float* prow = padded.data() + static_cast<std::size_t>(y + v) * pw;
                    for (int u = 0; u < k.width; ++u) {
                        const float kv = k.at(v, u);
                        if (kv == 0.0f) continue;
                        const float* s = prow + u;
                        for (int x = 0; x < w; ++x) a[x] += kv * s[x];
                    }
                }
                float* o = dst + static_cast<std::size_t>(y) * w;
                for (int x = 0; x < w; ++x) o[x] = scale * a[x] + offset;
            }
        });
        clock.mark("convolve");
    }
}

} // namespace convlab::detail
