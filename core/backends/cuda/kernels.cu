// SPDX-License-Identifier: GPL-3.0-or-later
// CUDA kernels of the three methods. The border maths is convlab/border.h, the same header the
// CPU uses, so the backends differ only in their loops.
#include <algorithm>
#include <cstdint>

#include "cudacheck.h"
#include "convlab/error.h"
#include "launchers.h"

namespace convlab::cuda {
namespace {

__constant__ float cKernel[kConstantKernelValues];

constexpr int kTileX = kDirectTileX, kTileY = kDirectTileY;

dim3 dimsOf(const Dims& d) { return dim3(static_cast<unsigned>(d.x), static_cast<unsigned>(d.y), static_cast<unsigned>(d.z)); }

__device__ __forceinline__ float fetch(const float* plane, int w, int h, long long y, long long x, const Geometry& g)
{
    const int sy = borderIndex(y, h, g.mode), sx = borderIndex(x, w, g.mode);
    return (sy < 0 || sx < 0) ? g.cval : __ldg(plane + static_cast<size_t>(sy) * w + sx);
}

// One block: kTileX x kTileY outputs; the input tile with its halo goes to shared memory once,
// with the border rule applied while loading. The kernel comes from constant memory, or is
// staged into shared memory after the tile when it is too large for constant memory.
// `kstride`: the taps' row stride (launchplan.h, the plan's KernelLayout; the session uploads them so).
template <bool kConstant>
__global__ void directShared(const float* __restrict__ in, float* __restrict__ out, Geometry g,
                             const float* __restrict__ gk, int kstride)
{
    extern __shared__ float tile[];
    const int tw = kTileX + g.kw - 1, th = kTileY + g.kh - 1;
    const int c = blockIdx.z;
    const float* src = in + static_cast<size_t>(c) * g.w * g.h;
    const int x0 = blockIdx.x * kTileX, y0 = blockIdx.y * kTileY;
    for (int i = threadIdx.y * kTileX + threadIdx.x; i < tw * th; i += kTileX * kTileY) {
        const int ty = i / tw, tx = i - ty * tw;
        tile[i] = fetch(src, g.w, g.h, static_cast<long long>(y0) + ty - g.ay, static_cast<long long>(x0) + tx - g.ax, g);
    }
    float* staged = tile + tw * th;
    if (!kConstant)
        for (int i = threadIdx.y * kTileX + threadIdx.x; i < kstride * g.kh; i += kTileX * kTileY) staged[i] = __ldg(gk + i);
    __syncthreads();
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= g.w || y >= g.h) return;
    float acc = 0.0f;
    const float* t = tile + threadIdx.y * tw + threadIdx.x;
    for (int v = 0; v < g.kh; ++v) {
        const float* kr = (kConstant ? cKernel : staged) + v * kstride;
        const float* tr = t + v * tw;
        for (int u = 0; u < g.kw; ++u) acc = fmaf(kr[u], tr[u], acc);
    }
    out[static_cast<size_t>(c) * g.w * g.h + static_cast<size_t>(y) * g.w + x] = fmaf(g.scale, acc, g.offset);
}

// Kernels too large for a shared tile: every tap read through the L1/L2 caches.
__global__ void directGlobal(const float* __restrict__ in, float* __restrict__ out, Geometry g,
                             const float* __restrict__ gk, int kstride)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= g.w || y >= g.h) return;
    const float* src = in + static_cast<size_t>(c) * g.w * g.h;
    float acc = 0.0f;
    for (int v = 0; v < g.kh; ++v)
        for (int u = 0; u < g.kw; ++u)
            acc = fmaf(__ldg(gk + v * kstride + u),
                       fetch(src, g.w, g.h, static_cast<long long>(y) - g.ay + v, static_cast<long long>(x) - g.ax + u, g), acc);
    out[static_cast<size_t>(c) * g.w * g.h + static_cast<size_t>(y) * g.w + x] = fmaf(g.scale, acc, g.offset);
}

