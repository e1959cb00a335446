// SPDX-License-Identifier: GPL-3.0-or-later
// The view's images into textures: full, reduced, or as colours mapped on the CPU.
#include "view/slottextures.h"

#include <QString>

#include <algorithm>
#include <memory>
#include <new>
#include <tuple>

#include "convlab/image.h"
#include "view/imageslot.h"
#include "view/viewcamera.h"
#include "view/viewscene.h"

namespace {
// A limit below the driver's, for exercising the reduced display (0: none).
int g_maxTextureOverride = 0;
} // namespace

void SlotTextures::setLimitOverride(int px)
{
    g_maxTextureOverride = std::max(0, px);
}

void SlotTextures::queryLimits()
{
    gl_->glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxTextureSize_);
    gl_->glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &maxLayers_);
}

int SlotTextures::textureLimit() const
{
    return g_maxTextureOverride > 0 && g_maxTextureOverride < maxTextureSize_ ? g_maxTextureOverride
                                                                               : maxTextureSize_;
}

bool SlotTextures::upload(ImageSlot& s, ViewScene& scene, const ViewCamera& camera)
{
    if (s.pending == ImageSlot::Pending::None || s.channels == 0)
        return false;
    const bool fromHost = s.pending == ImageSlot::Pending::FromHost;
    s.pending = ImageSlot::Pending::None;
    const int limit = std::max(1, textureLimit());
    s.factorX = (s.width + limit - 1) / limit;
    s.factorY = (s.height + limit - 1) / limit;
    s.overLimit = s.factorX > 1 || s.factorY > 1;
    if (fromHost && !s.overLimit && s.keepHost)
        std::tie(s.factorX, s.factorY) = camera.zoomFactors(s);
    s.problem.clear();
    s.displayable = s.channels <= maxLayers_;
    if (!s.displayable) {
        s.problem = QStringLiteral("%1 channels, more than the %2 texture layers OpenGL allows here")
                        .arg(s.channels)
                        .arg(maxLayers_);
        return false;
    }
    while (gl_->glGetError() != GL_NO_ERROR) {
    } // errors of others must not be taken for this upload's
    if (s.factorX > 1 || s.factorY > 1)
        uploadReduced(s, scene, fromHost);
    else
        uploadFull(s, scene, camera, fromHost);
    if (s.displayable && gl_->glGetError() != GL_NO_ERROR) {
        s.displayable = false;
        s.problem = QStringLiteral("OpenGL could not allocate its texture (out of memory?)");
    }
    if (!s.displayable)
        s.texC = 0; // nothing valid in the texture: the shader draws background
    return true;
}

void SlotTextures::uploadFull(ImageSlot& s, ViewScene& scene, const ViewCamera& camera, bool fromHost)
{
    // Planar values are exactly a stack of layers: plane c -> layer c, no interleaving.
    s.reduced = convlab::Image(); // a zoom at half size or more needs no reduced copy
    if (fromHost) {
        // Straight from the image's memory: a pixel buffer would be one more image-sized
        // copy held for nothing (only a GPU producer needs one). One a GPU producer left
        // behind is emptied.
        if (s.pboBytes > 0) {
            gl_->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, s.pbo);
            gl_->glBufferData(GL_PIXEL_UNPACK_BUFFER, 0, nullptr, GL_STREAM_DRAW);
            s.pboBytes = 0;
        }
        gl_->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        fillFromHost(s, scene, *s.host, camera.regionFor(s, scene.padding));
    } else {
        gl_->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, s.pbo);
        fillTexture(s, s.width, s.height, nullptr);
        gl_->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    }
    if (!s.keepHost) {
        s.host.reset();
        s.hostValid = false;
    }
}

void SlotTextures::uploadReduced(ImageSlot& s, ViewScene& scene, bool fromHost)
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
    gl_->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    fillFromHost(s, scene, s.reduced);
}

void SlotTextures::fillFromHost(ImageSlot& s, ViewScene& scene, const convlab::Image& values, displaymap::Region region)
{
    if (region.width <= 0 || region.height <= 0) region = {0, 0, values.width, values.height};
    s.region = {0, 0, values.width, values.height};
    if (const auto key = scene.premapKeyFor(s)) {
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

void SlotTextures::setUnpackDefaults()
{
    gl_->glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    gl_->glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    gl_->glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 0);
    gl_->glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    gl_->glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    gl_->glPixelStorei(GL_UNPACK_SKIP_IMAGES, 0);
}

void SlotTextures::bindTexture(GLenum target, GLuint& tex)
{
    if (!tex) {
        gl_->glGenTextures(1, &tex);
        gl_->glBindTexture(target, tex);
        gl_->glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        gl_->glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        gl_->glTexParameteri(target, GL_TEXTURE_BASE_LEVEL, 0);
        gl_->glTexParameteri(target, GL_TEXTURE_MAX_LEVEL, 0);
    }
    gl_->glBindTexture(target, tex);
}

void SlotTextures::fillColours(ImageSlot& s, int w, int h, const std::uint32_t* pixels)
{
    bindTexture(GL_TEXTURE_2D, s.rgbaTex);
    setUnpackDefaults();
    if (s.rgbaW == w && s.rgbaH == h) {
        gl_->glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    } else {
        gl_->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        s.rgbaW = w;
        s.rgbaH = h;
    }
    s.premapped = true;
    s.texW = w;
    s.texH = h;
    s.texC = s.channels;
}

void SlotTextures::fillTexture(ImageSlot& s, int w, int h, const void* pixels)
{
    bindTexture(GL_TEXTURE_2D_ARRAY, s.tex);
    setUnpackDefaults();
    if (s.layersW == w && s.layersH == h && s.layersC == s.channels) {
        gl_->glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, w, h, s.channels, GL_RED, GL_FLOAT, pixels);
    } else {
        gl_->glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_R32F, w, h, s.channels, 0, GL_RED, GL_FLOAT, pixels);
        s.layersW = w;
        s.layersH = h;
        s.layersC = s.channels;
    }
    s.premapped = false;
    s.texW = w;
    s.texH = h;
    s.texC = s.channels;
}

void SlotTextures::readBack(ImageSlot& s)
{
    if (!gl_ || s.hostValid || s.channels == 0 || !s.pbo || s.pboBytes < s.bytes())
        return;
    auto copy = std::make_shared<convlab::Image>(s.width, s.height, s.channels, s.depth);
    gl_->glBindBuffer(GL_COPY_READ_BUFFER, s.pbo);
    gl_->glGetBufferSubData(GL_COPY_READ_BUFFER, 0, static_cast<GLsizeiptr>(s.bytes()), copy->data.data());
    gl_->glBindBuffer(GL_COPY_READ_BUFFER, 0);
    s.host = std::move(copy);
    s.hostValid = true;
}

GLuint SlotTextures::resultBuffer(ImageSlot& s, std::size_t bytes)
{
    if (!s.pbo)
        gl_->glGenBuffers(1, &s.pbo);
    if (s.pboBytes != bytes) {
        gl_->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, s.pbo);
        gl_->glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
        gl_->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        s.pboBytes = bytes;
    }
    return s.pbo;
}

void SlotTextures::release(ImageSlot& s, bool keepData)
{
    if (keepData)
        readBack(s);
    if (s.pbo)
        gl_->glDeleteBuffers(1, &s.pbo);
    if (s.tex)
        gl_->glDeleteTextures(1, &s.tex);
    if (s.rgbaTex)
        gl_->glDeleteTextures(1, &s.rgbaTex);
    s.forgetGL();
}
