// SPDX-License-Identifier: GPL-3.0-or-later
#include "tools/borderlab.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QShowEvent>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "convlab/error.h"
#include "view/imageview.h"
#include "workbench/rendercontroller.h"

QSize borderLabPreviewSize(int width, int height, qint64 maxPixels)
{
    const double pixels = double(width) * height;
    if (pixels <= double(maxPixels))
        return {width, height};
    // Rounding down keeps the product within the limit.
    const double f = std::sqrt(double(maxPixels) / pixels);
    return {std::max(1, int(std::floor(width * f))), std::max(1, int(std::floor(height * f)))};
}

namespace {

// Image pixels per screen pixel, whole: at least 1.
int pixelsPerScreenPixel(double zoom)
{
    const double onePixel = zoom > 0.0 && std::isfinite(zoom) ? 1.0 / zoom : 1.0;
    return std::max(1, int(std::ceil(onePixel - 1e-9)));
}

} // namespace

int borderLabWideningRadius(double zoom)
{
    return zoom >= 1.0 || !(zoom > 0.0) ? 0 : pixelsPerScreenPixel(zoom);
}

int borderLabOutlineWidth(int band, double zoom)
{
    if (band <= 0)
        return 0;
    // The view draws its line one screen pixel wide on the band's side of the width given.
    return band + borderLabWideningRadius(zoom) + pixelsPerScreenPixel(zoom);
}

QSize borderLabWindowSize(QSize wanted, QSize available)
{
    // The frame is unknown until the window is shown: leave room for a title bar and borders.
    constexpr int kFrameWidth = 16, kFrameHeight = 48;
    const QSize room(std::max(1, available.width() - kFrameWidth), std::max(1, available.height() - kFrameHeight));
    return wanted.boundedTo(room);
}

namespace {

// The views fill rows of this many cells; the cell after the last view holds the note.
constexpr int kGridColumns = 3;

QString modeTitle(convlab::BorderMode mode, float value)
{
    const convlab::BorderModeInfo& info = convlab::borderModeInfo(mode);
    const QString name = QString::fromUtf8(info.name);
    return info.takesValue ? QStringLiteral("%1 (%2)").arg(name).arg(value) : name;
}

} // namespace

int BorderLabWindow::indexOf(convlab::BorderMode mode)
{
    const auto it = std::find(kModes.begin(), kModes.end(), mode);
    if (it == kModes.end())
        throw convlab::Error("border lab: unknown border mode " + std::to_string(static_cast<int>(mode)));
    return static_cast<int>(it - kModes.begin());
}

QString BorderLabWindow::modeTitleText(int index) const
{
    return modeTitle(kModes[index], params_.border.value);
}

QString BorderLabWindow::otherNames(convlab::BorderMode mode)
{
    return QString::fromStdString(convlab::otherLibraryNames(convlab::borderModeInfo(mode)));
}

BorderLabWindow::BorderLabWindow(std::shared_ptr<const convlab::Image> source, convlab::ConvolveParams params,
                                 QWidget* parent)
    : QWidget(parent)
{
    setWindowTitle(tr("Border-mode lab"));
    comparePool_.setMaxThreadCount(1);
    previewPool_.setMaxThreadCount(1);
    buildUi();
    setSource(std::move(source));
    setParams(std::move(params));
}

BorderLabWindow::~BorderLabWindow()
{
    // A comparison or a downscale still running posts back to this object: let it finish first.
    if (previewCancel_)
        previewCancel_->store(true);
    previewPool_.waitForDone();
    comparePool_.waitForDone();
    for (Panel& p : panels_)
        p.render->shutdown();
}

RenderController* BorderLabWindow::makeRender(int index)
{
    auto* render = new RenderController(this);
    connect(render, &RenderController::resultReady, this, [this, index](quint64 id) { onResult(index, id); });
    connect(render, &RenderController::failed, this,
            [this, index](quint64 id, const QString& message) { onFailed(index, id, message); });
    return render;
}

