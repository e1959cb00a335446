// SPDX-License-Identifier: GPL-3.0-or-later
// The histogram of planar float32 planes counted on the device: imageHistogram(image, maxBins)
// (convlab/imagestats.h) without the image leaving the device. Two passes: the finite range and
// whether every value is whole (autoHistogramBins picks the bins from it, as on the CPU), then
// the counts, each block in shared memory while the bins fit there. Only the counts and a few
// partial ranges come down; the bins are the CPU's bit for bit (the same double arithmetic).
#pragma once
#include <cuda_runtime.h>

#include <atomic>

#include "convlab/imagestats.h"

namespace convlab::cuda {

// Throws convlab::Error for a failing device, Cancelled when `cancel` is raised between passes.
Histogram deviceHistogram(const float* planes, int width, int height, int channels, int maxBins,
                          cudaStream_t stream, const std::atomic<bool>* cancel);

} // namespace convlab::cuda
