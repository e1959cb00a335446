// SPDX-License-Identifier: GPL-3.0-or-later
// FFT method by overlap-save tiles. The image is covered by output tiles; each tile reads its
// input region plus the kernel's extent through the border rule (so padding is never a whole
// extra image), takes one batched real-to-complex FFTW transform for all channels at a size
// FFTW runs fast (fftSideWeight), multiplies by the kernel's spectrum, transforms back and
// keeps the part no wrap-around reaches. Small images are one tile, whose transform the threads
// share in fixed chunks of rows and columns; otherwise threads take tiles as they come free.
// Memory stays near input + output + a few tiles per thread. Plans are made once per size
// (fft_plans.h) and kernel spectra are cached by kernel content. A tile whose outputs come out NaN or infinite is done again
// carefully: its non-finite samples are taken out of the transform and their outputs written as
// the direct sum gives them, and very large values are scaled by a power of two so the
// transform's sums cannot overflow (docs/semantics.md, Non-finite values).
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>
#include <cstring>
#include <functional>
#include <memory>
#include <utility>

#include "convlab/costs.h"
#include "convlab/error.h"
#include "methods/fft_plans.h"
#include "methods/fft_tiling.h"
#include "methods/kernelcache.h"
#include "methods/methods.h"
#include "methods/nonfinite.h"
#include "simd/rowkernels.h"
#include "engine/threadpool.h"

namespace convlab::detail {
namespace {

using cfloat = std::complex<float>;

// What transforms one plane of n0 x n1 real samples into its n0 x (n1/2 + 1) spectrum.
using PlaneForward = std::function<void(float* real, fftwf_complex* spectrum)>;

// The spectrum of a kernel placed at negative offsets (so the circular product is the
// correlation), 1/(n0*n1) and 2^-kernelExponent folded in, by `forward`. The last few are kept
// by kernel content, transform size and `how` the transform was made (0: a 2-D plan, 1: by
// chunks), since the ways differ in their last bits.
std::shared_ptr<const std::vector<cfloat>> kernelSpectrum(const Kernel& k, int n0, int n1, int kernelExponent, int how,
                                                          const PlaneForward& forward)
{
    static KernelCache<std::shared_ptr<const std::vector<cfloat>>, 8> cache;
    return cache.get(k, {n0, n1, kernelExponent, how}, [&] {
        const std::size_t realSize = static_cast<std::size_t>(n0) * n1;
        const std::size_t specSize = static_cast<std::size_t>(n0) * (n1 / 2 + 1);
        auto real = fftwAlloc<float>(realSize);
        auto spec = fftwAlloc<fftwf_complex>(specSize);
        std::fill(real.get(), real.get() + realSize, 0.0f);
        const float norm = static_cast<float>(std::ldexp(1.0 / static_cast<double>(realSize), -kernelExponent));
        for (int v = 0; v < k.height; ++v)
            for (int u = 0; u < k.width; ++u)
                real[static_cast<std::size_t>((n0 - v) % n0) * n1 + (n1 - u) % n1] += k.at(v, u) * norm;
        forward(real.get(), spec.get());
        const auto* values = reinterpret_cast<const cfloat*>(spec.get());
        return std::make_shared<const std::vector<cfloat>>(values, values + specSize);
    });
}

// How large the values of a tile may be. The forward transform's sums grow up to n0*n1 times the
// largest input, the inverse's up to n0*n1 times that times sum|K| (the spectrum carries
// 1/(n0*n1)); inputs below 2^inputExponent keep every sum below 2^124, short of float's 2^128.
// A kernel of very large taps is itself scaled by 2^-kernelExponent in its spectrum.
struct FftRange {
    int kernelExponent = 0;
    int inputExponent = 0;
};

FftRange fftRange(const Kernel& k, int n0, int n1)
{
    double sumAbs = 0.0;
    for (float v : k.values) sumAbs += std::fabs(double(v));
    FftRange r;
    if (sumAbs > 0x1p32) r.kernelExponent = std::ilogb(sumAbs) - 32;
    const double scaledSum = std::ldexp(sumAbs, -r.kernelExponent);
    const int logSum = scaledSum > 1.0 ? std::ilogb(scaledSum) + 1 : 0;
    const int logPoints = static_cast<int>(std::ceil(std::log2(double(n0) * n1)));
    r.inputExponent = 124 - logPoints - logSum;
    return r;
}

// Takes the non-finite values out of a gathered row (padded row r of the tile), recording them
// and leaving 0 in their place; returns the largest magnitude bits of what is left.
std::uint32_t takeNonFinite(float* row, int cols, int r, std::vector<NonFiniteSample>& samples)
{
    for (int j = 0; j < cols; ++j)
        if (magnitudeBits(row[j]) >= kNonFiniteBits) {
            samples.push_back({r, j, row[j]});
            row[j] = 0.0f;
        }
    return maxMagnitudeBits(row, static_cast<std::size_t>(cols));
}

// A single tile's chunks: 16 rows of the tile, 32 columns of its spectrum (their starts then
// fall on 64-byte boundaries of the FFTW buffers, as FFTW's plans for them expect). On one thread
// the chunked runs of 600x500 and 800x600 images took 0.68-1.04 of one 2-D plan's time; with 16
// columns a chunk, 1.1-1.3 in a standalone loop, with 8, 1.5 (docs/architecture.md).
constexpr int kChunkRows = 16;
constexpr int kChunkColumns = 32;

int chunksOf(int n, int chunk) { return (n + chunk - 1) / chunk; }

// A single tile's chunks and their plans: full chunks, and the last, shorter one where the
// rows or the spectrum's columns are not a multiple of the chunk.
class TileChunks {
public:
    TileChunks() = default;
    TileChunks(int n0, int n1, bool* planned) : n0_(n0), n1_(n1), n1c_(n1 / 2 + 1)
    {
        if (n0 >= kChunkRows) fullRows_ = fftPlans(PlanShape::Rows, n0, n1, kChunkRows, planned);
        // The last chunks are a few rows or columns (the spectrum's n1/2 + 1 columns always
        // leave some): measuring their plans took 0.5-0.7 s for 17 columns of 576 or 672 points,
        // as long as the full chunks' plans, for a twentieth of the work. They are estimated.
        if (n0 % kChunkRows) lastRows_ = fftPlans(PlanShape::Rows, n0, n1, n0 % kChunkRows, planned, false);
        if (n1c_ >= kChunkColumns) fullColumns_ = fftPlans(PlanShape::Columns, n0, n1, kChunkColumns, planned);
        if (n1c_ % kChunkColumns)
            lastColumns_ = fftPlans(PlanShape::Columns, n0, n1, n1c_ % kChunkColumns, planned, false);
    }