void BorderLabWindow::buildUi()
{
    scaleLabel_ = new QLabel;
    scaleLabel_->setObjectName("differenceScale");
    scaleLabel_->setToolTip(tr("Every difference map uses this scale, so that a brighter panel differs more"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buildControls());
    layout->addWidget(scaleLabel_);
    layout->addLayout(buildPanelGrid(), 1);
    addCloseKeys();
}

QHBoxLayout* BorderLabWindow::buildControls()
{
    referenceBox_ = new QComboBox;
    for (convlab::BorderMode m : kModes)
        referenceBox_->addItem(QString::fromStdString(convlab::borderName(m)));
    referenceBox_->setCurrentIndex(reference_);
    differencesBox_ = new QCheckBox(tr("Show &differences against the reference"));
    mappingBox_ = new QComboBox;
    mappingBox_->addItems({tr("Clamp"), tr("Absolute value"), tr("Normalize"), tr("Offset"), tr("Diverging")});
    focusBox_ = new QComboBox;
    focusBox_->addItems({tr("Whole image"), tr("Top-left corner"), tr("Top edge"), tr("Top-right corner"),
                         tr("Left edge"), tr("Right edge"), tr("Bottom-left corner"), tr("Bottom edge"),
                         tr("Bottom-right corner")});
    focusBox_->setToolTip(tr("Magnify a corner or an edge in every view: a band one pixel wide becomes plain"));
    auto* focusLabel = new QLabel(tr("Ma&gnify:"));
    focusLabel->setBuddy(focusBox_);
    auto* fit = new QPushButton(tr("&Fit"));
    auto* actual = new QPushButton(tr("&1:1"));
    auto* refLabel = new QLabel(tr("&Reference mode:"));
    refLabel->setBuddy(referenceBox_);
    auto* mapLabel = new QLabel(tr("&Mapping:"));
    mapLabel->setBuddy(mappingBox_);
    auto* top = new QHBoxLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{refLabel, referenceBox_, differencesBox_})
        top->addWidget(w);
    top->addStretch();
    for (QWidget* w : std::initializer_list<QWidget*>{focusLabel, focusBox_, mapLabel, mappingBox_, fit, actual})
        top->addWidget(w);
    connectControls();
    connect(fit, &QPushButton::clicked, this, [this] { forEachView(&ImageView::fitToWindow); });
    connect(actual, &QPushButton::clicked, this, [this] { forEachView(&ImageView::actualSize); });
    return top;
}

void BorderLabWindow::connectControls()
{
    connect(referenceBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setReferenceMode(kModes[std::clamp(i, 0, kModeCount - 1)]); });
    connect(differencesBox_, &QCheckBox::toggled, this, &BorderLabWindow::setShowDifferences);
    connect(mappingBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        for (Panel& p : panels_)
            p.view->setMapping(static_cast<ImageView::Mapping>(i));
    });
    connect(focusBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setEdgeFocus(static_cast<EdgeFocus>(std::clamp(i, 0, 8))); });
}

QGridLayout* BorderLabWindow::buildPanelGrid()
{
    auto* grid = new QGridLayout;
    for (int i = 0; i < kModeCount; ++i) {
        grid->addLayout(buildPanel(i), i / kGridColumns, i % kGridColumns);
        grid->setColumnStretch(i % kGridColumns, 1);
        grid->setRowStretch(i / kGridColumns, 1);
    }
    note_ = new QLabel;
    note_->setWordWrap(true);
    note_->setTextFormat(Qt::RichText);
    note_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    grid->addWidget(note_, kModeCount / kGridColumns, kModeCount % kGridColumns);
    return grid;
}

