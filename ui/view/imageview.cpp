// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/imageview.h"

#include <QElapsedTimer>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLShaderProgram>
#include <QOpenGLPaintDevice>
#include <QOpenGLVersionFunctionsFactory>
#include <QPainter>
#include <QSize>
#include <QStyleHints>
#include <QSurfaceFormat>
#include <QVector2D>
#include <QVector3D>
#include <QVector4D>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <string>

#include "view/colorbar.h"
#include "view/pixelgrid.h"
#include "convlab/error.h"
#include "convlab/imagestats.h"

// The shaders live in a static library's resources: register them explicitly.
static void registerShaderResources()
{
    Q_INIT_RESOURCE(shaders);
}

namespace {

constexpr double kMinZoom = 1.0 / 64.0;
constexpr double kMaxZoom = 128.0;
constexpr double kWheelFactor = 1.25;  // zoom per wheel notch (120 eighths of a degree)
constexpr double kDividerGrab = 5.0;   // widget px either side of the split divider
constexpr float kBackground = 0.17f;   // dark grey around the image
constexpr int kOverlayMargin = 8;      // widget px between the overlays and the view's edges
constexpr int kMaxBarHeight = 220;     // the colour bar's height in a large view

// A limit below the driver's, for exercising the reduced display (0: none).
int g_maxTextureOverride = 0;

int colourChannels(int channels)
{
    return channels == 2 || channels == 4 ? channels - 1 : channels;
}

void checkShape(int w, int h, int c, const char* what)
{
    if (w < 1 || h < 1 || w > convlab::kMaxImageSide || h > convlab::kMaxImageSide || c < 1 || c > 4)
        throw convlab::Error(std::string("image view: ") + what + " of shape " + std::to_string(w) +
                             "x" + std::to_string(h) + "x" + std::to_string(c) +
                             " is outside 1.." + std::to_string(convlab::kMaxImageSide) +
                             " per side and 1..4 channels");
}

// One displayed image: a pixel buffer object holding its planar float32 values and a
// GL_TEXTURE_2D_ARRAY (one GL_R32F layer per channel) filled from that buffer.
struct Slot {
    enum class Pending { None, FromHost, FromBuffer };

    std::shared_ptr<const convlab::Image> host; // the values, when hostValid (shared, not copied)
    bool hostValid = false; // false after a GPU producer wrote the buffer, until read back
    bool keepHost = true;   // false: the host copy is dropped once uploaded
    int width = 0, height = 0, channels = 0; // shape of the contents; channels 0 = empty
    convlab::SampleDepth depth = convlab::SampleDepth::F32;
    int statChannels = 0; // channels that enter the statistics
    convlab::ImageStats stats;
    bool statsValid = false;
    Pending pending = Pending::None;
    bool displayable = true; // false when it could not be put into a texture (see problem)
    QString problem;         // why it is not drawn
    int factorX = 1, factorY = 1; // the texture's reduction from the image (1: full resolution)

    GLuint pbo = 0;
    std::size_t pboBytes = 0;
    GLuint tex = 0;
    int texW = 0, texH = 0, texC = 0;

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
        if (eagerStats) stats = convlab::imageStats(*host, statChannels);
        pending = Pending::FromHost;
        resetDisplay();
    }

    // Until its upload decides, a new image is taken to draw at full resolution (a notice
    // about the previous one must not stay).
    void resetDisplay()
    {
        displayable = true;
        problem.clear();
        factorX = factorY = 1;
    }

    // Nothing to show; the GL objects stay for the next image.
    void clear()
    {
        host.reset();
        hostValid = false;
        width = height = channels = 0;
        resetDisplay();
        stats = convlab::ImageStats();
        statsValid = false;
        pending = Pending::None;
    }
};

} // namespace

struct ImageView::State {
    QOpenGLFunctions_3_3_Core* gl = nullptr; // null until initializeGL succeeds
    std::unique_ptr<QOpenGLShaderProgram> program;
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