template <int M>
__global__ void __launch_bounds__(tiled::kThreads) directTiled(const float* __restrict__ in, float* __restrict__ out,
                                                              Geometry g, tiled::Shape s, const float* __restrict__ k)
{
    extern __shared__ float4 staged[];
    const size_t plane = static_cast<size_t>(g.w) * g.h * blockIdx.z;
    const int x0 = blockIdx.x * tiled::kBlockW, y0 = blockIdx.y * tiled::kBlockH;
    tiled::loadTile(in + plane, k, staged, g, s, x0, y0, threadIdx.y * tiled::kThreadsX + threadIdx.x);
    __syncthreads();
    float acc[tiled::kOutY][tiled::kOutX];
    tiled::computePatch<M>(staged, s, threadIdx.x, threadIdx.y, acc);
    tiled::storePatch(out + plane, g, s.vectorStores, x0, y0, threadIdx.x, threadIdx.y, acc);
}

// The same tiles on a persistent grid (tiles.h, tileAt): each block loops over its share.
template <int M>
__global__ void __launch_bounds__(tiled::kThreads) directTiledPersistent(const float* __restrict__ in,
                                                                        float* __restrict__ out, Geometry g,
                                                                        tiled::Shape s, const float* __restrict__ k)
{
    extern __shared__ float4 staged[];
    const int tiles = tiled::tileCount(g), tid = threadIdx.y * tiled::kThreadsX + threadIdx.x;
    for (int i = blockIdx.x; i < tiles; i += gridDim.x) {
        const tiled::TilePosition t = tiled::tileAt(g, i);
        const size_t plane = static_cast<size_t>(g.w) * g.h * t.c;
        tiled::loadTile(in + plane, k, staged, g, s, t.x0, t.y0, tid);
        __syncthreads();
        float acc[tiled::kOutY][tiled::kOutX];
        tiled::computePatch<M>(staged, s, threadIdx.x, threadIdx.y, acc);
        tiled::storePatch(out + plane, g, s.vectorStores, t.x0, t.y0, threadIdx.x, threadIdx.y, acc);
        __syncthreads(); // the tile is read by every thread before the next one overwrites it
    }
}

// A candidate of tiles.h's kVariants on one block per tile: the tile loaded by loadTile
// (InFlight 0) or loadTileByVectors, then the thread's PatchesY patches, kBlockH rows apart,
// each summed and stored before the next (their 16 accumulators reused). MinBlocks caps the
// registers through __launch_bounds__.
// Blocks of 256 threads an SM holds at most on the architecture being compiled: 1024 threads on
// Turing, 1536 or 2048 from Ampere on. A larger MinBlocks is not a register cap ptxas can meet.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kTiledBlocksPerSm = 4;
#else
constexpr int kTiledBlocksPerSm = 6;
#endif

template <int M, int PatchesY, int InFlight, int MinBlocks>
__global__ void __launch_bounds__(tiled::kThreads, MinBlocks < kTiledBlocksPerSm ? MinBlocks : kTiledBlocksPerSm)
    directTiledVariant(const float* __restrict__ in, float* __restrict__ out, Geometry g, tiled::Shape s,
                       const float* __restrict__ k)
{
    extern __shared__ float4 staged[];
    const size_t plane = static_cast<size_t>(g.w) * g.h * blockIdx.z;
    const int x0 = blockIdx.x * tiled::kBlockW, y0 = blockIdx.y * (tiled::kBlockH * PatchesY);
    const int tid = threadIdx.y * tiled::kThreadsX + threadIdx.x;
    if constexpr (InFlight == 0) {
        tiled::loadTile(in + plane, k, staged, g, s, x0, y0, tid);
    } else {
        tiled::mapTileRows(staged, g, s, y0, tid);
        __syncthreads();
        tiled::loadTileByVectors<InFlight>(in + plane, k, staged, g, s, x0, tid);
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < PatchesY; ++p) {
        float acc[tiled::kOutY][tiled::kOutX];
        tiled::computePatch<M>(staged, s, threadIdx.x, threadIdx.y + p * tiled::kThreadsY, acc);
        tiled::storePatch(out + plane, g, s.vectorStores, x0, y0, threadIdx.x, threadIdx.y + p * tiled::kThreadsY, acc);
    }
}

template <class T>
__global__ void unpack(const std::uint8_t* __restrict__ samples, int w, int h, int channels, size_t stride,
                       ChannelOrder order, float* __restrict__ planes)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= w || y >= h) return;
    planes[static_cast<size_t>(c) * w * h + static_cast<size_t>(y) * w + x] =
        unpackSample<T>(samples, w, channels, stride, order.c, c, y, x);
}

