// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's renderer: its programs, the frame's uploads, texture units and uniforms.
#include "view/imagerenderer.h"

#include <QByteArray>
#include <QFile>
#include <QOpenGLShaderProgram>
#include <QVector2D>
#include <QVector3D>
#include <QVector4D>

#include <algorithm>

#include "view/imageslot.h"
#include "view/viewcamera.h"
#include "view/viewscene.h"

// The shaders live in a static library's resources: register them explicitly.
static void registerShaderResources()
{
    Q_INIT_RESOURCE(shaders);
}

namespace {

constexpr float kBackground = ImageRenderer::kBackground;
constexpr int kMaxPaddingMargin = ViewScene::kMaxPaddingMargin;

// shaders/image.frag, with `define` defined when given (one source, two programs). Null, with a
// warning, when it does not build.
std::unique_ptr<QOpenGLShaderProgram> buildImageProgram(const QByteArray& define)
{
    QFile file(QStringLiteral(":/shaders/image.frag"));
    if (!file.open(QIODevice::ReadOnly)) {
        qWarning("ImageView: the image shader is missing from the resources");
        return nullptr;
    }
    QByteArray source = file.readAll();
    if (!define.isEmpty()) {
        const qsizetype afterVersion = source.indexOf('\n') + 1; // #version must stay the first line
        source.insert(afterVersion, "#define " + define + " 1\n");
    }
    auto program = std::make_unique<QOpenGLShaderProgram>();
    if (!program->addShaderFromSourceFile(QOpenGLShader::Vertex, QStringLiteral(":/shaders/image.vert")) ||
        !program->addShaderFromSourceCode(QOpenGLShader::Fragment, source) || !program->link()) {
        qWarning("ImageView: the image shaders failed to build: %s", qPrintable(program->log()));
        return nullptr;
    }
    program->bind();
    program->setUniformValue("uSourceTex", 0);
    program->setUniformValue("uResultTex", 1);
    program->setUniformValue("uDiffTex", 2);
    program->setUniformValue("uSourceColours", 3);
    program->setUniformValue("uResultColours", 4);
    program->release();
    return program;
}

// What texture unit i holds: the slot, the target and the texture.
struct Binding {
    const ImageSlot* slot;
    GLenum target;
    GLuint tex;
};

constexpr int kUnits = 5;

void bindingsOf(const ViewScene& scene, Binding (&out)[kUnits])
{
    out[0] = {&scene.source, GL_TEXTURE_2D_ARRAY, scene.source.tex};
    out[1] = {&scene.result, GL_TEXTURE_2D_ARRAY, scene.result.tex};
    out[2] = {&scene.diff, GL_TEXTURE_2D_ARRAY, scene.diff.tex};
    out[3] = {&scene.source, GL_TEXTURE_2D, scene.source.rgbaTex};
    out[4] = {&scene.result, GL_TEXTURE_2D, scene.result.rgbaTex};
}

} // namespace

ImageRenderer::ImageRenderer()
{
    static const bool resourcesRegistered = (registerShaderResources(), true);
    Q_UNUSED(resourcesRegistered);
}

ImageRenderer::~ImageRenderer() = default;

void ImageRenderer::initialize(QOpenGLFunctions_3_3_Core* gl, ViewScene& scene)
{
    gl_ = gl;
    textures_.setFunctions(gl);
    if (!gl)
        return;
    program_ = buildImageProgram({});
    if (program_)
        coloursProgram_ = buildImageProgram("RESULT_COLOURS_ONLY");
    gl->glGenVertexArrays(1, &vao_);
    textures_.queryLimits();
    for (ImageSlot* s : {&scene.source, &scene.result, &scene.diff})
        if (s->channels && s->pending == ImageSlot::Pending::None)
            s->pending = ImageSlot::Pending::FromHost;
}

void ImageRenderer::resize(QOpenGLFunctions_3_3_Core*, int, int)
{
    // Nothing kept per size: each frame reads the viewport and the camera.
}

