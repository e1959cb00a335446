// SPDX-License-Identifier: GPL-3.0-or-later
// The launch rules of launchplan.h: plain C++, compiled with or without CUDA.
#include "launchplan.h"

#include <algorithm>

namespace convlab::cuda {
namespace {

long long ceilDiv(long long a, long long b) { return (a + b - 1) / b; }

LaunchShape grid2d(long long w, long long h, long long planes, long long bx, long long by, std::size_t shared = 0)
{
    return {{ceilDiv(w, bx), ceilDiv(h, by), planes}, {bx, by, 1}, shared};
}

std::size_t tiledBytes(TiledGrid grid, const tiled::Shape& s)
{
    const bool rowMap = tiled::variantOf(grid).inFlight > 0;
    return sizeof(Vec4) * static_cast<std::size_t>(rowMap ? tiled::sharedVectorsWithRowMap(s) : tiled::sharedVectors(s));
}

// Bytes of directShared's block: the input tile with its halo, and the taps unless constant.
std::size_t directSharedBytes(const Geometry& g, bool constant)
{
    const std::size_t tile = static_cast<std::size_t>(kDirectTileX + g.kw - 1) * (kDirectTileY + g.kh - 1);
    return sizeof(float) * (tile + (constant ? 0 : static_cast<std::size_t>(g.kw) * g.kh));
}

} // namespace

std::string launchProblem(const LaunchShape& l, const DeviceLimits& d)
{
    const long long threads = l.block.x * l.block.y * l.block.z;
    if (l.grid.x < 1 || l.grid.y < 1 || l.grid.z < 1) return "an empty grid";
    if (l.grid.x > d.maxGridX) return "grid x " + std::to_string(l.grid.x) + " over " + std::to_string(d.maxGridX);
    if (l.grid.y > d.maxGridY) return "grid y " + std::to_string(l.grid.y) + " over " + std::to_string(d.maxGridY);
    if (l.grid.z > d.maxGridZ) return "grid z " + std::to_string(l.grid.z) + " over " + std::to_string(d.maxGridZ);
    if (threads < 1 || threads > d.maxBlockThreads)
        return "a block of " + std::to_string(threads) + " threads (at most " + std::to_string(d.maxBlockThreads) + ")";
    if (l.sharedBytes > d.sharedOptinBytes)
        return std::to_string(l.sharedBytes) + " bytes of shared memory (at most " + std::to_string(d.sharedOptinBytes) +
               ")";
    return {};
}

const char* directKernelName(DirectKernel k)
{
    switch (k) {
    case DirectKernel::Tiled: return "tiled";
    case DirectKernel::SharedConstant: return "shared, constant taps";
    case DirectKernel::SharedStaged: return "shared, staged taps";
    case DirectKernel::Global: return "global";
    }
    return "?";
}

KernelLayout layoutReadBy(DirectKernel k, const Geometry& g)
{
    switch (k) {
    case DirectKernel::Tiled: return {tiled::shapeFor(g).kwp, g.kh, false}; // rows padded to whole vectors
    case DirectKernel::SharedConstant: return {g.kw, g.kh, true};
    case DirectKernel::SharedStaged:
    case DirectKernel::Global: return {g.kw, g.kh, false};
    }
    return {};
}

DirectPlan directPlanFor(const Geometry& g, TiledGrid requested, std::size_t sharedOptinBytes)
{
    DirectPlan p;
    p.grid = requested;
    p.shape = tiled::shapeFor(g, tiled::variantOf(requested).patchesY);
    if (tiledBytes(p.grid, p.shape) > sharedOptinBytes) { // the default's tile gives the same bits
        p.grid = TiledGrid::BlockPerTile;
        p.shape = tiled::shapeFor(g);
    }
    const std::size_t tiledShared = tiledBytes(p.grid, p.shape);
    if (tiledShared <= sharedOptinBytes) {
        p.kernel = DirectKernel::Tiled;
        p.launch = tiledLaunch(g, p.shape, tiledShared);
    } else {
        const bool constant = static_cast<long long>(g.kw) * g.kh <= kConstantKernelValues;
        const std::size_t shared = directSharedBytes(g, constant);
        p.kernel = shared > kDefaultSharedBytes ? DirectKernel::Global
                   : constant                   ? DirectKernel::SharedConstant
                                                : DirectKernel::SharedStaged;
        p.launch = directSimpleLaunch(g, p.kernel == DirectKernel::Global ? 0 : shared);
    }
    p.layout = layoutReadBy(p.kernel, g);
    return p;
}

std::vector<float> laidOutTaps(const KernelLayout& layout, const float* taps, int kw, int kh)
{
    std::vector<float> out(static_cast<std::size_t>(layout.rowStride) * layout.rows, 0.0f);
    for (int v = 0; v < kh && v < layout.rows; ++v)
        std::copy_n(taps + static_cast<std::size_t>(v) * kw, std::min(kw, layout.rowStride),
                    out.begin() + static_cast<std::ptrdiff_t>(v) * layout.rowStride);
    return out;
}

LaunchShape tiledLaunch(const Geometry& g, const tiled::Shape& s, std::size_t sharedBytes)
{
    return {{tiled::tilesAcross(g), tiled::tilesDown(g, s), g.channels}, {tiled::kThreadsX, tiled::kThreadsY, 1},
            sharedBytes};
}

LaunchShape persistentLaunch(const Geometry& g, std::size_t sharedBytes, int residentBlocks)
{
    const long long blocks = std::min<long long>(tiled::tileCount(g), std::max(residentBlocks, 1));
    return {{blocks, 1, 1}, {tiled::kThreadsX, tiled::kThreadsY, 1}, sharedBytes};
}

LaunchShape directSimpleLaunch(const Geometry& g, std::size_t sharedBytes)
{
    return grid2d(g.w, g.h, g.channels, kDirectTileX, kDirectTileY, sharedBytes);
}

LaunchShape unpackLaunch(int w, int h, int channels) { return grid2d(w, h, channels, 32, 8); }

long long rowPassRows(const Geometry& g) { return static_cast<long long>(g.h) + g.kh - 1; }

LaunchShape rowPassLaunch(const Geometry& g)
{
    LaunchShape l = grid2d(g.w, 1, g.channels, kRowThreads, 1, sizeof(float) * (kRowThreads + g.kw - 1));
    l.grid.y = std::min<long long>(rowPassRows(g), 65535); // more rows: each block loops
    return l;
}

LaunchShape colPassLaunch(const Geometry& g) { return grid2d(g.w, g.h, g.channels, 128, 2); }

LaunchShape padEmbedLaunch(const Geometry& g, const FftLayout& l, bool quads)
{
    if (!quads) return grid2d(l.n1, l.n0, l.batch(g.channels), 32, 8);
    const QuadGrid q = quadGrid(l.n1, l.n0, l.batch(g.channels));
    return {{q.x, q.y, q.z}, {kQuadThreadsX, kQuadThreadsY, 1}, 0};
}

LaunchShape cropLaunch(const Geometry& g, bool quads)
{
    if (!quads) return grid2d(g.w, g.h, g.channels, 32, 8);
    const QuadGrid q = quadGrid(g.w, g.h, g.channels);
    return {{q.x, q.y, q.z}, {kQuadThreadsX, kQuadThreadsY, 1}, 0};
}

LaunchShape scatterLaunch(int kw, int kh) { return {{ceilDiv(static_cast<long long>(kw) * kh, 256), 1, 1}, {256, 1, 1}, 0}; }

LaunchShape gridStrideLaunch(long long n, long long maxBlocks)
{
    return {{std::clamp<long long>(ceilDiv(n, 256), 1, maxBlocks), 1, 1}, {256, 1, 1}, 0};
}

LaunchShape transferLaunch(long long n) { return gridStrideLaunch(n, 4096); }

} // namespace convlab::cuda
