// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU twin of the shader's value mapping (view/displaymap.h).
#include "view/displaymap.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>

namespace displaymap {
namespace {

using display::Mapping;

constexpr float kTiny = 1e-30f;
// As kNegative and kPositive in shaders/image.frag.
constexpr float kNegative[3] = {0.13f, 0.40f, 0.67f};
constexpr float kPositive[3] = {0.70f, 0.09f, 0.17f};

// [0, 1] to 0..255, rounded as a framebuffer stores a shader's output; NaN to 0. Written as
// comparisons that select (maxps and minps) so that the loops below vectorise.
inline std::uint32_t unorm8(float t)
{
    t = t > 0.0f ? t : 0.0f; // NaN compares false: 0
    t = t < 1.0f ? t : 1.0f;
    return static_cast<std::uint32_t>(static_cast<int>(t * 255.0f + 0.5f));
}

constexpr std::uint32_t kOpaque = 0xFF000000u; // alpha 255 in the fourth byte

// mapValue() of the shader before clamping, written as it is there: ((|v| or v) - sub) / div + add.
struct Linear {
    float sub = 0.0f, div = 1.0f, add = 0.0f;
    bool absolute = false;
};

Linear linearOf(const Key& k)
{
    switch (k.mapping) {
    case Mapping::Abs: return {0.0f, k.range, 0.0f, true};
    case Mapping::Normalize: return {k.lo, std::max(k.hi - k.lo, kTiny), 0.0f, false};
    case Mapping::Offset: return {0.0f, k.range, 0.5f, false};
    case Mapping::Clamp:
    case Mapping::Diverging: break;
    }
    return {0.0f, k.range, 0.0f, false};
}

template <bool Absolute> inline std::uint32_t mapped(float v, const Linear& m)
{
    return unorm8(((Absolute ? std::fabs(v) : v) - m.sub) / m.div + m.add);
}

// Pixels as 32-bit words, R in the lowest byte: RGBA8 in memory on a little-endian machine.
template <bool Absolute> void packGrey(const float* v, std::size_t n, const Linear& m, std::uint32_t* out)
{
    for (std::size_t i = 0; i < n; ++i) out[i] = mapped<Absolute>(v[i], m) * 0x010101u | kOpaque;
}

template <bool Absolute>
void packRgb(const float* r, const float* g, const float* b, std::size_t n, const Linear& m, std::uint32_t* out)
{
    for (std::size_t i = 0; i < n; ++i)
        out[i] = mapped<Absolute>(r[i], m) | mapped<Absolute>(g[i], m) << 8 | mapped<Absolute>(b[i], m) << 16 | kOpaque;
}

std::uint32_t diverging(float v, float maxAbs)
{
    float t = v / std::max(maxAbs, kTiny);
    if (std::isnan(t)) t = 0.0f; // white
    t = t > -1.0f ? (t < 1.0f ? t : 1.0f) : -1.0f;
    const float* end = t < 0.0f ? kNegative : kPositive;
    const float a = std::fabs(t);
    std::uint32_t rgb = kOpaque;
    for (int c = 0; c < 3; ++c)
        rgb |= unorm8(1.0f + (end[c] - 1.0f) * a) << (8 * c);
    return rgb;
}


// One row of `n` pixels starting at plane offset `at`, into `o`.
void mapRow(const convlab::Image& image, const Key& key, std::size_t at, std::size_t n, std::uint32_t* o)
{
    const int channels = image.channels;
    const bool alpha = channels == 2 || channels == 4;
    const int colour = alpha ? channels - 1 : channels;
    const std::size_t planeSize = static_cast<std::size_t>(image.width) * image.height;
    const auto plane = [&](int c) { return image.data.data() + static_cast<std::size_t>(c) * planeSize + at; };
    const bool one = key.channel >= 0 || colour == 1;
    const float* first = plane(key.channel >= 0 ? std::min(key.channel, channels - 1) : 0);

    if (key.mapping == Mapping::Diverging) {
        for (std::size_t i = 0; i < n; ++i)
            o[i] = diverging(one ? first[i] : (plane(0)[i] + plane(1)[i] + plane(2)[i]) / 3.0f, key.maxAbs);
    } else {
        const Linear m = linearOf(key);
        if (one)
            m.absolute ? packGrey<true>(first, n, m, o) : packGrey<false>(first, n, m, o);
        else
            m.absolute ? packRgb<true>(plane(0), plane(1), plane(2), n, m, o)
                       : packRgb<false>(plane(0), plane(1), plane(2), n, m, o);
    }
    if (key.channel < 0 && alpha) {
        const float* a = plane(colour);
        const Linear m{0.0f, key.range, 0.0f, false};
        for (std::size_t i = 0; i < n; ++i) o[i] = (o[i] & 0x00FFFFFFu) | mapped<false>(a[i], m) << 24;
    }
}

} // namespace

void toRgba8(const convlab::Image& image, const Key& key, std::vector<std::uint32_t>& out, Region region)
{
    static_assert(std::endian::native == std::endian::little, "pixels are packed as little-endian words");
    if (region.width <= 0 || region.height <= 0) region = {0, 0, image.width, image.height};
    const std::size_t n = static_cast<std::size_t>(region.width) * region.height;
    out.resize(n);
    if (image.channels < 1 || n == 0) return;
    std::uint32_t* o = out.data();
    if (region.x == 0 && region.width == image.width) { // whole rows: one run
        mapRow(image, key, static_cast<std::size_t>(region.y) * image.width, n, o);
        return;
    }
    for (int y = 0; y < region.height; ++y)
        mapRow(image, key, static_cast<std::size_t>(region.y + y) * image.width + region.x, std::size_t(region.width),
               o + static_cast<std::size_t>(y) * region.width);
}

} // namespace displaymap
