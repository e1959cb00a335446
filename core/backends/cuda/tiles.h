// SPDX-License-Identifier: GPL-3.0-or-later
// The index and arithmetic code of the GPU's tiled kernels, written as plain inline functions
// that compile for the device and for the host alike. kernels.cu wraps them in __global__
// functions; tests/test_gpu_tiles.cpp runs the same functions block by block on the CPU, so the
// tiling, alignment and border logic is checked on every machine, GPU or not.
//
// Tiled direct convolution: a block of kThreadsX x kThreadsY threads computes a
// kBlockW x kBlockH tile of outputs, each thread a kOutX x kOutY patch. The input tile with its
// halo is staged in shared memory as 16-byte vectors (loaded as vectors straight from the image
// when the tile lies inside it, through borderIndex element by element otherwise), the kernel
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

// The tiled direct kernel's candidates (kVariants below, launchers.h tiledVariants): the grid of
// blocks and how each block loads and covers its tile. Every one computes every output with the
// same sums in the same order (computePatch, storePatch), so all give the same bits; the session
// times them and keeps the fastest whose outputs are those of BlockPerTile (session.cu,
// chooseTiledGrid).
enum class TiledGrid { BlockPerTile, Persistent, Edges, Occ6, EdgesOcc6, Tall, Edges8 };

namespace tiled {

constexpr int kThreadsX = 32, kThreadsY = 8, kThreads = kThreadsX * kThreadsY;
constexpr int kOutX = 4, kOutY = 4;
constexpr int kBlockW = kThreadsX * kOutX, kBlockH = kThreadsY * kOutY; // 128 x 32 outputs

// The shared-memory layout for one kernel shape.
struct Shape {
    int m = 0;     // (-ax) mod 4: where a thread's first tap sits inside its first vector
    int left = 0;  // ax + m: tile columns left of the block's first output (a multiple of 4)
    int kwp = 0;   // kernel width padded to a multiple of 4
    int tw4 = 0;   // vectors per tile row
    int th = 0;    // tile rows
    int kh = 0;
    int patchesY = 1; // kOutY x kOutX patches per thread, stacked kBlockH rows apart (Variant)
    int blockH = kBlockH; // output rows per block: kBlockH * patchesY
    bool vectorStores = false; // storePatch's 16-byte stores (vectorStoresFor, set by the launcher)
};

CONVLAB_HD Shape shapeFor(const Geometry& g, int patchesY = 1)
{
    Shape s;
    s.patchesY = patchesY;
    s.blockH = kBlockH * patchesY;
    s.m = (4 - g.ax % 4) % 4;
    s.left = g.ax + s.m;
    s.kwp = (g.kw + 3) / 4 * 4;
    // Thread tx reads vectors tx .. tx + kwp/4 + 1 of a row (a window of three, sliding by one).
    s.tw4 = kThreadsX + s.kwp / 4 + 1;
    s.th = s.blockH + g.kh - 1;
    s.kh = g.kh;
    return s;
}

// Vectors of shared memory a block needs: the tile, then the padded kernel.
CONVLAB_HD int sharedVectors(const Shape& s) { return s.th * s.tw4 + s.kh * s.kwp / 4; }

// Whether the block's whole input tile lies inside the image with 16-byte aligned rows, so it is
// loaded as vectors with no border logic.
CONVLAB_HD bool interior(const Geometry& g, const Shape& s, int x0, int y0)
{
    const long long tx0 = static_cast<long long>(x0) - s.left, ty0 = static_cast<long long>(y0) - g.ay;
    return g.w % 4 == 0 && tx0 >= 0 && tx0 + 4LL * s.tw4 <= g.w && ty0 >= 0 && ty0 + s.th <= g.h;
}

// Thread `tid`'s share of loading the tile of the block whose first output is (x0, y0) and of
// staging the padded kernel (kh rows of kwp values). Call on every thread, then synchronise.
CONVLAB_HD void loadTile(const float* __restrict__ plane, const float* __restrict__ paddedKernel, Vec4* tile,
                         const Geometry& g, const Shape& s, int x0, int y0, int tid)
{
    const int n = s.th * s.tw4;
    if (interior(g, s, x0, y0)) {
        const int stride = g.w / 4;
        const Vec4* src = reinterpret_cast<const Vec4*>(plane + static_cast<size_t>(y0 - g.ay) * g.w + (x0 - s.left));
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
                    v[k] = src[static_cast<size_t>(r) * stride + (i - r * s.tw4)];
                }
            }
#if defined(__CUDACC__)
#pragma unroll
#endif
            for (int k = 0; k < 4; ++k)
                if (i0 + k * kThreads < n) tile[i0 + k * kThreads] = v[k];
        }
    } else {
        float* t = reinterpret_cast<float*>(tile);
        const int rowValues = 4 * s.tw4;
        for (int i = tid; i < 4 * n; i += kThreads) {
            const int r = i / rowValues, e = i - r * rowValues;
            const int sy = borderIndex(static_cast<long long>(y0) - g.ay + r, g.h, g.mode);
            const int sx = borderIndex(static_cast<long long>(x0) - s.left + e, g.w, g.mode);
            t[i] = (sy < 0 || sx < 0) ? g.cval : plane[static_cast<size_t>(sy) * g.w + sx];
        }
    }
    float* k = reinterpret_cast<float*>(tile + n);
    for (int i = tid; i < s.kh * s.kwp; i += kThreads) k[i] = paddedKernel[i];
}