    DifferenceScale diffScale = DifferenceScale::Absolute;
    double diffAbsoluteMax = 0.0; // 0: kDefaultDifferenceFraction of the nominal range
    ColorBar* bar = nullptr;      // children of the view, drawn over the picture
    QLabel* notice = nullptr;
    QLabel* splitLeft = nullptr;  // "original" and "result" at the foot of the split halves
    QLabel* splitRight = nullptr;
    QLabel* originalLabel = nullptr; // "original" while it replaces the mode's picture
    bool gridEnabled = true;         // View > Pixel Grid
    bool overlaysQueued = false;  // a refresh of the overlays is posted

    // The driver's limit, lowered by the test override.
    int textureLimit() const
    {
        return g_maxTextureOverride > 0 && g_maxTextureOverride < maxTextureSize ? g_maxTextureOverride
                                                                                 : maxTextureSize;
    }

    // Top of the values' nominal range: the source's, else the result's, else the difference's.
    double nominalRange() const
    {
        const Slot& s = source.channels ? source : result.channels ? result : diff;
        return convlab::depthMax(s.depth);
    }

    double differenceScale() const
    {
        if (diffScale == DifferenceScale::Relative)
            return diff.stats.maxAbs;
        return diffAbsoluteMax > 0.0 ? diffAbsoluteMax : kDefaultDifferenceFraction * nominalRange();
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

    // Uploads pending contents (host -> PBO -> texture, or PBO -> texture). A side over the
    // texture limit gets a reduced copy instead (a GPU-written one is read back for it first).
    // Context current.
    bool upload(Slot& s)
    {
        if (s.pending == Slot::Pending::None || s.channels == 0)
            return false;
        const bool fromHost = s.pending == Slot::Pending::FromHost;
        s.pending = Slot::Pending::None;
        const int limit = std::max(1, textureLimit());
        s.factorX = (s.width + limit - 1) / limit;
        s.factorY = (s.height + limit - 1) / limit;
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
            fillTexture(s, s.width, s.height, s.host->data.data());
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
        convlab::Image reduced;
        try {
            reduced = convlab::reduceByBlocks(*s.host, s.factorX, s.factorY); // once per image, never per frame
        } catch (const std::bad_alloc&) {
            s.displayable = false;
            s.problem = QStringLiteral("no memory for a reduced copy");
            return;
        }
        gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        fillTexture(s, reduced.width, reduced.height, reduced.data.data());
    }

    // Fills the slot's texture with w x h x channels planar floats from `pixels` (or from the
    // bound unpack buffer when null), reallocating it only when the shape changes.
    void fillTexture(Slot& s, int w, int h, const void* pixels)
    {
        if (!s.tex) {
            gl->glGenTextures(1, &s.tex);
            gl->glBindTexture(GL_TEXTURE_2D_ARRAY, s.tex);
            gl->glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
            gl->glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
            gl->glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_BASE_LEVEL, 0);
            gl->glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, 0);
        }
        gl->glBindTexture(GL_TEXTURE_2D_ARRAY, s.tex);
        gl->glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        gl->glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
        gl->glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 0);
        gl->glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
        gl->glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
        gl->glPixelStorei(GL_UNPACK_SKIP_IMAGES, 0);
        if (s.texW == w && s.texH == h && s.texC == s.channels) {
            gl->glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, w, h, s.channels, GL_RED, GL_FLOAT, pixels);
        } else {
            gl->glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_R32F, w, h, s.channels, 0, GL_RED, GL_FLOAT, pixels);
            s.texW = w;
            s.texH = h;
            s.texC = s.channels;
        }
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

    void setLayerUniforms(const char* name, const Slot& s)
    {
        const QByteArray n(name);
        const bool drawn = s.channels > 0 && s.displayable && s.texC == s.channels;
        program->setUniformValue(n + ".channels", drawn ? s.channels : 0);
        program->setUniformValue(n + ".size", QVector2D(float(s.width), float(s.height)));
        // The texture covers whole blocks: a partial last block stretches the span past the size.
        program->setUniformValue(n + ".span", QVector2D(float(s.texW * s.factorX), float(s.texH * s.factorY)));
        program->setUniformValue(n + ".factor", QVector2D(float(s.factorX), float(s.factorY)));
        program->setUniformValue(n + ".range", float(convlab::depthMax(s.depth)));
        program->setUniformValue(n + ".lo", s.stats.lo);
        program->setUniformValue(n + ".hi", s.stats.hi);
        program->setUniformValue(n + ".maxAbs", s.stats.maxAbs);
    }
};

