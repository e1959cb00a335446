// SPDX-License-Identifier: GPL-3.0-or-later
// How the GPU's FFT method covers an image with transforms, written once for the separate
// passes (kernels.cu: pad, product, crop) and for the cuFFT callbacks that fuse those passes
// into the transforms (fftcallbacks.cu); docs/architecture.md, "GPU FFT layouts".
//
// The padded image P of a channel is the image extended by the border rule: P(y, x) is the
// sample at (y - ay, x - ax) for y < h + kh - 1 and x < w + kw - 1, and zero beyond. With the
// kernel scattered to (-v, -u) modulo the transform size, output (y, x) is the circular
// correlation of P at (y, x), which reads P rows y .. y + kh - 1 only.
//
// A layout is a grid of tilesY x tilesX transforms of n0 x n1 points per channel (overlap-save):
// tile (ty, tx) holds P rows ty*stepY .. ty*stepY + n0 - 1 and columns tx*stepX .. likewise, and
// its results at tile rows i < stepY = n0 - kh + 1 (columns likewise) are outputs
// (ty*stepY + i, tx*stepX + j); the others wrapped around and are dropped. One tile whose sides
// hold the whole padded image is the plane layout. Transform batch b is channel b / tiles,
// tile b % tiles in row-major order.
#pragma once
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "tiles.h"

namespace convlab::cuda {

struct FftLayout {
    int n0 = 0, n1 = 0;         // transform rows and columns
    int tilesY = 1, tilesX = 1; // transforms per channel
    int stepY = 0, stepX = 0;   // outputs per tile: n0 - kh + 1, n1 - kw + 1

