// SPDX-License-Identifier: GPL-3.0-or-later
// libconvlab-codecs.so: OpenCV imgcodecs behind the plain C interface of codecs_abi.h. What a
// format holds, how samples are mapped and what a codec's messages mean stay in the engine
// (io_formats.cpp); this module only moves pixels between files and memory.
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "io/codecs_abi.h"

namespace {

void say(const std::string& text, char* message, size_t size)
{
    if (!message || size == 0) return;
    const size_t n = std::min(text.size(), size - 1);
    std::memcpy(message, text.data(), n);
    message[n] = '\0';
}

int depthOf(const cv::Mat& m)
{
    switch (m.depth()) {
    case CV_8U: return CONVLAB_CODEC_U8;
    case CV_16U: return CONVLAB_CODEC_U16;
    case CV_32F: return CONVLAB_CODEC_F32;
    default: return CONVLAB_CODEC_OTHER;
    }
}

int cvDepth(int depth) { return depth == CONVLAB_CODEC_U16 ? CV_16U : depth == CONVLAB_CODEC_F32 ? CV_32F : CV_8U; }

int readImage(const char* path, convlab_codec_image* out, char* message, size_t size)
{
    try {
        auto mat = std::make_unique<cv::Mat>(cv::imread(path, cv::IMREAD_UNCHANGED));
        if (mat->empty()) return CONVLAB_CODEC_REFUSED;
        if (mat->depth() == CV_64F) mat->convertTo(*mat, CV_32F);
        *out = {mat->cols, mat->rows, mat->channels(), depthOf(*mat), mat->data, mat->step[0], mat.get()};
        mat.release(); // the image's owner until releaseImage
        return CONVLAB_CODEC_OK;
    } catch (const cv::Exception& e) {
        say(e.err, message, size);
        return e.err.find("CV_IO_MAX_IMAGE") != std::string::npos ? CONVLAB_CODEC_TOO_LARGE : CONVLAB_CODEC_THREW;
    } catch (const std::bad_alloc&) {
        say("out of memory", message, size);
        return CONVLAB_CODEC_THREW;
    } catch (const std::exception& e) {
        say(e.what(), message, size);
        return CONVLAB_CODEC_THREW;
    } catch (...) { // nothing crosses the C interface
        say("the codec library threw an unknown exception", message, size);
        return CONVLAB_CODEC_THREW;
    }
}

void releaseImage(convlab_codec_image* image)
{
    if (!image) return;
    delete static_cast<cv::Mat*>(image->owner);
    *image = {};
}

// The system's reason for the last failed call ("no space left on device").
int sayErrno(char* message, size_t size)
{
    std::string text = std::strerror(errno);
    if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
    say(text.c_str(), message, size);
    return CONVLAB_CODEC_THREW;
}

int writeImage(const char* path, const convlab_codec_image* image, const convlab_codec_write_options* options,
               char* message, size_t size)
{
    try {
        // A header over the engine's buffer: nothing is copied.
        const cv::Mat m(image->height, image->width, CV_MAKETYPE(cvDepth(image->depth), image->channels),
                        const_cast<unsigned char*>(image->data), image->step);
        std::vector<int> params;
        const auto add = [&params](int key, int value) {
            params.push_back(key);
            params.push_back(value);
        };
        if (options && options->jpeg_quality > 0) add(cv::IMWRITE_JPEG_QUALITY, options->jpeg_quality);
        if (options && options->tiff_compression > 0) add(cv::IMWRITE_TIFF_COMPRESSION, options->tiff_compression);
        // Encoded in memory and written here: a file that cannot be written (a full disk, a
        // lost mount) is then said with the system's reason, which the codec libraries' own
        // writers would report as "Write Error" on stderr and a bare failure.
        const char* dot = std::strrchr(path, '.');
        std::vector<unsigned char> bytes;
        if (!dot || !cv::imencode(dot, m, bytes, params)) return CONVLAB_CODEC_REFUSED;
        std::FILE* f = std::fopen(path, "wb");
        if (!f) return sayErrno(message, size);
        const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
        const int writeErrno = errno;
        if (std::fclose(f) != 0 || !written) {
            if (!written) errno = writeErrno;
            return sayErrno(message, size);
        }
        return CONVLAB_CODEC_OK;
    } catch (const cv::Exception& e) {
        say(e.err, message, size);
        return CONVLAB_CODEC_THREW;
    } catch (const std::exception& e) {
        say(e.what(), message, size);
        return CONVLAB_CODEC_THREW;
    } catch (...) { // nothing crosses the C interface
        say("the codec library threw an unknown exception", message, size);
        return CONVLAB_CODEC_THREW;
    }
}

int hasWriter(const char* path)
{
    try {
        return cv::haveImageWriter(path) ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

const convlab_codecs kCodecs = {CONVLAB_CODECS_ABI, readImage, releaseImage, writeImage, hasWriter};

} // namespace

// The engine reports every failure itself, in one line with the reason: OpenCV's own log lines
// ("[ WARN:0@0.8] ... imwrite_ ... can't open file for writing") would only repeat it, on
// stderr, in another format. Silenced once, when the engine opens the module.
extern "C" __attribute__((visibility("default"))) const convlab_codecs* convlab_codecs_v1(void)
{
    static const bool quiet = [] {
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
        return true;
    }();
    (void)quiet;
    return &kCodecs;
}
