// SPDX-License-Identifier: GPL-3.0-or-later
// The FFT method's FFTW plans: made once per transform shape and kept for the process
// (FFTW_MEASURE within a time limit, or an estimated plan at once and a measured one in the
// background, as FftPlanning says; wisdom kept in the user's cache directory), and the buffers
// FFTW's plans are executed on.
#pragma once
#include <fftw3.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>

#include "convlab/error.h"

namespace convlab::detail {

struct FftwFree {
    void operator()(void* p) const { fftwf_free(p); }
};
template <class T> using FftwBuffer = std::unique_ptr<T[], FftwFree>;
template <class T> inline FftwBuffer<T> fftwAlloc(std::size_t n)
{
    auto* p = static_cast<T*>(fftwf_malloc(sizeof(T) * std::max<std::size_t>(n, 1)));
    if (!p) throw Error("out of memory for the FFT buffers (" + std::to_string((sizeof(T) * n) >> 20) + " MiB)");
    return FftwBuffer<T>(p);
}

// What a pair of plans transforms, in a tile of n0 x n1 real samples whose spectrum is n0 x
// (n1/2 + 1) complex values: `count` whole planes (2-D), `count` consecutive rows (1-D, real to
// complex and back) or `count` consecutive columns of the spectrum (1-D, complex, forward and
// backward). Rows and columns serve a single tile's transform, which threads share by chunks.
enum class PlanShape { Planes, Rows, Columns };

// Forward and backward plans, executed on any buffers of the same layout and alignment through
// FFTW's new-array interface.
struct PlanPair {
    fftwf_plan forward = nullptr;
    fftwf_plan backward = nullptr;
};

// The plans for `count` planes, rows or columns (`shape`) of a tile of n0 x n1; `planned` is
// set when this call made them (a one-time cost for the size). `measure` false: estimated plans
// whatever the size, for work too small to repay measuring. Throws convlab::Error when FFTW
// cannot plan the size. Thread-safe; a lookup never waits for the background measuring.
PlanPair fftPlans(PlanShape shape, int n0, int n1, int count, bool* planned, bool measure = true);

} // namespace convlab::detail