// The tile's vectors that are whole aligned image vectors on every row: tile row vectors
// [first, end). A tile vector's four columns start at x0 - left + 4e, a multiple of 4, so with
// w % 4 == 0 they lie all inside the image or all outside; with w % 4 != 0 rows are not 16-byte
// aligned and the range is empty.
struct VectorColumns {
    int first = 0, end = 0;
};
CONVLAB_HD VectorColumns vectorColumns(const Geometry& g, const Shape& s, int x0)
{
    VectorColumns c;
    if (g.w % 4 != 0) return c;
    const int tx0 = x0 - s.left; // > -4 * tw4 and < w
    c.first = tx0 < 0 ? (-tx0 / 4 < s.tw4 ? -tx0 / 4 : s.tw4) : 0;
    const int inside = (g.w - tx0) / 4; // vectors up to the image's right edge
    c.end = inside < c.first ? c.first : inside > s.tw4 ? s.tw4 : inside;
    return c;
}

// Shared memory of loadTileByVectors: the tile and kernel (sharedVectors), then the row map
// (mapTileRows), th ints rounded up to whole vectors.
CONVLAB_HD int sharedVectorsWithRowMap(const Shape& s) { return sharedVectors(s) + (s.th + 3) / 4; }
CONVLAB_HD int* rowMapOf(Vec4* tile, const Shape& s) { return reinterpret_cast<int*>(tile + sharedVectors(s)); }

// Thread `tid`'s share of the row map: the image row (borderIndex, -1 for Constant's outside)
// that each tile row reads. Call on every thread, then synchronise, then loadTileByVectors.
// Kept out of the loads' loop: borderIndex's periodic rules take 64-bit remainders, whose
// inlined code there took the loads' kernel from 48 to 64-70 registers.
CONVLAB_HD void mapTileRows(Vec4* tile, const Geometry& g, const Shape& s, int y0, int tid)
{
    int* rows = rowMapOf(tile, s);
    for (int r = tid; r < s.th; r += kThreads) rows[r] = borderIndex(static_cast<long long>(y0) - g.ay + r, g.h, g.mode);
}

