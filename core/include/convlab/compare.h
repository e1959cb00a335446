// SPDX-License-Identifier: GPL-3.0-or-later
// Comparing two results of the same run (two methods, two devices, two border modes).
#pragma once
#include "convlab/image.h"

namespace convlab {

// Statistics of a - b over every channel (same shape required), OIIO CompareResults-style.
struct DiffStats {
    double maxAbs = 0.0;
    double meanAbs = 0.0;
    double rmse = 0.0;
    double psnr = 0.0; // dB, against the larger magnitude of a; +inf when identical
    int maxX = 0, maxY = 0, maxC = 0;
};
DiffStats compareImages(const Image& a, const Image& b);

// How one result differs from another where only the border rule changed (the border-mode
// lab): the pixels where any channel differs (|d| > 0, NaN included), and the band that holds
// all of them: every differing pixel lies within bandX columns of the left or right edge or
// within bandY rows of the top or bottom edge. Of the bands that do, the one of least area
// (then the narrowest). {0, 0, 0} for identical images.
struct BorderDifference {
    long long differing = 0;
    int bandX = 0;
    int bandY = 0;
};

// Compares a with b (same shape, else convlab::Error); `diff`, when given, receives a - b.
BorderDifference compareBorderResults(const Image& a, const Image& b, Image* diff = nullptr);

} // namespace convlab