    // Row chunks covering the first `rows` rows, and column chunks of the spectrum.
    static int rowChunks(int rows) { return chunksOf(rows, kChunkRows); }
    int columnChunks() const { return chunksOf(n1c_, kChunkColumns); }

    // Row chunk i of one plane, real to spectrum (forward) or back.
    void rows(int i, bool forward, float* real, fftwf_complex* spec) const
    {
        const int y = i * kChunkRows;
        const PlanPair& p = std::min(kChunkRows, n0_ - y) == kChunkRows ? fullRows_ : lastRows_;
        float* r = real + static_cast<std::size_t>(y) * n1_;
        fftwf_complex* s = spec + static_cast<std::size_t>(y) * n1c_;
        if (forward)
            fftwf_execute_dft_r2c(p.forward, r, s);
        else
            fftwf_execute_dft_c2r(p.backward, s, r);
    }

    // Column chunk i of one plane's spectrum, in place; returns its first column and count.
    std::pair<int, int> columns(int i, bool forward, fftwf_complex* spec) const
    {
        const int x = i * kChunkColumns, count = std::min(kChunkColumns, n1c_ - x);
        const PlanPair& p = count == kChunkColumns ? fullColumns_ : lastColumns_;
        fftwf_execute_dft(forward ? p.forward : p.backward, spec + x, spec + x);
        return {x, count};
    }

