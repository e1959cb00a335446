// SPDX-License-Identifier: GPL-3.0-or-later
// Estimating a kernel from an image pair: given a source image and a filtered version of it
// (made by any program), the w x h kernel that maps one to the other best in the least-squares
// sense (docs/semantics.md, Kernel estimation).
#pragma once
#include <atomic>
#include <cstddef>
#include <optional>

#include "convlab/convolve.h"
#include "convlab/image.h"
#include "convlab/kernel.h"

namespace convlab {

// The normal equations have (w*h)^2 entries and their solution costs (w*h)^3: 31 x 31 (961
// unknowns) is the largest size that stays well under a second to solve.
inline constexpr int kMaxEstimateSide = 31;

struct EstimateOptions {
    int width = 3;
    int height = 3;
    // The anchor in the kernel as written (docs/semantics.md, Kernel and anchor); < 0: default.
    int anchorX = -1;
    int anchorY = -1;
    Semantics semantics = Semantics::Convolution;
    // nullopt: only the outputs whose footprint lies inside the image count (interior). A border
    // mode: every output counts, the samples outside the image given by the border rule.
    std::optional<Border> border;
    // Ridge (Tikhonov) weight, >= 0, relative to the source's mean power (see the docs): 0 is
    // plain least squares.
    double ridge = 0.0;
    // An alpha channel is left out of the fit unless this is set, as the engine passes it through.
    bool filterAlpha = false;
    int threads = 0; // 0: all hardware threads
    const std::atomic<bool>* cancel = nullptr; // raised: throws Cancelled
};

struct KernelEstimate {
    // The estimated kernel, in the semantics asked for; its anchor is the one asked for (left
    // at the default when none was), its name "estimated".
    Kernel kernel;
    // sqrt(mean of the squared residuals) over the equations, in the filtered image's units.
    double residualRmse = 0.0;
    // Outputs that counted, times the channels fitted.
    std::size_t equations = 0;
    int channels = 0; // channels fitted (an alpha channel left out is not counted)
};

// Throws convlab::Error (one line) for options out of range, a pair that differs in size or
// channel count, an image smaller than the kernel, non-finite samples, fewer equations than
// unknowns, or a singular system (a source with too little structure for the size); Cancelled
// when options.cancel is raised.
KernelEstimate estimateKernel(const Image& source, const Image& filtered, const EstimateOptions& options);

} // namespace convlab