    CONVLAB_HD int tiles() const { return tilesY * tilesX; }
    CONVLAB_HD int batch(int channels) const { return channels * tiles(); }
    CONVLAB_HD long long realPer() const { return static_cast<long long>(n0) * n1; }
    CONVLAB_HD long long specPer() const { return static_cast<long long>(n0) * (n1 / 2 + 1); }
    bool operator==(const FftLayout&) const = default;
};

// One n0 x n1 transform per channel; n0 >= h + kh - 1 and n1 >= w + kw - 1.
CONVLAB_HD FftLayout planeLayout(const Geometry& g, int n0, int n1)
{
    return {n0, n1, 1, 1, n0 - g.kh + 1, n1 - g.kw + 1};
}

// Square tiles of `side` points; side must exceed the kernel's extent on both axes.
CONVLAB_HD FftLayout tiledLayout(const Geometry& g, int side)
{
    FftLayout l{side, side, 1, 1, side - g.kh + 1, side - g.kw + 1};
    l.tilesY = (g.h + l.stepY - 1) / l.stepY;
    l.tilesX = (g.w + l.stepX - 1) / l.stepX;
    return l;
}

// The transform input at (batch b, row i, column j): the padded image's sample.
CONVLAB_HD float paddedSample(const float* src, const Geometry& g, const FftLayout& l, int b, int i, int j)
{
    const int c = b / l.tiles(), t = b - c * l.tiles();
    const int ty = t / l.tilesX, tx = t - ty * l.tilesX;
    const long long y = static_cast<long long>(ty) * l.stepY + i, x = static_cast<long long>(tx) * l.stepX + j;
    if (y >= g.h + g.kh - 1 || x >= g.w + g.kw - 1) return 0.0f;
    const int sy = borderIndex(y - g.ay, g.h, g.mode), sx = borderIndex(x - g.ax, g.w, g.mode);
    return (sy < 0 || sx < 0) ? g.cval : src[(static_cast<size_t>(c) * g.h + sy) * g.w + sx];
}

// Where the transform output at (b, i, j) belongs: its index in the channel-planar output, or
// -1 when it wrapped around or lies beyond the image.
CONVLAB_HD long long outputIndex(const Geometry& g, const FftLayout& l, int b, int i, int j)
{
    if (i >= l.stepY || j >= l.stepX) return -1;
    const int c = b / l.tiles(), t = b - c * l.tiles();
    const int ty = t / l.tilesX, tx = t - ty * l.tilesX;
    const long long y = static_cast<long long>(ty) * l.stepY + i, x = static_cast<long long>(tx) * l.stepX + j;
    if (y >= g.h || x >= g.w) return -1;
    return (static_cast<long long>(c) * g.h + y) * g.w + x;
}

// The transform output that output (c, y, x) is read from: its index in the real batch.
CONVLAB_HD long long transformIndex(const Geometry& g, const FftLayout& l, int c, int y, int x)
{
    const int ty = y / l.stepY, tx = x / l.stepX;
    const int b = c * l.tiles() + ty * l.tilesX + tx;
    return (static_cast<long long>(b) * l.n0 + (y - ty * l.stepY)) * l.n1 + (x - tx * l.stepX);
}

// The separate pad and crop passes four values a thread along a row (kernels.cu, padEmbedQuads
// and cropQuads; launchers choose them where the rows they write are 16-byte aligned): the same
// values at the same places as paddedSample and the crop's transformIndex, with one float4
// store instead of four scalar ones, the batch's tile and the border resolved once per four
// values, and the four loads issued together. The threads of a block cover kQuadThreadsX * 4
// columns of kQuadThreadsY rows; quadGrid gives the blocks for `columns` x `rows` x `planes`.
inline constexpr int kQuadThreadsX = 64, kQuadThreadsY = 4;
struct QuadGrid {
    int x = 0, y = 0, z = 0;
};
CONVLAB_HD QuadGrid quadGrid(int columns, int rows, int planes)
{
    const int quads = (columns + 3) / 4;
    return {(quads + kQuadThreadsX - 1) / kQuadThreadsX, (rows + kQuadThreadsY - 1) / kQuadThreadsY, planes};
}

// Transform inputs (b, i, j .. j + 3) into padded, for n1 % 4 == 0 and j a multiple of 4 (so
// j + 3 < n1 and the store is aligned). Where the four columns and the row lie inside the
// image (the padded image's sample at (y, x) is the image's at (y - ay, x - ax)) they are four
// consecutive image values; elsewhere each is paddedSample's.
CONVLAB_HD void padQuad(const float* __restrict__ src, float* __restrict__ padded, const Geometry& g, const FftLayout& l,
                        int b, int i, int j)
{
    const int c = b / l.tiles(), t = b - c * l.tiles();
    const int ty = t / l.tilesX, tx = t - ty * l.tilesX;
    const long long y = static_cast<long long>(ty) * l.stepY + i, x = static_cast<long long>(tx) * l.stepX + j;
    const long long sy = y - g.ay, sx = x - g.ax;
    float v[4];
    if (y < g.h + g.kh - 1 && x + 3 < g.w + g.kw - 1 && sy >= 0 && sy < g.h && sx >= 0 && sx + 3 < g.w) {
        const float* row = src + (static_cast<size_t>(c) * g.h + static_cast<size_t>(sy)) * g.w + static_cast<size_t>(sx);
        for (int k = 0; k < 4; ++k) v[k] = row[k];
    } else {
        for (int k = 0; k < 4; ++k) v[k] = paddedSample(src, g, l, b, i, j + k);
    }
    Vec4 q;
    q.x = v[0];
    q.y = v[1];
    q.z = v[2];
    q.w = v[3];
    *reinterpret_cast<Vec4*>(padded + (static_cast<size_t>(b) * l.n0 + i) * l.n1 + j) = q;
}

// Outputs (c, y, x .. x + 3), scaled and offset, from the inverse transforms' values, for
// w % 4 == 0 and x a multiple of 4. When the four lie in one tile's column range their
// transform values are consecutive; across a tile's edge each is read at its transformIndex.
CONVLAB_HD void cropQuad(const float* __restrict__ padded, float* __restrict__ out, const Geometry& g, const FftLayout& l,
                         int c, int y, int x)
{
    const long long at = transformIndex(g, l, c, y, x);
    const int column = x % l.stepX;
    float v[4];
    if (column + 3 < l.stepX) {
        for (int k = 0; k < 4; ++k) v[k] = padded[at + k];
    } else {
        for (int k = 0; k < 4; ++k) v[k] = padded[transformIndex(g, l, c, y, x + k)];
    }
    Vec4 q;
    q.x = fmaf(g.scale, v[0], g.offset);
    q.y = fmaf(g.scale, v[1], g.offset);
    q.z = fmaf(g.scale, v[2], g.offset);
    q.w = fmaf(g.scale, v[3], g.offset);
    *reinterpret_cast<Vec4*>(out + (static_cast<size_t>(c) * g.h + y) * g.w + x) = q;
}

// Where the kernel's tap (v, u) goes in its n0 x n1 transform input: at (-v, -u) modulo the
// size, so that the product of the spectra is the correlation the outputs are.
CONVLAB_HD long long kernelTapIndex(int v, int u, int n0, int n1)
{
    return static_cast<long long>((n0 - v) % n0) * n1 + (n1 - u) % n1;
}

// A candidate of the FFT layout choice (session.cu, fftChoiceFor): a layout and whether cuFFT's
// callbacks fuse the pad, product and crop passes into its transforms.
struct FftCandidate {
    FftLayout layout;
    bool fused = false;
    bool tiled = false;
};

// Below this many padded points only the plane with separate passes is a candidate: there the
// whole FFT takes well under a millisecond, less than linking a fused plan costs.
inline constexpr double kFftLayoutMinPoints = 4.0 * 1024 * 1024;

// The candidates for an image and kernel whose plane takes n0 x n1 transforms, first the
// reference every other is checked against (the plane, separate passes), then the plane fused
// (when `canFuse`), then overlap-save tiles of power-of-two sides (the sides cuFFT transforms
// fastest, with a kernel spectrum small enough to stay in L2) of at least two kernel extents
// and smaller than the plane: the two sides with the fewest points x log2 points, the first
// also fused. `all` lists them below kFftLayoutMinPoints too (for a forced layout). Fused
// batches stay under 2^31 values (the callbacks' offsets are 32-bit), tiled batches under 65536
// (the launches' grid z).
inline std::vector<FftCandidate> fftCandidates(const Geometry& g, int n0, int n1, bool canFuse, bool all)
{
    std::vector<FftCandidate> out{{planeLayout(g, n0, n1), false, false}};
    if (!all && double(g.h + g.kh - 1) * (g.w + g.kw - 1) < kFftLayoutMinPoints) return out;
    auto fusable = [&](const FftLayout& l) {
        return canFuse && static_cast<double>(l.realPer()) * l.batch(g.channels) < 2147483647.0;
    };
    if (fusable(out[0].layout)) out.push_back({out[0].layout, true, false});
    std::vector<std::pair<double, FftLayout>> tiled;
    for (int side : {256, 512, 1024, 2048}) {
        if (side < 2 * std::max(g.kh, g.kw) || side >= std::max(n0, n1)) continue;
        const FftLayout l = tiledLayout(g, side);
        if (l.batch(g.channels) > 65535) continue;
        const double points = static_cast<double>(l.realPer()) * l.tiles();
        tiled.push_back({points * std::log2(static_cast<double>(l.realPer())), l});
    }
    std::stable_sort(tiled.begin(), tiled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < tiled.size() && i < 2; ++i) {
        out.push_back({tiled[i].second, false, true});
        if (i == 0 && fusable(tiled[i].second)) out.push_back({tiled[i].second, true, true});
    }
    return out;
}

#if defined(__CUDACC__)
// What the fused transforms need on the device (cuFFT's callerInfo): where to read the image,
// the kernel's spectrum at the layout's size (scaled by 1/(n0*n1)) and where to write.
struct FftFusion {
    const float* src = nullptr;
    const float2* kernelSpectrum = nullptr;
    float* out = nullptr;
    Geometry g;
    FftLayout l;
};
#endif

} // namespace convlab::cuda