QVBoxLayout* BorderLabWindow::buildPanel(int i)
{
    Panel& p = panels_[i];
    p.view = new ImageView;
    p.view->setMinimumSize(160, 120);
    p.title = new QLabel;
    p.title->setTextFormat(Qt::RichText);
    auto* names = new QLabel(otherNames(kModes[i]));
    names->setToolTip(names->text());
    p.status = new QLabel;
    // Two lines each whatever the text, so that every view gets the same size: the views
    // share one transform, which must place the image alike in all of them.
    for (QLabel* label : {names, p.status}) {
        label->setWordWrap(true);
        label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
        label->setFixedHeight(2 * label->fontMetrics().lineSpacing());
    }
    auto* cell = new QVBoxLayout;
    cell->setSpacing(2);
    cell->addWidget(p.title);
    cell->addWidget(p.view, 1);
    cell->addWidget(names);
    cell->addWidget(p.status);

    p.render = makeRender(i);
    connect(p.view, &ImageView::viewChanged, this,
            [this, i](double zoom, QPointF origin) { followView(i, zoom, origin); });
    connect(p.view, &ImageView::viewChanged, this, [this, i] {
        outlineBand(i);
        applyViewMode(i); // the map widened for the new zoom
    });
    return cell;
}

// The lab is a window of its own: these keys act only while it is the active one.
void BorderLabWindow::addCloseKeys()
{
    for (const QKeySequence& key : {QKeySequence(Qt::Key_Escape), QKeySequence(tr("Ctrl+W"))}) {
        auto* a = new QAction(tr("Close the Border-Mode Lab"), this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WindowShortcut);
        connect(a, &QAction::triggered, this, &QWidget::close);
        addAction(a);
    }
}

void BorderLabWindow::setMapping(display::Mapping mapping)
{
    // The combo passes it on to every view.
    mappingBox_->setCurrentIndex(std::clamp(static_cast<int>(mapping), 0, mappingBox_->count() - 1));
}

display::Mapping BorderLabWindow::mapping() const
{
    return static_cast<display::Mapping>(mappingBox_->currentIndex());
}

void BorderLabWindow::fitToScreen()
{
    const QScreen* s = screen();
    if (!s)
        return;
    const QRect available = s->availableGeometry();
    resize(borderLabWindowSize(size(), available.size()));
    // Back inside the available area when the window would reach past it.
    QPoint at = pos();
    at.setX(std::clamp(at.x(), available.left(), std::max(available.left(), available.right() - width())));
    at.setY(std::clamp(at.y(), available.top(), std::max(available.top(), available.bottom() - height())));
    move(at);
}

void BorderLabWindow::forEachView(void (ImageView::*fn)())
{
    // Every view does it for itself (they have the same size); none follows another meanwhile.
    syncing_ = true;
    for (Panel& p : panels_)
        (p.view->*fn)();
    syncing_ = false;
}

void BorderLabWindow::followView(int index, double zoom, QPointF origin)
{
    if (syncing_)
        return;
    syncing_ = true;
    for (int i = 0; i < kModeCount; ++i)
        if (i != index)
            panels_[i].view->setViewTransform(zoom, origin);
    syncing_ = false;
}

int BorderLabWindow::edgeFocusSpan() const
{
    int reach = 1;
    try {
        params_.kernel.validate();
        const convlab::Kernel& k = params_.kernel;
        reach = std::max({k.ax(), k.width - 1 - k.ax(), k.ay(), k.height - 1 - k.ay(), 1});
    } catch (const convlab::Error&) {
    }
    return std::max(12, 4 * reach + 4);
}

void BorderLabWindow::setEdgeFocus(EdgeFocus focus)
{
    focus_ = focus;
    {
        const QSignalBlocker block(focusBox_);
        focusBox_->setCurrentIndex(static_cast<int>(focus));
    }
    focusedInput_ = nullptr;
    applyEdgeFocus();
}

