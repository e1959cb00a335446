// SPDX-License-Identifier: GPL-3.0-or-later
// How one output pixel comes about (the probe: every tap, the sample it reads and where that
// sample comes from) and what a border rule adds around an image (the border preview).
#pragma once
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/image.h"

namespace convlab {

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

// The image extended by `margin` pixels on every side by the border rule (every channel).
// margin in 0..kMaxImageSide; throws convlab::Error for an empty image or a margin out of range.
Image padPreview(const Image& in, const Border& border, int margin);

} // namespace convlab
