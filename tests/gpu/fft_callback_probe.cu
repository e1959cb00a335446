// SPDX-License-Identifier: GPL-3.0-or-later
// A kernel that calls the library's FFT callbacks (core/backends/cuda/fftcallbacks.cu) by name and with
// the signatures cuFFT declares, as cuFFT's own kernels do once it links them; compiled to LTO
// IR for test_gpu_fft_callbacks, which links it against the library's embedded callbacks with
// nvJitLink. Built with -DCONVLAB_PROBE_MISSING it calls a callback that does not exist, which
// must fail to link.
#include <cufftXt.h>

__device__ cufftReal convlabLoadPadded(void*, unsigned long long, void*, void*);
__device__ void convlabStoreProduct(void*, unsigned long long, cufftComplex, void*, void*);
__device__ void convlabStoreCropped(void*, unsigned long long, cufftReal, void*, void*);
#if defined(CONVLAB_PROBE_MISSING)
__device__ cufftReal convlabLoadNothing(void*, unsigned long long, void*, void*);
#endif

__global__ void probe(float* data, void* info)
{
    float v = convlabLoadPadded(data, threadIdx.x, info, nullptr);
#if defined(CONVLAB_PROBE_MISSING)
    v += convlabLoadNothing(data, threadIdx.x, info, nullptr);
#endif
    convlabStoreProduct(data, threadIdx.x, make_float2(v, -v), info, nullptr);
    convlabStoreCropped(data, threadIdx.x, v, info, nullptr);
}
