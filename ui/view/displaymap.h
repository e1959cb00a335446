// SPDX-License-Identifier: GPL-3.0-or-later
// The view's mapping of values to display colours on the CPU, for images the view holds on the
// host: they are uploaded as 8-bit colours (4 bytes a pixel instead of 4 per channel) and drawn
// with one texture read, where values in GPU memory are mapped by shaders/image.frag. The two
// are twins (mapValue, diverging, display, displayOne there): change both.
#pragma once
#include <cstdint>
#include <vector>

#include "convlab/image.h"
#include "view/displaystate.h"

namespace displaymap {

// What the colours of an image depend on.
struct Key {
    display::Mapping mapping = display::Mapping::Clamp;
    int channel = -1;    // View > Channel: the one channel drawn, as grey; -1 every channel
    float range = 1.0f;  // top of the nominal range (Clamp, Abs, Offset, alpha)
    float lo = 0.0f, hi = 0.0f; // Normalize
    float maxAbs = 0.0f;        // Diverging
    bool operator==(const Key&) const = default;
};

// Whether the mapping reads the image's statistics (lo, hi, max |v|).
inline bool needsStats(display::Mapping m)
{
    return m == display::Mapping::Normalize || m == display::Mapping::Diverging;
}

// A rectangle of an image, in its pixels.
struct Region {
    int x = 0, y = 0, width = 0, height = 0;
    bool operator==(const Region&) const = default;
};

// One RGBA8 pixel per pixel of `region` of `image` (planar, 1..4 channels; the whole image when
// the region is empty), row by row into `out` (resized, its memory kept): the colour channels
// mapped, grey repeated, alpha as alpha / range (blended over the checkerboard by the shader,
// which knows the screen position). A channel chosen with key.channel is drawn as grey, opaque.
// NaN maps to 0.
// Each pixel one 32-bit word, R in its lowest byte: RGBA8 in memory on a little-endian machine.
void toRgba8(const convlab::Image& image, const Key& key, std::vector<std::uint32_t>& out, Region region = {});

} // namespace displaymap
