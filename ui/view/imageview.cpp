// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's construction, its image, mapping and mode setters, its GL resources and drawing.
#include "view/imageview.h"

#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QOpenGLContext>
#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLShaderProgram>
#include <QOpenGLPaintDevice>
#include <QOpenGLVersionFunctionsFactory>
#include <QPainter>
#include <QPalette>
#include <QSize>
#include <QSurfaceFormat>
#include <QVector2D>
#include <QVector3D>
#include <QVector4D>

#include <algorithm>
#include <cmath>
#include <string>

#include "view/colorbar.h"
#include "view/imageview_internal.h"
#include "view/pixelgrid.h"
#include "convlab/error.h"
#include "convlab/imagestats.h"

using imageview_detail::checkShape;
using imageview_detail::colourChannels;
using imageview_detail::g_maxTextureOverride;
using imageview_detail::Slot;

// The shaders live in a static library's resources: register them explicitly.
static void registerShaderResources()
{
    Q_INIT_RESOURCE(shaders);
}

namespace {

constexpr float kBackground = 0.17f;   // dark grey around the image

} // namespace

namespace {

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

} // namespace

ImageView::ImageView(QWidget* parent) : GLViewHost(parent), d(std::make_unique<State>())
{
    static const bool resourcesRegistered = (registerShaderResources(), true);
    Q_UNUSED(resourcesRegistered);
    QSurfaceFormat fmt = format();
    fmt.setVersion(3, 3);
    fmt.setProfile(QSurfaceFormat::CoreProfile);
    setFormat(fmt);
    setMouseTracking(true);
    // The overlays' translucent backgrounds are drawn over this colour (not over the picture,
    // which is a native window: view/glviewhost.h): the view's background keeps them dark.
    QPalette palette = this->palette();
    palette.setColor(QPalette::Window, QColor::fromRgbF(kBackground, kBackground, kBackground));
    setPalette(palette);
    setAutoFillBackground(true);
    d->diff.keepHost = false;

    // Child widgets over the GL picture: composed on screen, never part of grabFramebuffer().
    d->bar = new ColorBar(this);
    d->bar->setObjectName(QStringLiteral("colorBar"));
    d->bar->setOverlayStyle(true);
    d->bar->setAttribute(Qt::WA_TransparentForMouseEvents);
    d->bar->hide();
    d->notice = new QLabel(this);
    d->notice->setObjectName(QStringLiteral("notice"));
    d->notice->setWordWrap(true);
    d->notice->setAttribute(Qt::WA_TransparentForMouseEvents);
    d->notice->setStyleSheet(QStringLiteral(
        "QLabel { background: rgba(0, 0, 0, 170); color: #f2f2f2; padding: 4px; border-radius: 4px; }"));
    d->notice->hide();
    auto splitLabel = [this](const QString& name, const QString& text) {
        auto* l = new QLabel(text, this);
        l->setObjectName(name);
        l->setAttribute(Qt::WA_TransparentForMouseEvents);
        l->setStyleSheet(QStringLiteral(
            "QLabel { background: rgba(0, 0, 0, 150); color: #f2f2f2; padding: 2px 6px; border-radius: 3px; }"));
        l->hide();
        return l;
    };
    d->splitLeft = splitLabel(QStringLiteral("splitLeft"), tr("original"));
    d->splitRight = splitLabel(QStringLiteral("splitRight"), tr("result"));
    d->originalLabel = splitLabel(QStringLiteral("originalLabel"), tr("original"));
    d->originalLabel->setStyleSheet(QStringLiteral("QLabel { background: rgba(0, 0, 0, 170); color: #ffffff; "
                                                   "font-weight: bold; padding: 3px 8px; border-radius: 3px; }"));
    d->originalLabel->setToolTip(tr("The original is shown in place of the result (Space held, or View > Show Original)"));
    d->loupe = new EdgeLoupe(this);
    d->loupe->hide();
    connect(d->loupe, &EdgeLoupe::cornerChanged, this, [this] { updateLoupe(); });
    d->caption = splitLabel(QStringLiteral("mappingCaption"), QString());
    d->caption->setWordWrap(true);
    d->caption->setToolTip(tr("How the result's values become colours: View > Mapping chooses"));
}