ImageView::ImageView(QWidget* parent) : QOpenGLWidget(parent), d(std::make_unique<State>())
{
    static const bool resourcesRegistered = (registerShaderResources(), true);
    Q_UNUSED(resourcesRegistered);
    QSurfaceFormat fmt = format();
    fmt.setVersion(3, 3);
    fmt.setProfile(QSurfaceFormat::CoreProfile);
    setFormat(fmt);
    setMouseTracking(true);
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
        s->pbo = s->tex = 0;
        s->pboBytes = 0;
        s->texW = s->texH = s->texC = 0;
        if (s->channels)
            s->pending = Slot::Pending::FromHost;
    }
    if (d->vao)
        d->gl->glDeleteVertexArrays(1, &d->vao);
    d->vao = 0;
    d->program.reset();
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

    auto program = std::make_unique<QOpenGLShaderProgram>();
    if (!program->addShaderFromSourceFile(QOpenGLShader::Vertex, QStringLiteral(":/shaders/image.vert")) ||
        !program->addShaderFromSourceFile(QOpenGLShader::Fragment, QStringLiteral(":/shaders/image.frag")) ||
        !program->link()) {
        qWarning("ImageView: the image shaders failed to build: %s", qPrintable(program->log()));
    } else {
        d->program = std::move(program);
        d->program->bind();
        d->program->setUniformValue("uSourceTex", 0);
        d->program->setUniformValue("uResultTex", 1);
        d->program->setUniformValue("uDiffTex", 2);
        d->program->release();
    }
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
    QOpenGLWidget::resizeEvent(e);
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
    for (Slot* s : {&d->source, &d->result, &d->diff})
        uploaded = d->upload(*s) || uploaded;
    bool overlaysStale = uploaded; // reductions and problems are known once uploaded
    // Statistics (min, max, max |v|) are computed only when a mapping needs them (only the
    // result is mapped); a GPU-written result is read back for that once.
    Slot& r = d->result;
    if ((d->mapping == Mapping::Normalize || d->mapping == Mapping::Diverging) && r.channels && !r.statsValid) {
        d->readBack(r);
        if (r.hostValid) {
            r.stats = convlab::imageStats(*r.host, r.statChannels);
            r.statsValid = true;
            overlaysStale = true; // the colour bar's range may change
        }
    }

    const Slot* bound[] = {&d->source, &d->result, &d->diff};
    for (int unit = 0; unit < 3; ++unit) {
        gl->glActiveTexture(GL_TEXTURE0 + unit);
        gl->glBindTexture(GL_TEXTURE_2D_ARRAY, bound[unit]->tex);
        if (bound[unit]->tex) {
            // Sharp texels once a texel spans a display pixel or more.
            const double texel = d->zoom * std::min(bound[unit]->factorX, bound[unit]->factorY);
            const GLint filter = texel >= 1.0 ? GL_NEAREST : GL_LINEAR;
            gl->glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, filter);
            gl->glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, filter);
        }
    }
    gl->glActiveTexture(GL_TEXTURE0);

    auto& p = *d->program;
    p.bind();
    d->setLayerUniforms("uSource", d->source);
    d->setLayerUniforms("uResult", d->result);
    d->setLayerUniforms("uDiff", d->diff);
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
    for (int unit = 0; unit < 3; ++unit) {
        gl->glActiveTexture(GL_TEXTURE0 + unit);
        gl->glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    }
    gl->glActiveTexture(GL_TEXTURE0);
    if (pixelGridShown()) {
        // Into this frame, over the picture (QPainter's GL engine sets and restores its state).
        // A painter on the widget itself would be redirected while the window is grabbed (and
        // drawn under the picture); the paint device writes the framebuffer bound now.
        QOpenGLPaintDevice device(size() * devicePixelRatioF());
        device.setDevicePixelRatio(devicePixelRatioF());
        QPainter painter(&device);
        PixelGrid(this).paint(painter);
    }

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

