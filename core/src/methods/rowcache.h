// SPDX-License-Identifier: GPL-3.0-or-later
// Padded rows on demand. Instead of padding the whole plane, a band of output rows keeps a
// ring of the kernel's height of padded input rows; each row is padded once (the border rule
// applied to its row and its left/right margins) and reused by every output row that needs it.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "convlab/convolve.h"
#include "simd/rowkernels.h"

namespace convlab::detail {

// The sample of a row of w pixels, `pixel` samples each (1 for a plane, C for whole interleaved
// pixels), that padded sample j reads (j < 0 or >= w * pixel: the margins), or -1 for the
// constant: the border rule picks the pixel, and the sample keeps its channel.
inline int paddedSampleSource(long long j, int w, int pixel, BorderMode mode)
{
    const long long p = j >= 0 ? j / pixel : -((-j + pixel - 1) / pixel); // the pixel, rounded down
    const int sx = borderIndex(p, w, mode);
    return sx < 0 ? -1 : sx * pixel + static_cast<int>(j - p * pixel);
}

class PaddedRows {
public:
    // Plane w x h padded by left/right columns; rows addressed in padded coordinates
    // r = input row + top, for r in [0, h + top + bottom). With pixel C > 1 the rows are whole
    // interleaved pixels of C channels (Job::wholePixels): rows of w * C samples, the margins
    // left * C and right * C samples of whole pixels.
    PaddedRows(int w, int h, const Border& border, int top, int left, int right, int ringRows, int pixel = 1)
        : w_(w * pixel), h_(h), border_(border), top_(top), left_(left * pixel), pw_((w + left + right) * pixel),
          pixel_(pixel), ring_(static_cast<std::size_t>(pw_) * ringRows), tags_(ringRows, -1),
          cols_((left + right) * pixel)
    {
        for (int i = 0; i < left_; ++i) cols_[i] = paddedSampleSource(i - left_, w, pixel, border.mode);
        for (int i = 0; i < (right * pixel); ++i)
            cols_[left_ + i] = paddedSampleSource(w_ + i, w, pixel, border.mode);
    }

    int paddedWidth() const { return pw_; }
    void reset(const float* plane)
    {
        plane_ = plane;
        step_ = 1;
        packed_ = nullptr;
        std::fill(tags_.begin(), tags_.end(), -1);
    }
    // Plane c of whichever source is given: float planes, or 8/16-bit samples whose rows are
    // converted to float as they are padded, so the conversion is part of the first pass and no
    // float copy of the image is made.
    void reset(const ImagePlanes* image, const PackedImage* packed, int c)
    {
        plane_ = image ? image->plane(c) : nullptr;
        step_ = image && pixel_ == 1 ? image->pixelStep : 1; // whole pixels: rows read as they lie
        packed_ = image ? nullptr : packed;
        channel_ = c;
        std::fill(tags_.begin(), tags_.end(), -1);
    }

