// SPDX-License-Identifier: GPL-3.0-or-later
// The host-side rules of the CUDA launches, with no CUDA type in them, so that they compile in
// every build and tests/test_gpu_launchplan.cpp checks them on the CPU:
// - which direct kernel runs for a kernel shape on a device, and the layout of the taps it reads
//   (one plan that both the session's upload and kernels.cu's launch follow: the two cannot
//   disagree about the row stride, as they did when directGlobal read an unpadded stride from
//   the buffer padded for the tiled kernel);
// - the launch geometry (grid, block, shared bytes) of every kernel of kernels.cu, so that the
//   device's limits (grid y and z <= 65535, blocks <= 1024 threads) are checked for the largest
//   image the engine accepts;
// - whether a tiled block may store its outputs as 16-byte vectors into a given output.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fftlayout.h"
#include "tiles.h"

namespace convlab::cuda {

// Largest kernel (in values) kept in __constant__ memory.
constexpr int kConstantKernelValues = 16384;
// Shared memory a block may take without opting in (directShared, rowPass).
constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

struct Dims {
    long long x = 1, y = 1, z = 1;
};
struct LaunchShape {
    Dims grid, block;
    std::size_t sharedBytes = 0;
};

// What a launch may ask of a device (CUDA's limits for compute capability 7.5 to 9.0, and the
// device's opt-in shared memory a block).
struct DeviceLimits {
    long long maxGridX = 2147483647, maxGridY = 65535, maxGridZ = 65535;
    long long maxBlockThreads = 1024;
    std::size_t sharedOptinBytes = kDefaultSharedBytes;
};
// Empty when `l` fits `d`, else what exceeds which limit.
std::string launchProblem(const LaunchShape& l, const DeviceLimits& d);

// The direct kernels: tiled (tiles.h), one output a thread with the taps in shared memory (from
// constant memory or staged from the buffer), or every tap read from the buffer.
enum class DirectKernel { Tiled, SharedConstant, SharedStaged, Global };
const char* directKernelName(DirectKernel k);

// Where and how the taps lie for the kernel that runs: kh rows of rowStride values (kw taps,
// then zeros), in constant memory or in the session's kernel buffer.
struct KernelLayout {
    int rowStride = 0, rows = 0;
    bool constantMemory = false;
    bool operator==(const KernelLayout&) const = default;
};

struct DirectPlan {
    DirectKernel kernel = DirectKernel::Global;
    TiledGrid grid = TiledGrid::BlockPerTile; // the tiled candidate that runs (Tiled only)
    tiled::Shape shape;                       // its shared-memory layout (Tiled only)
    KernelLayout layout;
    LaunchShape launch;
};

// The plan for `g` with `requested` as the tiled candidate on a device whose blocks may have
// `sharedOptinBytes` of shared memory. A candidate whose tile does not fit runs the default's
// tile; a tile that does not fit at all runs the one-output-a-thread kernels.
DirectPlan directPlanFor(const Geometry& g, TiledGrid requested, std::size_t sharedOptinBytes);

// The layout a direct kernel reads its taps in (the device code takes rowStride from the plan;
// this is the rule it was written for).
KernelLayout layoutReadBy(DirectKernel k, const Geometry& g);

// The values to upload for `plan`: the kw x kh taps (row-major) laid out as plan.layout says.
std::vector<float> laidOutTaps(const KernelLayout& layout, const float* taps, int kw, int kh);

// Launch geometry of each kernel of kernels.cu for the geometry `g` (persistent grids: at most
// `residentBlocks` blocks).
LaunchShape tiledLaunch(const Geometry& g, const tiled::Shape& s, std::size_t sharedBytes);
LaunchShape persistentLaunch(const Geometry& g, std::size_t sharedBytes, int residentBlocks);
LaunchShape directSimpleLaunch(const Geometry& g, std::size_t sharedBytes);
LaunchShape unpackLaunch(int w, int h, int channels);
// The row pass's padded rows (h + kh - 1) are folded into grid y: a block takes rows
// blockIdx.y, blockIdx.y + gridDim.y, ...
LaunchShape rowPassLaunch(const Geometry& g);
long long rowPassRows(const Geometry& g);
LaunchShape colPassLaunch(const Geometry& g);
LaunchShape padEmbedLaunch(const Geometry& g, const FftLayout& l, bool quads);
LaunchShape cropLaunch(const Geometry& g, bool quads);
LaunchShape scatterLaunch(int kw, int kh);
LaunchShape gridStrideLaunch(long long n, long long maxBlocks); // spectrum product, fill, differences
LaunchShape transferLaunch(long long n);                        // gather, scatter, non-finite flag

// Threads of the row pass's block (the segment it stages is kRowThreads + kw - 1 values).
inline constexpr int kRowThreads = 128;
// Threads of the one-output-a-thread direct kernels' block.
inline constexpr int kDirectTileX = 32, kDirectTileY = 8;

} // namespace convlab::cuda
