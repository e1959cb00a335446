// SPDX-License-Identifier: GPL-3.0-or-later
// The index and arithmetic code of the GPU's tiled kernels, written as plain inline functions
// that compile for the device and for the host alike. kernels.cu wraps them in __global__
// functions; tests/test_gpu_tiles.cpp runs the same functions block by block on the CPU, so the
// tiling, alignment and border logic is checked on every machine, GPU or not.
//
// Tiled direct convolution: a block of kThreadsX x kThreadsY threads computes a
// kBlockW x kBlockH tile of outputs, each thread a kOutX x kOutY patch. The input tile with its
// halo is staged in shared memory as 16-byte vectors (loaded as vectors straight from the image
// when the tile's columns lie inside it, value by value through borderIndex otherwise), the kernel
// next to it with its rows padded to a multiple of 4 with zeros. Per 4 taps of a kernel row a
// thread reads one new vector of the tile and one of the kernel and does 16 FMAs. (The padding
// taps multiply tile values beyond the kernel's reach by zero: only an infinite input value
// there would show, as NaN.)
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "convlab/border.h"

#if defined(__CUDACC__)
#include <vector_types.h>
#endif

namespace convlab::cuda {

// The geometry of one convolution on the device: the image, the correlation-form kernel with its
// anchor, the border rule and the output's scale and offset.
struct Geometry {
    int w = 0, h = 0, channels = 0;
    int kw = 0, kh = 0, ax = 0, ay = 0; // correlation-form kernel and anchor
    BorderMode mode = BorderMode::Constant;
    float cval = 0.0f;
    float scale = 1.0f, offset = 0.0f;
};

#if defined(__CUDACC__)
using Vec4 = float4;
#else
struct alignas(16) Vec4 {
    float x, y, z, w;
};
#endif

namespace tiled {

constexpr int kThreadsX = 32, kThreadsY = 8, kThreads = kThreadsX * kThreadsY;
constexpr int kOutX = 4, kOutY = 4;
constexpr int kBlockW = kThreadsX * kOutX, kBlockH = kThreadsY * kOutY; // 128 x 32 outputs
// The kernel is compiled twice, for 8 resident blocks per multiprocessor (32 registers a
// thread, a 16-byte spill) and for 6 (40 registers, no spill); the session times both on its
// device at first use and keeps the faster (launchers.h, kTiledVariants).
constexpr int kMinBlocksOf[2] = {8, 6};

// The shared-memory layout for one kernel shape.
struct Shape {
    int m = 0;     // (-ax) mod 4: where a thread's first tap sits inside its first vector
    int left = 0;  // ax + m: tile columns left of the block's first output (a multiple of 4)
    int kwp = 0;   // kernel width padded to a multiple of 4
    int tw4 = 0;   // vectors per tile row
    int th = 0;    // tile rows
    int kh = 0;
};

CONVLAB_HD Shape shapeFor(const Geometry& g)
{
    Shape s;
    s.m = (4 - g.ax % 4) % 4;
    s.left = g.ax + s.m;
    s.kwp = (g.kw + 3) / 4 * 4;
    // Thread tx reads vectors tx .. tx + kwp/4 + 1 of a row (a window of three, sliding by one).
    s.tw4 = kThreadsX + s.kwp / 4 + 1;
    s.th = kBlockH + g.kh - 1;
    s.kh = g.kh;
    return s;
}

// Vectors of shared memory a block needs: the tile, the padded kernel, then the row map (the
// source row of each tile row, or -1 for the constant border: th ints).
CONVLAB_HD int sharedVectors(const Shape& s) { return s.th * s.tw4 + s.kh * s.kwp / 4 + (s.th + 3) / 4; }
CONVLAB_HD int* rowMap(Vec4* shared, const Shape& s) { return reinterpret_cast<int*>(shared + s.th * s.tw4 + s.kh * s.kwp / 4); }

// First phase of a block: thread `tid`'s share of the row map and of staging the padded kernel
// (kh rows of kwp values). The border rule runs once per tile row here, not once per load.
CONVLAB_HD void mapRows(const float* __restrict__ paddedKernel, Vec4* shared, const Geometry& g, const Shape& s, int y0,
                        int tid)
{
    int* rows = rowMap(shared, s);
    for (int r = tid; r < s.th; r += kThreads) rows[r] = borderIndex(static_cast<long long>(y0) - g.ay + r, g.h, g.mode);
    float* k = reinterpret_cast<float*>(shared + s.th * s.tw4);
    for (int i = tid; i < s.kh * s.kwp; i += kThreads) k[i] = paddedKernel[i];
}

// Whether the block's input tile spans only columns inside the image, with 16-byte aligned rows:
// it is then loaded as vectors, rows outside mapped through the border rule (top and bottom
// blocks) and rows inside as they are. Blocks at the left and right edges load value by value.
CONVLAB_HD bool vectorColumns(const Geometry& g, const Shape& s, int x0)
{
    const long long tx0 = static_cast<long long>(x0) - s.left;
    return g.w % 4 == 0 && tx0 >= 0 && tx0 + 4LL * s.tw4 <= g.w;
}

// Second phase: thread `tid`'s share of loading the tile of the block whose first output is
// (x0, y0), rows through the row map. Call on every thread after mapRows and a barrier, then
// synchronise again.
CONVLAB_HD void loadTile(const float* __restrict__ plane, Vec4* tile, const Geometry& g, const Shape& s, int x0, int tid)
{
    const int n = s.th * s.tw4;
    const int* rows = rowMap(tile, s);
    if (vectorColumns(g, s, x0)) {
        const int stride = g.w / 4;
        const Vec4* src = reinterpret_cast<const Vec4*>(plane + (x0 - s.left));
        Vec4 fill;
        fill.x = fill.y = fill.z = fill.w = g.cval;
        // Four loads in flight per thread before the first store.
        for (int i0 = tid; i0 < n; i0 += 4 * kThreads) {
            Vec4 v[4];
#if defined(__CUDACC__)
#pragma unroll
#endif
            for (int k = 0; k < 4; ++k) {
                const int i = i0 + k * kThreads;
                if (i < n) {
                    const int r = i / s.tw4;
                    const int sy = rows[r];
                    v[k] = sy < 0 ? fill : src[static_cast<size_t>(sy) * stride + (i - r * s.tw4)];
                }
            }
#if defined(__CUDACC__)
#pragma unroll
#endif
            for (int k = 0; k < 4; ++k)
                if (i0 + k * kThreads < n) tile[i0 + k * kThreads] = v[k];
        }
    } else {
        // Row by row: a warp per row, coalesced scalar loads, the border rule per column.
        float* t = reinterpret_cast<float*>(tile);
        const int rowValues = 4 * s.tw4;
        const int lane = tid % kThreadsX;
        for (int r = tid / kThreadsX; r < s.th; r += kThreadsY) {
            const int sy = rows[r];
            const float* row = plane + static_cast<size_t>(sy < 0 ? 0 : sy) * g.w;
            for (int e = lane; e < rowValues; e += kThreadsX) {
                const int sx = borderIndex(static_cast<long long>(x0) - s.left + e, g.w, g.mode);
                t[r * rowValues + e] = (sy < 0 || sx < 0) ? g.cval : row[sx];
            }
        }
    }
}

// Writes value c of one row of a thread's patch (output row y, columns x .. x+3), scaled and
// offset, clipped to the image; one aligned vector store when rows are 16-byte aligned.
CONVLAB_HD void storeRow(float* __restrict__ plane, const Geometry& g, int x, int y, float a0, float a1, float a2, float a3)
{
    if (x >= g.w || y >= g.h) return;
    float* o = plane + static_cast<size_t>(y) * g.w + x;
    if (g.w % 4 == 0) { // x is a multiple of 4, so the whole vector is inside and aligned
        Vec4 v;
        v.x = fmaf(g.scale, a0, g.offset);
        v.y = fmaf(g.scale, a1, g.offset);
        v.z = fmaf(g.scale, a2, g.offset);
        v.w = fmaf(g.scale, a3, g.offset);
        *reinterpret_cast<Vec4*>(o) = v;
    } else {
        const float a[4] = {a0, a1, a2, a3};
        for (int c = 0; c < kOutX && x + c < g.w; ++c) o[c] = fmaf(g.scale, a[c], g.offset);
    }
}

// Thread (tx, ty)'s kOutY x kOutX outputs of the block at (x0, y0) from the staged tile and
// kernel, each row stored as soon as it is summed (four accumulators live, not sixteen, which
// leaves registers for more resident blocks); M is Shape::m.
template <int M>
CONVLAB_HD void computeAndStorePatch(const Vec4* tile, const Shape& s, const Geometry& g, float* __restrict__ plane, int x0,
                                     int y0, int tx, int ty)
{
    const Vec4* kernel = tile + s.th * s.tw4;
    const int nq = s.kwp / 4;
    for (int r = 0; r < kOutY; ++r) {
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        for (int v = 0; v < s.kh; ++v) {
            const Vec4* t = tile + (ty * kOutY + r + v) * s.tw4 + tx;
            const Vec4* kr = kernel + v * nq;
            Vec4 A = t[0], B = t[1];
            for (int q = 0; q < nq; ++q) {
                const Vec4 C = t[q + 2];
                const float e[12] = {A.x, A.y, A.z, A.w, B.x, B.y, B.z, B.w, C.x, C.y, C.z, C.w};
                const Vec4 k = kr[q];
                const float kv[4] = {k.x, k.y, k.z, k.w};
#if defined(__CUDACC__)
#pragma unroll
#endif
                for (int j = 0; j < 4; ++j) {
                    a0 = fmaf(kv[j], e[M + 0 + j], a0);
                    a1 = fmaf(kv[j], e[M + 1 + j], a1);
                    a2 = fmaf(kv[j], e[M + 2 + j], a2);
                    a3 = fmaf(kv[j], e[M + 3 + j], a3);
                }
                A = B;
                B = C;
            }
        }
        storeRow(plane, g, x0 + tx * kOutX, y0 + ty * kOutY + r, a0, a1, a2, a3);
    }
}

} // namespace tiled

// Unpacking of 8- and 16-bit sources on the device: value i of plane c (row-major, planar) from
// interleaved samples with `channels` per pixel and rows `strideBytes` apart; `order[c]` names
// the sample of a pixel that goes to plane c (e.g. 2, 1, 0 for BGR sources). Values keep their
// integer range (0..255, 0..65535), as the image loaders do.
template <class T>
CONVLAB_HD float unpackSample(const std::uint8_t* __restrict__ samples, int width, int channels, size_t strideBytes,
                              const int order[4], int c, int y, int x)
{
    const T* row = reinterpret_cast<const T*>(samples + static_cast<size_t>(y) * strideBytes);
    return static_cast<float>(row[static_cast<size_t>(x) * channels + order[c]]);
}

} // namespace convlab::cuda
