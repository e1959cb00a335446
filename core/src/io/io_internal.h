// SPDX-License-Identifier: GPL-3.0-or-later
// Pieces shared by the file readers and writers (npy.cpp, io.cpp, io_formats.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "convlab/image.h"
#include "convlab/io.h"

namespace convlab::detail {

// Lower-case extension with its dot (".png"), or "" when the name has none.
std::string lowerExtension(const std::string& path);

// Throws "cannot open 'path': no such file" (or "is a directory") before a reader starts.
void requireInputFile(const std::string& path);

// Throws when `img` is not a well-formed image (empty, channels out of 1..4, data size wrong).
void requireSavableImage(const Image& img, const std::string& path);

// mapSample bound to one image and one integer target depth (lo/hi from the image's finite
// values, over all channels). Returns whole numbers in [0, depthMax(target)].
class SampleMapping {
public:
    SampleMapping(const Image& img, SampleDepth target, OutputMap map);
    double operator()(float v) const { return mapSample(v, map_, srcMax_, dstMax_, lo_, hi_); }

private:
    OutputMap map_;
    double srcMax_, dstMax_, lo_ = 0.0, hi_ = 0.0;
};

// What an image file's header says, read before anything is decoded (io_header.cpp).
struct ImageHeader {
    const char* format = nullptr; // "PNG", "JPEG", "TIFF", "BMP", "PNM"; null: none of these
    std::uint64_t width = 0, height = 0;
    int channels = 0;
};
// Reads the signature and the size fields, and walks the file's outline as far as that is cheap
// and certain: PNG chunks up to IEND, JPEG markers up to EOI, TIFF's first directory and where
// its strips lie. Throws "cannot read 'path': ..." for an empty, truncated or corrupt file and
// for a claimed size over checkImageSize's limits, before a decoder allocates anything.
ImageHeader inspectImageFile(const std::string& path);
// The shape a .npy file's header claims, every check of readNpy's before the data made (npy.cpp).
std::optional<ClaimedShape> claimedNpyShape(const std::string& path);

// Image formats through OpenCV imgcodecs (io_formats.cpp, by way of the codec module), or errors saying they are not built
// in (io_noopencv.cpp).
DecodedImage decodeImageOpenCV(const std::string& path);
void saveImageOpenCV(const Image& img, const std::string& path, const SaveOptions& opts);
bool formatHoldsDepthOpenCV(const std::string& path, SampleDepth depth);
void checkSaveTargetOpenCV(const std::string& path, const SaveOptions& opts, int channels, bool hasAlpha);

} // namespace convlab::detail
