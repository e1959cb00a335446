// SPDX-License-Identifier: GPL-3.0-or-later
// How the separable method bounds its working memory. Each thread keeps the horizontal results
// of the last kh + 3 rows for the components it is combining (the column pass combines four
// output rows at a time, each ring row read once for all four): components x (kh + 3) rows x
// columns floats. That is at most kSeparableRingBudget: the components are taken in groups and, for
// very wide images, the columns in strips, each group and strip passing over the thread's rows
// again. The sum per output adds the components in the same order either way, so the results
// do not depend on the schedule, bit for bit.
#pragma once
#include <cstddef>

namespace convlab {
struct Image;
}

namespace convlab::detail {

inline constexpr std::size_t kSeparableRingBudget = std::size_t(64) << 20; // bytes per thread
inline constexpr int kColumnPassRows = 4; // output rows per column pass (RowKernels::combineRowsUpTo4)

// Rows of horizontal results the ring keeps per component for a kernel kernelHeight rows high.
int separableRingRows(int kernelHeight);

struct SeparableSchedule {
    int stripWidth = 0;        // output columns per strip (the image's width when one strip)
    int groupSize = 0;         // components per group (the rank when one group)
    int rowStride = 0;         // floats from one ring row to the next: stripWidth rounded up to an
                               // odd number of 64-byte lines, so kh rows fall in different cache sets
    std::size_t ringBytes = 0; // the ring of one thread: groupSize x separableRingRows(kh) x rowStride floats
};

// The schedule of a rank-`rank` run over `width` columns with a kernel `kernelHeight` rows high,
// the ring within `ringBudget` bytes per thread.
SeparableSchedule separableSchedule(int width, int kernelHeight, int rank,
                                    std::size_t ringBudget = kSeparableRingBudget);

struct Job;
class StageClock;
// runSeparable under another budget (runSeparable uses kSeparableRingBudget): the schedule
// changes, the result does not.
void runSeparableWithin(const Job& job, const OutputPlanes& out, StageClock& clock, std::size_t ringBudget);

} // namespace convlab::detail
