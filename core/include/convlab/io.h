// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "convlab/image.h"

namespace convlab {

// How float results become integer samples (docs/semantics.md, Output mapping).
enum class OutputMap { Clamp, Abs, Normalize, Offset };
OutputMap parseOutputMap(const std::string& text); // throws convlab::Error
std::string outputMapName(OutputMap m);

// Converts one float value of an image whose nominal range is [0, srcMax] to [0, dstMax]
// under the mapping; `lo`/`hi` are the image's min/max (used by Normalize only).
double mapSample(double v, OutputMap m, double srcMax, double dstMax, double lo, double hi);

struct SaveOptions {
    // Target depth; nullopt: the image's own depth for image files, F32 for .npy.
    std::optional<SampleDepth> depth;
    OutputMap map = OutputMap::Clamp;
};

// .npy (float32/float64/uint8/uint16, shape (H,W) or (H,W,C), C order, little endian).
Image readNpy(const std::string& path);
void writeNpy(const Image& img, const std::string& path, const SaveOptions& opts = {});

// Whether image formats (PNG, JPEG, TIFF, BMP, PNM, WebP) can be read and written (OpenCV
// imgcodecs, in a module the engine opens on first use: this call opens it). When not, `why`
// (if given) says why: the build has no OpenCV, or the module did not open.
bool imageFormatsAvailable(std::string* why = nullptr);

// Loads by extension: .npy through readNpy, everything else through OpenCV. Colour files come
// in as RGB(A) channel order. Throws convlab::Error naming the file and the problem.
Image loadImage(const std::string& path);
// A file as decoded, in one read: 8- and 16-bit image files as their samples (interleaved, see
// PackedImage: the engine converts them inside its first pass, the GPU on the device), float
// files and .npy as float planes. loadImage() is this with the samples unpacked. Throws like
// loadImage.
// A corrupt or truncated file is an error, never an image with made-up pixels: the header is
// read first (a claimed size over the limits is refused before decoding), and a decoder that
// filled pixels it could not read (a truncated JPEG's grey half) fails the load. What the codecs
// print (libpng, libjpeg, libtiff, OpenCV) is captured, never left on stderr: it becomes part of
// the one error message, or, for a file that decoded whole, the notices.
struct DecodedImage {
    std::optional<PackedImage> samples;
    Image image;                      // empty when `samples` holds the file
    std::vector<std::string> notices; // the codecs' warnings about a file that decoded whole
};
DecodedImage decodeImage(const std::string& path);
// The shape a file claims in its header, read before anything is decoded (a few small reads):
// what the workbench weighs against the memory before it decodes. nullopt for a format whose
// header is not read here (WebP; its sides are at most 16383). Throws convlab::Error as
// decodeImage would for a file that is empty, truncated or corrupt in its outline, or that
// claims a size over the limits.
struct ClaimedShape {
    int width = 0, height = 0, channels = 0;
};
std::optional<ClaimedShape> claimedShape(const std::string& path);
// Saves by extension, atomically (temporary file in the same folder, then rename): nothing is
// left half-written and an existing file is untouched on failure.
void saveImage(const Image& img, const std::string& path, const SaveOptions& opts = {});

// Whether saveImage writes `depth` samples into the format `path` names (.npy: every depth).
// Throws convlab::Error like saveImage for a format it cannot write.
bool formatHoldsDepth(const std::string& path, SampleDepth depth);
// Throws what saveImage(img, path, opts) would throw for the file name alone, given the image's
// channels: an unknown extension, a format this build cannot write, an explicit depth or a
// channel layout the format cannot hold. For callers that refuse before they compute.
void checkSaveTarget(const std::string& path, const SaveOptions& opts, int channels, bool hasAlpha);

// The core's atomic writer, for writers outside the core (the benchmarks): calls
// write(tmpPath) with a unique temporary beside `path` that keeps its extension, then renames it
// over `path`; on any failure the temporary is removed and `path` is untouched. Throws
// convlab::Error, or rethrows what `write` threw.
void writeAtomically(const std::string& path, const std::function<void(const std::string& tmpPath)>& write);
// Makes SIGINT, SIGTERM and SIGHUP remove the temporaries of writes in flight before the
// process ends as the signal says (a command-line tool stopped with Ctrl+C mid-write leaves no
// hidden .NAME.tmp-... file behind). With `program`, the handler also says so in one line on
// stderr ("PROGRAM: interrupted by SIGINT; the unfinished output was removed"). The exit status
// a shell sees is 128 + the signal (130 for SIGINT, 143 for SIGTERM). For programs that own
// their signal handling.
void removeTemporariesOnInterrupt(const char* program = nullptr);

} // namespace convlab
