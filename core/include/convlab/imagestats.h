// SPDX-License-Identifier: GPL-3.0-or-later
// Whole-image statistics and block reductions: what the display needs to map values (the
// range of a result) and to show or sweep images larger than it can afford (reduced copies).
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

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

// A symmetric display range for signed values that a few outliers cannot flatten: `limit` is
// the smallest L with at least `quantile` of the finite values of planes 0..channels-1 within
// [-L, L] (to within max|v| / 2^24: two histogram passes, no sort); `clipped` counts the
// finite values beyond it, `finite` all finite values. When that quantile is 0 (mostly zeros)
// the limit is max|v|, so the values that are not zero stay visible. All zero when no value is
// finite. Throws convlab::Error for `channels` out of range or a quantile outside (0, 1].
struct SymmetricLimit {
    float limit = 0.0f;
    std::uint64_t clipped = 0;
    std::uint64_t finite = 0;
    double clippedFraction() const { return finite ? double(clipped) / double(finite) : 0.0; }
};
SymmetricLimit robustSymmetricLimit(const Image& image, int channels, double quantile);

// A copy reduced by fx x fy: each output pixel is the mean of its fx x fy block, the last block
// along an axis averaging only the pixels it has when the factor does not divide the size, so
// the output is ceil(width / fx) x ceil(height / fy) and every input pixel counts. A block with
// a non-finite value averages to a non-finite value. Depth and alpha flag are kept. Throws
// convlab::Error for factors below 1 or an empty image.
Image reduceByBlocks(const Image& image, int fx, int fy);
// The same into `out`, reshaped only when its shape differs (a display's reduced copy reuses its
// memory from image to image); `out` must not be `image`.
// `threads` (0: all hardware threads) share the output rows; the result is the same for any count.
void reduceByBlocksInto(const Image& image, int fx, int fy, Image& out, int threads = 1);

// The image box-averaged (reduceByBlocks) by the smallest whole factor f, the same along both
// axes, that leaves at most maxPixels pixels; the image itself when it has no more than that.
// Throws convlab::Error for maxPixels below 1 or an empty image.
Image downscaleByArea(const Image& image, int maxPixels);

// Area average of `in` down to width x height, any ratio: each output pixel is the mean of the
// source area it covers, partial pixels weighted by their overlap. Throws convlab::Error for a
// size that is not a reduction, Cancelled when `cancel` is raised.
Image areaDownscale(const Image& in, int width, int height, const std::atomic<bool>* cancel = nullptr);

// ---- histograms ----

// One channel's counts. Every sample is counted exactly once: in a bin, below or above the
// bins' range (finite values outside [lo, hi]), or as NaN, +inf or -inf.
struct ChannelHistogram {
    std::vector<std::uint64_t> counts; // one per bin
    std::uint64_t below = 0, above = 0;
    std::uint64_t nan = 0, posInf = 0, negInf = 0;
    // The smallest and largest finite value of the channel; finite == 0 when it has none.
    float min = 0.0f, max = 0.0f;
    std::uint64_t finite = 0;

    std::uint64_t nonFinite() const { return nan + posInf + negInf; }
    std::uint64_t total() const;
};

// Equal bins over [lo, hi]: bin i holds the values v with lo + i w <= v < lo + (i + 1) w,
// w = (hi - lo) / bins, and the last bin also holds hi.
struct Histogram {
    double lo = 0.0, hi = 1.0;
    int bins = 0;
    std::vector<ChannelHistogram> channels; // one per image channel, alpha included

    double binWidth() const { return (hi - lo) / bins; }
    double binCentre(int i) const { return lo + (i + 0.5) * binWidth(); }
};

inline constexpr int kMaxHistogramBins = 65536;

// The histogram of every channel over [lo, hi] in `bins` bins. Throws convlab::Error for bins
// outside 1..kMaxHistogramBins, a range that is not finite with lo < hi, or an empty image;
// Cancelled when `cancel` is raised.
Histogram imageHistogram(const Image& image, int bins, double lo, double hi,
                         const std::atomic<bool>* cancel = nullptr);

// The bins imageHistogram(image, maxBins) uses, from the finite values of all channels: their
// smallest and largest (`any` false when there is none) and whether every one is whole. Shared
// by the CPU and the device's count (GpuSession::histogramOfLastResult), so both bin alike.
struct HistogramBins {
    int bins = 1;
    double lo = 0.0, hi = 1.0;
};
HistogramBins autoHistogramBins(bool any, double lo, double hi, bool whole, int maxBins);

// The same over the finite values of all channels: one bin per whole number (centred on it)
// when every finite value is whole and they span at most maxBins of them (8- and 16-bit
// images: a bin per level), else maxBins equal bins from the smallest to the largest value.
// A single finite value gets one bin of width 1 around it; no finite value, the range 0..1.
Histogram imageHistogram(const Image& image, int maxBins, const std::atomic<bool>* cancel = nullptr);

} // namespace convlab