// loadTile's values (so the sums, and their bits, are the same) with vector loads on every
// block, not only on those inside the image. loadTile's border path runs one dependent scalar
// load at a time through borderIndex for the whole tile of every block touching an edge (316 of
// the 4096 blocks of a 4096^2 image, 156 of 1024 at 2048^2), which the last wave then waits on.
// Here a row the border rule maps into the image is read as vectors from the mapped row, a row
// outside under Constant is the constant, InFlight loads a thread before the first store; then
// only the vectors left and right of the image (the columns' border) go element by element.
template <int InFlight>
CONVLAB_HD void loadTileByVectors(const float* __restrict__ plane, const float* __restrict__ paddedKernel, Vec4* tile,
                                  const Geometry& g, const Shape& s, int x0, int tid)
{
    const int n = s.th * s.tw4;
    const int* rows = rowMapOf(tile, s);
    const VectorColumns vc = vectorColumns(g, s, x0);
    const int tx0 = x0 - s.left;
    if (vc.end > vc.first) {
        for (int i0 = tid; i0 < n; i0 += InFlight * kThreads) {
            Vec4 v[InFlight];
            bool whole[InFlight];
#if defined(__CUDACC__)
#pragma unroll
#endif
            for (int k = 0; k < InFlight; ++k) {
                const int i = i0 + k * kThreads, r = i / s.tw4, e = i - r * s.tw4;
                whole[k] = i < n && e >= vc.first && e < vc.end;
                if (whole[k]) {
                    const int sy = rows[r];
                    if (sy >= 0) {
                        v[k] = *reinterpret_cast<const Vec4*>(plane + static_cast<size_t>(sy) * g.w + (tx0 + 4 * e));
                    } else {
                        v[k].x = v[k].y = v[k].z = v[k].w = g.cval;
                    }
                }
            }
#if defined(__CUDACC__)
#pragma unroll
#endif
            for (int k = 0; k < InFlight; ++k)
                if (whole[k]) tile[i0 + k * kThreads] = v[k];
        }
    }
    // The vectors outside [first, end) of each row: `left` of them before, the rest after.
    const int left = vc.first, perRow = s.tw4 - (vc.end - vc.first);
    float* t = reinterpret_cast<float*>(tile);
    for (int i = tid; i < s.th * perRow; i += kThreads) {
        const int r = i / perRow, q = i - r * perRow, e = q < left ? q : vc.end + (q - left);
        const int sy = rows[r];
        float f[4];
        for (int k = 0; k < 4; ++k) {
            const int sx = borderIndex(static_cast<long long>(tx0) + 4 * e + k, g.w, g.mode);
            f[k] = (sy < 0 || sx < 0) ? g.cval : plane[static_cast<size_t>(sy) * g.w + sx];
        }
        for (int k = 0; k < 4; ++k) t[4 * (r * s.tw4 + e) + k] = f[k];
    }
    float* k = reinterpret_cast<float*>(tile + n);
    for (int i = tid; i < s.kh * s.kwp; i += kThreads) k[i] = paddedKernel[i];
}

CONVLAB_HD float lane(const Vec4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

// Thread (tx, ty)'s kOutY x kOutX outputs from the staged tile and kernel; M is Shape::m.
template <int M>
CONVLAB_HD void computePatch(const Vec4* tile, const Shape& s, int tx, int ty, float acc[kOutY][kOutX])
{
    const Vec4* kernel = tile + s.th * s.tw4;
    const int nq = s.kwp / 4;
#if defined(__CUDACC__)
#pragma unroll
#endif
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
        acc[r][0] = a0;
        acc[r][1] = a1;
        acc[r][2] = a2;
        acc[r][3] = a3;
    }
}

// The blocks' tiles. One block per tile: block (bx, by, c) takes the tile at (bx * kBlockW,
// by * kBlockH) of channel c. A persistent grid instead starts as many blocks as the device keeps
// resident at once, and block b takes tiles b, b + blocks, b + 2 blocks, ... of the order below,
// so no block is launched per tile and no partial last wave waits on a few blocks. Consecutive
// tiles are neighbours along x within a channel, so blocks resident together share halo rows
// in L2.
struct TilePosition {
    int x0 = 0, y0 = 0, c = 0;
};
CONVLAB_HD int tilesAcross(const Geometry& g) { return (g.w + kBlockW - 1) / kBlockW; }
CONVLAB_HD int tilesDown(const Geometry& g) { return (g.h + kBlockH - 1) / kBlockH; }
CONVLAB_HD int tilesDown(const Geometry& g, const Shape& s) { return (g.h + s.blockH - 1) / s.blockH; }
CONVLAB_HD int tileCount(const Geometry& g) { return tilesAcross(g) * tilesDown(g) * g.channels; }
CONVLAB_HD TilePosition tileAt(const Geometry& g, int i)
{
    const int across = tilesAcross(g), perChannel = across * tilesDown(g);
    TilePosition t;
    t.c = i / perChannel;
    const int j = i - t.c * perChannel, row = j / across;
    t.y0 = row * kBlockH;
    t.x0 = (j - row * across) * kBlockW;
    return t;
}

// Whether outputs may be stored as 16-byte vectors into the planes starting at `out`: rows of a
// multiple of 4 values (so every plane and row starts 4 values apart) and a 16-byte aligned first
// value. The caller's output= array may start at any 4-byte offset (a view into a larger buffer);
// a misaligned vector store there is a sticky error that ends the process's CUDA context.
CONVLAB_HD bool vectorStoresFor(const Geometry& g, std::uintptr_t out) { return g.w % 4 == 0 && out % 16 == 0; }

