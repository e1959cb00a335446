// SPDX-License-Identifier: GPL-3.0-or-later
// Image formats (PNG, JPEG, TIFF, BMP, PNM, WebP) through OpenCV imgcodecs, which the codec
// module (codecs_abi.h) opens on first use. The codecs keep colour as interleaved BGR(A); the
// engine keeps planar RGB(A). What each format holds, how samples are mapped and what the
// codecs' messages mean are decided here; the module only moves pixels.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "io/codecs.h"
#include "convlab/error.h"
#include "convlab/io.h"
#include "io/fsutil.h"
#include "io/io_internal.h"

namespace convlab {

bool imageFormatsAvailable(std::string* why)
{
    const std::string problem = detail::imageCodecsProblem();
    if (why) *why = problem;
    return problem.empty();
}

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
            const convlab_codecs& codecs = imageCodecs("cannot write '" + path + "'");
            if (!codecs.has_writer(path.c_str()))
                writeFail(path, std::string("this OpenCV build has no ") + f.name + " writer");
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

void requireHeld(const Format& f, SampleDepth depth, const std::string& path)
{
    if (holds(f, depth)) return;
    std::string can = "8-bit";
    if (f.u16) can += f.f32 ? ", 16-bit and float32" : " and 16-bit";
    writeFail(path, std::string(f.name) + " cannot hold " + depthName(depth) + " samples (it holds " + can + ")");
}

// Explicit depth: must fit the format. Default: the image's own depth when the format holds it,
// else 8-bit.
SampleDepth targetDepth(const Image& img, const Format& f, const SaveOptions& opts, const std::string& path)
{
    if (opts.depth) {
        requireHeld(f, *opts.depth, path);
        return *opts.depth;
    }
    return holds(f, img.depth) ? img.depth : SampleDepth::U8;
}

// Source channel of each file channel, in RGB(A) order. A 2- or 4-channel image's last channel
// is stored as alpha; formats without alpha drop it when the image marks it as alpha.
std::vector<int> channelPlan(int channels, bool hasAlpha, const Format& f, const std::string& path)
{
    const bool extra = channels == 2 || channels == 4;
    const int colour = extra ? channels - 1 : channels;
    if (extra && !f.alpha && !hasAlpha)
        writeFail(path, std::string(f.name) + " has no alpha channel and the image's channel " +
                            std::to_string(channels) + " is not alpha (save as .npy, .png or .tif)");
    if (colour == 3 && !f.colour)
        writeFail(path, std::string(f.name) + " holds gray images only; the image has 3 colour channels (use .ppm or .pnm)");
    std::vector<int> plan;
    // Gray goes out as RGB to colour-only formats, and gray+alpha as RGBA (OpenCV writes no
    // 2-channel files).
    if (colour == 1 && (!f.gray || (extra && f.alpha)))
        plan = {0, 0, 0};
    else
        for (int c = 0; c < colour; ++c) plan.push_back(c);
    if (extra && f.alpha) plan.push_back(channels - 1);
    return plan;
}

// Interleaved samples for an encoder, and the view of them the codec module takes.
struct EncoderInput {
    std::vector<unsigned char> bytes;
    convlab_codec_image view{};
};

template <class T> EncoderInput pack(const Image& img, const std::vector<int>& plan, int codecDepth, SampleDepth depth, OutputMap map)
{
    const int n = int(plan.size());
    EncoderInput e;
    const std::size_t step = sizeof(T) * std::size_t(img.width) * n;
    e.bytes.resize(step * img.height);
    e.view = {img.width, img.height, n, codecDepth, e.bytes.data(), step, nullptr};
    std::vector<int> src(plan);
    if (n >= 3) std::swap(src[0], src[2]); // RGB(A) -> BGR(A)
    const SampleMapping mapping(img, depth, map); // integer depths only
    for (int y = 0; y < img.height; ++y) {
        T* row = reinterpret_cast<T*>(e.bytes.data() + step * y);
        for (int x = 0; x < img.width; ++x)
            for (int k = 0; k < n; ++k) {
                const float v = img.at(src[k], y, x);
                row[std::size_t(x) * n + k] = static_cast<T>(depth == SampleDepth::F32 ? v : mapping(v));
            }
    }
    return e;
}

// OpenCV's interleaved BGR(A) order: plane c (RGB(A)) is sample order[c] of a pixel.
std::array<int, 4> planeOrder(int channels)
{
    return channels >= 3 ? std::array<int, 4>{2, 1, 0, 3} : std::array<int, 4>{0, 1, 2, 3};
}

// A decoded image in the codec module's storage, released with it.
class CodecImage {
public:
    explicit CodecImage(const convlab_codecs& codecs) : codecs_(&codecs) {}
    ~CodecImage() { reset(); }
    CodecImage(const CodecImage&) = delete;
    CodecImage& operator=(const CodecImage&) = delete;
    CodecImage(CodecImage&& o) noexcept : codecs_(o.codecs_), image_(o.image_) { o.image_ = {}; }