void ImageView::setSplitLabels(const QString& left, const QString& right)
{
    d->splitLeft->setText(left);
    d->splitRight->setText(right);
    placeOverlays();
}

QPair<QString, QString> ImageView::splitLabels() const
{
    return {d->splitLeft->text(), d->splitRight->text()};
}

bool ImageView::splitLabelsVisible() const
{
    return !d->splitLeft->isHidden() && !d->splitRight->isHidden();
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

void ImageView::updateColorBar()
{
    Slot& r = d->result;
    if (d->diffOnScreen() && d->diff.channels) {
        d->bar->setScale(ColorBar::Map::Heat, 0.0, d->differenceScale());
    } else if (d->mapping == Mapping::Diverging && d->resultOnScreen() && r.channels) {
        // Statistics once per result (paintGL reads a GPU-written one back and calls again).
        if (!r.statsValid && r.hostValid) {
            r.stats = convlab::imageStats(*r.host, r.statChannels);
            r.statsValid = true;
        }
        d->bar->setScale(ColorBar::Map::Diverging, -double(r.stats.maxAbs), double(r.stats.maxAbs));
    } else {
        d->bar->hide();
        return;
    }
    d->bar->show();
    placeOverlays();
}

bool ImageView::colorBarVisible() const
{
    return !d->bar->isHidden();
}

QPair<double, double> ImageView::colorBarRange() const
{
    return {d->bar->low(), d->bar->high()};
}

QString ImageView::notice() const
{
    // Images reduced alike share a sentence ("the original and the result").
    struct Reduced {
        QStringList names;
        QSize size, shown;
    };
    QVector<Reduced> reduced;
    QStringList lines;
    const auto describe = [&](const Slot& s, const QString& name) {
        if (!s.channels)
            return;
        if (!s.displayable && !s.problem.isEmpty()) {
            lines << tr("The %1 (%2×%3 px) cannot be drawn: %4.").arg(name).arg(s.width).arg(s.height).arg(s.problem);
            return;
        }
        if (s.factorX == 1 && s.factorY == 1)
            return;
        const QSize size(s.width, s.height), shown(s.texW, s.texH);
        for (Reduced& r : reduced) {
            if (r.size == size && r.shown == shown) {
                r.names << name;
                return;
            }
        }
        reduced.push_back({{name}, size, shown});
    };
    if (d->sourceOnScreen())
        describe(d->source, tr("original"));
    if (d->resultOnScreen())
        describe(d->result, tr("result"));
    if (d->diffOnScreen())
        describe(d->diff, tr("difference"));
    for (const Reduced& r : reduced) {
        const QString text = r.names.size() == 1 ? tr("The %1 (%2×%3 px) is shown reduced to %4×%5 px.")
                                                 : tr("The %1 (%2×%3 px) are shown reduced to %4×%5 px.");
        lines << text.arg(r.names.join(tr(" and the ")))
                     .arg(r.size.width())
                     .arg(r.size.height())
                     .arg(r.shown.width())
                     .arg(r.shown.height());
    }
    if (!reduced.isEmpty())
        lines << tr("OpenGL allows %1 px per side here; the readout uses the full image.").arg(d->textureLimit());
    return lines.join(QLatin1Char('\n'));
}

void ImageView::updateNotice()
{
    const QString text = notice();
    if (text != d->notice->text())
        d->notice->setText(text);
    d->notice->setVisible(!text.isEmpty());
    placeOverlays();
}

void ImageView::placeOverlays()
{
    const int m = kOverlayMargin;
    // The split labels sit at the foot of each half, against the divider, and follow it.
    const bool split = d->shownMode() == ViewMode::Split && d->source.channels > 0;
    for (QLabel* l : {d->splitLeft, d->splitRight}) l->setVisible(split && !l->text().isEmpty());
    if (split) {
        const int divider = int(std::lround(d->split * width()));
        const QSize left = d->splitLeft->sizeHint(), right = d->splitRight->sizeHint();
        const int y = height() - m - std::max(left.height(), right.height());
        d->splitLeft->setGeometry(std::max(0, divider - m - left.width()), y, left.width(), left.height());
        d->splitRight->setGeometry(std::min(width() - right.width(), divider + m), y, right.width(), right.height());
    }
    // Where the split labels would sit, at the foot of the view: the eye looks there for them.
    const bool original = originalShown() && d->source.channels > 0;
    d->originalLabel->setVisible(original);
    if (original) {
        const QSize size = d->originalLabel->sizeHint();
        d->originalLabel->setGeometry(m, height() - m - size.height(), size.width(), size.height());
    }
    int right = width() - m;
    if (!d->bar->isHidden()) {
        const int w = d->bar->sizeHint().width();
        const int h = std::min(kMaxBarHeight, height() - 2 * m);
        d->bar->setGeometry(right - w, m, w, std::max(h, d->bar->minimumSizeHint().height()));
        right -= w + m;
    }
    if (!d->notice->isHidden()) {
        // As wide as its longest line (plus the style's padding), wrapped where the view is narrower.
        int longest = 0;
        for (const QString& line : d->notice->text().split(QLatin1Char('\n')))
            longest = std::max(longest, d->notice->fontMetrics().horizontalAdvance(line));
        const int w = std::max(60, std::min(right - m, longest + 12));
        d->notice->setGeometry(m, m, w, d->notice->heightForWidth(w));
    }
}

QPair<int, int> ImageView::resultDisplayFactor() const
{
    return {d->result.factorX, d->result.factorY};
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

void ImageView::keyPressEvent(QKeyEvent* e)
{
    // Auto-repeat presses of a held Space change nothing.
    if (e->key() == Qt::Key_Space && e->modifiers() == Qt::NoModifier) {
        if (!e->isAutoRepeat())
            setOriginal(true, d->originalToggled);
        e->accept();
        return;
    }
    QOpenGLWidget::keyPressEvent(e);
}

void ImageView::keyReleaseEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_Space) {
        if (!e->isAutoRepeat())
            setOriginal(false, d->originalToggled);
        e->accept();
        return;
    }
    QOpenGLWidget::keyReleaseEvent(e);
}

