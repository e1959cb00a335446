// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's construction, its GL entry points, its images, mapping and mode setters.
#include "view/imageview.h"

#include <QElapsedTimer>
#include <QOpenGLContext>
#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLVersionFunctionsFactory>
#include <QPalette>
#include <QSurfaceFormat>

#include <algorithm>

#include "view/edgeloupe.h"
#include "view/imagerenderer.h"
#include "view/viewcamera.h"
#include "view/viewinteraction.h"
#include "view/viewloupe.h"
#include "view/viewoverlays.h"
#include "view/viewscene.h"

static_assert(ImageView::kMaxPaddingMargin == ViewScene::kMaxPaddingMargin);
static_assert(ImageView::kDefaultDifferenceFraction == ViewScene::kDefaultDifferenceFraction);

ImageView::ImageView(QWidget* parent)
    : GLViewHost(parent), scene_(std::make_unique<ViewScene>()), camera_(std::make_unique<ViewCamera>()),
      renderer_(std::make_unique<ImageRenderer>())
{
    QSurfaceFormat fmt = format();
    fmt.setVersion(3, 3);
    fmt.setProfile(QSurfaceFormat::CoreProfile);
    setFormat(fmt);
    setMouseTracking(true);
    // The overlays' translucent backgrounds are drawn over this colour (not over the picture,
    // which is a native window: view/glviewhost.h): the view's background keeps them dark.
    const float grey = ImageRenderer::kBackground;
    QPalette palette = this->palette();
    palette.setColor(QPalette::Window, QColor::fromRgbF(grey, grey, grey));
    setPalette(palette);
    setAutoFillBackground(true);
    overlays_ = std::make_unique<ViewOverlays>(this);
    interaction_ = std::make_unique<ViewInteraction>(*this, *scene_, *camera_);
    connect(edgeLoupe(), &EdgeLoupe::cornerChanged, this, [this] { updateLoupe(); });
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
    if (!gl_)
        return;
    makeCurrent();
    renderer_->release(*scene_, keepData);
    gl_ = nullptr;
    doneCurrent();
}

void ImageView::withContext(const std::function<void()>& work)
{
    const bool wasCurrent = QOpenGLContext::currentContext() == context();
    if (!wasCurrent)
        makeCurrent();
    work();
    if (!wasCurrent)
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
    gl_ = gl;
    renderer_->initialize(gl, *scene_);
}

void ImageView::resizeGL(int w, int h)
{
    if (gl_)
        renderer_->resize(gl_, w, h);
    applyLayout();
}

void ImageView::resizeEvent(QResizeEvent* e) { GLViewHost::resizeEvent(e); placeOverlays(); }

void ImageView::paintGL()
{
    QElapsedTimer timer;
    timer.start();
    if (!gl_)
        return;
    camera_->setFrame(devicePixelRatioF(), QSizeF(size()));
    const ImageRenderer::Frame frame = renderer_->paint(gl_, *scene_, *camera_);
    if (!frame.drawn)
        return;
    paintOverPicture();
    if (frame.uploaded) {
        gl_->glFinish();
        lastDisplayMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    }
    if (frame.overlaysStale)
        queueOverlayUpdate();
}

void ImageView::queueOverlayUpdate()
{
    if (overlaysQueued_)
        return;
    overlaysQueued_ = true;
    QMetaObject::invokeMethod(this, [this] {
        overlaysQueued_ = false;
        updateColorBar();
        updateNotice();
    }, Qt::QueuedConnection);
}

void ImageView::setSource(const convlab::Image& source) { setSource(std::make_shared<const convlab::Image>(source)); }

void ImageView::setSource(std::shared_ptr<const convlab::Image> source)
{
    scene_->assignSource(std::move(source));
    imageChanged(); // an automatic difference scale follows the source's range too
}

void ImageView::setResult(const convlab::Image& result) { setResult(std::make_shared<const convlab::Image>(result)); }

void ImageView::setResult(std::shared_ptr<const convlab::Image> result)
{
    scene_->result.assign(std::move(result), false);
    imageChanged();
}

void ImageView::setDifference(const convlab::Image& diff)
{
    setDifference(std::make_shared<const convlab::Image>(diff));
}

void ImageView::setDifference(std::shared_ptr<const convlab::Image> diff)
{
    scene_->diff.assign(std::move(diff), true);
    imageChanged();
}

