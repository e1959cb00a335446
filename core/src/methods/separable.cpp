// SPDX-License-Identifier: GPL-3.0-or-later
// Separable method: the kernel's SVD K = sum_i s_i u_i v_i^T gives `rank` pairs of a vertical
// and a horizontal 1-D filter. Each pair is a row pass over the padded plane followed by a
// column pass; the pairs' results add up to the full 2-D correlation. The ring of horizontal
// results is bounded per thread (separable.h); outputs that non-finite samples reach are written
// as the direct sum gives them (nonfinite.h), since the pass pairs' partial sums could turn an
// infinity into NaN.
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <vector>

#include "convlab/error.h"
#include "methods/kernelcache.h"
#include "methods/methods.h"
#include "methods/nonfinite.h"
#include "methods/overflow.h"
#include "methods/separable.h"
#include "methods/rowcache.h"
#include "simd/rowkernels.h"
#include "engine/threadpool.h"

namespace convlab::detail {

namespace {

struct Svd {
    Eigen::MatrixXd u, v;
    Eigen::VectorXd singularValues;
};

template <class Decomposition> Svd svdBy(const Eigen::MatrixXd& m)
{
    Decomposition d(m, Eigen::ComputeThinU | Eigen::ComputeThinV);
    return {d.matrixU(), d.matrixV(), d.singularValues()};
}

// The SVD of a kernel, checked. The divide-and-conquer SVD is fast on large kernels, but
// Eigen 3.4.0's can return factors that do not reproduce the matrix: a 16x16 kernel of rank 10
// came back with entries 5.6 off (of 15), which the separable method turned into results 1e-4
// of their scale off. The product is compared with the kernel, and a decomposition that fails
// the check is done again by one-sided Jacobi, slower but exact to rounding.
Svd kernelSvd(const Eigen::MatrixXd& m)
{
    Svd s = svdBy<Eigen::BDCSVD<Eigen::MatrixXd>>(m);
    const double tolerance = 1e-12 * std::max(m.cwiseAbs().maxCoeff(), 1e-300) * double(std::max(m.rows(), m.cols()));
    const double error = (s.u * s.singularValues.asDiagonal() * s.v.transpose() - m).cwiseAbs().maxCoeff();
    if (!(error <= tolerance)) s = svdBy<Eigen::JacobiSVD<Eigen::MatrixXd>>(m);
    return s;
}

// A rank-1 kernel as one of its own rows and that row's multiples: K = c r^T with r the row of
// the largest tap and c_v = K(v, j) / K(i, j) at that tap, when every product c_v r_u is the
// kernel's tap exactly in float. So a box, a Sobel or any product of two integer or dyadic
// vectors (1 2 1 by -1 0 1) runs with exact factors, where the SVD's u sqrt(s) are irrational
// and round every output of integers off by an ulp. False (f untouched) otherwise.
bool exactRankOneFactors(const Kernel& k, const std::vector<double>& singularValues, SeparableFactors& f)
{
    int bi = 0, bj = 0;
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u)
            if (std::abs(k.at(v, u)) > std::abs(k.at(bi, bj))) bi = v, bj = u;
    const float pivot = k.at(bi, bj);
    if (pivot == 0.0f) return false;
    std::vector<float> col(k.height), row(k.width);
    for (int u = 0; u < k.width; ++u) row[u] = k.at(bi, u);
    for (int v = 0; v < k.height; ++v) col[v] = static_cast<float>(double(k.at(v, bj)) / double(pivot));
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u)
            if (col[v] * row[u] != k.at(v, u)) return false;
    f.rank = 1;
    f.columns = {std::move(col)};
    f.rows = {std::move(row)};
    f.singularValues = singularValues;
    return true;
}

SeparableFactors factorsBySvd(const Kernel& k)
{
    Eigen::MatrixXd m(k.height, k.width);
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) m(v, u) = k.at(v, u);
    SeparableFactors f;
    const Svd svd = kernelSvd(m);
    const Eigen::VectorXd& s = svd.singularValues;
    f.singularValues.assign(s.data(), s.data() + s.size());
    // Keep every component that float arithmetic can still see: what is dropped stays below
    // float precision relative to the largest component.
    const double keep = s.size() ? s(0) * 1e-7 : 0.0;
    if (s.size() && (s.size() == 1 || !(s(1) > keep)) && exactRankOneFactors(k, f.singularValues, f)) return f;
    for (int i = 0; i < s.size(); ++i) {
        if (!(s(i) > keep)) break;
        const double r = std::sqrt(s(i));
        std::vector<float> col(k.height), row(k.width);
        for (int v = 0; v < k.height; ++v) col[v] = static_cast<float>(svd.u(v, i) * r);
        for (int u = 0; u < k.width; ++u) row[u] = static_cast<float>(svd.v(u, i) * r);
        f.columns.push_back(std::move(col));
        f.rows.push_back(std::move(row));
        ++f.rank;
    }
    return f;
}

} // namespace