void ImageView::focusOutEvent(QFocusEvent* e)
{
    // The release of a Space held while the focus left would never arrive here.
    setOriginal(false, d->originalToggled);
    QOpenGLWidget::focusOutEvent(e);
}

void ImageView::setSplitPosition(double t)
{
    if (!std::isfinite(t))
        return;
    d->split = std::clamp(t, 0.0, 1.0);
    placeOverlays();
    update();
}

double ImageView::splitPosition() const
{
    return d->split;
}

double ImageView::zoom() const
{
    return d->zoom;
}

void ImageView::setZoom(double z, QPointF anchorWidgetPos)
{
    d->autoFit = false;
    const bool aboutCentre = anchorWidgetPos == QPointF(-1, -1);
    if (aboutCentre)
        anchorWidgetPos = QPointF(width() / 2.0, height() / 2.0);
    zoomTo(z, anchorWidgetPos, aboutCentre && d->centred);
}

void ImageView::zoomTo(double z, QPointF anchor, bool keepCentred)
{
    if (!std::isfinite(z))
        return;
    z = std::clamp(z, kMinZoom, kMaxZoom);
    d->centred = keepCentred;
    assignTransform(z, anchor - (anchor - d->origin) * (z / d->zoom));
    applyLayout();
    update();
}

void ImageView::assignTransform(double zoom, QPointF origin)
{
    const bool zoomed = zoom != d->zoom;
    if (!zoomed && origin == d->origin)
        return;
    d->zoom = zoom;
    d->origin = origin;
    if (zoomed)
        emit zoomChanged(zoom);
    emit viewChanged(zoom, origin);
}

