// SPDX-License-Identifier: GPL-3.0-or-later
// Host launchers of the CUDA kernels (kernels.cu). Pointers are device pointers, planes are
// planar float32; every launch covers all channels at once (grid z = channel).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "fftlayout.h"
#include "launchplan.h"
#include "tiles.h"

namespace convlab::cuda {

// Shared memory a block may have on this device (the opt-in above 48 KB).
std::size_t deviceSharedOptinBytes();

// Copies the correlation-form kernel into constant memory when it fits (returns true).
bool uploadConstantKernel(const float* hostValues, int count, cudaStream_t stream);

// The direct sum as `plan` says (launchplan.h directPlanFor): `deviceKernel` (or constant
// memory, for SharedConstant) holds the taps laid out as plan.layout, laidOutTaps's values.
void launchDirectPlanned(const float* in, float* out, const Geometry& g, const DirectPlan& plan,
                         const float* deviceKernel, cudaStream_t stream);

// Tiled direct sum (tiles.h) with the kernel given as kh rows padded with zeros to a multiple of
// 4 values (tiled::shapeFor(g).kwp). Returns false, launching nothing, when the tile does not fit
// in this device's shared memory (directPlanFor's plan is not Tiled then). `grid`: one of the
// candidates of tiles.h's TiledGrid (one block per tile, a persistent grid, ...: tiled::kVariants
// says what each changes); a candidate whose taller tile does not fit runs the default's tile.
// The outputs are the same bits whichever runs; the session times them once and keeps the fastest.
bool launchDirectTiled(const float* in, float* out, const Geometry& g, const float* paddedKernel, TiledGrid grid,
                       cudaStream_t stream);

// The candidates of launchDirectTiled's `grid`, the default (one block per 128 x 32 tile) first,
// each with the name CONVLAB_GPU_TILED_GRID takes (tiles.h, tiled::kVariants).
struct TiledVariantInfo {
    const char* name;
    TiledGrid grid;
};
const std::vector<TiledVariantInfo>& tiledVariants();

// Separable pass pair i: rowPass writes tmp (channels x (h+kh-1) x w) with the border applied
// in both directions; colPass accumulates into out (accumulate=false: overwrite), adding the
// offset when `last`.
void launchRowPass(const float* in, float* tmp, const Geometry& g, const float* rowFactor, cudaStream_t stream);
void launchColPass(const float* tmp, float* out, const Geometry& g, const float* colFactor, bool accumulate,
                   bool last, cudaStream_t stream);

// Planar float32 planes from packed 8-bit (sixteenBit false) or 16-bit interleaved samples
// (tiles.h unpackSample), every plane in one launch.
struct ChannelOrder {
    int c[4];
};
void launchUnpack(const std::uint8_t* samples, bool sixteenBit, int w, int h, int channels, size_t strideBytes,
                  ChannelOrder order, float* planes, cudaStream_t stream);

// FFT helpers, in the layout's transforms (fftlayout.h: one plane or overlap-save tiles per
// channel): the padded image into every batch's n0 x n1 real input, the spectra times the
// kernel's (broadcast over the batch), and the outputs cropped out with scale and offset.
void launchPadEmbed(const float* in, float* padded, const Geometry& g, const FftLayout& l, cudaStream_t stream);
// The kernel (kw x kh on the device) placed for the transform: an n0 x n1 plane, zero but for
// the taps at (-v, -u) modulo the size, scaled by `norm` (the inverse transform's 1/(n0*n1)).
void launchKernelScatter(const float* k, int kw, int kh, float norm, float* real, int n0, int n1, cudaStream_t stream);
void launchSpectrumProduct(float2* spectra, const float2* kernelSpectrum, long long perChannel, int channels,
                           cudaStream_t stream);
// Every one of `n` values set to `value` (an all-zero kernel's result is its offset).
void launchFill(float* out, long long n, float value, cudaStream_t stream);
void launchCrop(const float* padded, float* out, const Geometry& g, const FftLayout& l, cudaStream_t stream);
// max |a - b| and max |b| over n values, into result[0] and result[1] (device memory, written;
// a NaN difference reads as infinite): how far a fused or tiled FFT layout is from the plane's.
void launchMaxDifference(const float* a, const float* b, long long n, float* result, cudaStream_t stream);

} // namespace convlab::cuda