// The factors of the last few kernels are kept: a run repeated with the same kernel (the CLI's
// --repeat, a loop over frames, the workbench changing the border or the image) would otherwise
// pay the SVD every time, 0.7 ms for a 63x63 kernel on the machines measured, against 3 ms for
// the FFT of a 600x500 image with it.
SeparableFactors separableFactors(const Kernel& k)
{
    static KernelCache<SeparableFactors, 8> cache;
    return cache.get(k, {}, [&] { return factorsBySvd(k); });
}

namespace {

// Floats per ring row for rows of n values: whole 64-byte lines, an odd number of them. Rows a
// power-of-two size apart would all fall in the same few cache sets, and the column pass reads
// kh of them at once.
int ringRowStride(int n)
{
    const int lines = (n + 15) / 16;
    return (lines | 1) * 16;
}

} // namespace

int separableRingRows(int kernelHeight) { return std::max(kernelHeight, 1) + kColumnPassRows - 1; }

SeparableSchedule separableSchedule(int width, int kernelHeight, int rank, std::size_t ringBudget)
{
    const std::size_t rowsBytes = sizeof(float) * static_cast<std::size_t>(separableRingRows(kernelHeight));
    SeparableSchedule s;
    s.stripWidth = width;
    // Strips are multiples of 64 columns, so the row kernels' SIMD chunks fall where they would
    // over the whole row; 32 columns are left for the stride's rounding.
    if (rowsBytes * static_cast<std::size_t>(ringRowStride(width)) > ringBudget) {
        const std::size_t columns = ringBudget / rowsBytes;
        s.stripWidth = std::min(width, static_cast<int>(std::max<std::size_t>(columns > 32 ? (columns - 32) / 64 : 0, 1) * 64));
    }
    s.rowStride = ringRowStride(s.stripWidth);
    const std::size_t componentBytes = rowsBytes * static_cast<std::size_t>(s.rowStride);
    s.groupSize = static_cast<int>(std::clamp<std::size_t>(ringBudget / componentBytes, 1,
                                                           static_cast<std::size_t>(std::max(rank, 1))));
    s.ringBytes = componentBytes * static_cast<std::size_t>(s.groupSize);
    return s;
}

namespace {

// The non-finite samples of the padded rows a band of output rows reads (padded row r is input
// row r - top; padded column j reads colMap[j]). They are looked for only when an output of the
// band comes out non-finite, so a finite image never pays for the search.
class BandNonFinite {
public:
    BandNonFinite(const Job& job, const NonFiniteTerms& terms, const std::vector<int>& colMap, int y0, int y1)
        : job_(job), terms_(terms), colMap_(colMap), r0_(y0), r1_(y1 + job.kernel.height - 1)
    {
    }

    void reset(int channel)
    {
        channel_ = channel;
        searched_ = false;
        samples_.clear();
    }

    // Whether the band's rows hold a non-finite sample.
    bool hasSamples()
    {
        if (!job_.in) return false; // 8/16-bit samples are finite
        if (!searched_) search();
        return !samples_.empty();
    }

    // Writes the outputs x0 <= x < x0 + n of row y (out[(x - x0) * step]) that a non-finite
    // sample reaches as the direct sum gives them.
    void apply(int y, int x0, int n, float* out, int step = 1)
    {
        if (!job_.in) return; // 8/16-bit samples are finite
        if (!searched_) search();
        if (!samples_.empty()) applyNonFiniteRow(terms_, samples_, y, x0, n, job_.scale, job_.offset, out, flags_, step);
    }

private:
    void search()
    {
        searched_ = true;
        const int w = job_.width, h = job_.height;
        const ImagePlanes& in = *job_.in;
        for (int r = r0_; r < r1_; ++r) {
            const int sy = borderIndex(static_cast<long long>(r) - job_.kernel.ay(), h, job_.border.mode);
            if (sy < 0) continue; // the constant: finite
            const float* s = in.row(channel_, sy);
            if (in.interleaved()) {
                row_.resize(static_cast<std::size_t>(w));
                rowKernels().gatherFloats(s, in.pixelStep, w, row_.data());
                s = row_.data();
            }
            if (maxMagnitudeBits(s, static_cast<std::size_t>(w)) < kNonFiniteBits) continue;
            for (std::size_t j = 0; j < colMap_.size(); ++j)
                if (colMap_[j] >= 0 && magnitudeBits(s[colMap_[j]]) >= kNonFiniteBits)
                    samples_.push_back({r, static_cast<int>(j), s[colMap_[j]]});
        }
    }