void ImageView::setPixelGridEnabled(bool on)
{
    d->gridEnabled = on;
    update();
}

bool ImageView::pixelGridEnabled() const
{
    return d->gridEnabled;
}

bool ImageView::pixelGridShown() const
{
    return d->gridEnabled && d->zoom > kGridZoom && d->reference().channels > 0;
}

QPointF ImageView::origin() const
{
    return d->origin;
}

void ImageView::setViewTransform(double zoom, QPointF origin)
{
    if (!std::isfinite(zoom) || !std::isfinite(origin.x()) || !std::isfinite(origin.y()))
        return;
    d->autoFit = d->centred = false;
    assignTransform(std::clamp(zoom, kMinZoom, kMaxZoom), origin);
    update();
}

void ImageView::setPaddingPreview(bool on, int margin)
{
    if (on && (margin < 1 || margin > kMaxPaddingMargin))
        throw convlab::Error("image view: padding margin " + std::to_string(margin) + " is outside 1.." +
                             std::to_string(kMaxPaddingMargin));
    if (on == d->padding && (!on || margin == d->padMargin))
        return; // nothing visible changes: no repaint (each frame is costly on software GL)
    d->padding = on;
    if (on)
        d->padMargin = margin;
    applyLayout();
    updateNotice(); // the original shows in the margin
    update();
}

bool ImageView::paddingPreview() const
{
    return d->padding;
}

int ImageView::paddingMargin() const
{
    return d->padMargin;
}

void ImageView::setBorderForPreview(const convlab::Border& border)
{
    if (!std::isfinite(border.value))
        throw convlab::Error("image view: border constant " + std::to_string(border.value) + " is not finite");
    const bool same = border.mode == d->padBorder.mode && border.value == d->padBorder.value;
    d->padBorder = border;
    if (!same && d->padding)
        update(); // the border is drawn only while the padding is shown
}

void ImageView::setBandOverlay(int left, int top, int right, int bottom)
{
    if (left < 0 || top < 0 || right < 0 || bottom < 0)
        throw convlab::Error("image view: band widths " + std::to_string(left) + "," + std::to_string(top) + "," +
                             std::to_string(right) + "," + std::to_string(bottom) + " must not be negative");
    d->band[0] = left;
    d->band[1] = top;
    d->band[2] = right;
    d->band[3] = bottom;
    update();
}

void ImageView::fitToWindow()
{
    d->autoFit = d->centred = true;
    const double before = d->zoom;
    applyLayout();
    if (d->zoom == before)
        emit zoomChanged(d->zoom); // said even when it stays: a status display may be empty yet
    update();
}

void ImageView::actualSize()
{
    d->autoFit = false;
    const double before = d->zoom;
    zoomTo(1.0, QPointF(width() / 2.0, height() / 2.0), true);
    if (d->zoom == before)
        emit zoomChanged(d->zoom);
}