    // The padded row r (valid until ring's size further rows have been asked for).
    const float* row(int r)
    {
        const int slot = r % static_cast<int>(tags_.size());
        float* dst = ring_.data() + static_cast<std::size_t>(slot) * pw_;
        if (tags_[slot] == r) return dst;
        tags_[slot] = r;
        const int sy = borderIndex(r - top_, h_, border_.mode);
        if (sy < 0) {
            std::fill(dst, dst + pw_, border_.value);
            return dst;
        }
        float* s = dst + left_; // the row itself; the margins are copied from it
        if (packed_ && pixel_ > 1)
            unpackPixelsRow(*packed_, sy, s);
        else if (packed_)
            unpackRow(*packed_, channel_, sy, s);
        else if (step_ == 1)
            std::memcpy(s, plane_ + static_cast<std::size_t>(sy) * w_, sizeof(float) * w_);
        else
            rowKernels().gatherFloats(plane_ + static_cast<std::size_t>(sy) * w_ * step_, step_, w_, s);
        const int right = pw_ - w_ - left_;
        for (int i = 0; i < left_; ++i) dst[i] = cols_[i] < 0 ? border_.value : s[cols_[i]];
        for (int i = 0; i < right; ++i)
            dst[left_ + w_ + i] = cols_[left_ + i] < 0 ? border_.value : s[cols_[left_ + i]];
        return dst;
    }

private:
    int w_, h_;
    Border border_;
    int top_, left_, pw_;
    int pixel_;
    const float* plane_ = nullptr;
    int step_ = 1; // the plane's pixelStep
    const PackedImage* packed_ = nullptr;
    int channel_ = 0;
    std::vector<float> ring_;
    std::vector<int> tags_;
    std::vector<int> cols_;
};

// Consecutive output columns x0 .. x0 + n - 1 and the rows their taps read: output x0 + i reads
// rows[v][i + u] for the kernel's row v and column u. rowStep: where the rows are the image's
// own, read in place, the floats from one row to the next in memory (0 for padded copies), so a
// row kernel can ask for the rows a later call reads before it gets there.
struct RowSpan {
    const float* const* rows = nullptr;
    int x0 = 0, n = 0;
    std::ptrdiff_t rowStep = 0;
};

// The part of s within outputs [begin, end), for `count` rows: its row pointers, advanced to its
// first output, are written to `shifted` (count entries). Returns an empty span (n == 0) when
// they do not meet.
inline RowSpan clipSpan(const RowSpan& s, int begin, int end, int count, const float** shifted)
{
    const int lo = std::max(begin, s.x0), hi = std::min(end, s.x0 + s.n);
    if (lo >= hi) return {};
    for (int v = 0; v < count; ++v) shifted[v] = s.rows[v] + (lo - s.x0);
    return {shifted, lo, hi - lo, s.rowStep};
}

// The outputs before the first 64-byte boundary of an output row starting at `o`, when every row
// of the image starts at the same offset from one (rows a multiple of 64 bytes long); else 0.
// The kernels stream only rows that start on a vector boundary, so a run whose row does not
// (a NumPy array's storage is 16-byte aligned) stores those first outputs cached and the rest
// streamed: the same bits, since an output's sum does not depend on where its run starts.
inline int outputsBeforeBoundary(const float* o, int w)
{
    const auto at = reinterpret_cast<std::uintptr_t>(o);
    if ((static_cast<std::size_t>(w) * sizeof(float)) % 64 != 0 || at % sizeof(float) != 0) return 0;
    return static_cast<int>((64 - at % 64) % 64 / sizeof(float));
}

// run(span, streamed) over span s of output row `o` (rows w apart, `count` input rows); when
// streaming, the outputs before the row's first 64-byte boundary go cached and the rest
// streamed. `shifted` holds `count` row pointers for the clipped spans. Returns whether every
// output is finite.
template <class Run>
bool runFromBoundary(const RowSpan& s, const float* o, int w, int count, bool stream, const float** shifted,
                     const Run& run)
{
    const int head = stream ? outputsBeforeBoundary(o + s.x0, w) : 0;
    if (head == 0 || head >= s.n) return run(s, stream);
    const bool finite = run(clipSpan(s, s.x0, s.x0 + head, count, shifted), false);
    return run(clipSpan(s, s.x0 + head, s.x0 + s.n, count, shifted), true) && finite;
}

// The padded rows a band of outputs reads, copying as little of the image as it can. A float
// plane is read where it lies: the outputs whose footprint stays inside the row
// (left <= x < w - right) read the source rows themselves, the border rule only choosing which
// source row (or the constant row) each padded row is; the outputs within the kernel's reach of
// the left and right edges (at least 16 at each edge, so they run as vectors) read padded copies
// of their few columns. So no row is copied whole, which for small kernels is as much work as
// the taps. 8/16-bit samples (converted as rows are read), interleaved samples (gathered) and
// images too narrow for a vector-wide span at each edge and one between use whole padded rows
// (PaddedRows). With pixel C > 1 (Job::wholePixels) the rows are whole interleaved
// pixels, w * C samples read where they lie, and every count of columns above is C times as
// many samples.
class RowWindow {
public:
    RowWindow(int w, int h, const Border& border, int top, int left, int right, int ringRows, int pixel = 1)
        : w_(w * pixel), h_(h), border_(border), top_(top), left_(left * pixel), ringRows_(ringRows), pixel_(pixel),
          padded_(w, h, border, top, left, right, ringRows, pixel), interior_(ringRows), leftRows_(ringRows),
          rightRows_(ringRows)
    {
        // The margins' spans are at least a vector of the widest build wide, so the row kernels
        // run them as vectors rather than one output at a time. An image too narrow for those
        // and an interior span of a vector besides is read through whole padded rows: one span
        // as wide as the image, run as vectors, where three narrower spans would run one output
        // at a time (a 16x16 image with a 3x3 kernel: spans of 1, 14 and 1), for the copy of a
        // few dozen floats a row.
        const int leftSamples = left * pixel, rightSamples = right * pixel;
        leftOut_ = left > 0 ? std::max(leftSamples, kMinMarginSpan) : 0;
        rightOut_ = right > 0 ? std::max(rightSamples, kMinMarginSpan) : 0;
        if (w <= left + right || leftOut_ + rightOut_ + kMinMarginSpan > w_) {
            leftOut_ = rightOut_ = 0;
            return;
        }
        // The source of each margin copy's column (-1: the constant): the left copy's columns,
        // then the right copy's, each its outputs' width plus the kernel's reach.
        leftEdge_ = leftOut_ + leftSamples + rightSamples;
        edgeRow_ = leftEdge_ + rightOut_ + leftSamples + rightSamples;
        std::vector<int> edgeColumns(static_cast<std::size_t>(edgeRow_));
        for (int j = 0; j < leftEdge_; ++j)
            edgeColumns[j] = paddedSampleSource(static_cast<long long>(j) - leftSamples, w, pixel, border.mode);
        for (int j = leftEdge_; j < edgeRow_; ++j)
            edgeColumns[j] = paddedSampleSource(static_cast<long long>(w_ - rightOut_ - leftSamples) + (j - leftEdge_),
                                                w, pixel, border.mode);
        edgeRuns_ = runsOf(edgeColumns);
        edges_.resize(static_cast<std::size_t>(edgeRow_) * ringRows);
        edgeTags_.assign(static_cast<std::size_t>(ringRows), -1);
        constantRow_.assign(static_cast<std::size_t>(w_), border.value);
    }

