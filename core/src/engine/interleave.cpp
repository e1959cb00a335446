// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/interleave.h"

#include <cstring>
#include <type_traits>

#include "simd/rowkernels.h"
#include "engine/threadpool.h"

namespace convlab::detail {

namespace {

// Whether planes [c0, c1) are the consecutive samples of interleaved pixels, as many per pixel
// as there are planes: a NumPy (H, W, C) array's channels, all of them.
template <class Planes> bool wholePixels(const Planes& p, int c0, int c1)
{
    if (p.pixelStep != c1 - c0) return false;
    for (int c = c0; c < c1; ++c)
        if (p.planes[c] != p.planes[c0] + (c - c0)) return false;
    return true;
}

// One row of n samples per plane, from `from` (step fromStep) to `to` (step toStep). Steps of
// 1 to 4 are constants, so that the loops vectorize into shuffles of whole vectors.
template <class FromStep, class ToStep>
void copyRow(const float* from, FromStep fromStep, float* to, ToStep toStep, int n)
{
    for (int x = 0; x < n; ++x) to[static_cast<std::size_t>(x) * toStep] = from[static_cast<std::size_t>(x) * fromStep];
}

template <class Body> void withConstantStep(int step, const Body& body)
{
    switch (step) {
    case 1: return body(std::integral_constant<int, 1>());
    case 2: return body(std::integral_constant<int, 2>());
    case 3: return body(std::integral_constant<int, 3>());
    case 4: return body(std::integral_constant<int, 4>());
    default: return body(step);
    }
}

// Row y of planes [c0, c1): whole pixels when planes are interleaved into pixels of exactly
// these planes, else plane by plane (a plane gathered from interleaved pixels by the row
// kernels' vector gather, which reads the row from the caches for the planes after the first).
void copyPlanesRow(const ImagePlanes& from, const OutputPlanes& to, int c0, int c1, int y, bool stream)
{
    const int w = from.width, count = c1 - c0;
    const float* src[4] = {};
    float* dst[4] = {};
    for (int c = c0; c < c1; ++c) {
        src[c - c0] = from.row(c, y);
        dst[c - c0] = to.row(c, y + to.firstRow);
    }
    if (count > 1 && count <= 4 && from.pixelStep == 1 && wholePixels(to, c0, c1))
        return rowKernels().interleaveFloats(src, count, w, dst[0], stream);
    for (int i = 0; i < count; ++i) {
        if (from.pixelStep == 1 && to.pixelStep == 1) {
            std::memcpy(dst[i], src[i], sizeof(float) * static_cast<std::size_t>(w));
            continue;
        }
        if (to.pixelStep == 1) {
            rowKernels().gatherFloats(src[i], from.pixelStep, w, dst[i]);
            continue;
        }
        withConstantStep(from.pixelStep, [&](auto fromStep) {
            withConstantStep(to.pixelStep, [&](auto toStep) { copyRow(src[i], fromStep, dst[i], toStep, w); });
        });
    }
}

} // namespace

void copyPlanes(const ImagePlanes& from, const OutputPlanes& to, int c0, int c1, int threads, bool stream)
{
    if (c0 >= c1) return;
    parallelFor(from.height, threads, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) copyPlanesRow(from, to, c0, c1, y, stream);
    });
}

Image planarCopy(const ImagePlanes& in, int threads)
{
    Image planar = Image::uninitialized(in.width, in.height, in.channels, in.depth);
    planar.hasAlpha = in.hasAlpha;
    copyPlanes(in, planar, 0, in.channels, threads, false);
    return planar;
}

OutputPlanes rowsOf(const OutputPlanes& out, int y0, int y1)
{
    OutputPlanes rows = out;
    rows.height = y1 - y0;
    rows.firstRow = 0;
    for (int c = 0; c < out.channels; ++c) rows.planes[c] = out.row(c, y0);
    return rows;
}

} // namespace convlab::detail