// Writes thread (tx, ty)'s patch of the block at (x0, y0), scaled and offset, clipped to the
// image; as vectors when `vectorStores` (vectorStoresFor), value by value otherwise.
CONVLAB_HD void storePatch(float* __restrict__ plane, const Geometry& g, bool vectorStores, int x0, int y0, int tx,
                           int ty, const float acc[kOutY][kOutX])
{
    const int x = x0 + tx * kOutX;
    if (x >= g.w) return;
    for (int r = 0; r < kOutY; ++r) {
        const int y = y0 + ty * kOutY + r;
        if (y >= g.h) return;
        float* o = plane + static_cast<size_t>(y) * g.w + x;
        if (vectorStores) { // x is a multiple of 4, so the whole vector is inside and aligned
            Vec4 v;
            v.x = fmaf(g.scale, acc[r][0], g.offset);
            v.y = fmaf(g.scale, acc[r][1], g.offset);
            v.z = fmaf(g.scale, acc[r][2], g.offset);
            v.w = fmaf(g.scale, acc[r][3], g.offset);
            *reinterpret_cast<Vec4*>(o) = v;
        } else {
            for (int c = 0; c < kOutX && x + c < g.w; ++c) o[c] = fmaf(g.scale, acc[r][c], g.offset);
        }
    }
}

// How a candidate loads and covers its tiles; its kernel is directTiledVariant (kernels.cu) with
// these as template arguments, simulated the same way by tests/test_gpu_tiles.cpp.
struct Variant {
    int patchesY = 1;        // patches per thread, kBlockH rows apart (Shape::patchesY)
    int inFlight = 0;        // 0: loadTile; n: loadTileByVectors<n>
    int minBlocks = 0;       // __launch_bounds__' blocks per SM: at most 65536 / (256 n) registers a thread
    bool persistent = false; // directTiledPersistent's grid (tileAt) instead of one block per tile
};

struct VariantRow {
    TiledGrid grid;
    const char* name; // CONVLAB_GPU_TILED_GRID's value, and the name in kernelChoices()
    Variant v;
};

// The candidates, the default first. What each aims at (runs 2 and 3 of
// tests/gpu/results/NOTES.md: 3x3 at 4096^2 reached 44% of the copy rate with 48 registers,
// 5 blocks per SM, DRAM 37% busy). minBlocks 0 leaves ptxas its own choice (48 registers for
// loadTile); 1 would let it take 64.
// - block: one block per 128 x 32 tile, as measured.
// - persistent: resident blocks looping over tiles (measured slower on an H200; kept as the
//   forced grid of the sanitizer runs).
// - edges: every block's tile as vectors (loadTileByVectors), four loads in flight a thread, so
//   the blocks on the image's edges stop trailing the last wave; capped at 48 registers (it
//   takes 52-58 uncapped) to keep block's 5 blocks per SM.
// - occ6, edges-occ6: registers capped at 40 for 6 blocks per SM (75% occupancy), more loads
//   in flight per SM, at the cost of a few spilled values for some alignments.
// - tall: 128 x 64 tiles, two patches a thread: half the blocks and barriers, 6% fewer halo
//   rows re-read at 3x3, twice the loads per block before its barrier; 48 registers.
// - edges8: edges with eight loads in flight a thread and 64 registers (4 blocks per SM): 60%
//   more bytes in flight per SM than block's 5 x 4.
inline constexpr VariantRow kVariants[] = {
    {TiledGrid::BlockPerTile, "block", {1, 0, 0, false}},
    {TiledGrid::Persistent, "persistent", {1, 0, 0, true}},
    {TiledGrid::Edges, "edges", {1, 4, 5, false}},
    {TiledGrid::Occ6, "occ6", {1, 0, 6, false}},
    {TiledGrid::EdgesOcc6, "edges-occ6", {1, 4, 6, false}},
    {TiledGrid::Tall, "tall", {2, 4, 5, false}},
    {TiledGrid::Edges8, "edges8", {1, 8, 4, false}},
};
inline constexpr int kVariantCount = sizeof kVariants / sizeof kVariants[0];

constexpr Variant variantOf(TiledGrid grid)
{
    for (const VariantRow& row : kVariants)
        if (row.grid == grid) return row.v;
    return {};
}

// Each grid once, in the enum's order (the launcher's switch and the session's list rely on it).
constexpr bool variantsListEveryGridOnce()
{
    for (int i = 0; i < kVariantCount; ++i)
        if (static_cast<int>(kVariants[i].grid) != i) return false;
    return kVariants[kVariantCount - 1].grid == TiledGrid::Edges8;
}
static_assert(variantsListEveryGridOnce(), "tiled::kVariants: one row per TiledGrid, in order, default first");

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
