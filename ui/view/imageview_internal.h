// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's private state, shared by its source files: a displayed image and ImageView::State.
#pragma once
#include <QByteArray>
#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLShaderProgram>
#include <QPoint>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QVector2D>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "view/differencescale.h"
#include "view/displaymap.h"
#include "view/edgeloupe.h"
#include "view/imageview.h"
#include "convlab/error.h"
#include "convlab/image.h"
#include "convlab/imagestats.h"

class ColorBar;
class QLabel;

namespace imageview_detail {

// A limit below the driver's, for exercising the reduced display (0: none).
inline int g_maxTextureOverride = 0;

inline int colourChannels(int channels)
{
    return channels == 2 || channels == 4 ? channels - 1 : channels;
}

inline void checkShape(int w, int h, int c, const char* what)
{
    if (w < 1 || h < 1 || w > convlab::kMaxImageSide || h > convlab::kMaxImageSide || c < 1 || c > 4)
        throw convlab::Error(std::string("image view: ") + what + " of shape " + std::to_string(w) +
                             "x" + std::to_string(h) + "x" + std::to_string(c) +
                             " is outside 1.." + std::to_string(convlab::kMaxImageSide) +
                             " per side and 1..4 channels");
}

// One displayed image: a pixel buffer object holding its planar float32 values and a
// GL_TEXTURE_2D_ARRAY (one GL_R32F layer per channel) filled from that buffer, or, for an image
// the view holds on the host, a GL_RGBA8 texture of its display colours mapped on the CPU
// (view/displaymap.h): a quarter of the bytes of three float layers, one texture read a pixel.
struct Slot {
    enum class Pending { None, FromHost, FromBuffer };

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
    GLuint tex = 0;                        // the float layers
    int layersW = 0, layersH = 0, layersC = 0; // their allocation
    bool premapped = false;                // drawn from the colour texture, not the layers
    displaymap::Key premapKey;             // what the colours were mapped with
    std::vector<std::uint32_t> rgba;       // the colours uploaded last (RGBA8 words), memory kept for the next
    GLuint rgbaTex = 0;
    int rgbaW = 0, rgbaH = 0;              // its allocation
    int texW = 0, texH = 0, texC = 0;      // what is drawn: its size and channels (0: nothing)
    displaymap::Region region;             // the image pixels the colours hold (empty: all of them)

    std::size_t bytes() const { return static_cast<std::size_t>(width) * height * channels * sizeof(float); }
    bool contains(int x, int y) const { return channels > 0 && x >= 0 && y >= 0 && x < width && y < height; }

    // Takes the image without copying it. Statistics are computed only where eager (the
    // difference heat map) or when a mapping needs them (paintGL).
    void assign(std::shared_ptr<const convlab::Image> image, bool eagerStats)
    {
        if (!image || image->empty()) {
            clear();
            return;
        }
        const convlab::Image& im = *image;
        checkShape(im.width, im.height, im.channels, "image");
        if (im.data.size() != static_cast<std::size_t>(im.width) * im.height * im.channels)
            throw convlab::Error("image view: image data holds " + std::to_string(im.data.size()) +
                                 " values, not width*height*channels");
        host = std::move(image);
        hostValid = true;
        width = im.width;
        height = im.height;
        channels = im.channels;
        depth = im.depth;
        statChannels = eagerStats ? channels : colourChannels(channels);
        statsValid = eagerStats;
        outsideKnown = false;
        if (eagerStats) stats = convlab::imageStats(*host, statChannels);
        pending = Pending::FromHost;
        resetDisplay();
    }