// tmp(r, x) = sum_u f[u] * P(r, x + u) for padded rows r in [0, h + kh - 1). The rows may
// outnumber grid y's 65535 (launchplan.h rowPassLaunch): block y takes rows y, y + gridDim.y, ...
__global__ void rowPass(const float* __restrict__ in, float* __restrict__ tmp, Geometry g, const float* __restrict__ f)
{
    extern __shared__ float seg[];
    const int c = blockIdx.z;
    const int ph = g.h + g.kh - 1;
    const int x0 = blockIdx.x * kRowThreads;
    const float* src = in + static_cast<size_t>(c) * g.w * g.h;
    const int len = kRowThreads + g.kw - 1;
    const int x = x0 + threadIdx.x;
    for (int r = blockIdx.y; r < ph; r += gridDim.y) { // the same trips for every thread: barriers stay uniform
        const int sy = borderIndex(static_cast<long long>(r) - g.ay, g.h, g.mode);
        for (int i = threadIdx.x; i < len; i += kRowThreads) {
            const int sx = borderIndex(static_cast<long long>(x0) + i - g.ax, g.w, g.mode);
            seg[i] = (sy < 0 || sx < 0) ? g.cval : __ldg(src + static_cast<size_t>(sy) * g.w + sx);
        }
        __syncthreads();
        if (x < g.w) {
            float acc = 0.0f;
            for (int u = 0; u < g.kw; ++u) acc = fmaf(__ldg(f + u), seg[threadIdx.x + u], acc);
            tmp[(static_cast<size_t>(c) * ph + r) * g.w + x] = acc;
        }
        __syncthreads(); // every thread has read the segment before the next row overwrites it
    }
}

// out(y, x) (+)= sum_v f[v] * tmp(y + v, x): consecutive threads read consecutive x (coalesced).
__global__ void colPass(const float* __restrict__ tmp, float* __restrict__ out, Geometry g, const float* __restrict__ f,
                        bool accumulate, bool last)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= g.w || y >= g.h) return;
    const int ph = g.h + g.kh - 1;
    const float* t = tmp + (static_cast<size_t>(c) * ph + y) * g.w + x;
    float acc = 0.0f;
    for (int v = 0; v < g.kh; ++v) acc = fmaf(__ldg(f + v), t[static_cast<size_t>(v) * g.w], acc);
    float* o = out + static_cast<size_t>(c) * g.w * g.h + static_cast<size_t>(y) * g.w + x;
    float value = accumulate ? *o + acc : acc;
    if (last) value = fmaf(g.scale, value, g.offset);
    *o = value;
}

// One thread per transform input of every batch (grid z = batch: channel x tile).
__global__ void padEmbed(const float* __restrict__ in, float* __restrict__ padded, Geometry g, FftLayout l)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    const int b = blockIdx.z;
    if (j >= l.n1 || i >= l.n0) return;
    padded[(static_cast<size_t>(b) * l.n0 + i) * l.n1 + j] = paddedSample(in, g, l, b, i, j);
}

// The kernel's taps at (-v, -u) modulo the transform size, scaled by `norm`, over a zeroed plane.
__global__ void scatterKernel(const float* __restrict__ k, int kw, int kh, float norm, float* __restrict__ real, int n0,
                              int n1)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kw * kh) return;
    const int v = i / kw, u = i - v * kw;
    real[kernelTapIndex(v, u, n0, n1)] = k[i] * norm;
}

__global__ void spectrumProduct(float2* __restrict__ s, const float2* __restrict__ k, long long perChannel, int channels)
{
    const long long n = perChannel * channels;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const float2 a = s[i], b = __ldg(k + i % perChannel);
        s[i] = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    }
}

__global__ void crop(const float* __restrict__ padded, float* __restrict__ out, Geometry g, FftLayout l)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= g.w || y >= g.h) return;
    out[(static_cast<size_t>(c) * g.h + y) * g.w + x] = fmaf(g.scale, padded[transformIndex(g, l, c, y, x)], g.offset);
}

// fftlayout.h padQuad: four transform inputs a thread, for rows of n1 % 4 == 0 values.
__global__ void padEmbedQuads(const float* __restrict__ in, float* __restrict__ padded, Geometry g, FftLayout l)
{
    const int j = 4 * (blockIdx.x * blockDim.x + threadIdx.x), i = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= l.n1 || i >= l.n0) return;
    padQuad(in, padded, g, l, blockIdx.z, i, j);
}

// fftlayout.h cropQuad: four outputs a thread, for rows of w % 4 == 0 values.
__global__ void cropQuads(const float* __restrict__ padded, float* __restrict__ out, Geometry g, FftLayout l)
{
    const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x), y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= g.w || y >= g.h) return;
    cropQuad(padded, out, g, l, blockIdx.z, y, x);
}

