// SPDX-License-Identifier: GPL-3.0-or-later
// The same filter written for other libraries: a snippet that reproduces convolve(img, p).
#pragma once
#include <string>
#include <string_view>

#include "convlab/convolve.h"

namespace convlab {

enum class ExportTarget { Scipy, OpencvPython, OpencvCpp, Cupy, Dask };
ExportTarget parseExportTarget(std::string_view text); // throws convlab::Error listing the names
std::string exportTargetName(ExportTarget t); // "scipy", "opencv-python", "opencv-cpp", "cupy", "dask"
// "scipy | opencv-python | opencv-cpp | cupy | dask" (the command line's help).
std::string exportTargetNames(std::string_view separator);

// A snippet that reproduces convolve(img, p) with another library. Python targets take a
// float32 numpy array `img` of shape (H, W) or (H, W, C) and leave a float32 `out` of the same
// shape; the C++ target defines `cv::Mat convlabFilter(const cv::Mat& img)` for CV_32FC1..4.
// Filtering runs in double precision, except for dask: `img` is a dask (or numpy) array and
// `out` a lazy float32 dask array of the same shape and chunks, computed by convlab.dask (the
// engine, chunk by chunk) or, where the module is not installed, by dask_image.ndfilters
// (scipy.ndimage per chunk, in double). Alpha channels are not special-cased.
std::string exportCode(const ConvolveParams& p, ExportTarget target);

} // namespace convlab