    // The statistics a mapping needs (range, signed limit), from the host copy.
    void computeStats()
    {
        stats = convlab::imageStats(*host, statChannels);
        signedRange = convlab::robustSymmetricLimit(*host, statChannels, display::kSignedQuantile);
        statsValid = true;
    }
    // The share of the values of an integer image's colour channels outside 0..range: what a
    // file of its depth would clamp (computed once per image, when the caption asks).
    double outsideFraction(double range) const
    {
        if (!outsideKnown && hostValid) {
            std::uint64_t outside = 0, all = 0;
            for (int c = 0; c < statChannels; ++c) {
                const float* p = host->plane(c);
                const float top = float(range);
                for (std::size_t i = 0, n = host->planeSize(); i < n; ++i) outside += (p[i] < 0.0f) | (p[i] > top);
                all += host->planeSize();
            }
            outside_ = all ? double(outside) / double(all) : 0.0;
            outsideKnown = true;
        }
        return outside_;
    }
    mutable bool outsideKnown = false; // a cache of the const query above
    mutable double outside_ = 0.0;

    // What the diverging map draws at full colour: the robust limit once computed.
    float divergingLimit() const { return signedRange.finite ? signedRange.limit : stats.maxAbs; }

    // Until its upload decides, a new image is taken to draw at full resolution (a notice
    // about the previous one must not stay).
    void resetDisplay()
    {
        displayable = true;
        problem.clear();
        factorX = factorY = 1;
        overLimit = false;
    }

    // Nothing to show; the GL objects stay for the next image.
    void clear()
    {
        host.reset();
        hostValid = false;
        width = height = channels = 0;
        resetDisplay();
        stats = convlab::ImageStats();
        signedRange = convlab::SymmetricLimit();
        statsValid = false;
        outsideKnown = false;
        pending = Pending::None;
    }
};

} // namespace imageview_detail

struct ImageView::State {
    using Slot = imageview_detail::Slot;
    QOpenGLFunctions_3_3_Core* gl = nullptr; // null until initializeGL succeeds
    std::unique_ptr<QOpenGLShaderProgram> program;
    // The same shader built with RESULT_COLOURS_ONLY: the frames that show only a result mapped
    // on the CPU (resultColoursOnly), the usual frame of an edit, skip the full shader's paths.
    std::unique_ptr<QOpenGLShaderProgram> coloursProgram;
    GLuint vao = 0;
    GLint maxTextureSize = 0;
    GLint maxLayers = 0;

    Slot source, result, diff;
    Mapping mapping = Mapping::Clamp;
    int displayChannel = -1; // View > Channel; -1: every channel
    ViewMode viewMode = ViewMode::Result;
    bool originalHeld = false;    // Space is down on the view
    bool originalToggled = false; // View > Show Original
    double split = 0.5;

    bool padding = false;       // padding preview on
    int padMargin = 8;          // its width in image pixels
    convlab::Border padBorder;  // the rule it shows
    int band[4] = {0, 0, 0, 0}; // band overlay widths: left, top, right, bottom

    double zoom = 1.0;
    QPointF origin;       // widget position of the image's top-left corner
    bool autoFit = true;  // refit on resize and on a new image shape
    bool centred = true;  // recentre on resize and on a new image shape

    enum class Drag { None, Pending, Pan, Divider } drag = Drag::None;
    QPointF pressPos, originAtPress;
    QPoint hovered{-1, -1};

    double lastDisplayMs = 0.0;
    double dpr = 1.0; // device pixels per widget pixel, as of the last frame
    QSizeF viewSize;  // the widget's size, as of the last frame

    DifferenceScale diffScale = DifferenceScale::Absolute;
    double diffAbsoluteMax = 0.0; // 0: kDefaultDifferenceFraction of the nominal range
    ColorBar* bar = nullptr;      // children of the view, drawn over the picture
    QLabel* notice = nullptr;
    QLabel* splitLeft = nullptr;  // "original" and "result" at the foot of the split halves
    QLabel* splitRight = nullptr;
    QLabel* originalLabel = nullptr; // "original" while it replaces the mode's picture
    QLabel* caption = nullptr;       // how the result's values became colours (mappingCaption)
    EdgeLoupe* loupe = nullptr;      // a corner magnified, source with padding beside result
    bool loupeWanted = true;         // View > Edge Loupe
    int loupeMargin = 1;             // the padding it shows: the kernel's reach, 1..kMaxMargin
    bool gridEnabled = true;         // View > Pixel Grid
    bool overlaysQueued = false;  // a refresh of the overlays is posted

