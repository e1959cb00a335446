// SPDX-License-Identifier: GPL-3.0-or-later
// The .npy reader (readNpy, behind every .npy input of the CLI and the workbench) on arbitrary
// file contents. An image it accepts must be well formed, and writing it as float32 .npy and
// reading that back must give the same values, bit for bit.
#include <cstdint>
#include <cstring>
#include <string>

#include "convlab/error.h"
#include "convlab/image.h"
#include "convlab/io.h"
#include "fuzz_support.h"

using namespace convlab;

namespace {

void requireWellFormed(const Image& img)
{
    fuzz::require(img.width >= 1 && img.height >= 1 && img.width <= kMaxImageSide && img.height <= kMaxImageSide,
                  "accepted image of size " + std::to_string(img.width) + "x" + std::to_string(img.height));
    fuzz::require(img.channels >= 1 && img.channels <= 4, "accepted image with " + std::to_string(img.channels) + " channels");
    fuzz::require(img.data.size() == img.planeSize() * std::size_t(img.channels), "image data does not match its shape");
    fuzz::require(!img.hasAlpha, ".npy arrays never carry alpha");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static fuzz::ScratchFile input("input.npy");
    static fuzz::ScratchFile copy("copy.npy");
    Image img;
    try {
        img = readNpy(input.write(data, size));
    } catch (const Error&) {
        return 0;
    }
    requireWellFormed(img);

    SaveOptions asFloat;
    asFloat.depth = SampleDepth::F32;
    Image back;
    try {
        writeNpy(img, copy.path(), asFloat);
        back = readNpy(copy.path());
    } catch (const Error& e) {
        fuzz::fail(std::string("an accepted image does not round-trip through .npy: ") + e.what());
    }
    fuzz::require(back.sameShape(img), "the float32 copy has another shape");
    fuzz::require(std::memcmp(back.data.data(), img.data.data(), img.data.size() * sizeof(float)) == 0,
                  "the float32 copy has other values");
    return 0;
}
