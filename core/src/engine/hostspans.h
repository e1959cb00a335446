// SPDX-License-Identifier: GPL-3.0-or-later
// Where a caller's planes lie in host memory, as the GPU's transfers see them: the fewest
// contiguous runs of bytes that hold every sample, so that each travels over the bus as one
// copy and nothing is gathered on the host (the device regroups interleaved pixels itself).
// Pure arithmetic on pointers, shared by core/backends/cuda/session.cu and the CPU tests.
#pragma once
#include <algorithm>
#include <cstddef>
#include <optional>

#include "convlab/image.h"

namespace convlab::detail {

// One run of host floats [host, host + values) and the offset, in floats, of its first value
// in the device's planar buffer (plane c at c * planeSize).
template <class Float> struct HostRun {
    Float* host = nullptr;
    std::size_t values = 0;
    std::size_t deviceOffset = 0;
};

// Planar planes (pixelStep 1): one run per plane, or a single run when the planes follow one
// another in memory in channel order (an Image, a C-contiguous (C, H, W) array).
template <class Planes, class Float>
int planarRuns(const Planes& p, HostRun<Float> (&runs)[4])
{
    const std::size_t plane = p.planeSize();
    bool adjacent = true;
    for (int c = 1; c < p.channels; ++c) adjacent = adjacent && p.plane(c) == p.plane(0) + c * plane;
    if (adjacent) {
        runs[0] = {p.plane(0), plane * static_cast<std::size_t>(p.channels), 0};
        return 1;
    }
    for (int c = 0; c < p.channels; ++c) runs[c] = {p.plane(c), plane, plane * static_cast<std::size_t>(c)};
    return p.channels;
}

// Interleaved pixels as one span of memory: the planes start at distinct samples of the first
// pixel (in any order, as a BGR or RGBA array has them) and pixelStep floats apart. The span from
// the first pixel to the last then holds the image, and is read whole; it may be written whole
// only when it holds nothing else (`covering`: pixelStep equals the channel count, where some
// channels of wider pixels would have the others overwritten). `order[c]`: the sample of a
// pixel that plane c is.
struct PixelSpan {
    std::size_t values = 0; // width * height * pixelStep
    int step = 1;
    int order[4] = {0, 1, 2, 3};
};
template <class Planes> std::optional<PixelSpan> pixelSpan(const Planes& p, bool covering)
{
    if (p.pixelStep < 2 || p.pixelStep < p.channels || (covering && p.pixelStep != p.channels)) return std::nullopt;
    auto base = p.plane(0);
    for (int c = 1; c < p.channels; ++c) base = std::min(base, p.plane(c));
    PixelSpan span;
    span.step = p.pixelStep;
    bool seen[16] = {};
    for (int c = 0; c < p.channels; ++c) {
        const std::ptrdiff_t at = p.plane(c) - base;
        if (at < 0 || at >= p.pixelStep || at >= 16 || seen[at]) return std::nullopt;
        seen[at] = true;
        span.order[c] = static_cast<int>(at);
    }
    // The last pixel's samples past the highest plane are not part of the image: the span ends
    // at the last sample of the image, not at the end of its last pixel.
    int last = 0;
    for (int c = 0; c < p.channels; ++c) last = std::max(last, span.order[c]);
    span.values = (p.planeSize() - 1) * static_cast<std::size_t>(p.pixelStep) + static_cast<std::size_t>(last) + 1;
    return span;
}

// The first float of a whole-pixel span (the lowest of the planes' starts).
template <class Planes> auto spanBase(const Planes& p)
{
    auto base = p.plane(0);
    for (int c = 1; c < p.channels; ++c) base = std::min(base, p.plane(c));
    return base;
}

} // namespace convlab::detail