    // The driver's limit, lowered by the test override.
    int textureLimit() const
    {
        using imageview_detail::g_maxTextureOverride;
        return g_maxTextureOverride > 0 && g_maxTextureOverride < maxTextureSize ? g_maxTextureOverride
                                                                                 : maxTextureSize;
    }

    bool floatRangeByValues = true; // View > Float Range by Values
    double sourceTop = 0.0;         // the original's largest finite colour value (float originals)

    // The top of the range a slot's values map by: its depth's, or for float images what the
    // original's values say (convlab::displayRange), so that a float photo of 0..255 is not
    // drawn white. Without an original, a slot's own statistics when known.
    double rangeOf(const Slot& s) const
    {
        if (s.depth != convlab::SampleDepth::F32 || !floatRangeByValues)
            return convlab::depthMax(s.depth);
        if (source.channels)
            return convlab::displayRange(s.depth, sourceTop);
        return convlab::displayRange(s.depth, s.statsValid ? s.stats.hi : 0.0);
    }

    // Top of the values' range: the source's, else the result's, else the difference's.
    double nominalRange() const
    {
        return rangeOf(source.channels ? source : result.channels ? result : diff);
    }

    double differenceScale() const
    {
        if (diffScale == DifferenceScale::Relative)
            return diff.stats.maxAbs;
        return differenceScaleChoice().scale;
    }

    // Absolute: as set, or kDefaultDifferenceFraction of the nominal range.
    double fixedDifferenceScale() const
    {
        return display::fixedDifferenceScale(diffAbsoluteMax, kDefaultDifferenceFraction, nominalRange());
    }

    // The Absolute scale in use: the fixed one unless the largest difference would stay black
    // under it (view/differencescale.h). The fixed one without a difference to judge by.
    display::DifferenceScaleChoice differenceScaleChoice() const
    {
        const double fixed = fixedDifferenceScale();
        const double maxAbs = diff.stats.maxAbs;
        if (!diff.channels || !diff.statsValid || !(fixed > 0.0) || !std::isfinite(fixed) || !std::isfinite(maxAbs))
            return {fixed, display::DifferenceScaleChoice::Reason::Fixed};
        return display::adaptiveDifferenceScale(maxAbs, fixed);
    }

    ViewMode shownMode() const { return originalHeld || originalToggled ? ViewMode::Original : viewMode; }
    bool diffOnScreen() const { return shownMode() == ViewMode::Difference; }
    bool resultOnScreen() const { return shownMode() == ViewMode::Result || shownMode() == ViewMode::Split; }
    bool sourceOnScreen() const
    {
        return shownMode() == ViewMode::Original || shownMode() == ViewMode::Split || padding;
    }

    // The image that defines the geometry: the result, else the source, else the difference.
    const Slot& reference() const
    {
        return result.channels ? result : source.channels ? source : diff;
    }

    // The reduction the zoom allows: the largest power of two of image pixels per device pixel
    // (1 from half size up). A texture of more texels than the screen has pixels only costs
    // upload time and texture reads; powers of two keep the texture while a zoom stays in one
    // octave.
    int zoomFactor() const
    {
        const double pixelsPerTexel = zoom * dpr;
        int f = 1;
        while (f < 1024 && pixelsPerTexel * 2 * f <= 1.0)
            f *= 2;
        return f;
    }

    // Whether a zoom change asks for another reduction of a slot drawn from its host copy (the
    // upload then happens at the next frame). GPU-written contents stay as they are: reducing
    // them would read them back.
    bool reductionStale(const Slot& s) const
    {
        if (!s.channels || !s.hostValid || s.overLimit || s.pending != Slot::Pending::None)
            return false;
        return zoomFactors(s) != std::pair{s.factorX, s.factorY};
    }

