// SPDX-License-Identifier: GPL-3.0-or-later
// The textures and buffers of the view's images (ImageSlot): uploads pending contents from the
// host or from a GPU producer's pixel buffer, reduced where a side is over the texture limit or
// the zoom shows less, mapped to colours on the CPU where the scene says so; reads buffers back
// and frees them. Every call wants the GL context current; the functions are those given to
// setFunctions (none: nothing is done).
#pragma once
#include <QOpenGLFunctions_3_3_Core>

#include <cstddef>
#include <cstdint>

#include "view/displaymap.h"

class ImageSlot;
class ViewCamera;
class ViewScene;

class SlotTextures {
public:
    void setFunctions(QOpenGLFunctions_3_3_Core* gl) { gl_ = gl; }
    // The driver's limits, queried once the functions are there.
    void queryLimits();
    // The driver's limit on a texture side, lowered by the test override (0 before queryLimits).
    int textureLimit() const;
    int maxLayers() const { return maxLayers_; }
    // A limit below the driver's for every view, to exercise the reduced display (0: none).
    static void setLimitOverride(int px);

    // Uploads pending contents (host -> texture, or PBO -> texture). A side over the texture
    // limit gets a reduced copy instead (a GPU-written one is read back for it first); contents
    // from the host are reduced to what the zoom shows. True when something was uploaded.
    bool upload(ImageSlot& s, ViewScene& scene, const ViewCamera& camera);
    // Copies the PBO back into the host copy when a GPU producer wrote it.
    void readBack(ImageSlot& s);
    // The slot's pixel buffer, made or resized to `bytes` (its previous contents stay in the
    // texture and the host copy).
    GLuint resultBuffer(ImageSlot& s, std::size_t bytes);
    // Deletes the slot's GL objects (reading GPU-written values back first with keepData).
    void release(ImageSlot& s, bool keepData);

private:
    void uploadFull(ImageSlot& s, ViewScene& scene, const ViewCamera& camera, bool fromHost);
    // The host copy stays (the readout and a new context need it: the buffer holds nothing).
    void uploadReduced(ImageSlot& s, ViewScene& scene, bool fromHost);
    // Fills the slot's textures from values on the host (the image or its reduced copy): its
    // colours where the slot is mapped on the CPU (of `region` only, when given), else its float
    // layers (of all of it).
    void fillFromHost(ImageSlot& s, ViewScene& scene, const convlab::Image& values, displaymap::Region region = {});
    void setUnpackDefaults();
    // Binds `tex` to `target`, made first (edges clamped, one level) when it is 0.
    void bindTexture(GLenum target, GLuint& tex);
    // Fills the slot's colour texture with w x h RGBA8 pixels, reallocating it only when the
    // shape changes.
    void fillColours(ImageSlot& s, int w, int h, const std::uint32_t* pixels);
    // Fills the slot's texture with w x h x channels planar floats from `pixels` (or from the
    // bound unpack buffer when null), reallocating it only when the shape changes.
    void fillTexture(ImageSlot& s, int w, int h, const void* pixels);

    QOpenGLFunctions_3_3_Core* gl_ = nullptr;
    GLint maxTextureSize_ = 0;
    GLint maxLayers_ = 0;
};
