// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's OpenGL 3.3 renderer: the shader programs (shaders/image.frag, and its
// RESULT_COLOURS_ONLY build for the frames that show only a result mapped on the CPU), the
// vertex array, and the textures of the scene's images (SlotTextures). It draws a ViewScene
// through a ViewCamera into whatever framebuffer is bound, and knows nothing of the widget or
// window that hosts it: the host makes its context current and calls initialize, resize and
// paint with the context's functions (ImageView does, from GLViewHost's entry points).
#pragma once
#include <QOpenGLFunctions_3_3_Core>

#include <cstddef>
#include <memory>

#include "view/slottextures.h"

class ImageSlot;
class QOpenGLShaderProgram;
class ViewCamera;
class ViewScene;

class ImageRenderer {
public:
    static constexpr float kBackground = 0.17f; // dark grey around the image

    ImageRenderer();
    ~ImageRenderer();
    ImageRenderer(const ImageRenderer&) = delete;
    ImageRenderer& operator=(const ImageRenderer&) = delete;

    // Builds the programs and the vertex array in the current context and queries its limits;
    // the scene's images are uploaded again at the next paint. Null functions: nothing drawn.
    void initialize(QOpenGLFunctions_3_3_Core* gl, ViewScene& scene);
    // The framebuffer's new size (the shader reads the viewport at each paint).
    void resize(QOpenGLFunctions_3_3_Core* gl, int width, int height);
    // What a frame did that the host's overlays must follow.
    struct Frame {
        bool drawn = false;         // the picture was drawn (false: cleared only, or nothing)
        bool uploaded = false;      // an image went to the GPU (reductions, problems now known)
        bool overlaysStale = false; // uploads, or new statistics (the colour bar's range)
    };
    // Clears the bound framebuffer and draws the scene; uploads what is pending first.
    Frame paint(QOpenGLFunctions_3_3_Core* gl, ViewScene& scene, const ViewCamera& camera);
    // Frees the GL objects (the context current); with keepData, GPU-written contents are read
    // back first so that a new context shows the same images.
    void release(ViewScene& scene, bool keepData);

    // Whether initialize succeeded and release has not been called since.
    bool ready() const { return gl_ != nullptr; }
    int textureLimit() const { return textures_.textureLimit(); }
    // The context current: see SlotTextures.
    void readBack(ImageSlot& s) { textures_.readBack(s); }
    GLuint resultBuffer(ImageSlot& s, std::size_t bytes) { return textures_.resultBuffer(s, bytes); }

private:
    // Units 0-2: the float layers of source, result and difference; 3-4: the colours of source
    // and result (uSourceColours, uResultColours).
    void bindTextures(const ViewScene& scene, double zoom);
    void unbindTextures();
    void setUniforms(QOpenGLShaderProgram& p, const ViewScene& scene, const ViewCamera& camera);
    // The margin's source coordinates by the engine's rule, for the shader to look up.
    void setPaddingUniforms(QOpenGLShaderProgram& p, const ViewScene& scene);
    void setBandUniform(QOpenGLShaderProgram& p, const ViewScene& scene);
    static void setLayerUniforms(QOpenGLShaderProgram& p, const char* name, const ImageSlot& s, double range);

    QOpenGLFunctions_3_3_Core* gl_ = nullptr; // null until initialize succeeds
    std::unique_ptr<QOpenGLShaderProgram> program_;
    std::unique_ptr<QOpenGLShaderProgram> coloursProgram_;
    GLuint vao_ = 0;
    SlotTextures textures_;
};
