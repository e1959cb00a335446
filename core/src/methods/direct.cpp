// SPDX-License-Identifier: GPL-3.0-or-later
// Direct method: chunks of output rows, taken by the threads as they come free (threadpool.h);
// each worker reads the input rows it needs through a RowWindow (rowcache.h): in place where the
// taps stay inside the image, padded copies of the margins' few columns elsewhere, so the taps
// run over contiguous rows with no border tests. The row kernels (rowkernels.inc) keep 4 output
// rows (or 2, where that is faster on the CPU) in registers across every tap.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "methods/methods.h"
#include "methods/overflow.h"
#include "methods/rowcache.h"
#include "simd/rowkernels.h"
#include "engine/threadpool.h"

namespace convlab::detail {

void runDirect(const Job& job, const OutputPlanes& out, StageClock& clock)
{
    const Kernel& k = job.kernel;
    const int left = k.ax(), right = k.width - 1 - k.ax(), top = k.ay();
    const float scale = static_cast<float>(job.scale), offset = static_cast<float>(job.offset);
    const RowKernels& rk = rowKernels();
    const int rows = job.rowCount();
    const bool stream = outputsBypassCaches(sizeof(float) * static_cast<std::size_t>(job.width) * rows * job.channels);
    // Whole interleaved pixels are filtered as one plane of rows of width * C samples whose taps
    // lie C samples apart: every channel of a row in one pass, read and written where it lies.
    const int pixel = job.wholePixels ? job.channels : 1;
    const int planes = job.wholePixels ? 1 : job.channels;
    const int w = job.width * pixel; // samples a row

    // Four output rows at a time where this CPU's quad kernel is the faster, else two; chunks of
    // a multiple of four rows, so rows go in the same groups however many threads there are
    // (the kernels give each output the same bits in any group, test_methods
    // quadRowsKeepTheTapOrder); starting a chunk re-reads only the margins of the kernel's rows.
    const int group = rk.prefersQuad(k.width, k.height) ? 4 : 2;
    const int grain = chunkGrain(rows, job.threads, 16, 8, 4);
    // Interleaved pixels: the channels take each group of rows in turn, each through a window of
    // its own, so that every interleaved row is read from memory once and gathered by the other
    // channels from the caches (channel by channel over a chunk read it once per channel).
    const bool channelsInTurn = job.in && job.in->interleaved() && planes > 1;
    parallelWorkers(rows, job.threads, grain, [&](ChunkQueue& chunks) {
        std::vector<RowWindow> windows(channelsInTurn ? planes : 1,
                                       RowWindow(job.width, job.height, job.border, top, left, right, k.height + 3, pixel));
        std::vector<const float*> shifted(k.height + 3);
        // Output rows y.. of plane c, from its window; returns how many it wrote.
        const auto rowsAt = [&](RowWindow& window, int c, int y, int y1) {
            if ((y & 15) == 0) job.checkCancel();
            const int n = y + group <= y1 ? group : y + 2 <= y1 ? 2 : 1; // output rows this step
            float* o = out.row(c, y);
            const float* kv = k.values.data();
            const auto runSpan = [&](const RowSpan& s, bool streamed) {
                if (n == 4) { // the next group's first new rows lie four rows on (in place)
                    float* const quad[4] = {o + s.x0, o + w + s.x0, o + 2 * w + s.x0, o + 3 * w + s.x0};
                    return rk.correlate2dQuad(s.rows, kv, k.width, k.height, pixel, s.n, scale, offset, quad, streamed,
                                              4 * s.rowStep);
                }
                if (n == 2)
                    return rk.correlate2dPair(s.rows, kv, k.width, k.height, pixel, s.n, scale, offset, o + s.x0, o + w + s.x0,
                                              streamed, 2 * s.rowStep);
                return rk.correlate2d(s.rows, kv, k.width, k.height, pixel, s.n, scale, offset, o + s.x0);
            };
            bool finite = true;
            const int count = k.height + n - 1;
            for (const RowSpan& s : window.spans(y, count))
                finite &= runFromBoundary(s, o, w, count, stream, shifted.data(), runSpan);
            // A non-finite output: from a non-finite sample (already the reference's kind), or a
            // float sum that overflowed, written again as the reference's double sum.
            for (int r = 0; !finite && r < n; ++r)
                for (int p = 0; p < pixel; ++p) // plane c, or each channel of whole pixels
                    rewriteOverflowedOutputs(job, c + p, y + r, 0, job.width, o + r * w + p, pixel);
            return n;
        };
        for (int y0, y1; chunks.next(y0, y1);) {
            y0 += job.rowBegin;
            y1 += job.rowBegin;
            if (channelsInTurn) {
                for (int c = 0; c < planes; ++c) windows[c].reset(job.in, job.packed, c);
                for (int y = y0, n = 0; y < y1; y += n)
                    for (int c = 0; c < planes; ++c) n = rowsAt(windows[c], c, y, y1);
                continue;
            }
            for (int c = 0; c < planes; ++c) {
                windows[0].reset(job.in, job.packed, c);
                for (int y = y0; y < y1;) y += rowsAt(windows[0], c, y, y1);
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

const MethodEngine kDirectEngine{.readsPacked = true,
                                 .needsFactors = false,
                                 .runsBands = true,
                                 .runsWholePixels = true,
                                 .run = runDirect,
                                 .costTerms = directTerms,
                                 .calibrate = calibrateDirect};

} // namespace convlab::detail