ImageView::~ImageView()
{
    releaseGL(false);
    // The base class destroys the context later; this object must not hear about it then.
    if (context())
        disconnect(context(), nullptr, this, nullptr);
}

void ImageView::releaseGL(bool keepData)
{
    if (!d->gl)
        return;
    makeCurrent();
    for (Slot* s : {&d->source, &d->result, &d->diff}) {
        if (keepData)
            d->readBack(*s);
        if (s->pbo)
            d->gl->glDeleteBuffers(1, &s->pbo);
        if (s->tex)
            d->gl->glDeleteTextures(1, &s->tex);
        if (s->rgbaTex)
            d->gl->glDeleteTextures(1, &s->rgbaTex);
        s->pbo = s->tex = s->rgbaTex = 0;
        s->pboBytes = 0;
        s->layersW = s->layersH = s->layersC = s->rgbaW = s->rgbaH = 0;
        s->texW = s->texH = s->texC = 0;
        s->premapped = false;
        if (s->channels)
            s->pending = Slot::Pending::FromHost;
    }
    if (d->vao)
        d->gl->glDeleteVertexArrays(1, &d->vao);
    d->vao = 0;
    d->program.reset();
    d->coloursProgram.reset();
    d->gl = nullptr;
    doneCurrent();
}

void ImageView::initializeGL()
{
    auto* gl = QOpenGLVersionFunctionsFactory::get<QOpenGLFunctions_3_3_Core>(context());
    if (!gl || !gl->initializeOpenGLFunctions()) {
        const QSurfaceFormat f = context()->format();
        qWarning("ImageView: OpenGL 3.3 core profile is not available (got %d.%d); images are not drawn",
                 f.majorVersion(), f.minorVersion());
        return;
    }
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] { releaseGL(true); });
    d->gl = gl;

    d->program = buildImageProgram({});
    if (d->program)
        d->coloursProgram = buildImageProgram("RESULT_COLOURS_ONLY");
    gl->glGenVertexArrays(1, &d->vao);
    gl->glGetIntegerv(GL_MAX_TEXTURE_SIZE, &d->maxTextureSize);
    gl->glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &d->maxLayers);
    for (Slot* s : {&d->source, &d->result, &d->diff})
        if (s->channels && s->pending == Slot::Pending::None)
            s->pending = Slot::Pending::FromHost;
}

void ImageView::resizeGL(int, int)
{
    applyLayout();
}

void ImageView::resizeEvent(QResizeEvent* e)
{
    GLViewHost::resizeEvent(e);
    placeOverlays();
}

