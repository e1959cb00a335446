// SPDX-License-Identifier: GPL-3.0-or-later
// The engine in double precision: float64 samples and weights, summed in float64, for callers
// whose data is float64 (a NumPy float64 array, a float64 .npy) and who want scipy's numbers,
// not float32's (docs/semantics.md, Precision). The same definition as convolve() (border
// modes, anchors, convolution as correlation with the flipped kernel); its own samples and
// weights type, so that the float32 engine and its speed are untouched.
#pragma once
#include <atomic>
#include <cstddef>
#include <vector>

#include "convlab/border.h"
#include "convlab/convolve.h"
#include "convlab/kernel.h"
#include "convlab/modes.h"

namespace convlab {

// An (H, W, C) array of doubles in C order (C 1 for one plane): sample (y, x, c) lies at
// data[(y * width + x) * channels + c]. Any number of channels from 1.
struct Samples64 {
    const double* data = nullptr;
    int width = 0;
    int height = 0;
    int channels = 1;
    std::size_t values() const { return static_cast<std::size_t>(width) * height * channels; }
};

// The result's array, the same layout; it must not share memory with the input.
struct Output64 {
    double* data = nullptr;
    int width = 0;
    int height = 0;
    int channels = 1;
};

struct Convolve64Params {
    int kernelWidth = 0;
    int kernelHeight = 0;
    std::vector<double> weights; // kernelHeight rows of kernelWidth, row-major, finite
    int anchorX = -1;            // < 0: the default, floor(size / 2)
    int anchorY = -1;
    BorderMode border = BorderMode::Reflect;
    double cval = 0.0; // for Constant
    Semantics semantics = Semantics::Convolution;
    // Direct or separable (a rank-1 kernel, factored exactly); Fft and Auto take the faster of
    // the two (no float64 FFT yet: the report's reason says so); Reference is the oracle.
    Method method = Method::Auto;
    int threads = 0; // 0: all hardware threads
    const std::atomic<bool>* cancel = nullptr;
};

// Filters every channel of `in` into `out` (same shape). Throws convlab::Error for invalid
// sizes, weights, anchors or an output overlapping the input; Cancelled when `cancel` is set.
// The report names the method run, why, the threads and the time.
void convolve64(const Samples64& in, const Convolve64Params& params, const Output64& out,
                RunReport* report = nullptr);

// The method convolve64 runs for these parameters (Direct, Separable or Reference).
Method method64For(const Convolve64Params& params);

} // namespace convlab
