// SPDX-License-Identifier: GPL-3.0-or-later
// Image statistics and block reductions (convlab/imagestats.h).
#include "convlab/imagestats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>
#include <utility>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "engine/threadpool.h"

namespace convlab {
namespace {

void requireImage(const Image& image, const char* what)
{
    if (image.width < 1 || image.height < 1 || image.channels < 1 ||
        image.data.size() != image.planeSize() * std::size_t(image.channels))
        throw Error(std::string(what) + ": the image is empty or malformed (" + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + "x" + std::to_string(image.channels) + ", " +
                    std::to_string(image.data.size()) + " values)");
}

long long blocks(int size, int factor) { return (static_cast<long long>(size) + factor - 1) / factor; }

} // namespace

ImageStats imageStats(const Image& image, int channels)
{
    if (channels < 0 || channels > image.channels)
        throw Error("image statistics: " + std::to_string(channels) + " channels asked of an image with " +
                    std::to_string(image.channels));
    float lo = std::numeric_limits<float>::infinity();
    float hi = -lo;
    for (int c = 0; c < channels; ++c) {
        const float* p = image.plane(c);
        for (std::size_t i = 0, n = image.planeSize(); i < n; ++i) {
            if (std::isfinite(p[i])) {
                lo = std::min(lo, p[i]);
                hi = std::max(hi, p[i]);
            }
        }
    }
    if (lo > hi) return {}; // no finite value
    return {lo, hi, std::max(std::abs(lo), std::abs(hi))};
}

namespace {

// Counts |v| of the finite values in [lo, hi) into `bins` equal bins (a value at hi, the top
// of the whole range, into the last one); values outside are not counted. `zeros` (optional)
// gets the number of values that are exactly zero.
std::vector<std::uint64_t> absHistogram(const Image& image, int channels, double lo, double hi, int bins,
                                        std::uint64_t* zeros = nullptr)
{
    std::vector<std::uint64_t> counts(bins, 0);
    std::uint64_t zero = 0;
    const double scale = bins / std::max(hi - lo, 1e-300);
    for (int c = 0; c < channels; ++c) {
        const float* p = image.plane(c);
        for (std::size_t i = 0, n = image.planeSize(); i < n; ++i) {
            const double a = std::fabs(double(p[i]));
            zero += a == 0.0;
            if (!(a >= lo && a <= hi)) continue; // NaN, infinities and values outside
            const auto b = static_cast<long long>((a - lo) * scale);
            ++counts[std::min<long long>(b, bins - 1)];
        }
    }
    if (zeros) *zeros = zero;
    return counts;
}

// The bin where the running count first reaches `rank` (1-based), and the count before it.
std::pair<int, std::uint64_t> binOfRank(const std::vector<std::uint64_t>& counts, std::uint64_t rank)
{
    std::uint64_t before = 0;
    for (int b = 0; b < int(counts.size()); ++b) {
        if (before + counts[b] >= rank) return {b, before};
        before += counts[b];
    }
    return {int(counts.size()) - 1, before};
}

} // namespace

SymmetricLimit robustSymmetricLimit(const Image& image, int channels, double quantile)
{
    if (!(quantile > 0.0 && quantile <= 1.0))
        throw Error("robust limit: the quantile must be in (0, 1], not " + std::to_string(quantile));
    const ImageStats stats = imageStats(image, channels);
    constexpr int kBins = 4096; // two passes: max|v| / 4096^2 = max|v| / 2^24
    std::uint64_t zeros = 0;
    const std::vector<std::uint64_t> coarse = absHistogram(image, channels, 0.0, stats.maxAbs, kBins, &zeros);
    SymmetricLimit out;
    for (std::uint64_t n : coarse) out.finite += n;
    if (out.finite == 0) return out;
    const auto rank = static_cast<std::uint64_t>(std::ceil(quantile * double(out.finite)));
    const double width = double(stats.maxAbs) / kBins;
    const auto [bin, before] = binOfRank(coarse, std::max<std::uint64_t>(rank, 1));
    const double lo = bin * width;
    const std::vector<std::uint64_t> fine = absHistogram(image, channels, lo, lo + width, kBins);
    const auto [fineBin, fineBefore] = binOfRank(fine, rank - before);
    double limit = lo + (fineBin + 1) * (width / kBins); // the top of the bin holding the rank
    // A quantile that falls on the zeros would hide every value that is not zero.
    if (rank <= zeros || limit >= stats.maxAbs) limit = stats.maxAbs;
    out.limit = float(limit);
    // Counted exactly against the float limit: the values a display at ±limit saturates.
    for (int c = 0; c < channels; ++c) {
        const float* p = image.plane(c);
        for (std::size_t i = 0, n = image.planeSize(); i < n; ++i)
            out.clipped += std::isfinite(p[i]) && std::fabs(p[i]) > out.limit;
    }
    return out;
}

Image reduceByBlocks(const Image& image, int fx, int fy)
{
    Image out;
    reduceByBlocksInto(image, fx, fy, out);
    return out;
}

namespace {

// The means of runs of fx column sums (of `rows` rows each) into out[0, ceil(width / fx)), the
// last run shorter where the width is not a multiple of fx.
void sumColumnRuns(const double* columns, int width, int fx, double rows, float* out)
{
    for (int ox = 0, x0 = 0; x0 < width; ++ox, x0 += fx) {
        const int x1 = std::min(x0 + fx, width);
        double sum = 0.0;
        for (int x = x0; x < x1; ++x) sum += columns[x];
        out[ox] = float(sum / (double(x1 - x0) * rows));
    }
}

template <int F> void sumColumnRuns(const double* columns, int width, double rows, float* out)
{
    const int full = width / F;
    const double count = F * rows;
    for (int ox = 0; ox < full; ++ox) {
        double sum = 0.0;
        for (int k = 0; k < F; ++k) sum += columns[ox * F + k];
        out[ox] = float(sum / count);
    }
    if (full * F < width) sumColumnRuns(columns + full * F, width - full * F, F, rows, out + full);
}

// Output row `oy` of plane `c`: the rows of its blocks summed column by column (a loop the
// compiler vectorises), then each run of fx columns; the view's zoom reductions (2, 4, 8) have
// that run unrolled. Sums in double: a block of a few hundred float values keeps its low bits.
void reduceRow(const Image& image, int c, int oy, int fx, int fy, std::vector<double>& columns, float* out)
{
    const float* in = image.plane(c);
    const int y0 = oy * fy, y1 = std::min(y0 + fy, image.height);
    std::fill(columns.begin(), columns.end(), 0.0);
    for (int y = y0; y < y1; ++y) {
        const float* row = in + static_cast<std::size_t>(y) * image.width;
        double* col = columns.data();
        for (int x = 0; x < image.width; ++x) col[x] += row[x];
    }
    const double rows = y1 - y0;
    switch (fx) {
    case 2: sumColumnRuns<2>(columns.data(), image.width, rows, out); break;
    case 4: sumColumnRuns<4>(columns.data(), image.width, rows, out); break;
    case 8: sumColumnRuns<8>(columns.data(), image.width, rows, out); break;
    default: sumColumnRuns(columns.data(), image.width, fx, rows, out); break;
    }
}

} // namespace

void reduceByBlocksInto(const Image& image, int fx, int fy, Image& out, int threads)
{
    if (fx < 1 || fy < 1)
        throw Error("block reduction: factors " + std::to_string(fx) + "x" + std::to_string(fy) +
                    " are not whole numbers of at least 1");
    requireImage(image, "block reduction");
    if (&out == &image) throw Error("block reduction: the output must not be the input");
    const int w = int(blocks(image.width, fx));
    const int h = int(blocks(image.height, fy));
    if (out.width != w || out.height != h || out.channels != image.channels)
        out = Image::uninitialized(w, h, image.channels, image.depth); // every value is written below
    out.depth = image.depth;
    out.hasAlpha = image.hasAlpha;
    // Output rows of every plane, in chunks the threads take as they come free.
    const int rows = image.channels * h;
    const int grain = std::max(1, int(std::min<long long>(rows, (1 << 16) / std::max(1LL, 1LL * image.width * fy))));
    detail::parallelWorkers(rows, detail::resolveThreads(threads), grain, [&](detail::ChunkQueue& queue) {
        std::vector<double> columns(static_cast<std::size_t>(image.width));
        for (int begin, end; queue.next(begin, end);)
            for (int r = begin; r < end; ++r) {
                const int c = r / h, oy = r % h;
                reduceRow(image, c, oy, fx, fy, columns, out.plane(c) + static_cast<std::size_t>(oy) * out.width);
            }
    });
}

Image downscaleByArea(const Image& image, int maxPixels)
{
    if (maxPixels < 1)
        throw Error("area downscale: a limit of " + std::to_string(maxPixels) + " pixels leaves no image");
    requireImage(image, "area downscale");
    auto pixelsAt = [&](int f) { return blocks(image.width, f) * blocks(image.height, f); };
    if (pixelsAt(1) <= maxPixels) return image;
    // sqrt(pixels / maxPixels) is a lower bound (partial blocks only add pixels); a factor of
    // the longer side leaves one pixel, so the search ends.
    int f = std::max(2, int(std::ceil(std::sqrt(double(pixelsAt(1)) / maxPixels))));
    while (pixelsAt(f) > maxPixels) ++f;
    return reduceByBlocks(image, f, f);
}

namespace {

// One output sample of an area average: source samples first .. first + weights.size() - 1,
// each weighted by the fraction of the output pixel it covers (the weights sum to 1).
struct Footprint {
    int first = 0;
    std::vector<float> weights;
};

std::vector<Footprint> footprints(int inSize, int outSize)
{
    std::vector<Footprint> out(static_cast<std::size_t>(outSize));
    const double step = double(inSize) / outSize;
    for (int o = 0; o < outSize; ++o) {
        const double a = o * step, b = std::min(double(inSize), (o + 1) * step);
        Footprint& f = out[o];
        f.first = int(std::floor(a));
        const int last = std::min(inSize - 1, int(std::ceil(b)) - 1);
        for (int i = f.first; i <= last; ++i)
            f.weights.push_back(float((std::min(b, i + 1.0) - std::max(a, double(i))) / step));
    }
    return out;
}

void resampleRow(const float* in, const std::vector<Footprint>& columns, float* out)
{
    for (std::size_t x = 0; x < columns.size(); ++x) {
        const Footprint& f = columns[x];
        float s = 0.0f;
        for (std::size_t j = 0; j < f.weights.size(); ++j)
            s += f.weights[j] * in[f.first + j];
        out[x] = s;
    }
}

} // namespace

Image areaDownscale(const Image& in, int width, int height, const std::atomic<bool>* cancel)
{
    if (width < 1 || height < 1 || width > in.width || height > in.height)
        throw Error("cannot area-average " + std::to_string(in.width) + "x" +
                             std::to_string(in.height) + " to " + std::to_string(width) + "x" +
                             std::to_string(height));
    if (width == in.width && height == in.height)
        return in;
    Image out(width, height, in.channels, in.depth);
    out.hasAlpha = in.hasAlpha;
    const std::vector<Footprint> columns = footprints(in.width, width);
    const std::vector<Footprint> rows = footprints(in.height, height);
    std::vector<float> resampled(static_cast<std::size_t>(width));
    for (int c = 0; c < in.channels; ++c) {
        const float* src = in.plane(c);
        float* dst = out.plane(c);
        for (int y = 0; y < height; ++y) {
            if (cancel && cancel->load(std::memory_order_relaxed))
                throw Cancelled();
            float* row = dst + static_cast<std::size_t>(y) * width;
            const Footprint& f = rows[y];
            for (std::size_t j = 0; j < f.weights.size(); ++j) {
                resampleRow(src + static_cast<std::size_t>(f.first + j) * in.width, columns, resampled.data());
                for (int x = 0; x < width; ++x)
                    row[x] += f.weights[j] * resampled[x];
            }
        }
    }
    return out;
}

// ---- histograms ----

std::uint64_t ChannelHistogram::total() const
{
    std::uint64_t n = below + above + nonFinite();
    for (std::uint64_t c : counts) n += c;
    return n;
}

namespace {

void checkCancel(const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

void countPlane(const float* p, std::size_t n, const Histogram& h, ChannelHistogram& ch)
{
    const double scale = h.bins / (h.hi - h.lo);
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < n; ++i) {
        const float v = p[i];
        if (!std::isfinite(v)) {
            ++(std::isnan(v) ? ch.nan : v > 0 ? ch.posInf : ch.negInf);
            continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        if (v < h.lo) {
            ++ch.below;
        } else if (v > h.hi) {
            ++ch.above;
        } else {
            // Rounding at the top can give bins: hi itself belongs to the last bin.
            ++ch.counts[std::min(static_cast<std::size_t>((v - h.lo) * scale), std::size_t(h.bins) - 1)];
        }
    }
    ch.finite = n - ch.nonFinite();
    if (ch.finite) {
        ch.min = lo;
        ch.max = hi;
    }
}

// The finite samples of every channel in one pass: their range, and whether all are whole.
struct FiniteSummary {
    double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
    bool whole = true;
    bool any() const { return lo <= hi; }
};

FiniteSummary summarize(const Image& image, const std::atomic<bool>* cancel)
{
    FiniteSummary s;
    for (int c = 0; c < image.channels; ++c) {
        checkCancel(cancel);
        const float* p = image.plane(c);
        for (std::size_t i = 0, n = image.planeSize(); i < n; ++i) {
            if (!std::isfinite(p[i])) continue;
            s.lo = std::min(s.lo, double(p[i]));
            s.hi = std::max(s.hi, double(p[i]));
            s.whole = s.whole && p[i] == std::floor(p[i]);
        }
    }
    return s;
}

} // namespace

Histogram imageHistogram(const Image& image, int bins, double lo, double hi, const std::atomic<bool>* cancel)
{
    if (bins < 1 || bins > kMaxHistogramBins)
        throw Error("histogram: " + std::to_string(bins) + " bins is outside 1.." + std::to_string(kMaxHistogramBins));
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
        throw Error("histogram: the range " + std::to_string(lo) + ".." + std::to_string(hi) +
                    " is not an interval of finite values");
    requireImage(image, "histogram");
    Histogram h;
    h.lo = lo;
    h.hi = hi;
    h.bins = bins;
    h.channels.resize(static_cast<std::size_t>(image.channels));
    for (int c = 0; c < image.channels; ++c) {
        checkCancel(cancel);
        ChannelHistogram& ch = h.channels[static_cast<std::size_t>(c)];
        ch.counts.assign(static_cast<std::size_t>(bins), 0);
        countPlane(image.plane(c), image.planeSize(), h, ch);
    }
    return h;
}

Histogram imageHistogram(const Image& image, int maxBins, const std::atomic<bool>* cancel)
{
    if (maxBins < 1 || maxBins > kMaxHistogramBins)
        throw Error("histogram: " + std::to_string(maxBins) + " bins is outside 1.." +
                    std::to_string(kMaxHistogramBins));
    requireImage(image, "histogram");
    const FiniteSummary s = summarize(image, cancel);
    const HistogramBins b = autoHistogramBins(s.any(), s.lo, s.hi, s.whole, maxBins);
    return imageHistogram(image, b.bins, b.lo, b.hi, cancel);
}

HistogramBins autoHistogramBins(bool any, double lo, double hi, bool whole, int maxBins)
{
    if (!any) return {maxBins, 0.0, 1.0};
    if (whole && hi - lo + 1 <= maxBins) return {int(hi - lo) + 1, lo - 0.5, hi + 0.5};
    if (lo == hi) return {1, lo - 0.5, lo + 0.5};
    return {maxBins, lo, hi};
}

} // namespace convlab