    const Job& job_;
    const NonFiniteTerms& terms_;
    const std::vector<int>& colMap_;
    int r0_, r1_;
    int channel_ = 0;
    bool searched_ = false;
    std::vector<NonFiniteSample> samples_;
    std::vector<unsigned char> flags_;
    std::vector<float> row_; // an interleaved row, gathered
};

int signOf(float v) { return (v > 0.0f) - (v < 0.0f); }

// The first output of channel c in row y, whose outputs lie `pixel` samples apart: plane c's row,
// or the channel's first sample in a row of whole pixels (plane 0's row holds every channel).
float* channelRow(const OutputPlanes& out, int c, int y, int pixel)
{
    return pixel == 1 ? out.row(c, y) : out.row(0, y) + c;
}

// Whether the pass pairs give every non-finite output the reference's kind by themselves. They
// do for one pair whose factors' products have the taps' signs (zero taps included): each term
// is then the reference's term with a positive weight, so the +inf, -inf and NaN terms meet as
// in the direct sum (Gaussian, box). With more pairs, partial sums of different pairs can add
// +inf and -inf where the reference has one infinity.
bool passesKeepKinds(const Kernel& k, const SeparableFactors& f)
{
    if (f.rank != 1) return false;
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u)
            if (signOf(k.at(v, u)) != signOf(f.columns[0][v]) * signOf(f.rows[0][u])) return false;
    return true;
}

} // namespace

void runSeparable(const Job& job, const OutputPlanes& out, StageClock& clock)
{
    runSeparableWithin(job, out, clock, kSeparableRingBudget);
}

