// SPDX-License-Identifier: GPL-3.0-or-later
// Host launchers of the CUDA kernels (kernels.cu). Pointers are device pointers, planes are
// planar float32; every launch covers all channels at once (grid z = channel).
#pragma once
#include <cuda_runtime.h>

#include "convlab/border.h"

namespace convlab::cuda {

struct Geometry {
    int w = 0, h = 0, channels = 0;
    int kw = 0, kh = 0, ax = 0, ay = 0; // correlation-form kernel and anchor
    BorderMode mode = BorderMode::Constant;
    float cval = 0.0f;
    float scale = 1.0f, offset = 0.0f;
};

// Largest kernel (in values) kept in __constant__ memory.
constexpr int kConstantKernelValues = 16384;

// Copies the correlation-form kernel into constant memory when it fits (returns true).
bool uploadConstantKernel(const float* hostValues, int count, cudaStream_t stream);

// Direct sum: shared-memory tiles with halo; kernel from constant memory (when uploaded) or
// from `deviceKernel`.
void launchDirect(const float* in, float* out, const Geometry& g, const float* deviceKernel, bool useConstant,
                  cudaStream_t stream);

// Separable pass pair i: rowPass writes tmp (channels x (h+kh-1) x w) with the border applied
// in both directions; colPass accumulates into out (accumulate=false: overwrite), adding the
// offset when `last`.
void launchRowPass(const float* in, float* tmp, const Geometry& g, const float* rowFactor, cudaStream_t stream);
void launchColPass(const float* tmp, float* out, const Geometry& g, const float* colFactor, bool accumulate,
                   bool last, cudaStream_t stream);

// FFT helpers: pad every channel by the kernel extent with the border rule into n0 x n1 real
// planes (zero beyond), multiply spectra by the kernel's (broadcast over channels), crop with
// scale and offset.
void launchPadEmbed(const float* in, float* padded, const Geometry& g, int n0, int n1, cudaStream_t stream);
void launchSpectrumProduct(float2* spectra, const float2* kernelSpectrum, long long perChannel, int channels,
                           cudaStream_t stream);
// Every one of `n` values set to `value` (an all-zero kernel's result is its offset).
void launchFill(float* out, long long n, float value, cudaStream_t stream);
void launchCrop(const float* padded, float* out, const Geometry& g, int n0, int n1, cudaStream_t stream);

} // namespace convlab::cuda
