// SPDX-License-Identifier: GPL-3.0-or-later
// Whole-image statistics and block reductions: what the display needs to map values (the
// range of a result) and to show or sweep images larger than it can afford (reduced copies).
#pragma once
#include <atomic>

#include "convlab/image.h"

namespace convlab {

// Smallest, largest and largest magnitude of the finite values of planes 0..channels-1.
struct ImageStats {
    float lo = 0.0f;
    float hi = 0.0f;
    float maxAbs = 0.0f; // max(|lo|, |hi|)
};

// Statistics of the first `channels` planes (0..image.channels), ignoring NaN and infinities
// (docs/semantics.md, Non-finite values); all zero when no value is finite. Throws
// convlab::Error when `channels` is out of range.
ImageStats imageStats(const Image& image, int channels);

// A copy reduced by fx x fy: each output pixel is the mean of its fx x fy block, the last block
// along an axis averaging only the pixels it has when the factor does not divide the size, so
// the output is ceil(width / fx) x ceil(height / fy) and every input pixel counts. A block with
// a non-finite value averages to a non-finite value. Depth and alpha flag are kept. Throws
// convlab::Error for factors below 1 or an empty image.
Image reduceByBlocks(const Image& image, int fx, int fy);

// The image box-averaged (reduceByBlocks) by the smallest whole factor f, the same along both
// axes, that leaves at most maxPixels pixels; the image itself when it has no more than that.
// Throws convlab::Error for maxPixels below 1 or an empty image.
Image downscaleByArea(const Image& image, int maxPixels);

// Area average of `in` down to width x height, any ratio: each output pixel is the mean of the
// source area it covers, partial pixels weighted by their overlap. Throws convlab::Error for a
// size that is not a reduction, Cancelled when `cancel` is raised.
Image areaDownscale(const Image& in, int width, int height, const std::atomic<bool>* cancel = nullptr);

} // namespace convlab
