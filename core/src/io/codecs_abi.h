// SPDX-License-Identifier: GPL-3.0-or-later
// The C interface between the engine and its image-codec module, libconvlab-codecs.so
// (core/codecs/opencv_codecs.cpp). The module is the only code that links OpenCV's imgcodecs,
// and the engine opens it the first time a file other than .npy is read or written
// (codecs.cpp): Debian's imgcodecs pulls in some 140 libraries (GDAL, GDCM, Poppler, ...) whose
// loading and symbol binding cost about 120 ms at every process start, which every .npy run and
// every --help of the CLI would otherwise pay.
//
// Plain C types only, so that no C++ exception and no library's object crosses the boundary:
// the module catches everything and answers with a status and a message.
#pragma once
#include <stddef.h>

extern "C" {

// Samples as the codecs hold them: interleaved, colour in BGR(A) order.
enum convlab_codec_depth { CONVLAB_CODEC_U8 = 0, CONVLAB_CODEC_U16 = 1, CONVLAB_CODEC_F32 = 2, CONVLAB_CODEC_OTHER = 3 };

struct convlab_codec_image {
    int width, height, channels;
    int depth;                  // convlab_codec_depth
    const unsigned char* data;  // first row
    size_t step;                // bytes from one row to the next
    void* owner;                // the module's storage of a decoded image; null for the engine's
};

enum convlab_codec_status {
    CONVLAB_CODEC_OK = 0,
    CONVLAB_CODEC_REFUSED = 1,  // the decoder or encoder gave up without saying why
    CONVLAB_CODEC_THREW = 2,    // the codec library threw; the message says what
    CONVLAB_CODEC_TOO_LARGE = 3 // the codec library's own limit on image size
};

struct convlab_codec_write_options {
    int jpeg_quality;     // 1..100
    int tiff_compression; // libtiff's COMPRESSION_* code
};

struct convlab_codecs {
    int abi_version; // CONVLAB_CODECS_ABI
    // Decodes the file as stored (any depth, 1 to 4 or more channels); 64-bit float samples come
    // back as float32. On CONVLAB_CODEC_OK the image holds the module's storage until release.
    int (*read)(const char* path, convlab_codec_image* out, char* message, size_t messageSize);
    void (*release)(convlab_codec_image* image);
    int (*write)(const char* path, const convlab_codec_image* image, const convlab_codec_write_options* options,
                 char* message, size_t messageSize);
    // Whether the codecs have a writer for this file name's extension.
    int (*has_writer)(const char* path);
};

#define CONVLAB_CODECS_ABI 1
#define CONVLAB_CODECS_ENTRY "convlab_codecs_v1"
typedef const convlab_codecs* (*convlab_codecs_entry)(void);
}
