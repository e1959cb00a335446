// SPDX-License-Identifier: GPL-3.0-or-later
// Builds without OpenCV read and write .npy only.
#include "convlab/error.h"
#include "convlab/io.h"
#include "io/io_internal.h"

namespace convlab {

bool imageFormatsAvailable(std::string* why)
{
    if (why) *why = "this build has no OpenCV";
    return false;
}

namespace detail {

namespace {
constexpr const char* kNoFormats = "image formats need OpenCV; this build reads and writes .npy only";
}

DecodedImage decodeImageOpenCV(const std::string& path)
{
    throw Error("cannot read '" + path + "': " + kNoFormats);
}

void saveImageOpenCV(const Image&, const std::string& path, const SaveOptions&)
{
    throw Error("cannot write '" + path + "': " + kNoFormats);
}

bool formatHoldsDepthOpenCV(const std::string& path, SampleDepth)
{
    throw Error("cannot write '" + path + "': " + kNoFormats);
}

void checkSaveTargetOpenCV(const std::string& path, const SaveOptions&, int, bool)
{
    throw Error("cannot write '" + path + "': " + kNoFormats);
}

} // namespace detail
} // namespace convlab