    void reset()
    {
        if (image_.owner) codecs_->release(&image_);
        image_ = {};
    }
    convlab_codec_image* out() { return &image_; }
    const convlab_codec_image* operator->() const { return &image_; }
    bool empty() const { return !image_.data; }
    const unsigned char* row(int y) const { return image_.data + image_.step * std::size_t(y); }

private:
    const convlab_codecs* codecs_;
    convlab_codec_image image_{};
};

void unpackFloat(const CodecImage& m, Image& img)
{
    const int n = img.channels;
    const std::array<int, 4> order = planeOrder(n);
    for (int c = 0; c < n; ++c)
        for (int y = 0; y < img.height; ++y) {
            const float* row = reinterpret_cast<const float*>(m.row(y)) + order[c];
            float* out = img.plane(c) + static_cast<std::size_t>(y) * img.width;
            for (int x = 0; x < img.width; ++x) out[x] = row[std::size_t(x) * n];
        }
}

[[noreturn]] void failRead(const std::string& path, const std::string& why)
{
    throw Error("cannot read '" + path + "': " + why);
}

// What the codecs write to the process's standard error while a file is decoded. libpng,
// libjpeg and libtiff print their warnings and errors straight to file descriptor 2, and OpenCV
// its own; a reader promises one error line instead. So the decode runs with fd 2 pointed at an
// unlinked temporary file (not a pipe: a chatty codec could fill a pipe and block), and the text
// is read back afterwards. fd 2 belongs to the whole process: one decode at a time holds it,
// under a process-wide mutex, and whatever another thread prints meanwhile lands in the capture.
class StderrCapture {
public:
    StderrCapture() : lock_(mutex())
    {
        std::cerr.flush();
        std::fflush(stderr);
        file_ = std::tmpfile();
        saved_ = file_ ? ::dup(2) : -1;
        if (saved_ < 0 || ::dup2(::fileno(file_), 2) < 0) restore(); // no capture, but no harm either
    }
    ~StderrCapture() { restore(); }
    StderrCapture(const StderrCapture&) = delete;
    StderrCapture& operator=(const StderrCapture&) = delete;

    // Puts fd 2 back and returns what was written (its first 16 KiB).
    std::string finish()
    {
        std::cerr.flush();
        std::fflush(stderr);
        std::string text;
        if (file_ && saved_ >= 0) {
            text.resize(16 * 1024);
            std::rewind(file_);
            text.resize(std::fread(text.data(), 1, text.size(), file_));
        }
        restore();
        return text;
    }

private:
    static std::mutex& mutex()
    {
        static std::mutex m;
        return m;
    }
    void restore()
    {
        if (saved_ >= 0) {
            ::dup2(saved_, 2);
            ::close(saved_);
            saved_ = -1;
        }
        if (file_) std::fclose(file_);
        file_ = nullptr;
    }

    std::lock_guard<std::mutex> lock_;
    std::FILE* file_ = nullptr;
    int saved_ = -1;
};

// The codecs' messages, one per line, without duplicates and without the prefixes that name
// the library rather than the problem.
std::vector<std::string> messageLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        for (const char* prefix : {"OpenCV TIFF: "})
            if (line.starts_with(prefix)) line.erase(0, std::strlen(prefix));
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        if (!line.empty() && std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    }
    return lines;
}

// The lines as one short excerpt for a message: "; " between them, control bytes as \xNN,
// cut after about 300 characters.
std::string excerpt(const std::vector<std::string>& lines)
{
    constexpr std::size_t kLimit = 300;
    std::string out;
    for (const std::string& line : lines) {
        if (!out.empty()) out += "; ";
        for (const char ch : line) {
            const auto c = static_cast<unsigned char>(ch);
            if (c < 0x20 || c == 0x7f) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "\\x%02x", c);
                out += hex;
            } else {
                out += ch;
            }
        }
        if (out.size() > kLimit) {
            out.resize(kLimit);
            return out + "...";
        }
    }
    return out;
}

// Warnings after which the decoder filled pixels it did not read (grey or black), while still
// returning an image: libjpeg's JWRN_JPEG_EOF, JWRN_HIT_MARKER, JWRN_HUFF_BAD_CODE and
// JWRN_MUST_RESYNC, and libpng's short image data. Other warnings (an extraneous byte before a
// marker, an odd colour profile) leave every pixel decoded; they become notices.
bool meansMissingPixels(const std::string& line)
{
    for (const char* sign : {"Premature end of JPEG file", "premature end of data segment", "bad Huffman code",
                             "instead of RST", "Not enough image data", "Read Error"})
        if (line.find(sign) != std::string::npos) return true;
    return false;
}

struct Decoded {
    CodecImage image;
    std::vector<std::string> notices;
};