    // Plane c of whichever source is given (see PaddedRows::reset).
    void reset(const ImagePlanes* image, const PackedImage* packed, int c)
    {
        padded_.reset(image, packed, c);
        // Interleaved samples are not rows the kernels can run over: they are gathered into
        // whole padded rows, which the channels read in turn while the row is in the caches.
        // Whole pixels are rows of samples like a plane's.
        plane_ = image && !constantRow_.empty() && (!image->interleaved() || pixel_ > 1) ? image->plane(c) : nullptr;
        std::fill(edgeTags_.begin(), edgeTags_.end(), -1);
    }

    // Spans covering outputs [0, w) for the `count` padded rows from r0 (count <= ringRows);
    // valid until the next call.
    std::span<const RowSpan> spans(int r0, int count)
    {
        if (!plane_) {
            for (int v = 0; v < count; ++v) interior_[v] = padded_.row(r0 + v);
            spans_[0] = {interior_.data(), 0, w_};
            return {spans_.data(), 1};
        }
        for (int v = 0; v < count; ++v) {
            const int r = r0 + v;
            const int sy = borderIndex(static_cast<long long>(r) - top_, h_, border_.mode);
            const float* src = sy < 0 ? constantRow_.data() : plane_ + static_cast<std::size_t>(sy) * w_;
            interior_[v] = src;
            const float* edges = edgesOf(r, src);
            leftRows_[v] = edges;
            rightRows_[v] = edges + leftEdge_;
        }
        int n = 0;
        if (leftOut_ > 0) spans_[n++] = {leftRows_.data(), 0, leftOut_};
        for (int v = 0; v < count; ++v) interior_[v] += leftOut_ - left_; // output leftOut_ reads from there
        if (w_ - leftOut_ - rightOut_ > 0) spans_[n++] = {interior_.data(), leftOut_, w_ - leftOut_ - rightOut_, w_};
        if (rightOut_ > 0) spans_[n++] = {rightRows_.data(), w_ - rightOut_, rightOut_};
        return {spans_.data(), static_cast<std::size_t>(n)};
    }

private:
    // The left and right margins' padded columns of padded row r, whose source row is src, filled
    // when the ring slot does not hold them yet. (One division a row: with three, and the margins
    // copied one column at a time, this took a third of a separable 5x5 run on 256x256.)
    const float* edgesOf(int r, const float* src)
    {
        const int slot = r % ringRows_;
        float* dst = edges_.data() + static_cast<std::size_t>(slot) * edgeRow_;
        if (edgeTags_[slot] == r) return dst;
        edgeTags_[slot] = r;
        float* at = dst;
        for (const ColumnRun& run : edgeRuns_) {
            if (run.from < 0)
                std::fill(at, at + run.count, border_.value);
            else
                std::memcpy(at, src + run.from, sizeof(float) * static_cast<std::size_t>(run.count));
            at += run.count;
        }
        return dst;
    }

    // Consecutive padded columns that read consecutive source columns (from, from + 1, ...), or
    // the constant (from -1): the margins' copies are a few such runs, most of their columns one
    // run inside the image.
    struct ColumnRun {
        int from, count;
    };
    static std::vector<ColumnRun> runsOf(const std::vector<int>& columns)
    {
        std::vector<ColumnRun> runs;
        for (int j : columns) {
            if (!runs.empty()) {
                ColumnRun& last = runs.back();
                if (j < 0 ? last.from < 0 : last.from >= 0 && j == last.from + last.count) {
                    ++last.count;
                    continue;
                }
            }
            runs.push_back({j < 0 ? -1 : j, 1});
        }
        return runs;
    }

    int w_, h_;
    Border border_;
    static constexpr int kMinMarginSpan = 16; // floats in an AVX-512 vector
    int top_, left_, ringRows_;
    int pixel_;                      // samples a pixel: 1, or C for whole interleaved pixels
    int leftOut_ = 0, rightOut_ = 0; // outputs read from the margins' padded copies
    PaddedRows padded_;
    const float* plane_ = nullptr; // null: whole padded rows
    int leftEdge_ = 0, edgeRow_ = 0;  // columns of the left margin's copy, and of both
    std::vector<ColumnRun> edgeRuns_; // where both copies' columns come from, as runs
    std::vector<float> edges_;        // per ring slot: the left, then the right margin's columns
    std::vector<int> edgeTags_;
    std::vector<float> constantRow_;
    std::vector<const float*> interior_, leftRows_, rightRows_;
    std::array<RowSpan, 3> spans_;
};

} // namespace convlab::detail
