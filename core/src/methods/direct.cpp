// SPDX-License-Identifier: GPL-3.0-or-later
// Direct method: chunks of output rows, taken by the threads as they come free (threadpool.h);
// each worker reads the input rows it needs through a RowWindow (rowcache.h): in place where the
// taps stay inside the image, padded copies of the margins' few columns elsewhere, so the taps
// run over contiguous rows with no border tests. The row kernels (rowkernels.inc) keep 2 output
// rows in registers across every tap.
#include <algorithm>

#include "methods.h"
#include "methods/overflow.h"
#include "rowcache.h"
#include "rowkernels.h"
#include "threadpool.h"

namespace convlab::detail {

void runDirect(const Job& job, Image& out, StageClock& clock)
{
    const Kernel& k = job.kernel;
    const int w = job.width, h = job.height;
    const int left = k.ax(), right = k.width - 1 - k.ax(), top = k.ay();
    const float scale = static_cast<float>(job.scale), offset = static_cast<float>(job.offset);
    const RowKernels& rk = rowKernels();
    const bool stream = outputsBypassCaches(sizeof(float) * static_cast<std::size_t>(w) * h * job.channels);

    // Chunks of an even number of rows, so that rows go in the same pairs however many threads
    // there are; starting a chunk re-reads only the margins of the kernel's rows.
    const int grain = chunkGrain(h, job.threads, 16, 8, 2);
    parallelWorkers(h, job.threads, grain, [&](ChunkQueue& chunks) {
        RowWindow rows(w, h, job.border, top, left, right, k.height + 1);
        for (int y0, y1; chunks.next(y0, y1);) {
            for (int c = 0; c < job.channels; ++c) {
                rows.reset(job.in, job.packed, c);
                float* dst = out.plane(c);
                for (int y = y0; y < y1; y += 2) {
                    if ((y & 15) == 0) job.checkCancel();
                    const bool pair = y + 1 < y1;
                    float* o = dst + static_cast<std::size_t>(y) * w;
                    bool finite = true;
                    for (const RowSpan& s : rows.spans(y, k.height + (pair ? 1 : 0))) {
                        if (pair) // the next pair's first new rows lie two rows on (in place)
                            finite &= rk.correlate2dPair(s.rows, k.values.data(), k.width, k.height, s.n, scale,
                                                         offset, o + s.x0, o + w + s.x0, stream, 2 * s.rowStep);
                        else
                            finite &= rk.correlate2d(s.rows, k.values.data(), k.width, k.height, s.n, scale, offset,
                                                     o + s.x0);
                    }
                    // A non-finite output: from a non-finite sample (already the reference's
                    // kind), or a float sum that overflowed, written again as the reference's
                    // double sum.
                    for (int r = 0; !finite && r < (pair ? 2 : 1); ++r)
                        rewriteOverflowedOutputs(job, c, y + r, 0, w, o + r * w);
                }
            }
        }
    });
    clock.mark("convolve");
}

namespace {

// Every output value costs a pass over the data and one multiply-add per tap.
CostTerms directTerms(const RunShape& s)
{
    const double values = double(s.width) * s.height * s.channels;
    return {values, values * s.kernel->width * s.kernel->height, std::max(1, std::min(s.threads, s.height))};
}

// 9 and 121 taps: the difference is the per-tap cost, the rest the per-value cost.
MethodCost calibrateDirect(const CostModel&)
{
    return fitTwoRuns(calibrationJob(3, 3), 9, calibrationJob(11, 11), 121, runDirect);
}

} // namespace

const MethodEngine kDirectEngine{true, false, runDirect, directTerms, calibrateDirect};

} // namespace convlab::detail
