// SPDX-License-Identifier: GPL-3.0-or-later
// What a kernel does: sums, symmetry, rank, class and frequency response. (The probe and the
// border preview are in convlab/probe.h, code export in convlab/export.h.)
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/image.h"
#include "convlab/kernel.h"

namespace convlab {

// ---- kernel analysis ----

enum class FilterClass { LowPass, HighPass, BandPass, Other };
std::string filterClassName(FilterClass c); // "low-pass", "high-pass", "band-pass", "other"

struct KernelAnalysis {
    double sum = 0.0;    // the DC gain
    double absSum = 0.0;
    bool zeroSum = false; // |sum| <= 1e-6 * absSum: the kernel removes flat regions entirely
    // Symmetry about the kernel's centre column (x) and centre row (y), to 1e-6 of max|K|:
    // even in x when K(v, w-1-u) == K(v, u), odd in x when K(v, w-1-u) == -K(v, u).
    bool evenX = false, oddX = false, evenY = false, oddY = false;
    int rank = 0;                       // convlab::analyzeRank
    std::vector<double> singularValues; // descending
    // When rank == 1: K(v, u) == column[v] * row[u] to float precision.
    std::vector<float> column; // height values
    std::vector<float> row;    // width values
    // Magnitude response |H| at zero frequency, its maximum, at (pi, pi), and where the
    // maximum lies (radians per sample, sampled on a 64x64 grid; of mirrored maxima the one at
    // non-negative frequencies).
    double dcGain = 0.0;
    double maxGain = 0.0;
    double nyquistGain = 0.0;
    double peakFx = 0.0, peakFy = 0.0;
    FilterClass filterClass = FilterClass::Other;
    std::string classReason; // one line: why this class
};

// Throws convlab::Error for an invalid kernel.
KernelAnalysis analyzeKernel(const Kernel& k);

// |H(fx, fy)| = |sum K(v,u) exp(-i (wx u + wy v))| sampled on a size x size grid centred on
// zero frequency: column i holds wx = 2 pi (i - size/2) / size, row j wy likewise, so DC lies at
// (size/2, size/2). logScale gives 20 log10 |H| in dB, floored at kResponseFloorDb. One
// channel, F32. The magnitude does not depend on the anchor or on convolution vs correlation.
// size in 2..kMaxResponseSize; throws convlab::Error otherwise or for an invalid kernel.
inline constexpr int kMaxResponseSize = 1024;
inline constexpr double kResponseFloorDb = -200.0;
Image frequencyResponse(const Kernel& k, int size, bool logScale = false);

// The fy = 0 row of frequencyResponse: size values for wx = 2 pi (i - size/2) / size.
std::vector<double> frequencyResponseRow(const Kernel& k, int size, bool logScale = false);

} // namespace convlab
