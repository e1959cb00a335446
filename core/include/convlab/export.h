// SPDX-License-Identifier: GPL-3.0-or-later
// The same filter written for other libraries: a snippet that reproduces convolve(img, p).
#pragma once
#include <string>
#include <string_view>

#include "convlab/convolve.h"

namespace convlab {

enum class ExportTarget { Scipy, OpencvPython, OpencvCpp, Cupy };
ExportTarget parseExportTarget(std::string_view text); // throws convlab::Error listing the names
std::string exportTargetName(ExportTarget t);          // "scipy", "opencv-python", "opencv-cpp", "cupy"

// A snippet that reproduces convolve(img, p) with another library. Python targets take a
// float32 numpy array `img` of shape (H, W) or (H, W, C) and leave a float32 `out` of the same
// shape; the C++ target defines `cv::Mat convlabFilter(const cv::Mat& img)` for CV_32FC1..4.
// Filtering runs in double precision. Alpha channels are not special-cased.
std::string exportCode(const ConvolveParams& p, ExportTarget target);

} // namespace convlab
