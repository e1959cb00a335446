// SPDX-License-Identifier: GPL-3.0-or-later
// Output mapping and the by-extension dispatch of loadImage/saveImage.
#include "convlab/io.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <string>

#include "convlab/error.h"
#include "io/io_internal.h"

namespace fs = std::filesystem;

namespace convlab {

OutputMap parseOutputMap(const std::string& text)
{
    std::string t = text;
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    for (OutputMap m : {OutputMap::Clamp, OutputMap::Abs, OutputMap::Normalize, OutputMap::Offset})
        if (t == outputMapName(m)) return m;
    throw Error("unknown output mapping '" + text + "' (expected clamp, abs, normalize or offset)");
}

std::string outputMapName(OutputMap m)
{
    switch (m) {
    case OutputMap::Clamp: return "clamp";
    case OutputMap::Abs: return "abs";
    case OutputMap::Normalize: return "normalize";
    case OutputMap::Offset: return "offset";
    }
    return "clamp";
}

// Integer targets (dstMax a whole number above 1, i.e. 255 or 65535) get whole numbers, rounded
// to nearest, and mid-grey (dstMax + 1) / 2; the float target [0, 1] keeps fractions and uses 0.5.
// NaN becomes 0.
double mapSample(double v, OutputMap m, double srcMax, double dstMax, double lo, double hi)
{
    const bool integer = dstMax > 1.0 && std::floor(dstMax) == dstMax;
    double r = 0.0;
    switch (m) {
    case OutputMap::Clamp: r = v * dstMax / srcMax; break;
    case OutputMap::Abs: r = std::fabs(v * dstMax / srcMax); break;
    case OutputMap::Normalize: r = hi > lo ? (v - lo) / (hi - lo) * dstMax : 0.0; break;
    case OutputMap::Offset: r = v * dstMax / srcMax + (integer ? (dstMax + 1.0) / 2.0 : dstMax / 2.0); break;
    }
    if (std::isnan(r)) return 0.0;
    r = std::clamp(r, 0.0, dstMax);
    return integer ? std::round(r) : r;
}

namespace detail {

std::string lowerExtension(const std::string& path)
{
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

void requireInputFile(const std::string& path)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) throw Error("cannot open '" + path + "': no such file");
    if (fs::is_directory(st)) throw Error("cannot open '" + path + "': it is a directory");
    // A named pipe, socket or device would block the reader forever or never end.
    if (!fs::is_regular_file(st))
        throw Error("cannot open '" + path + "': not a regular file (a named pipe, socket or device)");
}

void requireSavableImage(const Image& img, const std::string& path)
{
    const bool ok = img.width >= 1 && img.height >= 1 && img.channels >= 1 && img.channels <= 4 &&
                    img.data.size() == img.planeSize() * std::size_t(img.channels);
    if (!ok)
        throw Error("cannot write '" + path + "': the image is empty or malformed (" + std::to_string(img.width) + "x" +
                    std::to_string(img.height) + "x" + std::to_string(img.channels) + ", " +
                    std::to_string(img.data.size()) + " values)");
}

SampleMapping::SampleMapping(const Image& img, SampleDepth target, OutputMap map)
    : map_(map), srcMax_(depthMax(img.depth)), dstMax_(depthMax(target))
{
    if (map != OutputMap::Normalize) return;
    bool any = false;
    for (float v : img.data) {
        if (!std::isfinite(v)) continue;
        lo_ = any ? std::min(lo_, double(v)) : v;
        hi_ = any ? std::max(hi_, double(v)) : v;
        any = true;
    }
}

} // namespace detail

DecodedImage decodeImage(const std::string& path)
{
    if (detail::lowerExtension(path) == ".npy") {
        DecodedImage d;
        d.image = readNpy(path);
        return d;
    }
    detail::requireInputFile(path);
    return detail::decodeImageOpenCV(path);
}

std::optional<ClaimedShape> claimedShape(const std::string& path)
{
    if (detail::lowerExtension(path) == ".npy") return detail::claimedNpyShape(path);
    detail::requireInputFile(path);
    const detail::ImageHeader h = detail::inspectImageFile(path);
    if (!h.format) return std::nullopt;
    return ClaimedShape{int(h.width), int(h.height), h.channels > 0 ? h.channels : 4}; // unknown: the most
}

Image loadImage(const std::string& path)
{
    DecodedImage d = decodeImage(path);
    return d.samples ? unpackImage(*d.samples) : std::move(d.image); // one definition of integer samples
}

void saveImage(const Image& img, const std::string& path, const SaveOptions& opts)
{
    if (detail::lowerExtension(path) == ".npy") return writeNpy(img, path, opts);
    detail::saveImageOpenCV(img, path, opts);
}

bool formatHoldsDepth(const std::string& path, SampleDepth depth)
{
    if (detail::lowerExtension(path) == ".npy") return true;
    return detail::formatHoldsDepthOpenCV(path, depth);
}

void checkSaveTarget(const std::string& path, const SaveOptions& opts, int channels, bool hasAlpha)
{
    if (detail::lowerExtension(path) == ".npy") return;
    detail::checkSaveTargetOpenCV(path, opts, channels, hasAlpha);
}

} // namespace convlab