void runSeparableWithin(const Job& job, const OutputPlanes& out, StageClock& clock, std::size_t ringBudget)
{
    if (!job.factors) throw Error("the separable method needs the kernel's factors");
    const SeparableFactors& f = *job.factors;
    const Kernel& k = job.kernel;
    const int width = job.width, h = job.height, kh = k.height;
    // Whole interleaved pixels are filtered as one plane of rows of width * C samples, the row
    // pass's taps C samples apart; the column pass is the same over such rows.
    const int pixel = job.wholePixels ? job.channels : 1;
    const int planes = job.wholePixels ? 1 : job.channels;
    const int w = width * pixel; // samples a row
    const int rows = job.rowCount();
    const int left = k.ax(), right = k.width - 1 - k.ax(), top = k.ay();
    const float offset = static_cast<float>(job.offset);
    const RowKernels& rk = rowKernels();
    const NonFiniteTerms terms(k);
    std::vector<int> colMap; // source column of every padded column (-1: the constant)
    if (job.in) {
        colMap.resize(static_cast<std::size_t>(width + k.width - 1));
        for (std::size_t j = 0; j < colMap.size(); ++j)
            colMap[j] = borderIndex(static_cast<long long>(j) - left, width, job.border.mode);
    }
    if (f.rank == 0) {
        // An all-zero kernel: no pass pair writes anything, so the output (possibly a reused
        // buffer holding an older result) is set to what the sum gives: the offset, and NaN
        // where a non-finite sample meets the zero taps.
        parallelFor(rows, job.threads, [&](int y0, int y1) {
            y0 += job.rowBegin;
            y1 += job.rowBegin;
            BandNonFinite nonFinite(job, terms, colMap, y0, y1);
            for (int c = 0; c < planes; ++c)
                for (int y = y0; y < y1; ++y) std::fill(out.row(c, y), out.row(c, y) + w, offset);
            for (int c = 0; c < job.channels; ++c) {
                nonFinite.reset(c);
                for (int y = y0; y < y1; ++y) nonFinite.apply(y, 0, width, channelRow(out, c, y, pixel), pixel);
            }
        });
        clock.mark("convolve");
        return;
    }
    // The scale is folded into the vertical factors.
    std::vector<std::vector<float>> columns = f.columns;
    for (auto& col : columns)
        for (float& c : col) c = static_cast<float>(c * job.scale);
    const SeparableSchedule plan = separableSchedule(w, kh, f.rank, ringBudget);
    const bool checkKinds = job.in && !passesKeepKinds(k, f); // 8/16-bit samples are finite

    const int ringRows = separableRingRows(kh);
    // Rank 1 without an offset: the column pass writes the result once, checking it as it stores
    // it, and an output larger than the last-level cache streams past the caches (rowkernels.h).
    const bool oneStoredPass = f.rank == 1 && offset == 0.0f;
    const bool stream = oneStoredPass && outputsBypassCaches(sizeof(float) * static_cast<std::size_t>(width) * rows * job.channels);
    // Chunks of rows taken by the threads as they come free (threadpool.h). A chunk's first
    // output row needs the kernel's height of rows filtered first, so chunks are at least 16 of
    // those long: at most a sixteenth more row filtering than one band per thread, unless that
    // would leave a thread without rows (a short image, or one of the engine's bands).
    const int grain = chunkGrain(rows, job.threads, 8, std::min(16 * (kh - 1), (rows + job.threads - 1) / job.threads));
    parallelWorkers(rows, job.threads, grain, [&](ChunkQueue& chunks) {
        // Horizontal results of the last ringRows padded rows, per component of the group:
        // groupSize x ringRows rows of stripWidth values, rowStride apart.
        RowWindow padded(width, h, job.border, top, left, right, 1, pixel);
        std::vector<float> ring(plan.ringBytes / sizeof(float));
        std::vector<const float*> window(static_cast<std::size_t>(ringRows)), shifted(window.size());
        for (int y0, y1; chunks.next(y0, y1);) {
            y0 += job.rowBegin;
            y1 += job.rowBegin;
            BandNonFinite nonFinite(job, terms, colMap, y0, y1);
            for (int c = 0; c < planes; ++c) {
                padded.reset(job.in, job.packed, c);
                // Output rows with a non-finite value: from a non-finite sample, or from a float
                // sum that overflowed (found apart, below).
                std::vector<char> nonFiniteRow(static_cast<std::size_t>(y1 - y0), 0);
                for (int x0 = 0; x0 < w; x0 += plan.stripWidth) {
                    const int sw = std::min(plan.stripWidth, w - x0);
                    auto ringRow = [&](int i, int r) {
                        return ring.data() + (static_cast<std::size_t>(i) * ringRows + r % ringRows) * plan.rowStride;
                    };
                    // Component i's ring rows of padded rows r0 .. r0 + count - 1, into window
                    // (one division, not one a row).
                    auto ringRowsFrom = [&](int i, int r0, int count) {
                        float* const first = ringRow(i, 0);
                        for (int v = 0, slot = r0 % ringRows; v < count; ++v, slot = slot + 1 == ringRows ? 0 : slot + 1)
                            window[v] = first + static_cast<std::size_t>(slot) * plan.rowStride;
                    };
                    for (int g0 = 0; g0 < f.rank; g0 += plan.groupSize) {
                        const int g1 = std::min(f.rank, g0 + plan.groupSize);
                        int next = y0; // the first output row not yet combined
                        for (int r = y0; r < y1 + kh - 1; ++r) {
                            if ((r & 15) == 0) job.checkCancel();
                            for (const RowSpan& whole : padded.spans(r, 1)) {
                                const float* in = nullptr;
                                const RowSpan s = clipSpan(whole, x0, x0 + sw, 1, &in);
                                for (int i = g0; s.n > 0 && i < g1; ++i)
                                    rk.filterRow(in, f.rows[i].data(), k.width, pixel, s.n,
                                                 ringRow(i - g0, r) + (s.x0 - x0), s.rowStep);
                            }
                            // Output rows up to r - (kh - 1) have all their rows; they are combined
                            // kColumnPassRows at a time, and the rest at the chunk's end.
                            const int n = std::min(kColumnPassRows, r - (kh - 1) - next + 1);
                            if (n < kColumnPassRows && !(r == y1 + kh - 2 && n > 0)) continue;
                            float* o[kColumnPassRows];
                            for (int j = 0; j < n; ++j) o[j] = out.row(c, next + j) + x0;
                            if (oneStoredPass) { // written once, checked as stored
                                ringRowsFrom(0, next, kh + n - 1);
                                // Streaming, from the rows' first 64-byte boundary (rowcache.h).
                                unsigned bad = 0;
                                const auto combine = [&](const RowSpan& s, bool streamed) {
                                    float* at[kColumnPassRows];
                                    for (int j = 0; j < n; ++j) at[j] = o[j] + s.x0;
                                    bad |= rk.combineRowsUpTo4Final(s.rows, columns[0].data(), kh, n, s.n, at, streamed);
                                    return true;
                                };
                                runFromBoundary({window.data(), 0, sw, 0}, o[0], w, kh + n - 1, stream, shifted.data(),
                                                combine);
                                for (int j = 0; j < n; ++j)
                                    if (bad & (1u << j)) nonFiniteRow[next + j - y0] = 1;
                                next += n;
                                continue;
                            }
                            for (int i = g0; i < g1; ++i) { // components in order, whatever the groups
                                ringRowsFrom(i - g0, next, kh + n - 1);
                                rk.combineRowsUpTo4(window.data(), columns[i].data(), kh, n, sw, o, i > 0);
                            }
                            for (int j = 0; g1 == f.rank && j < n; ++j) {
                                if (offset != 0.0f) rk.scaleOffset(o[j], sw, 1.0f, offset, o[j]);
                                if (anyNonFinite(o[j], static_cast<std::size_t>(sw))) nonFiniteRow[next + j - y0] = 1;
                            }
                            next += n;
                        }
                    }
                }
                if (std::find(nonFiniteRow.begin(), nonFiniteRow.end(), 1) == nonFiniteRow.end()) continue;
                for (int p = c; p < c + pixel; ++p) { // plane c, or each channel of whole pixels
                    nonFinite.reset(p);
                    if (checkKinds)
                        for (int y = y0; y < y1; ++y) nonFinite.apply(y, 0, width, channelRow(out, p, y, pixel), pixel);
                    // Without a non-finite sample in the chunk, a non-finite output is an overflowed
                    // sum. (With one, its outputs are left as the samples make them: looking
                    // through every footprint would cost the kernel's taps per output.)
                    if (!nonFinite.hasSamples())
                        for (int y = y0; y < y1; ++y)
                            if (nonFiniteRow[y - y0])
                                rewriteOverflowedOutputs(job, p, y, 0, width, channelRow(out, p, y, pixel), pixel);
                }
            }
        }
    });
    clock.mark("convolve");
}