// Non-negative floats order like their bits as unsigned integers, so atomicMax on the bits is a
// float maximum.
__global__ void maxDifference(const float* __restrict__ a, const float* __restrict__ b, long long n,
                              unsigned int* __restrict__ result)
{
    float diff = 0.0f, mag = 0.0f;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const float d = fabsf(a[i] - b[i]);
        diff = fmaxf(diff, d <= 3.402823466e38f ? d : INFINITY); // NaN reads as infinite
        mag = fmaxf(mag, fabsf(b[i]));
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        diff = fmaxf(diff, __shfl_down_sync(0xffffffffu, diff, offset));
        mag = fmaxf(mag, __shfl_down_sync(0xffffffffu, mag, offset));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMax(result, __float_as_uint(diff));
        atomicMax(result + 1, __float_as_uint(mag));
    }
}

__global__ void fill(float* __restrict__ out, long long n, float value)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        out[i] = value;
}

} // namespace

bool uploadConstantKernel(const float* hostValues, int count, cudaStream_t stream)
{
    if (count > kConstantKernelValues) return false;
    check(cudaMemcpyToSymbolAsync(cKernel, hostValues, sizeof(float) * count, 0, cudaMemcpyHostToDevice, stream),
          "kernel upload");
    return true;
}

std::size_t deviceSharedOptinBytes()
{
    // Shared memory a block may have on this device (the opt-in above 48 KB), once.
    static const int optin = [] {
        int dev = 0, bytes = 48 * 1024;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
        cudaGetLastError();
        return bytes;
    }();
    return static_cast<std::size_t>(optin);
}

namespace {

// The one-output-a-thread kernels of a plan (not Tiled), the taps at the plan's row stride.
void launchDirectSimple(const float* in, float* out, const Geometry& g, const DirectPlan& p, const float* deviceKernel,
                        cudaStream_t stream)
{
    const dim3 grid = dimsOf(p.launch.grid), block = dimsOf(p.launch.block);
    const size_t shared = p.launch.sharedBytes;
    const int stride = p.layout.rowStride;
    switch (p.kernel) {
    case DirectKernel::SharedConstant: directShared<true><<<grid, block, shared, stream>>>(in, out, g, deviceKernel, stride); break;
    case DirectKernel::SharedStaged: directShared<false><<<grid, block, shared, stream>>>(in, out, g, deviceKernel, stride); break;
    case DirectKernel::Global: directGlobal<<<grid, block, 0, stream>>>(in, out, g, deviceKernel, stride); break;
    case DirectKernel::Tiled: throw Error("a tiled plan given to the one-output-a-thread launcher");
    }
    check(cudaGetLastError(), "direct launch");
}

} // namespace

namespace {

// Lets `kernel` have up to the device's opt-in shared memory a block (called once per kernel).
template <class Kernel> void allowLargeTiles(Kernel* kernel, int optin)
{
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
    cudaGetLastError();
}

// Blocks of directTiledPersistent<M> the whole device keeps resident with `shared` bytes each.
template <int M> int residentBlocks(size_t shared)
{
    static const int sms = [] {
        int dev = 0, n = 1;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
        return n;
    }();
    int perSm = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, directTiledPersistent<M>, tiled::kThreads, shared),
          "occupancy");
    return std::max(perSm, 1) * sms;
}

template <TiledGrid G, int M>
void launchTiled(const float* in, float* out, const Geometry& g, const DirectPlan& p, const float* paddedKernel,
                 int optin, cudaStream_t stream)
{
    constexpr tiled::Variant v = tiled::variantOf(G);
    tiled::Shape s = p.shape;
    s.vectorStores = tiled::vectorStoresFor(g, reinterpret_cast<std::uintptr_t>(out));
    const size_t shared = p.launch.sharedBytes;
    const dim3 block = dimsOf(p.launch.block), grid = dimsOf(p.launch.grid);
    // One kernel per instantiation of this function: its attribute set on its first launch.
    static const bool allowed = [optin] {
        constexpr tiled::Variant v = tiled::variantOf(G);
        if constexpr (v.persistent)
            allowLargeTiles(directTiledPersistent<M>, optin);
        else if constexpr (G == TiledGrid::BlockPerTile)
            allowLargeTiles(directTiled<M>, optin);
        else
            allowLargeTiles(directTiledVariant<M, v.patchesY, v.inFlight, v.minBlocks>, optin);
        return true;
    }();
    (void)allowed;
    if constexpr (v.persistent) {
        const LaunchShape l = persistentLaunch(g, shared, residentBlocks<M>(shared));
        directTiledPersistent<M><<<dimsOf(l.grid), block, shared, stream>>>(in, out, g, s, paddedKernel);
    } else if constexpr (G == TiledGrid::BlockPerTile) {
        directTiled<M><<<grid, block, shared, stream>>>(in, out, g, s, paddedKernel);
    } else {
        directTiledVariant<M, v.patchesY, v.inFlight, v.minBlocks><<<grid, block, shared, stream>>>(in, out, g, s,
                                                                                                  paddedKernel);
    }
}