    // The colours a slot drawn from its host copy is mapped with now; none for the difference
    // (its heat map's scale follows the settings frame by frame) and for a slot that does not
    // keep its host copy (nothing to map again when the mapping changes). Computes the
    // statistics a mapping needs.
    std::optional<displaymap::Key> premapKeyFor(Slot& s)
    {
        if ((&s != &source && &s != &result) || !s.keepHost || !s.hostValid)
            return std::nullopt;
        displaymap::Key k;
        k.mapping = &s == &result ? mapping : Mapping::Clamp; // colour maps are for the result only
        k.channel = displayChannel;
        k.range = float(rangeOf(s));
        if (displaymap::needsStats(k.mapping)) {
            if (!s.statsValid) s.computeStats();
            k.lo = s.stats.lo;
            k.hi = s.stats.hi;
            k.maxAbs = s.divergingLimit();
        }
        return k;
    }

    // Whether a slot's colours were mapped otherwise than the view maps them now (a new
    // mapping, channel or range): they are mapped and uploaded again at the next frame.
    bool premapStale(Slot& s)
    {
        if (!s.premapped || s.pending != Slot::Pending::None)
            return false;
        const auto key = premapKeyFor(s);
        return key && *key != s.premapKey;
    }

    // The image pixels on screen, as of the last frame.
    QRectF visibleImageRect() const
    {
        return QRectF(-origin / zoom, viewSize / zoom);
    }

    // What of a slot's image its colours hold: at a zoom where the texture is full resolution,
    // the pixels on screen and half a screen around them (panning stays within it for a while),
    // in 64-pixel steps, unless that is most of the image anyway; else the whole image. The
    // padding preview reads any pixel of the image (wrap reads the far side): the whole image.
    displaymap::Region regionFor(const Slot& s) const
    {
        const displaymap::Region whole{0, 0, s.width, s.height};
        if (s.factorX != 1 || s.factorY != 1 || padding || viewSize.isEmpty())
            return whole;
        const QRectF v = visibleImageRect();
        const double mx = std::max(64.0, v.width() / 2), my = std::max(64.0, v.height() / 2);
        const auto down = [](double p) { return std::max(0, int(std::floor(p / 64.0)) * 64); };
        const int x0 = down(v.left() - mx), y0 = down(v.top() - my);
        const int x1 = std::min(s.width, int(std::ceil((v.right() + mx) / 64.0)) * 64);
        const int y1 = std::min(s.height, int(std::ceil((v.bottom() + my) / 64.0)) * 64);
        if (x1 <= x0 || y1 <= y0 || double(x1 - x0) * (y1 - y0) > 0.75 * double(s.width) * s.height)
            return whole;
        return {x0, y0, x1 - x0, y1 - y0};
    }

    // Whether the screen shows pixels of a slot's image that its colours do not hold (a pan or
    // a zoom out of the region), or the padding preview needs the whole image: the next frame
    // maps and uploads again.
    bool regionStale(const Slot& s) const
    {
        if (!s.premapped || !s.hostValid || s.pending != Slot::Pending::None || s.factorX != 1 || s.factorY != 1)
            return false;
        const displaymap::Region& r = s.region;
        if (r == displaymap::Region{0, 0, s.width, s.height})
            return false;
        if (padding)
            return true;
        const QRectF held(r.x, r.y, r.width, r.height);
        return !held.contains(visibleImageRect().intersected(QRectF(0, 0, s.width, s.height)));
    }

    // zoomFactor along each side of a slot, at most the side itself.
    std::pair<int, int> zoomFactors(const Slot& s) const
    {
        const int f = zoomFactor();
        return {std::max(1, std::min(f, s.width)), std::max(1, std::min(f, s.height))};
    }