void BorderLabWindow::applyEdgeFocus()
{
    if (!preview_)
        return; // refresh() comes back here once there is an input
    focusedInput_ = preview_.get();
    if (focus_ == EdgeFocus::Whole) {
        forEachView(&ImageView::fitToWindow);
        return;
    }
    // Every view has the same size; the image edge lands this many image pixels inside the view,
    // and a right edge also clears the colour bar the difference maps carry on that side.
    constexpr double kOutside = 2.0;
    constexpr double kColourBarRoom = 80.0;
    const ImageView* v = panels_[0].view;
    const double w = preview_->width, h = preview_->height, vw = v->width(), vh = v->height();
    const double zoom = std::min(vw, vh) / edgeFocusSpan();
    const double m = kOutside * zoom;
    // Where the image's left (top) edge goes: against the view's near side, centred on the
    // middle of the image, or the right (bottom) edge against the far side.
    auto place = [m](int side, double image, double view, double z, double farRoom) {
        return side < 0 ? m : side > 0 ? view - m - farRoom - image * z : view / 2 - image * z / 2;
    };
    int sx = 0, sy = 0;
    switch (focus_) {
    case EdgeFocus::TopLeft: sx = -1, sy = -1; break;
    case EdgeFocus::Top: sy = -1; break;
    case EdgeFocus::TopRight: sx = 1, sy = -1; break;
    case EdgeFocus::Left: sx = -1; break;
    case EdgeFocus::Right: sx = 1; break;
    case EdgeFocus::BottomLeft: sx = -1, sy = 1; break;
    case EdgeFocus::Bottom: sy = 1; break;
    case EdgeFocus::BottomRight: sx = 1, sy = 1; break;
    case EdgeFocus::Whole: break;
    }
    const QPointF origin(std::round(place(sx, w, vw, zoom, kColourBarRoom)), std::round(place(sy, h, vh, zoom, 0.0)));
    syncing_ = true;
    for (Panel& p : panels_)
        p.view->setViewTransform(zoom, origin);
    syncing_ = false;
}

void BorderLabWindow::setParams(convlab::ConvolveParams params)
{
    params.method = convlab::Method::Direct;
    params.device = convlab::Device::Cpu;
    params.cancel = nullptr;
    params_ = std::move(params);
    ++inputVersion_;
    refresh();
}

void BorderLabWindow::setSource(std::shared_ptr<const convlab::Image> source)
{
    if (source && source == weakSource_.lock())
        return; // the same image (the window re-sends it when the lab is raised): keep the preview
    releaseComputed();
    sourceSize_ = source ? QSize(source->width, source->height) : QSize();
    weakSource_ = source;
    source_ = onScreen() ? std::move(source) : nullptr;
    ++inputVersion_;
    refresh();
}

bool BorderLabWindow::onScreen() const
{
    return mapped_ && isVisible() && !isMinimized();
}

bool BorderLabWindow::preparingPreview() const
{
    return preparingGeneration_ == sourceGeneration_ && !preview_;
}

void BorderLabWindow::refresh()
{
    if (!onScreen())
        return; // showEvent and changeEvent come back here
    if (!preview_) {
        preparePreview();
        return; // onPreviewReady comes back here
    }
    if (focusedInput_ != preview_.get())
        applyEdgeFocus(); // a new input: the corner or edge of this one
    if (startedVersion_ != inputVersion_)
        start();
}

