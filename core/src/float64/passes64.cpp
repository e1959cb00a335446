// SPDX-License-Identifier: GPL-3.0-or-later
// The float64 engine's direct, separable and reference methods. Direct and separable read the
// image through a ring of padded rows per worker: each source row a chunk needs is copied (its
// channel gathered from interleaved pixels) once, with the border rule's margins, so the row
// kernel runs over contiguous rows with no border tests.
#include "float64/passes64.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "engine/threadpool.h"
#include "simd/rowkernels.h" // outputsBypassCaches
#include "simd/rowkernels64.h"

namespace convlab::detail {

void Run64::checkCancel() const
{
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

namespace {

// Source row sy of channel c (sy < 0: outside, the constant) with `left` and `right` samples
// of margin by the border rule: width + left + right values into buf.
void padRow(const Run64& r, int c, int sy, int left, int right, double* buf)
{
    const int w = r.in.width, C = r.in.channels;
    if (sy < 0) {
        std::fill(buf, buf + w + left + right, r.cval);
        return;
    }
    const double* row = r.in.data + static_cast<std::size_t>(sy) * w * C + c;
    if (C == 1)
        std::memcpy(buf + left, row, sizeof(double) * w);
    else
        for (int x = 0; x < w; ++x) buf[left + x] = row[static_cast<std::size_t>(x) * C];
    const auto sample = [&](long long p) {
        const int sx = borderIndex(p, w, r.border);
        return sx < 0 ? r.cval : row[static_cast<std::size_t>(sx) * C];
    };
    for (int i = 0; i < left; ++i) buf[i] = sample(static_cast<long long>(i) - left);
    for (int i = 0; i < right; ++i) buf[left + w + i] = sample(static_cast<long long>(w) + i);
}

// The last `count` rows a worker asked for, by image row coordinate (any integer: the border
// rule maps it), each filled once by `fill(coordinate, row)`. Coordinates a chunk asks for rise
// by one and span fewer than `count`, so slot p mod count never holds a row still in use.
class RowRing {
public:
    // Rows lie a whole number of cache lines apart plus one: rows a power of two of bytes long
    // (2048 doubles) would map to the same L1 sets, and the 25 rows of a column kernel would
    // evict each other (a 25x1 pass ran 3x slower read in place from such an image).
    RowRing(int count, int length)
        : count_(count), length_((length + 7) / 8 * 8 + 8), held_(count), rows_(std::size_t(count) * length_)
    {
        reset();
    }
    void reset() { std::fill(held_.begin(), held_.end(), LLONG_MIN); }
    template <class Fill> const double* row(long long p, const Fill& fill)
    {
        const int slot = static_cast<int>(((p % count_) + count_) % count_);
        double* at = rows_.data() + std::size_t(slot) * length_;
        if (held_[slot] != p) {
            fill(p, at);
            held_[slot] = p;
        }
        return at;
    }

private:
    int count_;
    int length_;
    std::vector<long long> held_;
    std::vector<double> rows_;
};

// The w values of `line` into row y of channel c of an interleaved output.
void scatterRow(const Output64& out, int c, int y, const double* line)
{
    const int C = out.channels;
    double* dst = out.data + static_cast<std::size_t>(y) * out.width * C + c;
    for (int x = 0; x < out.width; ++x) dst[static_cast<std::size_t>(x) * C] = line[x];
}

// A column pass (kw 1) runs a block of output rows strip by strip: the block's kh + 15 rows of
// one strip (1 KiB each) stay in L1 while its 16 output rows read them. Row by row, each
// output row read its kh whole rows from L2 (25 rows of 2048 doubles: 400 KiB a row), and a
// 25x1 pass ran twice as long as a 1x25 one.
constexpr int kBlockRows = 16;
constexpr int kStripValues = 128;

// For every output row of every channel, on the pool: the kh rows an output row reads (image
// rows y - ay .. y - ay + kh - 1, any integer: the border rule maps them) taken from the
// worker's ring, each filled once by `fill(c, p, dst)` (ringLength values), then `taps`
// (kw x kh) over them. Outputs larger than the last-level cache are written past it.
template <class Fill>
void forOutputRows(const Run64& r, int ringLength, const double* taps, int kw, int kh, const Fill& fill)
{
    const int w = r.in.width, h = r.in.height, C = r.in.channels;
    const RowKernels64& rk = rowKernels64();
    const bool stream = C == 1 && outputsBypassCaches(sizeof(double) * r.in.values());
    const auto correlate = stream ? rk.correlateStreamed : rk.correlate;
    const bool strips = kw == 1 && kh > 1;
    const int block = strips ? kBlockRows : 1;
    const int grain = chunkGrain(h, r.threads, 4, std::max(16, 4 * kh), kBlockRows);
    parallelWorkers(h, r.threads, grain, [&](ChunkQueue& chunks) {
        RowRing ring(kh + block - 1, ringLength);
        std::vector<const double*> rows(kh + block - 1), shifted(kh);
        std::vector<double> lines(C > 1 ? static_cast<std::size_t>(block) * w : 0);
        std::vector<double*> dst(block);
        int sinceCheck = 0; // rows until the next look at the cancel flag
        for (int y0, y1; chunks.next(y0, y1);) {
            for (int c = 0; c < C; ++c) {
                ring.reset();
                for (int y = y0, n = 0; y < y1; y += n) {
                    n = std::min(block, y1 - y);
                    if (sinceCheck <= 0) { // every 16 rows, from a worker's first
                        r.checkCancel();
                        sinceCheck = 16;
                    }
                    sinceCheck -= n;
                    for (int i = 0; i < kh + n - 1; ++i) {
                        const long long p = static_cast<long long>(y) - r.ay + i;
                        rows[i] = ring.row(p, [&](long long, double* to) { fill(c, p, to); });
                    }
                    for (int j = 0; j < n; ++j)
                        dst[j] = C == 1 ? r.out.data + static_cast<std::size_t>(y + j) * w : lines.data() + std::size_t(j) * w;
                    if (!strips || n == 1) {
                        for (int j = 0; j < n; ++j) correlate(rows.data() + j, taps, kw, kh, w, dst[j]);
                    } else {
                        for (int x0 = 0; x0 < w; x0 += kStripValues)
                            for (int j = 0; j < n; ++j) {
                                for (int v = 0; v < kh; ++v) shifted[v] = rows[j + v] + x0;
                                correlate(shifted.data(), taps, 1, kh, std::min(kStripValues, w - x0), dst[j] + x0);
                            }
                    }
                    for (int j = 0; C > 1 && j < n; ++j) scatterRow(r.out, c, y + j, dst[j]);
                }
            }
        }
        if (stream) rk.fenceStreamed();
    });
}

} // namespace

void runDirect64(const Run64& r)
{
    const int left = r.ax, right = r.kw - 1 - r.ax;
    forOutputRows(r, r.in.width + r.kw - 1, r.k, r.kw, r.kh, [&](int c, long long p, double* dst) {
        padRow(r, c, borderIndex(p, r.in.height, r.border), left, right, dst);
    });
}

void runSeparable64(const Run64& r, const double* column, const double* row)
{
    const int left = r.ax, right = r.kw - 1 - r.ax;
    const int w = r.in.width;
    const RowKernels64& rk = rowKernels64();
    // The ring holds source rows filtered along x; each is padded first into the worker's own
    // buffer (thread_local: the fill runs on the worker's thread).
    forOutputRows(r, w, column, 1, r.kh, [&](int c, long long p, double* dst) {
        thread_local std::vector<double> padded;
        padded.resize(static_cast<std::size_t>(w) + r.kw - 1);
        padRow(r, c, borderIndex(p, r.in.height, r.border), left, right, padded.data());
        const double* source = padded.data();
        rk.correlate(&source, row, r.kw, 1, w, dst);
    });
}

void runReference64(const Run64& r)
{
    const int w = r.in.width, h = r.in.height, C = r.in.channels;
    parallelFor(h, r.threads, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            r.checkCancel();
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < C; ++c) {
                    double acc = 0.0;
                    for (int v = 0; v < r.kh; ++v) {
                        const int sy = borderIndex(static_cast<long long>(y) - r.ay + v, h, r.border);
                        for (int u = 0; u < r.kw; ++u) {
                            const int sx = borderIndex(static_cast<long long>(x) - r.ax + u, w, r.border);
                            const double p = (sy < 0 || sx < 0)
                                                 ? r.cval
                                                 : r.in.data[(static_cast<std::size_t>(sy) * w + sx) * C + c];
                            acc += r.k[v * r.kw + u] * p;
                        }
                    }
                    r.out.data[(static_cast<std::size_t>(y) * w + x) * C + c] = acc;
                }
        }
    });
}

} // namespace convlab::detail