    // Uploads pending contents (host -> PBO -> texture, or PBO -> texture). A side over the
    // texture limit gets a reduced copy instead (a GPU-written one is read back for it first);
    // contents from the host are reduced to what the zoom shows (zoomFactor). Context current.
    bool upload(Slot& s)
    {
        if (s.pending == Slot::Pending::None || s.channels == 0)
            return false;
        const bool fromHost = s.pending == Slot::Pending::FromHost;
        s.pending = Slot::Pending::None;
        const int limit = std::max(1, textureLimit());
        s.factorX = (s.width + limit - 1) / limit;
        s.factorY = (s.height + limit - 1) / limit;
        s.overLimit = s.factorX > 1 || s.factorY > 1;
        if (fromHost && !s.overLimit && s.keepHost)
            std::tie(s.factorX, s.factorY) = zoomFactors(s);
        s.problem.clear();
        s.displayable = s.channels <= maxLayers;
        if (!s.displayable) {
            s.problem = QStringLiteral("%1 channels, more than the %2 texture layers OpenGL allows here")
                            .arg(s.channels)
                            .arg(maxLayers);
            return false;
        }
        while (gl->glGetError() != GL_NO_ERROR) {
        } // errors of others must not be taken for this upload's
        if (s.factorX > 1 || s.factorY > 1)
            uploadReduced(s, fromHost);
        else
            uploadFull(s, fromHost);
        if (s.displayable && gl->glGetError() != GL_NO_ERROR) {
            s.displayable = false;
            s.problem = QStringLiteral("OpenGL could not allocate its texture (out of memory?)");
        }
        if (!s.displayable)
            s.texC = 0; // nothing valid in the texture: the shader draws background
        return true;
    }

