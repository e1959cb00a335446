// SPDX-License-Identifier: GPL-3.0-or-later
// Image formats (PNG, JPEG, TIFF, BMP, PNM, WebP) through OpenCV imgcodecs. OpenCV keeps colour
// as interleaved BGR(A); the engine keeps planar RGB(A).
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "convlab/error.h"
#include "convlab/io.h"
#include "fsutil.h"
#include "io_internal.h"

namespace convlab {

bool imageFormatsAvailable() { return true; }

namespace detail {
namespace {

struct Format {
    const char* name;
    std::vector<std::string> extensions;
    bool u16;    // holds 16-bit samples
    bool f32;    // holds float32 samples
    bool alpha;  // holds an alpha channel
    bool gray;   // holds one colour channel
    bool colour; // holds three colour channels
};

const std::vector<Format>& formats()
{
    static const std::vector<Format> table = {
        {"PNG", {".png"}, true, false, true, true, true},
        {"JPEG", {".jpg", ".jpeg", ".jpe"}, false, false, false, true, true},
        {"TIFF", {".tif", ".tiff"}, true, true, true, true, true},
        {"BMP", {".bmp", ".dib"}, false, false, false, true, true},
        {"PGM", {".pgm"}, true, false, false, true, false},
        {"PPM", {".ppm"}, true, false, false, false, true},
        {"PNM", {".pnm"}, true, false, false, true, true},
        {"WebP", {".webp"}, false, false, true, true, true},
    };
    return table;
}

[[noreturn]] void writeFail(const std::string& path, const std::string& why)
{
    throw Error("cannot write '" + path + "': " + why);
}

const Format& formatFor(const std::string& path)
{
    const std::string ext = lowerExtension(path);
    for (const Format& f : formats())
        if (std::find(f.extensions.begin(), f.extensions.end(), ext) != f.extensions.end()) {
            if (!cv::haveImageWriter(path)) writeFail(path, std::string("this OpenCV build has no ") + f.name + " writer");
            return f;
        }
    writeFail(path, (ext.empty() ? std::string("no file extension") : "unknown image format '" + ext + "'") +
                        " (use .npy, .png, .jpg, .tif, .bmp, .pgm, .ppm, .pnm or .webp)");
}

const char* depthName(SampleDepth d)
{
    switch (d) {
    case SampleDepth::U8: return "8-bit";
    case SampleDepth::U16: return "16-bit";
    case SampleDepth::F32: return "float32";
    }
    return "?";
}

bool holds(const Format& f, SampleDepth d)
{
    return d == SampleDepth::U8 || (d == SampleDepth::U16 && f.u16) || (d == SampleDepth::F32 && f.f32);
}

// Explicit depth: must fit the format. Default: the image's own depth when the format holds it,
// else 8-bit.
SampleDepth targetDepth(const Image& img, const Format& f, const SaveOptions& opts, const std::string& path)
{
    if (opts.depth) {
        if (!holds(f, *opts.depth)) {
            std::string can = "8-bit";
            if (f.u16) can += f.f32 ? ", 16-bit and float32" : " and 16-bit";
            writeFail(path, std::string(f.name) + " cannot hold " + depthName(*opts.depth) + " samples (it holds " + can + ")");
        }
        return *opts.depth;
    }
    return holds(f, img.depth) ? img.depth : SampleDepth::U8;
}

// Source channel of each file channel, in RGB(A) order. A 2- or 4-channel image's last channel
// is stored as alpha; formats without alpha drop it when the image marks it as alpha.
std::vector<int> channelPlan(const Image& img, const Format& f, const std::string& path)
{
    const bool extra = img.channels == 2 || img.channels == 4;
    const int colour = extra ? img.channels - 1 : img.channels;
    if (extra && !f.alpha && !img.hasAlpha)
        writeFail(path, std::string(f.name) + " has no alpha channel and the image's channel " +
                            std::to_string(img.channels) + " is not alpha (save as .npy, .png or .tif)");
    if (colour == 3 && !f.colour)
        writeFail(path, std::string(f.name) + " holds gray images only; the image has 3 colour channels (use .ppm or .pnm)");
    std::vector<int> plan;
    // Gray goes out as RGB to colour-only formats, and gray+alpha as RGBA (OpenCV writes no
    // 2-channel files).
    if (colour == 1 && (!f.gray || (extra && f.alpha)))
        plan = {0, 0, 0};
    else
        for (int c = 0; c < colour; ++c) plan.push_back(c);
    if (extra && f.alpha) plan.push_back(img.channels - 1);
    return plan;
}

template <class T> cv::Mat pack(const Image& img, const std::vector<int>& plan, int cvDepth, SampleDepth depth, OutputMap map)
{
    const int n = int(plan.size());
    cv::Mat m(img.height, img.width, CV_MAKETYPE(cvDepth, n));
    std::vector<int> src(plan);
    if (n >= 3) std::swap(src[0], src[2]); // RGB(A) -> BGR(A)
    const SampleMapping mapping(img, depth, map); // integer depths only
    for (int y = 0; y < img.height; ++y) {
        T* row = m.ptr<T>(y);
        for (int x = 0; x < img.width; ++x)
            for (int k = 0; k < n; ++k) {
                const float v = img.at(src[k], y, x);
                row[std::size_t(x) * n + k] = static_cast<T>(depth == SampleDepth::F32 ? v : mapping(v));
            }
    }
    return m;
}

// OpenCV's interleaved BGR(A) order: plane c (RGB(A)) is sample order[c] of a pixel.
std::array<int, 4> planeOrder(int channels)
{
    return channels >= 3 ? std::array<int, 4>{2, 1, 0, 3} : std::array<int, 4>{0, 1, 2, 3};
}

void unpackFloat(const cv::Mat& m, Image& img)
{
    const int n = img.channels;
    const std::array<int, 4> order = planeOrder(n);
    for (int c = 0; c < n; ++c)
        for (int y = 0; y < img.height; ++y) {
            const float* row = m.ptr<float>(y) + order[c];
            float* out = img.plane(c) + static_cast<std::size_t>(y) * img.width;
            for (int x = 0; x < img.width; ++x) out[x] = row[std::size_t(x) * n];
        }
}

[[noreturn]] void failRead(const std::string& path, const std::string& why)
{
    throw Error("cannot read '" + path + "': " + why);
}

cv::Mat readMat(const std::string& path)
{
    cv::Mat m;
    try {
        m = cv::imread(path, cv::IMREAD_UNCHANGED);
    } catch (const cv::Exception& e) {
        // OpenCV's size guard reads as an assertion; say what it means.
        if (e.err.find("CV_IO_MAX_IMAGE") != std::string::npos)
            failRead(path, "the image is too large to load (OpenCV refuses more than 2^30 pixels or sides over "
                           "2^20)");
        failRead(path, e.err);
    }
    if (m.empty()) failRead(path, "not an image file OpenCV can decode, or the file is corrupt");
    if (m.channels() > 4) failRead(path, std::to_string(m.channels()) + " channels; 1 to 4 are supported");
    return m;
}

// 8- or 16-bit samples as decoded (interleaved BGR(A)).
PackedImage packedFrom(const cv::Mat& m, const std::string& path)
{
    PackedImage p;
    p.width = m.cols;
    p.height = m.rows;
    p.channels = m.channels();
    p.depth = m.depth() == CV_16U ? SampleDepth::U16 : SampleDepth::U8;
    p.hasAlpha = p.channels == 2 || p.channels == 4;
    p.order = planeOrder(p.channels);
    p.stride = static_cast<std::size_t>(m.cols) * m.channels() * m.elemSize1();
    try {
        checkImageSize(p.width, p.height, p.channels);
    } catch (const Error& e) {
        failRead(path, e.what());
    }
    p.bytes.resize(p.stride * m.rows);
    for (int y = 0; y < m.rows; ++y) std::memcpy(p.bytes.data() + p.stride * y, m.ptr(y), p.stride);
    return p;
}

} // namespace

DecodedImage decodeImageOpenCV(const std::string& path)
{
    cv::Mat m = readMat(path);
    DecodedImage d;
    switch (m.depth()) {
    case CV_8U:
    case CV_16U: d.samples = packedFrom(m, path); return d;
    case CV_32F: break;
    case CV_64F: m.convertTo(m, CV_32F); break;
    default: failRead(path, "unsupported sample type (8-bit, 16-bit unsigned and float files are supported)");
    }
    try {
        d.image = Image(m.cols, m.rows, m.channels(), SampleDepth::F32);
    } catch (const Error& e) {
        failRead(path, e.what());
    }
    d.image.hasAlpha = d.image.channels == 2 || d.image.channels == 4;
    unpackFloat(m, d.image);
    return d;
}

void saveImageOpenCV(const Image& img, const std::string& path, const SaveOptions& opts)
{
    requireSavableImage(img, path);
    const Format& f = formatFor(path);
    const SampleDepth depth = targetDepth(img, f, opts, path);
    const std::vector<int> plan = channelPlan(img, f, path);
    cv::Mat m;
    switch (depth) {
    case SampleDepth::U8: m = pack<std::uint8_t>(img, plan, CV_8U, depth, opts.map); break;
    case SampleDepth::U16: m = pack<std::uint16_t>(img, plan, CV_16U, depth, opts.map); break;
    case SampleDepth::F32: m = pack<float>(img, plan, CV_32F, depth, opts.map); break;
    }
    std::vector<int> params;
    if (std::string(f.name) == "JPEG") params = {cv::IMWRITE_JPEG_QUALITY, 95};
    // LZW (libtiff's COMPRESSION_LZW = 5): lossless for every depth, where OpenCV's default for
    // 3-channel float is the lossy LogLuv.
    if (std::string(f.name) == "TIFF") params = {cv::IMWRITE_TIFF_COMPRESSION, 5};
    detail::writeFileAtomically(path, [&](const std::string& tmp) {
        bool ok = false;
        try {
            ok = cv::imwrite(tmp, m, params);
        } catch (const cv::Exception& e) {
            writeFail(path, e.err);
        }
        if (!ok) writeFail(path, std::string("the ") + f.name + " encoder failed");
    });
}

} // namespace detail
} // namespace convlab
