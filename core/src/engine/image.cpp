// SPDX-License-Identifier: GPL-3.0-or-later
#include "convlab/image.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "convlab/error.h"
#include "simd/rowkernels.h"

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

double displayRange(SampleDepth d, double largestFinite)
{
    if (d != SampleDepth::F32) return depthMax(d);
    if (!(largestFinite > 1.0)) return 1.0; // NaN (no finite value) included
    if (largestFinite <= 255.0) return 255.0;
    if (largestFinite <= 65535.0) return 65535.0;
    return largestFinite;
}

void checkImageSize(int w, int h, int c)
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
}

namespace detail {

namespace {
constexpr std::size_t kHugePage = std::size_t(2) << 20;
}

void* allocateSamples(std::size_t bytes)
{
    if (bytes < kHugePage) return ::operator new(bytes);
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE); // advice only: without huge pages it runs as before
#endif
    return p;
}

void freeSamples(void* p, std::size_t bytes) noexcept
{
    if (bytes < kHugePage)
        ::operator delete(p);
    else
        std::free(p);
}

} // namespace detail

Image::Image(int w, int h, int c, SampleDepth d) : width(w), height(h), channels(c), depth(d)
{
    checkImageSize(w, h, c);
    const std::size_t n = static_cast<std::size_t>(w) * h * c;
    data.assign(n, 0.0f);
}

Image Image::uninitialized(int w, int h, int c, SampleDepth d)
{
    checkImageSize(w, h, c);
    Image image;
    image.width = w;
    image.height = h;
    image.channels = c;
    image.depth = d;
    image.data.resize(static_cast<std::size_t>(w) * h * c); // default-initialized: left unset
    return image;
}

ImagePlanes::ImagePlanes(const Image& image)
    : width(image.width), height(image.height), channels(image.channels), depth(image.depth),
      hasAlpha(image.hasAlpha)
{
    // A malformed Image (data not channels whole planes) gives null planes, which validate()
    // reports, instead of pointers past its storage.
    if (image.channels < 1 || image.channels > 4 || image.width < 1 || image.height < 1 ||
        image.data.size() != image.planeSize() * static_cast<std::size_t>(image.channels))
        return;
    for (int c = 0; c < channels; ++c) planes[c] = image.plane(c);
}

void ImagePlanes::validate() const
{
    if (channels < 1 || channels > 4 || width < 1 || height < 1)
        throw Error("input image is empty or malformed");
    checkImageSize(width, height, channels);
    for (int c = 0; c < channels; ++c)
        if (!planes[c]) throw Error("input image is empty or malformed");
    if (pixelStep < 1) throw Error("input image's pixel step is " + std::to_string(pixelStep));
}

namespace {

// The bytes a plane of w x h samples, `step` floats apart, spans from its first sample.
std::size_t planeExtentBytes(std::size_t samples, int step)
{
    return samples == 0 ? 0 : ((samples - 1) * static_cast<std::size_t>(std::max(step, 1)) + 1) * sizeof(float);
}

} // namespace

bool ImagePlanes::overlaps(const float* begin, const float* end) const
{
    // Compared as addresses: the buffers are unrelated objects.
    const auto a = reinterpret_cast<std::uintptr_t>(begin), b = reinterpret_cast<std::uintptr_t>(end);
    for (int c = 0; c < channels && c < 4; ++c) {
        const auto p = reinterpret_cast<std::uintptr_t>(planes[c]);
        if (p && p < b && a < p + planeExtentBytes(planeSize(), pixelStep)) return true;
    }
    return false;
}

OutputPlanes::OutputPlanes(Image& image) : width(image.width), height(image.height), channels(image.channels)
{
    if (image.channels < 1 || image.channels > 4 || image.data.size() != image.planeSize() * static_cast<std::size_t>(image.channels))
        return;
    for (int c = 0; c < channels; ++c) planes[c] = image.plane(c);
}

bool OutputPlanes::overlaps(const ImagePlanes& in) const
{
    for (int c = 0; c < channels && c < 4; ++c)
        if (planes[c] &&
            in.overlaps(planes[c], planes[c] + planeExtentBytes(planeSize(), pixelStep) / sizeof(float)))
            return true;
    return false;
}

bool OutputPlanes::overlaps(std::span<const std::uint8_t> bytes) const
{
    const auto a = reinterpret_cast<std::uintptr_t>(bytes.data()), b = a + bytes.size();
    for (int c = 0; c < channels && c < 4; ++c) {
        const auto p = reinterpret_cast<std::uintptr_t>(planes[c]);
        if (p && p < b && a < p + planeExtentBytes(planeSize(), pixelStep)) return true;
    }
    return false;
}

void PackedImage::validate() const
{
    checkImageSize(width, height, channels);
    if (depth != SampleDepth::U8 && depth != SampleDepth::U16)
        throw Error("packed images hold 8- or 16-bit samples");
    const std::size_t row = static_cast<std::size_t>(width) * channels * sampleBytes();
    if (stride < row || stride % sampleBytes() != 0)
        throw Error("packed image rows are " + std::to_string(stride) + " bytes apart, less than a row (" +
                    std::to_string(row) + ") or misaligned");
    if (samples().size() < stride * (static_cast<std::size_t>(height) - 1) + row)
        throw Error("packed image holds " + std::to_string(samples().size()) + " bytes, too few for its size");
    for (int c = 0; c < channels; ++c)
        if (order[c] < 0 || order[c] >= channels) throw Error("packed image channel order out of range");
}

void unpackRow(const PackedImage& packed, int c, int y, float* dst)
{
    // The SIMD build for this CPU (rowkernels.inc): a strided gather is 7x faster with AVX2.
    const detail::RowKernels& rk = detail::rowKernels();
    const std::uint8_t* row = packed.samples().data() + static_cast<std::size_t>(y) * packed.stride;
    if (packed.depth == SampleDepth::U16)
        rk.unpack16(reinterpret_cast<const std::uint16_t*>(row) + packed.order[c], packed.channels, packed.width, dst);
    else
        rk.unpack8(row + packed.order[c], packed.channels, packed.width, dst);
}

void unpackPixelsRow(const PackedImage& packed, int y, float* dst)
{
    const detail::RowKernels& rk = detail::rowKernels();
    const std::uint8_t* row = packed.samples().data() + static_cast<std::size_t>(y) * packed.stride;
    const int samples = packed.width * packed.channels;
    if (packed.depth == SampleDepth::U16)
        rk.unpack16(reinterpret_cast<const std::uint16_t*>(row), 1, samples, dst);
    else
        rk.unpack8(row, 1, samples, dst);
}

void unpackPlane(const PackedImage& packed, int c, float* dst)
{
    for (int y = 0; y < packed.height; ++y) unpackRow(packed, c, y, dst + static_cast<std::size_t>(y) * packed.width);
}

Image unpackImage(const PackedImage& packed)
{
    packed.validate();
    Image img = Image::uninitialized(packed.width, packed.height, packed.channels, packed.depth);
    img.hasAlpha = packed.hasAlpha;
    for (int c = 0; c < packed.channels; ++c) unpackPlane(packed, c, img.plane(c));
    return img;
}

} // namespace convlab
