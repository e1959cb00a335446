// SPDX-License-Identifier: GPL-3.0-or-later
// libconvlab-codecs.so: OpenCV imgcodecs behind the plain C interface of codecs_abi.h. What a
// format holds, how samples are mapped and what a codec's messages mean stay in the engine
// (io_formats.cpp); this module only moves pixels between files and memory.
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
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
        return cv::imwrite(path, m, params) ? CONVLAB_CODEC_OK : CONVLAB_CODEC_REFUSED;
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

extern "C" __attribute__((visibility("default"))) const convlab_codecs* convlab_codecs_v1(void) { return &kCodecs; }