template <TiledGrid G>
void launchTiledFor(const float* in, float* out, const Geometry& g, const DirectPlan& p, const float* paddedKernel,
                    int optin, cudaStream_t stream)
{
    switch (p.shape.m) {
    case 0: launchTiled<G, 0>(in, out, g, p, paddedKernel, optin, stream); break;
    case 1: launchTiled<G, 1>(in, out, g, p, paddedKernel, optin, stream); break;
    case 2: launchTiled<G, 2>(in, out, g, p, paddedKernel, optin, stream); break;
    default: launchTiled<G, 3>(in, out, g, p, paddedKernel, optin, stream); break;
    }
}

} // namespace

const std::vector<TiledVariantInfo>& tiledVariants()
{
    static const std::vector<TiledVariantInfo> list = [] {
        std::vector<TiledVariantInfo> out;
        for (const tiled::VariantRow& row : tiled::kVariants) out.push_back({row.name, row.grid});
        return out;
    }();
    return list;
}

void launchDirectPlanned(const float* in, float* out, const Geometry& g, const DirectPlan& p, const float* deviceKernel,
                         cudaStream_t stream)
{
    if (p.kernel != DirectKernel::Tiled) return launchDirectSimple(in, out, g, p, deviceKernel, stream);
    const int optin = static_cast<int>(deviceSharedOptinBytes());
    switch (p.grid) {
    case TiledGrid::BlockPerTile: launchTiledFor<TiledGrid::BlockPerTile>(in, out, g, p, deviceKernel, optin, stream); break;
    case TiledGrid::Persistent: launchTiledFor<TiledGrid::Persistent>(in, out, g, p, deviceKernel, optin, stream); break;
    case TiledGrid::Edges: launchTiledFor<TiledGrid::Edges>(in, out, g, p, deviceKernel, optin, stream); break;
    case TiledGrid::Occ6: launchTiledFor<TiledGrid::Occ6>(in, out, g, p, deviceKernel, optin, stream); break;
    case TiledGrid::EdgesOcc6: launchTiledFor<TiledGrid::EdgesOcc6>(in, out, g, p, deviceKernel, optin, stream); break;
    case TiledGrid::Tall: launchTiledFor<TiledGrid::Tall>(in, out, g, p, deviceKernel, optin, stream); break;
    case TiledGrid::Edges8: launchTiledFor<TiledGrid::Edges8>(in, out, g, p, deviceKernel, optin, stream); break;
    }
    check(cudaGetLastError(), "tiled direct launch");
}

bool launchDirectTiled(const float* in, float* out, const Geometry& g, const float* paddedKernel, TiledGrid grid,
                       cudaStream_t stream)
{
    const DirectPlan p = directPlanFor(g, grid, deviceSharedOptinBytes());
    if (p.kernel != DirectKernel::Tiled) return false;
    launchDirectPlanned(in, out, g, p, paddedKernel, stream);
    return true;
}

void launchUnpack(const std::uint8_t* samples, bool sixteenBit, int w, int h, int channels, size_t strideBytes,
                  ChannelOrder order, float* planes, cudaStream_t stream)
{
    const LaunchShape l = unpackLaunch(w, h, channels);
    const dim3 grid = dimsOf(l.grid), block = dimsOf(l.block);
    if (sixteenBit)
        unpack<std::uint16_t><<<grid, block, 0, stream>>>(samples, w, h, channels, strideBytes, order, planes);
    else
        unpack<std::uint8_t><<<grid, block, 0, stream>>>(samples, w, h, channels, strideBytes, order, planes);
    check(cudaGetLastError(), "unpack launch");
}