void ImageView::paintGL()
{
    QElapsedTimer timer;
    timer.start();
    auto* gl = d->gl;
    if (!gl)
        return;
    gl->glClearColor(kBackground, kBackground, kBackground, 1.0f);
    gl->glClear(GL_COLOR_BUFFER_BIT);
    if (!d->program)
        return;

    bool uploaded = false;
    d->dpr = devicePixelRatioF();
    d->viewSize = QSizeF(size());
    for (Slot* s : {&d->source, &d->result, &d->diff}) {
        if (d->premapStale(*s) || d->regionStale(*s))
            s->pending = Slot::Pending::FromHost; // mapped again from the host copy
        uploaded = d->upload(*s) || uploaded;
    }
    bool overlaysStale = uploaded; // reductions and problems are known once uploaded
    // Statistics (min, max, max |v|) are computed only when a mapping needs them (only the
    // result is mapped); a GPU-written result is read back for that once.
    Slot& r = d->result;
    if ((d->mapping == Mapping::Normalize || d->mapping == Mapping::Diverging) && r.channels && !r.statsValid) {
        d->readBack(r);
        if (r.hostValid) {
            r.computeStats();
            overlaysStale = true; // the colour bar's range may change
        }
    }

    // Units 0-2: the float layers of source, result and difference; 3-4: the colours of source
    // and result (uSourceColours, uResultColours).
    struct Binding {
        const Slot* slot;
        GLenum target;
        GLuint tex;
    };
    const Binding bound[] = {{&d->source, GL_TEXTURE_2D_ARRAY, d->source.tex},
                             {&d->result, GL_TEXTURE_2D_ARRAY, d->result.tex},
                             {&d->diff, GL_TEXTURE_2D_ARRAY, d->diff.tex},
                             {&d->source, GL_TEXTURE_2D, d->source.rgbaTex},
                             {&d->result, GL_TEXTURE_2D, d->result.rgbaTex}};
    for (int unit = 0; unit < 5; ++unit) {
        const Binding& b = bound[unit];
        gl->glActiveTexture(GL_TEXTURE0 + unit);
        gl->glBindTexture(b.target, b.tex);
        if (b.tex) {
            // Sharp texels once a texel spans a display pixel or more.
            const double texel = d->zoom * std::min(b.slot->factorX, b.slot->factorY);
            const GLint filter = texel >= 1.0 ? GL_NEAREST : GL_LINEAR;
            gl->glTexParameteri(b.target, GL_TEXTURE_MIN_FILTER, filter);
            gl->glTexParameteri(b.target, GL_TEXTURE_MAG_FILTER, filter);
        }
    }
    gl->glActiveTexture(GL_TEXTURE0);

    QOpenGLShaderProgram* program =
        d->resultColoursOnly() && d->coloursProgram ? d->coloursProgram.get() : d->program.get();
    auto& p = *program;
    p.bind();
    d->setLayerUniforms(program, "uSource", d->source);
    d->setLayerUniforms(program, "uResult", d->result);
    d->setLayerUniforms(program, "uDiff", d->diff);
    p.setUniformValue("uMapping", static_cast<int>(d->mapping));
    p.setUniformValue("uChannel", d->displayChannel);
    p.setUniformValue("uViewMode", static_cast<int>(d->shownMode()));
    p.setUniformValue("uOrigin", QVector2D(float(d->origin.x()), float(d->origin.y())));
    p.setUniformValue("uZoom", float(d->zoom));
    p.setUniformValue("uDpr", float(devicePixelRatioF()));
    GLint viewport[4] = {};
    gl->glGetIntegerv(GL_VIEWPORT, viewport);
    p.setUniformValue("uFbHeight", float(viewport[3]));
    p.setUniformValue("uSplitX", float(d->split * width()));
    p.setUniformValue("uBackground", QVector3D(kBackground, kBackground, kBackground));
    p.setUniformValue("uDiffScale", float(d->differenceScale()));
    const Slot& ref = d->reference();
    p.setUniformValue("uImageSize", QVector2D(float(ref.width), float(ref.height)));
    p.setUniformValue("uPadMargin", d->padding ? d->padMargin : 0);
    if (d->padding) {
        // The margin's source coordinates by the engine's rule, for the shader to look up.
        const int m = d->padMargin;
        const Slot& src = d->source;
        GLint xs[2 * kMaxPaddingMargin] = {}, ys[2 * kMaxPaddingMargin] = {};
        for (int i = 0; i < m && src.width > 0 && src.height > 0; ++i) {
            xs[i] = convlab::borderIndex(i - m, src.width, d->padBorder.mode);
            xs[m + i] = convlab::borderIndex(static_cast<long long>(src.width) + i, src.width, d->padBorder.mode);
            ys[i] = convlab::borderIndex(i - m, src.height, d->padBorder.mode);
            ys[m + i] = convlab::borderIndex(static_cast<long long>(src.height) + i, src.height, d->padBorder.mode);
        }
        p.setUniformValueArray("uPadIndexX", xs, 2 * m);
        p.setUniformValueArray("uPadIndexY", ys, 2 * m);
    }
    p.setUniformValue("uBorderValue", d->padBorder.value);
    // The band's inner edge; nothing to outline when the band is empty or covers the image.
    const int* b = d->band;
    const bool band = (b[0] || b[1] || b[2] || b[3]) && b[0] + b[2] < ref.width && b[1] + b[3] < ref.height;
    p.setUniformValue("uBandInner", band ? QVector4D(float(b[0]), float(b[1]), float(ref.width - b[2]),
                                                     float(ref.height - b[3]))
                                         : QVector4D(-1, -1, -1, -1));
    gl->glBindVertexArray(d->vao);
    gl->glDrawArrays(GL_TRIANGLES, 0, 3);
    gl->glBindVertexArray(0);
    p.release();
    for (int unit = 0; unit < 5; ++unit) {
        gl->glActiveTexture(GL_TEXTURE0 + unit);
        gl->glBindTexture(bound[unit].target, 0);
    }
    gl->glActiveTexture(GL_TEXTURE0);
    if (pixelGridShown()) {
        // Into this frame, over the picture (QPainter's GL engine sets and restores its state).
        // A painter on the widget itself would be redirected while the window is grabbed (and
        // drawn under the picture); the paint device writes the framebuffer bound now.
        QOpenGLPaintDevice device(size() * devicePixelRatioF());
        device.setDevicePixelRatio(devicePixelRatioF());
        QPainter painter(&device);
        PixelGrid(gridFrame()).paint(painter);
    }
    paintMarks();

    if (uploaded) {
        gl->glFinish();
        d->lastDisplayMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    }
    // New reductions, problems or statistics: the overlays follow, after this frame (the
    // children are not changed while the view paints).
    if (overlaysStale && !d->overlaysQueued) {
        d->overlaysQueued = true;
        QMetaObject::invokeMethod(this, [this] {
            d->overlaysQueued = false;
            updateColorBar();
            updateNotice();
        }, Qt::QueuedConnection);
    }
}