void ImageRenderer::release(ViewScene& scene, bool keepData)
{
    if (!gl_)
        return;
    for (ImageSlot* s : {&scene.source, &scene.result, &scene.diff})
        textures_.release(*s, keepData);
    if (vao_)
        gl_->glDeleteVertexArrays(1, &vao_);
    vao_ = 0;
    program_.reset();
    coloursProgram_.reset();
    gl_ = nullptr;
    textures_.setFunctions(nullptr);
}

ImageRenderer::Frame ImageRenderer::paint(QOpenGLFunctions_3_3_Core* gl, ViewScene& scene, const ViewCamera& camera)
{
    Frame frame;
    if (!gl_ || gl != gl_)
        return frame;
    gl->glClearColor(kBackground, kBackground, kBackground, 1.0f);
    gl->glClear(GL_COLOR_BUFFER_BIT);
    if (!program_)
        return frame;
    for (ImageSlot* s : {&scene.source, &scene.result, &scene.diff}) {
        if (scene.premapStale(*s) || camera.regionStale(*s, scene.padding))
            s->pending = ImageSlot::Pending::FromHost; // mapped again from the host copy
        frame.uploaded = textures_.upload(*s, scene, camera) || frame.uploaded;
    }
    frame.overlaysStale = frame.uploaded; // reductions and problems are known once uploaded
    // Statistics (min, max, max |v|) are computed only when a mapping needs them (only the
    // result is mapped); a GPU-written result is read back for that once.
    ImageSlot& r = scene.result;
    if ((scene.mapping == display::Mapping::Normalize || scene.mapping == display::Mapping::Diverging) &&
        r.channels && !r.statsValid) {
        textures_.readBack(r);
        if (r.hostValid) {
            r.computeStats();
            frame.overlaysStale = true; // the colour bar's range may change
        }
    }
    bindTextures(scene, camera.zoom());
    QOpenGLShaderProgram& p = scene.resultColoursOnly() && coloursProgram_ ? *coloursProgram_ : *program_;
    p.bind();
    setUniforms(p, scene, camera);
    gl->glBindVertexArray(vao_);
    gl->glDrawArrays(GL_TRIANGLES, 0, 3);
    gl->glBindVertexArray(0);
    p.release();
    unbindTextures();
    frame.drawn = true;
    return frame;
}

void ImageRenderer::bindTextures(const ViewScene& scene, double zoom)
{
    Binding bound[kUnits];
    bindingsOf(scene, bound);
    for (int unit = 0; unit < kUnits; ++unit) {
        const Binding& b = bound[unit];
        gl_->glActiveTexture(GL_TEXTURE0 + unit);
        gl_->glBindTexture(b.target, b.tex);
        if (b.tex) {
            // Sharp texels once a texel spans a display pixel or more.
            const double texel = zoom * std::min(b.slot->factorX, b.slot->factorY);
            const GLint filter = texel >= 1.0 ? GL_NEAREST : GL_LINEAR;
            gl_->glTexParameteri(b.target, GL_TEXTURE_MIN_FILTER, filter);
            gl_->glTexParameteri(b.target, GL_TEXTURE_MAG_FILTER, filter);
        }
    }
    gl_->glActiveTexture(GL_TEXTURE0);
}

void ImageRenderer::unbindTextures()
{
    const GLenum targets[kUnits] = {GL_TEXTURE_2D_ARRAY, GL_TEXTURE_2D_ARRAY, GL_TEXTURE_2D_ARRAY, GL_TEXTURE_2D,
                                    GL_TEXTURE_2D};
    for (int unit = 0; unit < kUnits; ++unit) {
        gl_->glActiveTexture(GL_TEXTURE0 + unit);
        gl_->glBindTexture(targets[unit], 0);
    }
    gl_->glActiveTexture(GL_TEXTURE0);
}

