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
    RowRing(int count, int length) : count_(count), length_(length), held_(count), rows_(std::size_t(count) * length)
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

// For every output row of every channel, on the pool: `rowsFor(ring, c, y, rows)` sets the kh
// row pointers the row kernel reads, then `taps` (kw x kh) makes the output row.
template <class RowsFor>
void forOutputRows(const Run64& r, int ringRows, int ringLength, const double* taps, int kw, int kh,
                   const RowsFor& rowsFor)
{
    const int w = r.in.width, h = r.in.height, C = r.in.channels;
    const RowKernels64& rk = rowKernels64();
    const int grain = chunkGrain(h, r.threads, 4, std::max(8, 2 * kh), 1);
    parallelWorkers(h, r.threads, grain, [&](ChunkQueue& chunks) {
        RowRing ring(ringRows, ringLength);
        std::vector<const double*> rows(kh);
        std::vector<double> line(C > 1 ? w : 0);
        for (int y0, y1; chunks.next(y0, y1);) {
            for (int c = 0; c < C; ++c) {
                ring.reset();
                for (int y = y0; y < y1; ++y) {
                    if ((y & 15) == 0) r.checkCancel();
                    rowsFor(ring, c, y, rows.data());
                    double* dst = C == 1 ? r.out.data + static_cast<std::size_t>(y) * w : line.data();
                    rk.correlate(rows.data(), taps, kw, kh, w, dst);
                    if (C > 1) scatterRow(r.out, c, y, dst);
                }
            }
        }
    });
}

} // namespace

void runDirect64(const Run64& r)
{
    const int left = r.ax, right = r.kw - 1 - r.ax;
    const int w = r.in.width, h = r.in.height;
    // A column kernel over one plane reads the source rows where they lie: no margin to add.
    const bool inPlace = left == 0 && right == 0 && r.in.channels == 1;
    forOutputRows(r, r.kh, w + r.kw - 1, r.k, r.kw, r.kh, [&](RowRing& ring, int c, int y, const double** rows) {
        for (int v = 0; v < r.kh; ++v) {
            const long long p = static_cast<long long>(y) - r.ay + v;
            const int sy = borderIndex(p, h, r.border);
            if (inPlace && sy >= 0) {
                rows[v] = r.in.data + static_cast<std::size_t>(sy) * w;
                continue;
            }
            rows[v] = ring.row(p, [&](long long, double* dst) { padRow(r, c, sy, left, right, dst); });
        }
    });
}

void runSeparable64(const Run64& r, const double* column, const double* row)
{
    const int left = r.ax, right = r.kw - 1 - r.ax;
    const int w = r.in.width, h = r.in.height;
    const RowKernels64& rk = rowKernels64();
    // Each worker's padded source row, filtered along x into the ring's row (thread_local: the
    // ring's fill runs on the worker's thread).
    forOutputRows(r, r.kh, w, column, 1, r.kh, [&](RowRing& ring, int c, int y, const double** rows) {
        thread_local std::vector<double> padded;
        padded.resize(static_cast<std::size_t>(w) + r.kw - 1);
        for (int v = 0; v < r.kh; ++v) {
            const long long p = static_cast<long long>(y) - r.ay + v;
            rows[v] = ring.row(p, [&](long long, double* dst) {
                padRow(r, c, borderIndex(p, h, r.border), left, right, padded.data());
                const double* source = padded.data();
                rk.correlate(&source, row, r.kw, 1, w, dst);
            });
        }
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
