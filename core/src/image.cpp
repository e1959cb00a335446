// SPDX-License-Identifier: GPL-3.0-or-later
#include "convlab/image.h"

#include <string>

#include "convlab/error.h"

namespace convlab {

double depthMax(SampleDepth d)
{
    switch (d) {
    case SampleDepth::U8: return 255.0;
    case SampleDepth::U16: return 65535.0;
    case SampleDepth::F32: return 1.0;
    }
    return 1.0;
}

Image::Image(int w, int h, int c, SampleDepth d) : width(w), height(h), channels(c), depth(d)
{
    if (w < 1 || h < 1 || w > kMaxImageSide || h > kMaxImageSide)
        throw Error("image size " + std::to_string(w) + "x" + std::to_string(h) +
                    " is outside 1.." + std::to_string(kMaxImageSide) + " per side");
    if (c < 1 || c > 4)
        throw Error("image has " + std::to_string(c) + " channels; 1 to 4 are supported");
    const std::size_t n = static_cast<std::size_t>(w) * h * c;
    if (n > kMaxImageValues)
        throw Error("image " + std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c) +
                    " is too large (" + std::to_string(n * 4 / (1024 * 1024)) + " MiB as float32)");
    data.assign(n, 0.0f);
}

} // namespace convlab