void ImageView::setSource(const convlab::Image& source)
{
    setSource(std::make_shared<const convlab::Image>(source));
}

void ImageView::setSource(std::shared_ptr<const convlab::Image> source)
{
    d->source.assign(std::move(source), false);
    // What a float original's values say its range is (one pass, once per image).
    d->sourceTop = d->source.channels && d->source.depth == convlab::SampleDepth::F32
                       ? convlab::imageStats(*d->source.host, d->source.statChannels).hi
                       : 0.0;
    applyLayout();
    updateColorBar(); // an automatic difference scale follows the source's range
    updateNotice();
    update();
}

void ImageView::setResult(const convlab::Image& result)
{
    setResult(std::make_shared<const convlab::Image>(result));
}

void ImageView::setResult(std::shared_ptr<const convlab::Image> result)
{
    d->result.assign(std::move(result), false);
    applyLayout();
    updateColorBar();
    updateNotice();
    update();
}

void ImageView::setDifference(const convlab::Image& diff)
{
    setDifference(std::make_shared<const convlab::Image>(diff));
}

void ImageView::setDifference(std::shared_ptr<const convlab::Image> diff)
{
    d->diff.assign(std::move(diff), true);
    applyLayout();
    updateColorBar();
    updateNotice();
    update();
}

void ImageView::clearDifference()
{
    d->diff.clear();
    updateColorBar();
    updateNotice();
    update();
}

bool ImageView::hasDifference() const
{
    return d->diff.channels > 0;
}

void ImageView::setMapping(Mapping m)
{
    const bool changed = d->mapping != m;
    d->mapping = m;
    updateColorBar();
    update();
    if (changed) emit mappingChanged(m);
}

void ImageView::setDisplayChannel(int c)
{
    d->displayChannel = std::max(-1, c);
    update();
}

int ImageView::displayChannel() const { return d->displayChannel; }

ImageView::Mapping ImageView::mapping() const
{
    return d->mapping;
}

void ImageView::setViewMode(ViewMode m)
{
    d->viewMode = m;
    updateColorBar();
    updateNotice();
    update();
}

void ImageView::setDifferenceScale(DifferenceScale scale, double absoluteMax)
{
    if (!std::isfinite(absoluteMax) || absoluteMax < 0.0)
        throw convlab::Error("image view: difference scale " + std::to_string(absoluteMax) +
                             " is not a finite value >= 0");
    d->diffScale = scale;
    d->diffAbsoluteMax = absoluteMax;
    updateColorBar();
    if (d->viewMode == ViewMode::Difference)
        update();
}

ImageView::DifferenceScale ImageView::differenceScale() const
{
    return d->diffScale;
}

double ImageView::differenceAbsoluteMax() const
{
    return d->diffAbsoluteMax;
}

double ImageView::differenceScaleInUse() const
{
    return d->differenceScale();
}

QPair<int, int> ImageView::resultDisplayFactor() const
{
    return {d->result.factorX, d->result.factorY};
}

QRect ImageView::resultUploadedRegion() const
{
    const Slot& r = d->result;
    if (!r.premapped) return QRect(0, 0, r.width, r.height);
    return QRect(r.region.x, r.region.y, r.region.width, r.region.height);
}

QPair<int, int> ImageView::sourceDisplayFactor() const
{
    return {d->source.factorX, d->source.factorY};
}