    void uploadFull(Slot& s, bool fromHost)
    {
        // Planar values are exactly a stack of layers: plane c -> layer c, no interleaving.
        s.reduced = convlab::Image(); // a zoom at half size or more needs no reduced copy
        if (fromHost) {
            // Straight from the image's memory: a pixel buffer would be one more image-sized
            // copy held for nothing (only a GPU producer needs one). One a GPU producer left
            // behind is emptied.
            if (s.pboBytes > 0) {
                gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, s.pbo);
                gl->glBufferData(GL_PIXEL_UNPACK_BUFFER, 0, nullptr, GL_STREAM_DRAW);
                s.pboBytes = 0;
            }
            gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
            fillFromHost(s, *s.host, regionFor(s));
        } else {
            gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, s.pbo);
            fillTexture(s, s.width, s.height, nullptr);
            gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        }
        if (!s.keepHost) {
            s.host.reset();
            s.hostValid = false;
        }
    }

    // The host copy stays (the readout and a new context need it: the buffer holds nothing).
    void uploadReduced(Slot& s, bool fromHost)
    {
        if (!fromHost)
            readBack(s);
        if (!s.hostValid) {
            s.displayable = false;
            s.problem = QStringLiteral("its values could not be read back for a reduced copy");
            return;
        }
        try {
            // Once per image (and zoom octave), never per frame, into the slot's buffer of the
            // previous one: an edit's upload allocates nothing.
            convlab::reduceByBlocksInto(*s.host, s.factorX, s.factorY, s.reduced, 0); // every core: the engine is done
        } catch (const std::bad_alloc&) {
            s.reduced = convlab::Image();
            s.displayable = false;
            s.problem = QStringLiteral("no memory for a reduced copy");
            return;
        }
        gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        fillFromHost(s, s.reduced);
    }

    // Fills the slot's textures from values on the host (the image or its reduced copy): its
    // colours where the slot is mapped on the CPU (of `region` only, when given), else its float
    // layers (of all of it).
    void fillFromHost(Slot& s, const convlab::Image& values, displaymap::Region region = {})
    {
        if (region.width <= 0 || region.height <= 0) region = {0, 0, values.width, values.height};
        s.region = {0, 0, values.width, values.height};
        if (const auto key = premapKeyFor(s)) {
            try {
                displaymap::toRgba8(values, *key, s.rgba, region);
            } catch (const std::bad_alloc&) {
                s.rgba = {};
                fillTexture(s, values.width, values.height, values.data.data());
                return;
            }
            fillColours(s, region.width, region.height, s.rgba.data());
            s.region = region;
            s.premapKey = *key;
            return;
        }
        fillTexture(s, values.width, values.height, values.data.data());
    }

    void setUnpackDefaults()
    {
        gl->glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        gl->glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
        gl->glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 0);
        gl->glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
        gl->glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
        gl->glPixelStorei(GL_UNPACK_SKIP_IMAGES, 0);
    }

    // Binds `tex` to `target`, made first (edges clamped, one level) when it is 0.
    void bindTexture(GLenum target, GLuint& tex)
    {
        if (!tex) {
            gl->glGenTextures(1, &tex);
            gl->glBindTexture(target, tex);
            gl->glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
            gl->glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
            gl->glTexParameteri(target, GL_TEXTURE_BASE_LEVEL, 0);
            gl->glTexParameteri(target, GL_TEXTURE_MAX_LEVEL, 0);
        }
        gl->glBindTexture(target, tex);
    }

    // Fills the slot's colour texture with w x h RGBA8 pixels, reallocating it only when the
    // shape changes.
    void fillColours(Slot& s, int w, int h, const std::uint32_t* pixels)
    {
        bindTexture(GL_TEXTURE_2D, s.rgbaTex);
        setUnpackDefaults();
        if (s.rgbaW == w && s.rgbaH == h) {
            gl->glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        } else {
            gl->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
            s.rgbaW = w;
            s.rgbaH = h;
        }
        s.premapped = true;
        s.texW = w;
        s.texH = h;
        s.texC = s.channels;
    }

    // Fills the slot's texture with w x h x channels planar floats from `pixels` (or from the
    // bound unpack buffer when null), reallocating it only when the shape changes.
    void fillTexture(Slot& s, int w, int h, const void* pixels)
    {
        bindTexture(GL_TEXTURE_2D_ARRAY, s.tex);
        setUnpackDefaults();
        if (s.layersW == w && s.layersH == h && s.layersC == s.channels) {
            gl->glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, w, h, s.channels, GL_RED, GL_FLOAT, pixels);
        } else {
            gl->glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_R32F, w, h, s.channels, 0, GL_RED, GL_FLOAT, pixels);
            s.layersW = w;
            s.layersH = h;
            s.layersC = s.channels;
        }
        s.premapped = false;
        s.texW = w;
        s.texH = h;
        s.texC = s.channels;
    }

    // Copies the PBO back into the host copy when a GPU producer wrote it. Context current.
    void readBack(Slot& s)
    {
        if (s.hostValid || s.channels == 0 || !s.pbo || s.pboBytes < s.bytes())
            return;
        auto copy = std::make_shared<convlab::Image>(s.width, s.height, s.channels, s.depth);
        gl->glBindBuffer(GL_COPY_READ_BUFFER, s.pbo);
        gl->glGetBufferSubData(GL_COPY_READ_BUFFER, 0, static_cast<GLsizeiptr>(s.bytes()), copy->data.data());
        gl->glBindBuffer(GL_COPY_READ_BUFFER, 0);
        s.host = std::move(copy);
        s.hostValid = true;
    }

    // Whether this frame shows nothing but the result drawn from its colours.
    bool resultColoursOnly() const
    {
        const Slot& r = result;
        return shownMode() == ViewMode::Result && !padding && r.channels > 0 && r.displayable && r.premapped &&
               r.texC == r.channels;
    }

    void setLayerUniforms(QOpenGLShaderProgram* program, const char* name, const Slot& s)
    {
        const QByteArray n(name);
        const bool drawn = s.channels > 0 && s.displayable && s.texC == s.channels;
        program->setUniformValue(n + ".channels", drawn ? s.channels : 0);
        program->setUniformValue(n + ".premapped", drawn && s.premapped ? 1 : 0);
        program->setUniformValue(n + ".size", QVector2D(float(s.width), float(s.height)));
        program->setUniformValue(n + ".offset", QVector2D(float(s.region.x), float(s.region.y)));
        // The texture covers whole blocks: a partial last block stretches the span past the size.
        program->setUniformValue(n + ".span", QVector2D(float(s.texW * s.factorX), float(s.texH * s.factorY)));
        program->setUniformValue(n + ".factor", QVector2D(float(s.factorX), float(s.factorY)));
        program->setUniformValue(n + ".range", float(rangeOf(s)));
        program->setUniformValue(n + ".lo", s.stats.lo);
        program->setUniformValue(n + ".hi", s.stats.hi);
        program->setUniformValue(n + ".maxAbs", s.divergingLimit());
    }
};