    // One plane's forward transform, on this thread (a kernel's spectrum for a single tile,
    // through the plans its tile goes through).
    void forward(float* real, fftwf_complex* spec) const
    {
        for (int i = 0; i < rowChunks(n0_); ++i) rows(i, true, real, spec);
        for (int i = 0; i < columnChunks(); ++i) columns(i, true, spec);
    }

private:
    int n0_ = 0, n1_ = 0, n1c_ = 0;
    PlanPair fullRows_, lastRows_, fullColumns_, lastColumns_;
};

// fn(i) for every i in [0, n), the threads taking them one at a time as they come free.
template <class Fn> void forEachChunk(int n, int threads, Fn&& fn)
{
    parallelWorkers(n, threads, 1, [&](ChunkQueue& queue) {
        for (int a, b; queue.next(a, b);)
            for (int i = a; i < b; ++i) fn(i);
    });
}

// The tiling of a run and the transforms its tiles go through.
struct FftLayout {
    FftTiling t;
    int n0 = 0, n1 = 0, n1c = 0;
    std::size_t realSize = 0, specSize = 0; // one plane of a tile, and its spectrum
    int tiles = 0;
    bool chunked = false;   // a single tile, transformed by chunks the threads share
    PlanPair single, plans; // 2-D plans of one plane and of all the channels' (not chunked)
    TileChunks chunks;      // chunked
    std::size_t realStride = 0, specStride = 0; // where each plane of a tile's buffers starts
};

// The layout of a run of `job`; `planned` is set when a size was planned here for the first time.
FftLayout fftLayout(const Job& job, bool* planned)
{
    const Kernel& k = job.kernel;
    const FftTiling t = fftTiling(job.in->width, job.in->height, k.width, k.height);
    const int n0 = t.n0, n1 = t.n1, n1c = n1 / 2 + 1, nc = job.channels;
    const std::size_t realSize = static_cast<std::size_t>(n0) * n1;
    const std::size_t specSize = static_cast<std::size_t>(n0) * n1c;
    const int tiles = t.tilesX * t.tilesY;
    // The tiles of a larger image go through 2-D plans, each on the thread that took it. A
    // single tile (the whole image) would keep every other thread idle: it is transformed in
    // fixed chunks of rows and columns that the threads share, the same chunks whatever their
    // number, so that the bits do not depend on it.
    const bool chunked = tiles == 1;
    const PlanPair single = chunked ? PlanPair{} : fftPlans(PlanShape::Planes, n0, n1, 1, planned);
    const PlanPair plans =
        chunked || nc == 1 ? single : fftPlans(PlanShape::Planes, n0, n1, nc, planned);
    const TileChunks chunks = chunked ? TileChunks(n0, n1, planned) : TileChunks();
    // The planes of a tile lie back to back, as the 2-D plans of several planes take them; a
    // single tile's start on 64-byte boundaries, where its chunk plans expect their arrays.
    const std::size_t realStride = chunked ? (realSize + 15) / 16 * 16 : realSize;
    const std::size_t specStride = chunked ? (specSize + 7) / 8 * 8 : specSize;
    return {.t = t, .n0 = n0, .n1 = n1, .n1c = n1c, .realSize = realSize, .specSize = specSize, .tiles = tiles,
            .chunked = chunked, .single = single, .plans = plans, .chunks = chunks, .realStride = realStride,
            .specStride = specStride};
}

// The kernel's spectrum at the layout's size, made through the plans its tiles go through.
std::shared_ptr<const std::vector<cfloat>> layoutKernelSpectrum(const Kernel& k, const FftLayout& layout,
                                                                const FftRange& range)
{
    return kernelSpectrum(k, layout.n0, layout.n1, range.kernelExponent, layout.chunked ? 1 : 0,
                          [&](float* real, fftwf_complex* spec) {
                              if (layout.chunked)
                                  layout.chunks.forward(real, spec);
                              else
                                  fftwf_execute_dft_r2c(layout.single.forward, real, spec);
                          });
}

// The source column of every padded column of the image (-1: the border's constant).
std::vector<int> paddedColumns(const Job& job)
{
    const int w = job.in->width, left = job.kernel.ax();
    std::vector<int> colMap(static_cast<std::size_t>(w + job.kernel.width - 1));
    for (std::size_t j = 0; j < colMap.size(); ++j)
        colMap[j] = borderIndex(static_cast<long long>(j) - left, w, job.border.mode);
    return colMap;
}

// What every tile of a run reads: the job, its layout and kernel spectrum, and the constants
// of the gather, the careful pass and the crop.
struct FftRun {
    FftRun(const Job& job, const OutputPlanes& out, const FftLayout& layout, const FftRange& range,
           const std::vector<cfloat>& kspec)
        : job(job), in(*job.in), k(job.kernel), out(out), layout(layout), range(range), kspec(kspec),
          w(in.width), h(in.height), nc(job.channels), left(k.ax()), top(k.ay()),
          largeBits(magnitudeBits(std::ldexp(1.0f, std::clamp(range.inputExponent, 1, 127)))), terms(k),
          colMap(paddedColumns(job)), scale(static_cast<float>(job.scale)), offset(static_cast<float>(job.offset)),
          fill(job.border.value), fillBits(job.border.mode == BorderMode::Constant ? magnitudeBits(fill) : 0),
          rk(rowKernels()),
          // The crop writes the output once, row by row in tile-wide pieces; past the last-level
          // cache it streams (each line otherwise read before it is written).
          stream(outputsBypassCaches(sizeof(float) * static_cast<std::size_t>(w) * h * nc))
    {
    }