void BorderLabWindow::preparePreview()
{
    if (preparingPreview())
        return;
    if (!source_)
        source_ = weakSource_.lock();
    if (!source_) {
        note_->setText(tr("<b>No image</b><br>Open an image: the lab filters the current image."));
        return;
    }
    const QSize size = borderLabPreviewSize(source_->width, source_->height, kPreviewMaxPixels);
    if (size == QSize(source_->width, source_->height)) {
        preview_ = source_; // small enough: full resolution
        refresh();
        return;
    }
    for (Panel& p : panels_)
        p.status->setText(tr("preparing a %1×%2 preview…").arg(size.width()).arg(size.height()));
    const quint64 generation = sourceGeneration_;
    preparingGeneration_ = generation;
    previewCancel_ = std::make_shared<std::atomic<bool>>(false);
    previewPool_.start([this, generation, size, source = source_, cancel = previewCancel_] {
        std::shared_ptr<const convlab::Image> preview;
        try {
            preview = std::make_shared<const convlab::Image>(
                areaDownscale(*source, size.width(), size.height(), cancel.get()));
        } catch (const convlab::Cancelled&) {
        } catch (const std::bad_alloc&) {
        }
        QMetaObject::invokeMethod(
            this, [this, generation, preview] { onPreviewReady(generation, preview); }, Qt::QueuedConnection);
    });
}

void BorderLabWindow::onPreviewReady(quint64 sourceGeneration, std::shared_ptr<const convlab::Image> preview)
{
    if (sourceGeneration != sourceGeneration_)
        return; // another source, or released meanwhile
    preparingGeneration_ = 0;
    if (!preview) {
        for (Panel& p : panels_) {
            p.status->setText(tr("failed: out of memory preparing the preview"));
            p.status->setStyleSheet(QStringLiteral("color: #c0392b;"));
        }
        return;
    }
    preview_ = std::move(preview);
    refresh();
}

void BorderLabWindow::releaseComputed()
{
    ++sourceGeneration_;
    comparison_.invalidate(); // drops a comparison in flight
    preparingGeneration_ = 0;
    if (previewCancel_)
        previewCancel_->store(true);
    previewCancel_.reset();
    preview_.reset();
    focusedInput_ = nullptr; // a new preview may take the old one's address
    startedVersion_ = 0;
    comparing_ = false;
    for (int i = 0; i < kModeCount; ++i) {
        Panel& p = panels_[i];
        p.ready = false;
        p.difference = {};
        p.maxAbs = 0.0;
        // A controller keeps its last result and spare buffers: a new one holds nothing.
        p.render->shutdown();
        delete p.render;
        p.render = makeRender(i);
        p.view->setResult(std::shared_ptr<const convlab::Image>());
        p.diff.reset();
        p.diffInView = false;
        p.diffRadius = 0;
        p.view->setDifference(convlab::Image());
        p.view->setBandOverlay(0, 0, 0, 0);
    }
}

void BorderLabWindow::pause()
{
    if (preparingPreview()) {
        previewCancel_->store(true);
        ++sourceGeneration_; // the cancelled downscale reports back to nobody
        preparingGeneration_ = 0;
    }
    if (!busy())
        return;
    // Unfinished work is started again when the lab is back on screen.
    for (Panel& p : panels_)
        p.render->cancel();
    comparison_.invalidate();
    comparing_ = false;
    startedVersion_ = 0;
}

void BorderLabWindow::showEvent(QShowEvent* e)
{
    if (!e->spontaneous())
        fitToScreen();
    QWidget::showEvent(e);
    mapped_ = true;
    if (!source_)
        source_ = weakSource_.lock();
    refresh();
}

void BorderLabWindow::hideEvent(QHideEvent* e)
{
    QWidget::hideEvent(e);
    mapped_ = false;
    // A spontaneous hide is the window system unmapping the window (minimised): keep what is
    // done. A hide by the program or the user closing the window releases everything.
    if (e->spontaneous()) {
        pause();
        return;
    }
    releaseComputed();
    source_.reset();
}

void BorderLabWindow::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    if (e->type() != QEvent::WindowStateChange)
        return;
    if (isMinimized())
        pause();
    else
        refresh();
}

void BorderLabWindow::start()
{
    comparison_.invalidate();
    comparing_ = false;
    startedVersion_ = inputVersion_;
    requests_ += kModeCount;
    for (int i = 0; i < kModeCount; ++i) {
        Panel& p = panels_[i];
        p.ready = false;
        p.difference = {};
        p.maxAbs = 0.0;
        p.title->setText(QStringLiteral("<b>%1</b>").arg(modeTitleText(i).toHtmlEscaped()));
        p.status->setText(tr("computing\u2026"));
        p.status->setStyleSheet(QString());
        convlab::ConvolveParams run = params_;
        run.border.mode = kModes[i];
        p.render->request(preview_, std::move(run));
    }
    updateNote();
}