QPair<int, int> ImageView::differenceDisplayFactor() const
{
    return {d->diff.factorX, d->diff.factorY};
}

void ImageView::setMaxTextureSizeForTesting(int px)
{
    g_maxTextureOverride = std::max(0, px);
}

int ImageView::maxTextureSize() const
{
    return d->textureLimit();
}

ImageView::ViewMode ImageView::viewMode() const
{
    return d->viewMode;
}

ImageView::ViewMode ImageView::shownMode() const
{
    return d->shownMode();
}

void ImageView::setOriginalShown(bool on)
{
    setOriginal(d->originalHeld, on);
}

bool ImageView::originalShown() const
{
    return d->originalHeld || d->originalToggled;
}

void ImageView::setOriginal(bool held, bool toggled)
{
    const bool before = originalShown();
    d->originalHeld = held;
    d->originalToggled = toggled;
    if (originalShown() == before)
        return;
    updateColorBar();
    updateNotice(); // places the label too
    update();
    emit originalShownChanged(originalShown());
}

static QVector<float> valuesAt(const Slot& s, int x, int y)
{
    QVector<float> v;
    if (!s.contains(x, y) || !s.hostValid)
        return v;
    for (int c = 0; c < s.channels; ++c)
        v.push_back(s.host->at(c, y, x));
    return v;
}

QVector<float> ImageView::resultValues(int x, int y) const
{
    Slot& r = d->result;
    if (r.contains(x, y) && !r.hostValid && d->gl) {
        // A GPU producer wrote the buffer: fetch it once for this result.
        auto* self = const_cast<ImageView*>(this);
        const bool wasCurrent = QOpenGLContext::currentContext() == context();
        if (!wasCurrent)
            self->makeCurrent();
        d->readBack(r);
        if (!wasCurrent)
            self->doneCurrent();
    }
    return valuesAt(r, x, y);
}

QVector<float> ImageView::sourceValues(int x, int y) const
{
    return valuesAt(d->source, x, y);
}

QSize ImageView::imageSize() const
{
    const Slot& ref = d->reference();
    return ref.channels ? QSize(ref.width, ref.height) : QSize();
}

unsigned int ImageView::resultBuffer(int width, int height, int channels)
{
    checkShape(width, height, channels, "result buffer");
    if (!d->gl)
        return 0;
    Slot& r = d->result;
    const std::size_t bytes = static_cast<std::size_t>(width) * height * channels * sizeof(float);
    const bool wasCurrent = QOpenGLContext::currentContext() == context();
    if (!wasCurrent)
        makeCurrent();
    if (!r.pbo)
        d->gl->glGenBuffers(1, &r.pbo);
    if (r.pboBytes != bytes) {
        // The previous contents (if any) stay in the texture and the host copy.
        d->gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, r.pbo);
        d->gl->glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
        d->gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        r.pboBytes = bytes;
    }
    if (!wasCurrent)
        doneCurrent();
    return r.pbo;
}

void ImageView::resultBufferWritten(int width, int height, int channels)
{
    checkShape(width, height, channels, "result buffer");
    Slot& r = d->result;
    const std::size_t bytes = static_cast<std::size_t>(width) * height * channels * sizeof(float);
    if (!d->gl || !r.pbo || r.pboBytes != bytes)
        throw convlab::Error("image view: result buffer written as " + std::to_string(width) + "x" +
                             std::to_string(height) + "x" + std::to_string(channels) +
                             " but not requested at that shape through resultBuffer()");
    r.host.reset();
    r.hostValid = false;
    r.outsideKnown = false;
    r.width = width;
    r.height = height;
    r.channels = channels;
    // The engine keeps the source's value scale, so the result shares its nominal range.
    r.depth = d->source.channels ? d->source.depth : convlab::SampleDepth::F32;
    r.statChannels = colourChannels(channels);
    r.statsValid = false;
    r.pending = Slot::Pending::FromBuffer;
    r.resetDisplay();
    applyLayout();
    updateColorBar(); // a diverging range follows once paintGL has read the values back
    updateNotice();
    update();
}

double ImageView::lastDisplayMs() const
{
    return d->lastDisplayMs;
}

bool ImageView::resultDrawnFromColours() const
{
    return d->result.channels > 0 && d->result.premapped;
}
