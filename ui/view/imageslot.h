// SPDX-License-Identifier: GPL-3.0-or-later
// One image the view displays (the source, the result or the difference): its values on the
// host, their statistics, and the GL objects that hold them for drawing. A pixel buffer object
// holds planar float32 values written by a GPU producer; a GL_TEXTURE_2D_ARRAY (one GL_R32F
// layer per channel) holds float values, or, for an image the view holds on the host, a
// GL_RGBA8 texture holds its display colours mapped on the CPU (view/displaymap.h): a quarter
// of the bytes of three float layers, one texture read a pixel. The GL objects are made and
// filled by SlotTextures; this class only keeps them.
#pragma once
#include <QOpenGLFunctions_3_3_Core>
#include <QString>
#include <QVector>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "convlab/image.h"
#include "convlab/imagestats.h"
#include "view/displaymap.h"

class ImageSlot {
public:
    enum class Pending { None, FromHost, FromBuffer };

    // The channels that carry colour (alpha, the last of 2 or 4, does not).
    static int colourChannels(int channels);
    // Throws convlab::Error, naming `what`, for a shape outside what the view draws.
    static void checkShape(int w, int h, int c, const char* what);

    std::shared_ptr<const convlab::Image> host; // the values, when hostValid (shared, not copied)
    bool hostValid = false; // false after a GPU producer wrote the buffer, until read back
    bool keepHost = true;   // false: the host copy is dropped once uploaded
    int width = 0, height = 0, channels = 0; // shape of the contents; channels 0 = empty
    convlab::SampleDepth depth = convlab::SampleDepth::F32;
    int statChannels = 0; // channels that enter the statistics
    convlab::ImageStats stats;
    // The diverging map's ±limit: robust to a few outliers (display::kSignedQuantile).
    convlab::SymmetricLimit signedRange;
    bool statsValid = false;
    Pending pending = Pending::None;
    bool displayable = true; // false when it could not be put into a texture (see problem)
    QString problem;         // why it is not drawn
    int factorX = 1, factorY = 1; // the texture's reduction from the image (1: full resolution)
    bool overLimit = false;       // the reduction is the texture limit's (else the zoom's, or none)

    convlab::Image reduced; // the last reduced copy uploaded, its memory kept for the next
    GLuint pbo = 0;
    std::size_t pboBytes = 0;
    GLuint tex = 0;                            // the float layers
    int layersW = 0, layersH = 0, layersC = 0; // their allocation
    bool premapped = false;                    // drawn from the colour texture, not the layers
    displaymap::Key premapKey;                 // what the colours were mapped with
    std::vector<std::uint32_t> rgba; // the colours uploaded last (RGBA8 words), memory kept for the next
    GLuint rgbaTex = 0;
    int rgbaW = 0, rgbaH = 0;          // its allocation
    int texW = 0, texH = 0, texC = 0;  // what is drawn: its size and channels (0: nothing)
    displaymap::Region region;         // the image pixels the colours hold (empty: all of them)

    std::size_t bytes() const { return static_cast<std::size_t>(width) * height * channels * sizeof(float); }
    bool contains(int x, int y) const { return channels > 0 && x >= 0 && y >= 0 && x < width && y < height; }
    // Whether the shader draws it: something in the texture that matches the contents.
    bool drawn() const { return channels > 0 && displayable && texC == channels; }

    // Takes the image without copying it. Statistics are computed only where eager (the
    // difference heat map) or when a mapping needs them (paintGL).
    void assign(std::shared_ptr<const convlab::Image> image, bool eagerStats);
    // Takes the shape of values a GPU producer wrote into the buffer (read back when needed).
    // Throws convlab::Error for a shape out of range or other than the buffer was made for.
    void assignWritten(int w, int h, int c, convlab::SampleDepth valueDepth);
    // The statistics a mapping needs (range, signed limit), from the host copy.
    void computeStats();
    // The share of the values of an integer image's colour channels outside 0..range: what a
    // file of its depth would clamp (computed once per image, when the caption asks).
    double outsideFraction(double range) const;
    // What the diverging map draws at full colour: the robust limit once computed.
    float divergingLimit() const { return signedRange.finite ? signedRange.limit : stats.maxAbs; }
    // Until its upload decides, a new image is taken to draw at full resolution (a notice
    // about the previous one must not stay).
    void resetDisplay();
    // Nothing to show; the GL objects stay for the next image.
    void clear();
    // The GL objects are gone (their context is): forgotten, and the contents, if any, wait for
    // an upload from the host into the next context.
    void forgetGL();
    // The values at (x, y), one per channel; empty outside or without a host copy.
    QVector<float> valuesAt(int x, int y) const;

private:
    mutable bool outsideKnown_ = false; // a cache of the const query outsideFraction
    mutable double outside_ = 0.0;
};
