// SPDX-License-Identifier: GPL-3.0-or-later
// Teaching and comparison tools built on the engine: what a kernel does (sums, symmetry,
// rank, frequency response), how one output pixel comes about (the probe), the same filter
// written for other libraries (code export) and what a border rule adds around an image.
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

// ---- pixel probe ----

// One tap of the applied (correlation-form) kernel at the probed pixel.
struct ProbeTap {
    long long x = 0, y = 0; // image coordinate the tap reads (may lie outside the image)
    int sourceX = -1, sourceY = -1; // where the value comes from; -1 when it is the border constant
    bool padded = false;            // (x, y) lies outside the image
    float value = 0.0f;             // the value used
    float weight = 0.0f;            // the applied kernel's value
    double product = 0.0;           // double(weight) * double(value)
};

struct PixelProbe {
    int x = 0, y = 0, channel = 0;
    Semantics semantics = Semantics::Convolution;
    Border border;
    // The kernel as applied: flipped in both directions for convolution, with the anchor
    // mirrored (convlab::correlationKernel); the anchor is resolved.
    Kernel applied;
    // applied.height rows of applied.width taps, row-major: taps[v * width + u] multiplies
    // applied.at(v, u) with the input at (x - ax + u, y - ay + v).
    std::vector<ProbeTap> taps;
    double sum = 0.0;    // double accumulation over v then u, as the reference method does
    double scale = 1.0;  // after normalize
    double offset = 0.0;
    float value = 0.0f;  // static_cast<float>(scale * sum + offset): the reference output exactly
    // The channel is the alpha channel and is passed through unfiltered: value is the input's
    // and there are no taps.
    bool passedThrough = false;
    std::vector<std::string> notices; // e.g. "zero-sum kernel left unnormalized"
};

// Throws convlab::Error when x, y or channel is out of range or the parameters are invalid.
PixelProbe probePixel(const Image& in, const ConvolveParams& p, int x, int y, int channel = 0);

// ---- code export ----

enum class ExportTarget { Scipy, OpencvPython, OpencvCpp, Cupy };
ExportTarget parseExportTarget(std::string_view text); // throws convlab::Error listing the names
std::string exportTargetName(ExportTarget t);          // "scipy", "opencv-python", "opencv-cpp", "cupy"

// A snippet that reproduces convolve(img, p) with another library. Python targets take a
// float32 numpy array `img` of shape (H, W) or (H, W, C) and leave a float32 `out` of the same
// shape; the C++ target defines `cv::Mat convlabFilter(const cv::Mat& img)` for CV_32FC1..4.
// Filtering runs in double precision. Alpha channels are not special-cased.
std::string exportCode(const ConvolveParams& p, ExportTarget target);

// ---- border preview ----

// The image extended by `margin` pixels on every side by the border rule (every channel).
// margin in 0..kMaxImageSide; throws convlab::Error for an empty image or a margin out of range.
Image padPreview(const Image& in, const Border& border, int margin);

} // namespace convlab
