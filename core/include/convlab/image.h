// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace convlab {

namespace detail {
// Storage for samples. Buffers of 2 MiB and more are aligned to 2 MiB and offered to the kernel
// as transparent huge pages, so a fresh 64 MiB image takes 32 page faults instead of 16384 (on
// a VM those faults cost more than filtering the image). New elements are left uninitialized
// (default-initialized, as `new float[n]`): Image's constructor zeroes its samples itself, and
// Image::uninitialized is for outputs whose every sample is about to be written.
void* allocateSamples(std::size_t bytes);
void freeSamples(void* p, std::size_t bytes) noexcept;

template <class T> struct SampleAllocator {
    using value_type = T;
    SampleAllocator() = default;
    template <class U> SampleAllocator(const SampleAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(allocateSamples(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { freeSamples(p, n * sizeof(T)); }
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <class U, class... Args> void construct(U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    friend bool operator==(const SampleAllocator&, const SampleAllocator&) noexcept { return true; }
};
} // namespace detail

// An image's samples: a std::vector<float> with the allocator above.
using Samples = std::vector<float, detail::SampleAllocator<float>>;

// Limits that keep a typo from allocating the machine away.
inline constexpr int kMaxImageSide = 1 << 16;              // 65536 px per side
inline constexpr std::size_t kMaxImageValues = std::size_t(1) << 31; // 8 GiB of float32

// Throws convlab::Error, saying which limit, unless w x h x c is an image size we support.
void checkImageSize(int w, int h, int c);

// The range the pixel values came from. 8-bit files keep 0..255, 16-bit 0..65535, float as is
// (nominally 0..1 when a float image is written to an integer file).
enum class SampleDepth { U8, U16, F32 };

// Largest value of the nominal range of a depth: 255, 65535 or 1.
double depthMax(SampleDepth d);
// The top of the range a view maps an image's values by (docs/semantics.md, Output mapping):
// depthMax for 8/16-bit images; for float images what their values say, from the largest
// finite one: 1 when it is at most 1, 255 or 65535 when the values fit those (8- or 16-bit
// samples stored as floats, as a .npy of a photo often holds), else that value itself.
double displayRange(SampleDepth d, double largestFinite);

// float32, planar: plane c holds height*width values, row-major. 1..4 channels, any size from
// 1x1. `hasAlpha` marks the last channel as alpha (set by image loaders for gray+alpha and
// RGBA files; .npy arrays never carry alpha).
struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;
    SampleDepth depth = SampleDepth::F32;
    bool hasAlpha = false;
    Samples data;

    Image() = default;
    // Allocates width*height*channels zeros; throws convlab::Error on sizes out of range.
    Image(int width, int height, int channels, SampleDepth depth = SampleDepth::F32);
    // The same shape with its samples left unset: for a result whose every sample is written
    // next (no pass of zeros over memory that is about to be overwritten).
    static Image uninitialized(int width, int height, int channels, SampleDepth depth = SampleDepth::F32);

    bool empty() const { return data.empty(); }
    std::size_t planeSize() const { return static_cast<std::size_t>(width) * height; }
    float* plane(int c) { return data.data() + c * planeSize(); }
    const float* plane(int c) const { return data.data() + c * planeSize(); }
    float& at(int c, int y, int x) { return plane(c)[static_cast<std::size_t>(y) * width + x]; }
    float at(int c, int y, int x) const { return plane(c)[static_cast<std::size_t>(y) * width + x]; }
    bool sameShape(const Image& o) const
    {
        return width == o.width && height == o.height && channels == o.channels;
    }
};

// The planes of a float image whose samples are owned elsewhere (an Image, a NumPy array):
// what the engine reads, so that a caller's buffer is filtered in place of a copy. Plane c
// starts at planes[c] and holds height rows of width samples, row-major. pixelStep is the
// distance in floats from one sample of a plane to the next: 1 for planes of their own, the
// array's channel count for the channels of interleaved pixels (a NumPy (H, W, C) array, whose
// plane c starts at its first pixel's sample c). Rows are width * pixelStep floats apart. Every
// Image converts to the view of its own planes (pixelStep 1).
struct ImagePlanes {
    int width = 0;
    int height = 0;
    int channels = 0;
    SampleDepth depth = SampleDepth::F32;
    bool hasAlpha = false;
    std::array<const float*, 4> planes{};
    int pixelStep = 1;

    ImagePlanes() = default;
    ImagePlanes(const Image& image); // NOLINT(google-explicit-constructor): an Image is its own view

    std::size_t planeSize() const { return static_cast<std::size_t>(width) * height; }
    bool interleaved() const { return pixelStep != 1; }
    const float* plane(int c) const { return planes[c]; }
    const float* row(int c, int y) const { return planes[c] + static_cast<std::size_t>(y) * width * pixelStep; }
    float at(int c, int y, int x) const { return row(c, y)[static_cast<std::size_t>(x) * pixelStep]; }
    // Throws convlab::Error unless the size is supported, every plane is given and pixelStep is
    // at least 1.
    void validate() const;
    // Whether any plane shares a byte with [begin, end).
    bool overlaps(const float* begin, const float* end) const;
};

// The planes of a float result whose storage is owned elsewhere (a NumPy array, say): what the
// engine writes when the caller's buffer is to hold the result, so that no result image is made
// and copied. The same layout as ImagePlanes, pixelStep included; every Image converts to the
// view of its planes. firstRow: the image row that planes[c] starts at, for the bands of rows
// that the engine has its methods write when it filters into interleaved pixels (0 for every
// caller's planes: they hold the whole image).
struct OutputPlanes {
    int width = 0;
    int height = 0;
    int channels = 0;
    std::array<float*, 4> planes{};
    int pixelStep = 1;
    int firstRow = 0;

    OutputPlanes() = default;
    OutputPlanes(Image& image); // NOLINT(google-explicit-constructor): an Image is its own view

    std::size_t planeSize() const { return static_cast<std::size_t>(width) * height; }
    bool interleaved() const { return pixelStep != 1; }
    float* plane(int c) const { return planes[c]; }
    float* row(int c, int y) const
    {
        return planes[c] + static_cast<std::size_t>(y - firstRow) * width * pixelStep;
    }
    // Whether any plane shares a byte with the input's, or with `bytes`.
    bool overlaps(const ImagePlanes& in) const;
    bool overlaps(std::span<const std::uint8_t> bytes) const;
};

// Integer samples as a decoder delivers them: interleaved, `channels` samples per pixel, 8 or 16
// bits each (depth U8 or U16), rows `stride` bytes apart. Plane c of the float image is sample
// order[c] of every pixel (2, 1, 0 for BGR sources). Uploading this form moves a quarter (8-bit)
// or half (16-bit) of the bytes of the float image; the GPU converts on the device.
struct PackedImage {
    int width = 0;
    int height = 0;
    int channels = 0;
    SampleDepth depth = SampleDepth::U8;
    bool hasAlpha = false;
    std::size_t stride = 0;
    std::array<int, 4> order{0, 1, 2, 3};
    std::vector<std::uint8_t> bytes;
    // Samples owned elsewhere (a NumPy array's buffer), read in place of `bytes` when not empty:
    // they must outlive every run that reads them, and a run's output must not overlap them.
    std::span<const std::uint8_t> borrowed;

    std::size_t sampleBytes() const { return depth == SampleDepth::U16 ? 2 : 1; }
    // The samples: `borrowed` where given, else `bytes`.
    std::span<const std::uint8_t> samples() const { return borrowed.empty() ? std::span<const std::uint8_t>(bytes) : borrowed; }
    // Throws convlab::Error when the fields do not describe a valid image.
    void validate() const;
};

// The float image of packed samples: values keep their integer range (0..255, 0..65535), as the
// image loaders keep them. The GPU's unpacking (core/backends/cuda/tiles.h) gives the same values.
Image unpackImage(const PackedImage& packed);
// Row y of plane c as floats into dst (width values); the whole plane c into dst (width*height).
// The fields are assumed valid (PackedImage::validate).
void unpackRow(const PackedImage& packed, int c, int y, float* dst);
// Row y of every sample as floats, interleaved as stored (width * channels values into dst).
void unpackPixelsRow(const PackedImage& packed, int y, float* dst);
void unpackPlane(const PackedImage& packed, int c, float* dst);


} // namespace convlab