void ImageView::applyLayout()
{
    const Slot& ref = d->reference();
    if (ref.channels == 0 || width() <= 0 || height() <= 0)
        return;
    double zoom = d->zoom;
    QPointF origin = d->origin;
    if (d->autoFit) {
        // The padding margin is part of what is fitted (it is symmetric: the centre stays).
        const int extra = d->padding ? 2 * d->padMargin : 0;
        const double z = std::min(double(width()) / (ref.width + extra), double(height()) / (ref.height + extra));
        zoom = std::clamp(z, kMinZoom, kMaxZoom);
    }
    if (d->autoFit || d->centred) {
        // Whole widget pixels keep single image pixels crisp at integer zooms.
        origin = QPointF(std::round((width() - ref.width * zoom) / 2.0),
                         std::round((height() - ref.height * zoom) / 2.0));
    }
    assignTransform(zoom, origin);
}

QPointF ImageView::widgetToImage(QPointF widgetPos) const
{
    return (widgetPos - d->origin) / d->zoom;
}

QPoint ImageView::pixelAt(QPointF widgetPos) const
{
    const QPointF p = widgetToImage(widgetPos);
    const int x = static_cast<int>(std::floor(p.x()));
    const int y = static_cast<int>(std::floor(p.y()));
    const Slot& ref = d->reference();
    return ref.contains(x, y) ? QPoint(x, y) : QPoint(-1, -1);
}

void ImageView::updateHover(QPointF widgetPos)
{
    const QPoint px = QRectF(rect()).contains(widgetPos) ? pixelAt(widgetPos) : QPoint(-1, -1);
    if (px == d->hovered)
        return;
    d->hovered = px;
    emit pixelHovered(px.x(), px.y());
}

bool ImageView::nearDivider(QPointF widgetPos) const
{
    return d->shownMode() == ViewMode::Split && std::abs(widgetPos.x() - d->split * width()) <= kDividerGrab;
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

void ImageView::wheelEvent(QWheelEvent* e)
{
    const double notches = e->angleDelta().y() / 120.0;
    if (notches == 0.0) {
        e->ignore();
        return;
    }
    d->autoFit = false;
    zoomTo(d->zoom * std::pow(kWheelFactor, notches), e->position(), false);
    updateHover(e->position());
    e->accept();
}

void ImageView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton) {
        QOpenGLWidget::mousePressEvent(e);
        return;
    }
    d->pressPos = e->position();
    d->originAtPress = d->origin;
    d->drag = nearDivider(e->position()) ? State::Drag::Divider : State::Drag::Pending;
    e->accept();
}

void ImageView::mouseMoveEvent(QMouseEvent* e)
{
    const QPointF pos = e->position();
    switch (d->drag) {
    case State::Drag::Divider:
        setSplitPosition(width() > 0 ? pos.x() / width() : 0.5);
        break;
    case State::Drag::Pending:
        if ((pos - d->pressPos).manhattanLength() < QGuiApplication::styleHints()->startDragDistance())
            break;
        d->drag = State::Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
        [[fallthrough]];
    case State::Drag::Pan:
        d->autoFit = d->centred = false;
        assignTransform(d->zoom, d->originAtPress + (pos - d->pressPos));
        update();
        break;
    case State::Drag::None:
        if (nearDivider(pos))
            setCursor(Qt::SplitHCursor);
        else
            unsetCursor();
        break;
    }
    updateHover(pos);
}

void ImageView::mouseReleaseEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton) {
        QOpenGLWidget::mouseReleaseEvent(e);
        return;
    }
    if (d->drag == State::Drag::Pending) {
        const QPoint px = pixelAt(e->position());
        if (px.x() >= 0)
            emit pixelClicked(px.x(), px.y());
    }
    if (d->drag == State::Drag::Pan)
        unsetCursor();
    d->drag = State::Drag::None;
    e->accept();
}

void ImageView::leaveEvent(QEvent* e)
{
    updateHover(QPointF(-1, -1));
    QOpenGLWidget::leaveEvent(e);
}