void ImageRenderer::setUniforms(QOpenGLShaderProgram& p, const ViewScene& scene, const ViewCamera& camera)
{
    setLayerUniforms(p, "uSource", scene.source, scene.rangeOf(scene.source));
    setLayerUniforms(p, "uResult", scene.result, scene.rangeOf(scene.result));
    setLayerUniforms(p, "uDiff", scene.diff, scene.rangeOf(scene.diff));
    p.setUniformValue("uMapping", static_cast<int>(scene.mapping));
    p.setUniformValue("uChannel", scene.displayChannel);
    p.setUniformValue("uViewMode", static_cast<int>(scene.shownMode()));
    p.setUniformValue("uOrigin", QVector2D(float(camera.origin().x()), float(camera.origin().y())));
    p.setUniformValue("uZoom", float(camera.zoom()));
    p.setUniformValue("uDpr", float(camera.dpr()));
    GLint viewport[4] = {};
    gl_->glGetIntegerv(GL_VIEWPORT, viewport);
    p.setUniformValue("uFbHeight", float(viewport[3]));
    p.setUniformValue("uSplitX", float(scene.split * camera.viewSize().width()));
    p.setUniformValue("uBackground", QVector3D(kBackground, kBackground, kBackground));
    p.setUniformValue("uDiffScale", float(scene.differenceScale()));
    const ImageSlot& ref = scene.reference();
    p.setUniformValue("uImageSize", QVector2D(float(ref.width), float(ref.height)));
    p.setUniformValue("uPadMargin", scene.padding ? scene.padMargin : 0);
    if (scene.padding)
        setPaddingUniforms(p, scene);
    p.setUniformValue("uBorderValue", scene.padBorder.value);
    setBandUniform(p, scene);
}

void ImageRenderer::setPaddingUniforms(QOpenGLShaderProgram& p, const ViewScene& scene)
{
    const int m = std::min(scene.padMargin, kMaxPaddingMargin);
    const ImageSlot& src = scene.source;
    const convlab::BorderMode mode = scene.padBorder.mode;
    GLint xs[2 * kMaxPaddingMargin] = {}, ys[2 * kMaxPaddingMargin] = {};
    for (int i = 0; i < m && src.width > 0 && src.height > 0; ++i) {
        xs[i] = convlab::borderIndex(i - m, src.width, mode);
        xs[m + i] = convlab::borderIndex(static_cast<long long>(src.width) + i, src.width, mode);
        ys[i] = convlab::borderIndex(i - m, src.height, mode);
        ys[m + i] = convlab::borderIndex(static_cast<long long>(src.height) + i, src.height, mode);
    }
    p.setUniformValueArray("uPadIndexX", xs, 2 * m);
    p.setUniformValueArray("uPadIndexY", ys, 2 * m);
}

void ImageRenderer::setBandUniform(QOpenGLShaderProgram& p, const ViewScene& scene)
{
    // The band's inner edge; nothing to outline when the band is empty or covers the image.
    const int* b = scene.band;
    const ImageSlot& ref = scene.reference();
    const bool band = (b[0] || b[1] || b[2] || b[3]) && b[0] + b[2] < ref.width && b[1] + b[3] < ref.height;
    p.setUniformValue("uBandInner", band ? QVector4D(float(b[0]), float(b[1]), float(ref.width - b[2]),
                                                     float(ref.height - b[3]))
                                         : QVector4D(-1, -1, -1, -1));
}

void ImageRenderer::setLayerUniforms(QOpenGLShaderProgram& p, const char* name, const ImageSlot& s, double range)
{
    const QByteArray n(name);
    const bool drawn = s.drawn();
    p.setUniformValue(n + ".channels", drawn ? s.channels : 0);
    p.setUniformValue(n + ".premapped", drawn && s.premapped ? 1 : 0);
    p.setUniformValue(n + ".size", QVector2D(float(s.width), float(s.height)));
    p.setUniformValue(n + ".offset", QVector2D(float(s.region.x), float(s.region.y)));
    // The texture covers whole blocks: a partial last block stretches the span past the size.
    p.setUniformValue(n + ".span", QVector2D(float(s.texW * s.factorX), float(s.texH * s.factorY)));
    p.setUniformValue(n + ".factor", QVector2D(float(s.factorX), float(s.factorY)));
    p.setUniformValue(n + ".range", float(range));
    p.setUniformValue(n + ".lo", s.stats.lo);
    p.setUniformValue(n + ".hi", s.stats.hi);
    p.setUniformValue(n + ".maxAbs", s.divergingLimit());
}