namespace {

// Every pass pair moves the values once more and costs a row of taps for each value of the
// rows the column pass reads (the image's and the kernel's height - 1 more, padded) and a column
// of taps per output. The padded rows are what a short image pays: a full-rank 1025x1025 kernel
// over a 4096x4 line filters 1028 rows per pass pair, and counting 4 had priced its 144 s run at
// 0.45 s.
CostTerms separableTerms(const RunShape& s)
{
    const double lines = double(std::max(s.rank, 1)) * s.width * s.channels;
    const double paddedRows = double(s.height) + s.kernel->height - 1;
    return {lines * s.height, lines * (paddedRows * s.kernel->width + double(s.height) * s.kernel->height),
            std::max(1, std::min(s.threads, s.height))};
}

// The work per output value of a calibration job, in the terms above.
double separableWorkPerValue(const Job& job)
{
    const RunShape shape{job.width, job.height, job.channels, &job.kernel, 1, 1};
    const CostTerms t = separableTerms(shape);
    return t.work / t.values;
}

// The passes run from the kernel's SVD: a run whose rank was not computed has no factors.
bool separableApplies(const RunShape& shape, std::string* why)
{
    if (shape.rank >= 0) return true;
    if (why) *why = "the kernel's rank was not computed";
    return false;
}

// Rank 1 with 3+3 and 31+31 taps (about 6 and 66 per value on the 4096x256 image).
MethodCost calibrateSeparable(const CostModel&)
{
    Job s3 = calibrationJob(3, 3), s31 = calibrationJob(31, 31);
    const SeparableFactors f3 = separableFactors(s3.kernel), f31 = separableFactors(s31.kernel);
    s3.factors = &f3;
    s31.factors = &f31;
    return fitTwoRuns(s3, separableWorkPerValue(s3), s31, separableWorkPerValue(s31), runSeparable);
}

} // namespace

const MethodEngine kSeparableEngine{.readsPacked = true,
                                    .needsFactors = true,
                                    .runsBands = true,
                                    .runsWholePixels = true,
                                    .run = runSeparable,
                                    .costTerms = separableTerms,
                                    .calibrate = calibrateSeparable,
                                    .applies = separableApplies};

} // namespace convlab::detail