void BorderLabWindow::onResult(int index, quint64 id)
{
    Panel& p = panels_[index];
    if (id != p.render->latestId() || startedVersion_ != inputVersion_)
        return; // superseded, or paused off screen (computed again on return)
    p.view->setResult(p.render->result());
    p.ready = true;
    if (std::all_of(panels_.begin(), panels_.end(), [](const Panel& q) { return q.ready; }))
        compare();
}

void BorderLabWindow::onFailed(int index, quint64 id, const QString& message)
{
    Panel& p = panels_[index];
    if (id != p.render->latestId())
        return;
    p.status->setText(tr("failed: %1").arg(message));
    p.status->setStyleSheet(QStringLiteral("color: #c0392b;"));
}

void BorderLabWindow::updateNote()
{
    QString text = tr("<b>Where the modes differ</b><br>");
    try {
        // Correlation form: output (x, y) reads x - ax .. x + (w - 1 - ax), likewise in y.
        params_.kernel.validate();
        const convlab::Kernel k = convlab::correlationKernel(params_.kernel, params_.semantics);
        const int left = k.ax(), right = k.width - 1 - k.ax(), up = k.ay(), down = k.height - 1 - k.ay();
        text += tr("The %1\u00d7%2 kernel reads %3 px left, %4 px right, %5 px up and %6 px down of each "
                   "pixel. Only pixels that close to an edge read values the border mode invents, so the "
                   "results can differ only in a band of at most %7 px along the left/right edges and "
                   "%8 px along the top/bottom edges.")
                    .arg(k.width)
                    .arg(k.height)
                    .arg(left)
                    .arg(right)
                    .arg(up)
                    .arg(down)
                    .arg(std::max(left, right))
                    .arg(std::max(up, down));
    } catch (const convlab::Error&) {
        // The runs report the bad kernel under each view.
    }
    if (preview_ && QSize(preview_->width, preview_->height) != sourceSize_)
        text += tr("<br><br><b>Computed on a %1×%2 preview of the %3×%4 image</b> (area average, so "
                   "that editing stays fluid): the counts, bands and kernel reach are in preview pixels.")
                    .arg(preview_->width)
                    .arg(preview_->height)
                    .arg(sourceSize_.width())
                    .arg(sourceSize_.height());
    text += tr("<br><br>Above each view: the largest difference |d| from the reference mode. Under it: how "
               "many pixels differ (|d| &gt; 0) and the measured band, outlined in cyan just inside it, "
               "where the modes agree, so that the line never hides the band. The difference maps share "
               "one scale (above the views): |d| from black (equal) through red to white (the largest "
               "difference of any mode). Below 1:1 each map is drawn widened, every pixel the largest "
               "|d| near it, so that a band thinner than a screen pixel still shows; the numbers are "
               "those of the map itself.<br><br>Every mode runs the direct method on the CPU, so "
               "pixels away from the edges come out bit-identical.");
    note_->setText(text);
}

bool BorderLabWindow::busy() const
{
    return comparing_ || std::any_of(panels_.begin(), panels_.end(), [](const Panel& p) { return !p.ready; });
}

std::shared_ptr<const convlab::Image> BorderLabWindow::result(convlab::BorderMode mode) const
{
    const Panel& p = panels_[indexOf(mode)];
    return p.ready ? p.render->result() : nullptr;
}

QString BorderLabWindow::noteText() const
{
    return note_->text();
}

ImageView* BorderLabWindow::view(convlab::BorderMode mode) const
{
    return panels_[indexOf(mode)].view;
}