Decoded readCodecImage(const std::string& path)
{
    const ImageHeader header = inspectImageFile(path); // truncation and claimed size, before any decoding
    const std::string format = header.format ? header.format : "image";
    const convlab_codecs& codecs = imageCodecs("cannot read '" + path + "'"); // opened before the capture
    Decoded d{CodecImage(codecs), {}};
    std::string thrown;
    std::string output;
    {
        StderrCapture capture;
        char message[1024] = "";
        const int status = codecs.read(path.c_str(), d.image.out(), message, sizeof message);
        // OpenCV's size guard reads as an assertion; say what it means.
        if (status == CONVLAB_CODEC_TOO_LARGE)
            thrown = "the image is too large to load (OpenCV refuses more than 2^30 pixels or sides over 2^20)";
        else if (status == CONVLAB_CODEC_THREW)
            thrown = message;
        if (status != CONVLAB_CODEC_OK) d.image.reset();
        output = capture.finish();
    }
    const std::vector<std::string> lines = messageLines(output);
    std::vector<std::string> plain = lines; // "corrupt JPEG: Corrupt JPEG data: ..." would say it twice
    for (std::string& line : plain)
        if (line.starts_with("Corrupt JPEG data: ")) line.erase(0, std::strlen("Corrupt JPEG data: "));
    const std::string said = excerpt(plain);
    if (!thrown.empty()) failRead(path, thrown + (said.empty() ? "" : " (" + said + ")"));
    if (d.image.empty())
        failRead(path, header.format ? "corrupt " + format + ": " + (said.empty() ? "the decoder refused it" : said)
                                     : "not an image file OpenCV can decode, or the file is corrupt" +
                                           (said.empty() ? std::string() : ": " + said));
    if (std::any_of(lines.begin(), lines.end(), meansMissingPixels))
        failRead(path, "truncated or corrupt " + format + ": " + said);
    if (d.image->channels > 4) failRead(path, std::to_string(d.image->channels) + " channels; 1 to 4 are supported");
    for (const std::string& line : lines) d.notices.push_back("reading '" + path + "': " + excerpt({line}));
    return d;
}

// 8- or 16-bit samples as decoded (interleaved BGR(A)).
PackedImage packedFrom(const CodecImage& m, const std::string& path)
{
    PackedImage p;
    p.width = m->width;
    p.height = m->height;
    p.channels = m->channels;
    p.depth = m->depth == CONVLAB_CODEC_U16 ? SampleDepth::U16 : SampleDepth::U8;
    p.hasAlpha = p.channels == 2 || p.channels == 4;
    p.order = planeOrder(p.channels);
    p.stride = static_cast<std::size_t>(m->width) * m->channels * (p.depth == SampleDepth::U16 ? 2 : 1);
    try {
        checkImageSize(p.width, p.height, p.channels);
    } catch (const Error& e) {
        failRead(path, e.what());
    }
    p.bytes.resize(p.stride * m->height);
    for (int y = 0; y < m->height; ++y) std::memcpy(p.bytes.data() + p.stride * y, m.row(y), p.stride);
    return p;
}

} // namespace

DecodedImage decodeImageOpenCV(const std::string& path)
{
    Decoded decoded = readCodecImage(path);
    const CodecImage& m = decoded.image;
    DecodedImage d;
    d.notices = std::move(decoded.notices);
    switch (m->depth) {
    case CONVLAB_CODEC_U8:
    case CONVLAB_CODEC_U16: d.samples = packedFrom(m, path); return d;
    case CONVLAB_CODEC_F32: break; // 64-bit float files come as float32 from the module
    default: failRead(path, "unsupported sample type (8-bit, 16-bit unsigned and float files are supported)");
    }
    try {
        d.image = Image::uninitialized(m->width, m->height, m->channels, SampleDepth::F32); // unpackFloat writes every sample
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
    const std::vector<int> plan = channelPlan(img.channels, img.hasAlpha, f, path);
    EncoderInput m;
    switch (depth) {
    case SampleDepth::U8: m = pack<std::uint8_t>(img, plan, CONVLAB_CODEC_U8, depth, opts.map); break;
    case SampleDepth::U16: m = pack<std::uint16_t>(img, plan, CONVLAB_CODEC_U16, depth, opts.map); break;
    case SampleDepth::F32: m = pack<float>(img, plan, CONVLAB_CODEC_F32, depth, opts.map); break;
    }
    convlab_codec_write_options options{};
    if (std::string(f.name) == "JPEG") options.jpeg_quality = 95;
    // LZW (libtiff's COMPRESSION_LZW = 5): lossless for every depth, where OpenCV's default for
    // 3-channel float is the lossy LogLuv.
    if (std::string(f.name) == "TIFF") options.tiff_compression = 5;
    const convlab_codecs& codecs = imageCodecs("cannot write '" + path + "'");
    detail::writeFileAtomically(path, [&](const std::string& tmp) {
        char message[1024] = "";
        const int status = codecs.write(tmp.c_str(), &m.view, &options, message, sizeof message);
        if (status == CONVLAB_CODEC_THREW) writeFail(path, message);
        if (status != CONVLAB_CODEC_OK) writeFail(path, std::string("the ") + f.name + " encoder failed");
    });
}

bool formatHoldsDepthOpenCV(const std::string& path, SampleDepth depth) { return holds(formatFor(path), depth); }

void checkSaveTargetOpenCV(const std::string& path, const SaveOptions& opts, int channels, bool hasAlpha)
{
    const Format& f = formatFor(path);
    if (opts.depth) requireHeld(f, *opts.depth, path);
    channelPlan(channels, hasAlpha, f, path);
}

} // namespace detail
} // namespace convlab
