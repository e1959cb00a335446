// SPDX-License-Identifier: GPL-3.0-or-later
// Sums that overflow the float range (docs/semantics.md, Non-finite values, Large values).
// direct and separable add their taps in float, before the effective scale is applied: a
// normalized box of ones over values near 3e38 overflows there, where the reference's double
// sum, scaled, is a finite float. Such outputs are found as they are written (an infinity or NaN
// that no non-finite sample explains) and written again as the reference defines them.
#pragma once
#include "methods/methods.h"

namespace convlab::detail {

// Writes again, as scale * (double sum) + offset rounded to float, every output of row y of
// plane c (out[(x - x0) * step] for x in [x0, x0 + n); step > 1 for a channel of whole
// interleaved pixels) that is non-finite while every sample of its footprint
// is finite. Outputs that a non-finite sample reaches are left as they are. The cost is the
// kernel's taps per non-finite output, in double: at most a small multiple of the direct sum.
void rewriteOverflowedOutputs(const Job& job, int c, int y, int x0, int n, float* out, int step = 1);

} // namespace convlab::detail
