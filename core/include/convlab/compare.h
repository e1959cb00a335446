// SPDX-License-Identifier: GPL-3.0-or-later
// Comparing two results of the same run (two methods, two devices, two border modes).
#pragma once
#include "convlab/image.h"

namespace convlab {

// Statistics of a - b over every channel (same shape required), OIIO CompareResults-style.
// NaN and the infinities are counted, never folded into the statistics: maxAbs, meanAbs, rmse
// and psnr cover the values finite in both images (all 0, psnr +inf, when there are none), so
// they stay finite numbers.
struct DiffStats {
    double maxAbs = 0.0;
    double meanAbs = 0.0;
    double rmse = 0.0;
    double psnr = 0.0; // dB, against the largest finite-in-both magnitude of a; +inf when identical
    int maxX = 0, maxY = 0, maxC = 0; // where maxAbs is
    long long finiteBoth = 0;        // values (pixels x channels) finite in both: what the statistics cover
    long long nonFiniteA = 0;        // values NaN or infinite in a
    long long nonFiniteB = 0;        // ... in b
    // Values non-finite in one image and finite in the other, or non-finite in both but of a
    // different kind (NaN, +inf, -inf). 0 when the two agree on every non-finite value.
    long long nonFiniteMismatch = 0;
};
// `channel` >= 0 limits every figure to that channel (maxC is then it); -1 covers them all.
// Throws convlab::Error for a shape mismatch or a channel the images do not have.
DiffStats compareImages(const Image& a, const Image& b, int channel = -1);

// a - b, sample by sample, as float (the workbench's difference view). Throws convlab::Error
// for a shape mismatch.
Image differenceImage(const Image& a, const Image& b);

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
