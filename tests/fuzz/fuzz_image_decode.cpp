// SPDX-License-Identifier: GPL-3.0-or-later
// The image decoding entry point (decodeImage: what the CLI and the workbench call for PNG,
// JPEG, TIFF, BMP, PNM and WebP files) on arbitrary file contents. What it accepts must be a
// well-formed image: 8/16-bit files as valid samples, float files as float planes. Small
// decoded images are also filtered from their samples and from their float image, which must
// give the same result bit for bit (the engine's promise for packed input).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/image.h"
#include "convlab/io.h"
#include "fuzz_support.h"

using namespace convlab;

namespace {

// Images up to this many pixels are also filtered; larger ones only decoded (speed).
constexpr std::size_t kMaxFilteredPixels = 64 * 64;

void requireWellFormed(const Image& img)
{
    fuzz::require(img.width >= 1 && img.height >= 1 && img.channels >= 1 && img.channels <= 4,
                  "accepted image of shape " + std::to_string(img.width) + "x" + std::to_string(img.height) + "x" +
                      std::to_string(img.channels));
    fuzz::require(img.data.size() == img.planeSize() * std::size_t(img.channels), "image data does not match its shape");
}

void requireSameBits(const Image& a, const Image& b, const char* what)
{
    fuzz::require(a.sameShape(b) && std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0, what);
}

// Filtering the samples must equal filtering their float image (direct converts rows while it
// pads them; the reference converts the planes first).
void filterBothWays(const PackedImage& samples, const Image& unpacked)
{
    ConvolveParams p;
    p.kernel = Kernel(3, 3, {1, 2, 1, 0, 0, 0, -1, -2, -1});
    p.border.mode = BorderMode::Mirror;
    p.device = Device::Cpu;
    p.threads = 1;
    for (Method m : {Method::Direct, Method::Reference}) {
        p.method = m;
        requireSameBits(convolve(samples, p), convolve(unpacked, p), "filtering the samples differs from filtering their float image");
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    // OpenCV allocates what a header declares (up to 2^30 pixels by default) before it finds
    // the data missing; a 40-byte file could ask for gigabytes and stop the fuzzer on its memory
    // limit. A smaller ceiling keeps the search on the decoders' logic.
    ::setenv("OPENCV_IO_MAX_IMAGE_PIXELS", "4194304", 0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static fuzz::ScratchFile input("input.png"); // OpenCV picks the decoder from the bytes, not the name
    DecodedImage decoded;
    try {
        decoded = decodeImage(input.write(data, size));
    } catch (const Error&) {
        return 0;
    }
    if (!decoded.samples) {
        requireWellFormed(decoded.image);
        return 0;
    }
    const PackedImage& samples = *decoded.samples;
    try {
        samples.validate();
    } catch (const Error& e) {
        fuzz::fail(std::string("decoded samples are not a valid image: ") + e.what());
    }
    fuzz::require(decoded.image.empty(), "decoded both samples and a float image");
    const Image unpacked = unpackImage(samples);
    requireWellFormed(unpacked);
    fuzz::require(unpacked.width == samples.width && unpacked.height == samples.height &&
                      unpacked.channels == samples.channels && unpacked.depth == samples.depth,
                  "unpacking changes the shape or depth");
    if (unpacked.planeSize() <= kMaxFilteredPixels) filterBothWays(samples, unpacked);
    return 0;
}
