// SPDX-License-Identifier: GPL-3.0-or-later
// What the CPU FFT method shares with its tiling beyond methods.h: the work a tiling costs.
#pragma once

#include "methods/methods.h"

namespace convlab::detail {

// The sides (fftSideWeight, fastFftSideAtLeast, smoothSizeAtLeast) and the tiling (FftTiling,
// fftTiling) are declared in methods.h, where the engine and the CUDA session reach them.

// The transform work of a tiling: n log2 n per tile of n points, weighted by what a point of
// each side costs (the cost model's terms).
double transformWork(const FftTiling& t);

} // namespace convlab::detail