void ImageView::clearDifference() { scene_->diff.clear(); shownChanged(); }
void ImageView::imageChanged() { applyLayout(); shownChanged(); }

void ImageView::shownChanged()
{
    updateColorBar();
    updateNotice();
    update();
}

bool ImageView::hasDifference() const { return scene_->diff.channels > 0; }

void ImageView::setMapping(Mapping m)
{
    const bool changed = scene_->mapping != m;
    scene_->mapping = m;
    updateColorBar();
    update();
    if (changed) emit mappingChanged(m);
}

ImageView::Mapping ImageView::mapping() const { return scene_->mapping; }
void ImageView::setDisplayChannel(int c) { scene_->displayChannel = std::max(-1, c); update(); }
int ImageView::displayChannel() const { return scene_->displayChannel; }
void ImageView::setViewMode(ViewMode m) { scene_->viewMode = m; shownChanged(); }
ImageView::ViewMode ImageView::viewMode() const { return scene_->viewMode; }
ImageView::ViewMode ImageView::shownMode() const { return scene_->shownMode(); }

void ImageView::setDifferenceScale(DifferenceScale scale, double absoluteMax)
{
    scene_->setDifferenceScale(scale, absoluteMax);
    updateColorBar();
    if (scene_->viewMode == ViewMode::Difference)
        update();
}

ImageView::DifferenceScale ImageView::differenceScale() const { return scene_->diffScale; }
double ImageView::differenceAbsoluteMax() const { return scene_->diffAbsoluteMax; }
double ImageView::differenceScaleInUse() const { return scene_->differenceScale(); }
QPair<int, int> ImageView::resultDisplayFactor() const { return {scene_->result.factorX, scene_->result.factorY}; }

QRect ImageView::resultUploadedRegion() const
{
    const ImageSlot& r = scene_->result;
    if (!r.premapped) return QRect(0, 0, r.width, r.height);
    return QRect(r.region.x, r.region.y, r.region.width, r.region.height);
}

QPair<int, int> ImageView::sourceDisplayFactor() const { return {scene_->source.factorX, scene_->source.factorY}; }
QPair<int, int> ImageView::differenceDisplayFactor() const { return {scene_->diff.factorX, scene_->diff.factorY}; }
void ImageView::setMaxTextureSizeForTesting(int px) { SlotTextures::setLimitOverride(px); }
int ImageView::maxTextureSize() const { return renderer_->textureLimit(); }
void ImageView::setOriginalShown(bool on) { setOriginal(scene_->originalHeld, on); }
bool ImageView::originalShown() const { return scene_->originalShown(); }

void ImageView::setOriginal(bool held, bool toggled)
{
    const bool before = originalShown();
    scene_->originalHeld = held;
    scene_->originalToggled = toggled;
    if (originalShown() == before)
        return;
    shownChanged(); // the notice places the label too
    emit originalShownChanged(originalShown());
}

QVector<float> ImageView::resultValues(int x, int y) const
{
    ImageSlot& r = scene_->result;
    if (r.contains(x, y) && !r.hostValid && gl_) // a GPU producer wrote the buffer: fetch it once
        const_cast<ImageView*>(this)->withContext([&] { renderer_->readBack(r); });
    return r.valuesAt(x, y);
}

QVector<float> ImageView::sourceValues(int x, int y) const { return scene_->source.valuesAt(x, y); }

QSize ImageView::imageSize() const
{
    const ImageSlot& ref = scene_->reference();
    return ref.channels ? QSize(ref.width, ref.height) : QSize();
}

unsigned int ImageView::resultBuffer(int width, int height, int channels)
{
    ImageSlot::checkShape(width, height, channels, "result buffer");
    const std::size_t bytes = static_cast<std::size_t>(width) * height * channels * sizeof(float);
    GLuint pbo = 0;
    if (gl_) withContext([&] { pbo = renderer_->resultBuffer(scene_->result, bytes); });
    return pbo;
}

void ImageView::resultBufferWritten(int width, int height, int channels)
{
    // The engine keeps the source's value scale, so the result shares its nominal range.
    const ImageSlot& src = scene_->source;
    scene_->result.assignWritten(width, height, channels, src.channels ? src.depth : convlab::SampleDepth::F32);
    imageChanged(); // a diverging range follows once paintGL has read the values back
}

double ImageView::lastDisplayMs() const { return lastDisplayMs_; }
bool ImageView::resultDrawnFromColours() const { return scene_->result.channels > 0 && scene_->result.premapped; }