    const Job& job;
    const ImagePlanes& in;
    const Kernel& k;
    const OutputPlanes& out;
    const FftLayout& layout;
    const FftRange range;
    const std::vector<cfloat>& kspec;
    const int w, h, nc, left, top;
    const std::uint32_t largeBits; // a careful tile whose largest |value| reaches this is scaled down
    const NonFiniteTerms terms;
    const std::vector<int> colMap; // paddedColumns
    const float scale, offset, fill;
    const std::uint32_t fillBits; // the border's constant, as magnitude bits (0 for other rules)
    const RowKernels& rk;
    const bool stream;
};

// A thread's buffers, kept for every tile it takes: the tile's planes back to back, their
// spectra, and each plane's non-finite samples in the careful pass.
struct TileBuffers {
    explicit TileBuffers(const FftRun& run)
        : real(fftwAlloc<float>(run.layout.realStride * run.nc)),
          spec(fftwAlloc<fftwf_complex>(run.layout.specStride * run.nc)), nonFinite(static_cast<std::size_t>(run.nc))
    {
    }

    FftwBuffer<float> real;
    FftwBuffer<fftwf_complex> spec;
    std::vector<std::vector<NonFiniteSample>> nonFinite;
    std::vector<unsigned char> flags;
};

// Where tile ti lies: its outputs' first row and column and their counts, and the rows and
// columns of its input region (padded coordinates).
struct TileRegion {
    int oy = 0, ox = 0, oh = 0, ow = 0;
    int rows = 0, cols = 0;
};

TileRegion tileRegion(const FftRun& run, int ti)
{
    const FftTiling& t = run.layout.t;
    const int oy = (ti / t.tilesX) * t.outH, ox = (ti % t.tilesX) * t.outW;
    const int oh = std::min(t.outH, run.h - oy), ow = std::min(t.outW, run.w - ox);
    return {oy, ox, oh, ow, oh + run.k.height - 1, ow + run.k.width - 1};
}

// Padded row r of one plane of the tile, from its source plane through the border rule, and
// zeros past the input region. False for a row outside the image (the border's constant or
// zeros only), which holds no sample to check.
bool gatherRow(const FftRun& run, const TileRegion& g, const float* src, int r, float* row)
{
    const int n1 = run.layout.n1;
    const int sy =
        r < g.rows ? borderIndex(static_cast<long long>(g.oy) + r - run.top, run.h, run.job.border.mode) : -2;
    if (sy < 0) {
        std::fill(row, row + n1, sy == -1 ? run.fill : 0.0f);
        std::fill(row + std::min(g.cols, n1), row + n1, 0.0f);
        return false;
    }
    const float* s = src + static_cast<std::size_t>(sy) * run.w;
    // Columns inside the image are one run of the source row; the margins go through the
    // border rule.
    const int* cm = run.colMap.data() + g.ox;
    const auto throughBorder = [&](int j0, int j1) {
        for (int j = j0; j < j1; ++j) row[j] = cm[j] < 0 ? run.fill : s[cm[j]];
    };
    const int inside0 = std::clamp(run.left - g.ox, 0, g.cols);
    const int inside1 = std::clamp(run.left + run.w - g.ox, inside0, g.cols);
    throughBorder(0, inside0);
    std::memcpy(row + inside0, s + (g.ox + inside0 - run.left), sizeof(float) * (inside1 - inside0));
    throughBorder(inside1, g.cols);
    std::fill(row + g.cols, row + n1, 0.0f);
    return true;
}

// Every plane of the tile into buf.real. The careful pass takes the non-finite samples out
// and returns the largest finite |value|, as bits (the border's constant included).
std::uint32_t gatherTile(const FftRun& run, const TileRegion& g, TileBuffers& buf, bool careful)
{
    std::uint32_t tileMax = run.fillBits;
    for (int c = 0; c < run.nc; ++c) {
        const float* src = run.in.plane(c);
        float* plane = buf.real.get() + c * run.layout.realStride;
        buf.nonFinite[c].clear();
        for (int r = 0; r < run.layout.n0; ++r) {
            float* row = plane + static_cast<std::size_t>(r) * run.layout.n1;
            if (!gatherRow(run, g, src, r, row) || !careful) continue;
            std::uint32_t m = maxMagnitudeBits(row, static_cast<std::size_t>(g.cols));
            if (m >= kNonFiniteBits) m = takeNonFinite(row, g.cols, r, buf.nonFinite[c]);
            tileMax = std::max(tileMax, m);
        }
    }
    return tileMax;
}

// The exponent the tile's results are scaled back by: the kernel's, and in the careful pass,
// for a tile of very large values, that of the power of two it is scaled down by here (exactly)
// so that the transform's sums cannot overflow.
int scaleDownLargeTile(const FftRun& run, TileBuffers& buf, std::uint32_t tileMax, bool careful)
{
    int shift = run.range.kernelExponent;
    if (careful && tileMax >= run.largeBits) {
        const int e = std::ilogb(floatOfBits(tileMax)) - run.range.inputExponent + 1;
        const float down = std::ldexp(1.0f, -e);
        for (std::size_t i = 0; i < run.layout.realStride * run.nc; ++i) buf.real[i] *= down;
        shift += e;
    }
    return shift;
}

// The single tile's transform: each plane's rows forward, then each chunk of the spectrum's
// columns forward, times the kernel's spectrum and backward while in the caches, then the
// rows that hold outputs backward (the first h).
void transformChunked(const FftRun& run, float* real, fftwf_complex* spec)
{
    const FftLayout& layout = run.layout;
    const int nc = run.nc, threads = run.job.threads;
    const int rowChunks = TileChunks::rowChunks(layout.n0), keptRowChunks = TileChunks::rowChunks(run.h);
    const int columnChunks = layout.chunks.columnChunks();
    forEachChunk(nc * rowChunks, threads, [&](int i) {
        const int c = i / rowChunks;
        layout.chunks.rows(i % rowChunks, true, real + c * layout.realStride, spec + c * layout.specStride);
    });
    const auto* ks = reinterpret_cast<const float*>(run.kspec.data());
    forEachChunk(nc * columnChunks, threads, [&](int i) {
        fftwf_complex* plane = spec + (i / columnChunks) * layout.specStride;
        const auto [x, count] = layout.chunks.columns(i % columnChunks, true, plane);
        for (int y = 0; y < layout.n0; ++y) {
            const std::size_t at = static_cast<std::size_t>(y) * layout.n1c + x;
            run.rk.multiplySpectrum(reinterpret_cast<float*>(plane + at), ks + 2 * at, static_cast<std::size_t>(count));
        }
        layout.chunks.columns(i % columnChunks, false, plane);
    });
    forEachChunk(nc * keptRowChunks, threads, [&](int i) {
        const int c = i / keptRowChunks;
        layout.chunks.rows(i % keptRowChunks, false, real + c * layout.realStride, spec + c * layout.specStride);
    });
}

// The tile's forward transform, product with the kernel's spectrum and inverse, in buf.real.
void transformTile(const FftRun& run, TileBuffers& buf)
{
    const FftLayout& layout = run.layout;
    if (layout.chunked) {
        transformChunked(run, buf.real.get(), buf.spec.get());
        return;
    }
    fftwf_execute_dft_r2c(layout.plans.forward, buf.real.get(), buf.spec.get());
    auto* sp = reinterpret_cast<float*>(buf.spec.get());
    const auto* ks = reinterpret_cast<const float*>(run.kspec.data());
    for (int c = 0; c < run.nc; ++c) run.rk.multiplySpectrum(sp + 2 * c * layout.specStride, ks, layout.specSize);
    fftwf_execute_dft_c2r(layout.plans.backward, buf.spec.get(), buf.real.get());
}

// The tile's outputs, its results scaled back by 2^shift, and in the careful pass those its
// non-finite samples reach written as the direct sum gives them. False when an output came out
// NaN or infinite in the plain pass.
bool cropTile(const FftRun& run, const TileRegion& g, TileBuffers& buf, int shift, bool careful)
{
    const Job& job = run.job;
    const double scaleBack = std::ldexp(job.scale, shift);
    std::uint32_t seen = 0; // bit 31: a non-finite output
    for (int c = 0; c < run.nc; ++c) {
        const float* plane = buf.real.get() + c * run.layout.realStride;
        float* dst = run.out.plane(c);
        for (int y = 0; y < g.oh; ++y) {
            const float* s = plane + static_cast<std::size_t>(y) * run.layout.n1;
            float* o = dst + static_cast<std::size_t>(g.oy + y) * run.w + g.ox;
            if (shift == 0) {
                if (!run.rk.cropScaled(s, g.ow, run.scale, run.offset, o, run.stream)) seen |= 0x80000000u;
            } else
                for (int x = 0; x < g.ow; ++x) {
                    o[x] = static_cast<float>(scaleBack * s[x] + job.offset);
                    seen |= nonFiniteBit(o[x]);
                }
            if (careful && !buf.nonFinite[c].empty())
                applyNonFiniteRow(run.terms, buf.nonFinite[c], y, 0, g.ow, job.scale, job.offset, o, buf.flags);
        }
    }
    return careful || (seen & 0x80000000u) == 0;
}

// One tile. The plain pass gathers, transforms and crops, and says whether an output came out
// NaN or infinite (a non-finite sample spreads over the whole transform, and an overflow
// leaves an infinity): checking the outputs as they are written is the whole cost of this
// rule on finite data. The careful pass, run only then, takes the non-finite samples out of
// the tile while gathering it, scales a tile of very large values by 2^-shift (exact) and its
// results back by 2^shift in double, and writes the outputs the non-finite samples reach as
// the direct sum gives them.
bool runTile(const FftRun& run, TileBuffers& buf, int ti, bool careful)
{
    const TileRegion g = tileRegion(run, ti);
    const std::uint32_t tileMax = gatherTile(run, g, buf, careful);
    const int shift = scaleDownLargeTile(run, buf, tileMax, careful);
    transformTile(run, buf);
    return cropTile(run, g, buf, shift, careful);
}

// A thread's tiles, taken one at a time as they come free, in buffers it keeps.
void runTiles(const FftRun& run, ChunkQueue& queue)
{
    TileBuffers buf(run);
    for (int t0, t1; queue.next(t0, t1);)
        for (int ti = t0; ti < t1; ++ti) {
            run.job.checkCancel();
            if (!runTile(run, buf, ti, false)) runTile(run, buf, ti, true);
        }
}

} // namespace

void runFft(const Job& job, const OutputPlanes& out, StageClock& clock)
{
    bool planned = false;
    const FftLayout layout = fftLayout(job, &planned);
    if (planned) clock.mark("plan FFT size (once)", true);
    const FftRange range = fftRange(job.kernel, layout.n0, layout.n1);
    const auto kspec = layoutKernelSpectrum(job.kernel, layout, range);
    clock.mark("kernel spectrum");
    const FftRun run(job, out, layout, range, *kspec);
    parallelWorkers(layout.tiles, job.threads, 1, [&](ChunkQueue& queue) { runTiles(run, queue); });
    clock.mark("transform");
}

namespace {

// The gather and crop move every value once; the transforms cost n log2 n per tile and plane.
CostTerms fftTerms(const RunShape& s)
{
    const FftTiling t = fftTiling(s.width, s.height, s.kernel->width, s.kernel->height);
    const double points = transformWork(t) * s.channels;
    const int tiles = t.tilesX * t.tilesY; // a single tile's transform is shared by chunks
    return {double(s.width) * s.height * s.channels, points, std::max(1, tiles == 1 ? s.threads : std::min(s.threads, tiles))};
}

// One tile (the whole Tile calibration image) with a 9x9 kernel. The gather and crop move the
// data as the direct pass does, so its per-value cost is taken from the direct method's
// (measured before this one); the rest is the transform's.
MethodCost calibrateFft(const CostModel& before)
{
    StageClock clock(nullptr);
    Image& out = calibrationOutput(CalibrationShape::Tile);
    const Job f9 = calibrationJob(9, 9, CalibrationShape::Tile);
    runFft(f9, out, clock); // plans and spectra outside the timing
    const double tF = bestOfNs(5, [&] { runFft(f9, out, clock); });
    const Kernel k9 = f9.kernel;
    const RunShape shape{f9.width, f9.height, 1, &k9, -1, 1};
    const CostTerms terms = fftTerms(shape);
    MethodCost c;
    c.perValueNs = before.of(Method::Direct).perValueNs;
    c.perWorkNs = std::max((tF - c.perValueNs * terms.values) / terms.work, 1e-4);
    return c;
}

} // namespace

const MethodEngine kFftEngine{.readsPacked = false,
                              .needsFactors = false,
                              .runsBands = false,
                              .runsWholePixels = false,
                              .run = runFft,
                              .costTerms = fftTerms,
                              .calibrate = calibrateFft};

} // namespace convlab::detail
