// SPDX-License-Identifier: GPL-3.0-or-later
// cuFFT callbacks that fold the FFT method's three separate passes into its two transforms:
// the forward transform loads the padded image straight from the image (no padded copy), its
// store multiplies each spectrum value by the kernel's (no product pass), and the inverse
// transform's store writes only the outputs, scaled and offset, into the result (no crop pass).
// The index maths is fftlayout.h, the same the separate passes use.
//
// Not part of the library's objects: compiled to LTO IR into a fatbin that the library embeds
// (core/CMakeLists.txt), which cuFFT links into its kernels when a plan is made
// (cufftXtSetJITCallback). The names and signatures are the ones cuFFT's LTO callbacks take.
#include <cufftXt.h>

#include <type_traits>

#include "fftlayout.h"

using convlab::cuda::FftFusion;

namespace {

// Batch, row and column of a value at `offset` in a batch of planes of `rows` x `cols` values.
// 32-bit arithmetic: the session fuses only batches of fewer than 2^31 values.
__device__ __forceinline__ void split(unsigned long long offset, int rows, int cols, int& b, int& i, int& j)
{
    const unsigned o = static_cast<unsigned>(offset), row = o / static_cast<unsigned>(cols);
    j = static_cast<int>(o - row * static_cast<unsigned>(cols));
    b = static_cast<int>(row / static_cast<unsigned>(rows));
    i = static_cast<int>(row - static_cast<unsigned>(b) * static_cast<unsigned>(rows));
}

} // namespace

__device__ cufftReal convlabLoadPadded(void*, unsigned long long offset, void* callerInfo, void*)
{
    const FftFusion& f = *static_cast<const FftFusion*>(callerInfo);
    int b, i, j;
    split(offset, f.l.n0, f.l.n1, b, i, j);
    return convlab::cuda::paddedSample(f.src, f.g, f.l, b, i, j);
}

__device__ void convlabStoreProduct(void* dataOut, unsigned long long offset, cufftComplex element, void* callerInfo,
                                    void*)
{
    const FftFusion& f = *static_cast<const FftFusion*>(callerInfo);
    const float2 k = f.kernelSpectrum[static_cast<unsigned>(offset) % static_cast<unsigned>(f.l.specPer())];
    static_cast<cufftComplex*>(dataOut)[offset] =
        make_float2(element.x * k.x - element.y * k.y, element.x * k.y + element.y * k.x);
}

__device__ void convlabStoreCropped(void*, unsigned long long offset, cufftReal element, void* callerInfo, void*)
{
    const FftFusion& f = *static_cast<const FftFusion*>(callerInfo);
    int b, i, j;
    split(offset, f.l.n0, f.l.n1, b, i, j);
    const long long at = convlab::cuda::outputIndex(f.g, f.l, b, i, j);
    if (at >= 0) f.out[at] = fmaf(f.g.scale, element, f.g.offset);
}

// The signatures cuFFT calls (cufftXt.h); a mismatch would fail only when a plan is linked.
static_assert(std::is_same_v<decltype(&convlabLoadPadded), cufftJITCallbackLoadR>);
static_assert(std::is_same_v<decltype(&convlabStoreProduct), cufftJITCallbackStoreC>);
static_assert(std::is_same_v<decltype(&convlabStoreCropped), cufftJITCallbackStoreR>);