void launchRowPass(const float* in, float* tmp, const Geometry& g, const float* rowFactor, cudaStream_t stream)
{
    const LaunchShape l = rowPassLaunch(g);
    if (l.sharedBytes > kDefaultSharedBytes) throw Error("separable row factor too long for the GPU row pass");
    rowPass<<<dimsOf(l.grid), dimsOf(l.block), l.sharedBytes, stream>>>(in, tmp, g, rowFactor);
    check(cudaGetLastError(), "row pass launch");
}

void launchColPass(const float* tmp, float* out, const Geometry& g, const float* colFactor, bool accumulate,
                   bool last, cudaStream_t stream)
{
    const LaunchShape l = colPassLaunch(g);
    colPass<<<dimsOf(l.grid), dimsOf(l.block), 0, stream>>>(tmp, out, g, colFactor, accumulate, last);
    check(cudaGetLastError(), "column pass launch");
}

void launchPadEmbed(const float* in, float* padded, const Geometry& g, const FftLayout& l, cudaStream_t stream)
{
    // Rows of a multiple of 4 values (every power-of-two tile) start 16-byte aligned: four
    // values a thread, one vector store (fftlayout.h padQuad); the same values either way.
    if (l.n1 % 4 == 0 && reinterpret_cast<std::uintptr_t>(padded) % 16 == 0) {
        const LaunchShape q = padEmbedLaunch(g, l, true);
        padEmbedQuads<<<dimsOf(q.grid), dimsOf(q.block), 0, stream>>>(in, padded, g, l);
        check(cudaGetLastError(), "FFT padding launch");
        return;
    }
    const LaunchShape e = padEmbedLaunch(g, l, false);
    padEmbed<<<dimsOf(e.grid), dimsOf(e.block), 0, stream>>>(in, padded, g, l);
    check(cudaGetLastError(), "FFT padding launch");
}

void launchKernelScatter(const float* k, int kw, int kh, float norm, float* real, int n0, int n1, cudaStream_t stream)
{
    check(cudaMemsetAsync(real, 0, sizeof(float) * n0 * n1, stream), "kernel plane clear");
    const LaunchShape l = scatterLaunch(kw, kh);
    scatterKernel<<<dimsOf(l.grid), dimsOf(l.block), 0, stream>>>(k, kw, kh, norm, real, n0, n1);
    check(cudaGetLastError(), "kernel scatter launch");
}

void launchSpectrumProduct(float2* spectra, const float2* kernelSpectrum, long long perChannel, int channels,
                           cudaStream_t stream)
{
    const LaunchShape l = gridStrideLaunch(perChannel * channels, 65535);
    spectrumProduct<<<dimsOf(l.grid), dimsOf(l.block), 0, stream>>>(spectra, kernelSpectrum, perChannel, channels);
    check(cudaGetLastError(), "spectrum product launch");
}

void launchFill(float* out, long long n, float value, cudaStream_t stream)
{
    const LaunchShape l = gridStrideLaunch(n, 65535);
    fill<<<dimsOf(l.grid), dimsOf(l.block), 0, stream>>>(out, n, value);
    check(cudaGetLastError(), "fill launch");
}

void launchMaxDifference(const float* a, const float* b, long long n, float* result, cudaStream_t stream)
{
    check(cudaMemsetAsync(result, 0, 2 * sizeof(float), stream), "difference clear");
    const LaunchShape l = gridStrideLaunch(n, 4096);
    maxDifference<<<dimsOf(l.grid), dimsOf(l.block), 0, stream>>>(a, b, n, reinterpret_cast<unsigned int*>(result));
    check(cudaGetLastError(), "difference launch");
}

void launchCrop(const float* padded, float* out, const Geometry& g, const FftLayout& l, cudaStream_t stream)
{
    // Output rows of a multiple of 4 values: four outputs a thread, one vector store
    // (fftlayout.h cropQuad); the same values either way.
    if (g.w % 4 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
        const LaunchShape q = cropLaunch(g, true);
        cropQuads<<<dimsOf(q.grid), dimsOf(q.block), 0, stream>>>(padded, out, g, l);
        check(cudaGetLastError(), "FFT crop launch");
        return;
    }
    const LaunchShape c = cropLaunch(g, false);
    crop<<<dimsOf(c.grid), dimsOf(c.block), 0, stream>>>(padded, out, g, l);
    check(cudaGetLastError(), "FFT crop launch");
}

} // namespace convlab::cuda
