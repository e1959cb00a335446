// SPDX-License-Identifier: GPL-3.0-or-later
#include "borderlab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <string>
#include <vector>

#include "convlab/error.h"
#include "imageview.h"
#include "rendercontroller.h"

BorderDifference compareBorderResults(const convlab::Image& a, const convlab::Image& b, convlab::Image* diff)
{
    if (!a.sameShape(b) || a.data.size() != b.data.size())
        throw convlab::Error("border lab: cannot compare a " + std::to_string(a.width) + "x" +
                             std::to_string(a.height) + "x" + std::to_string(a.channels) + " result with a " +
                             std::to_string(b.width) + "x" + std::to_string(b.height) + "x" +
                             std::to_string(b.channels) + " one");
    const int w = a.width, h = a.height;
    if (diff)
        *diff = convlab::Image(w, h, a.channels);
    std::vector<unsigned char> differs(a.planeSize(), 0);
    for (int c = 0; c < a.channels; ++c) {
        const float* pa = a.plane(c);
        const float* pb = b.plane(c);
        float* pd = diff ? diff->plane(c) : nullptr;
        for (std::size_t i = 0, n = a.planeSize(); i < n; ++i) {
            const float d = pa[i] - pb[i];
            if (pd)
                pd[i] = d;
            if (d != 0.0f || pa[i] != pb[i]) // also NaN and equal infinities that differ in sign
                differs[i] = 1;
        }
    }
    // Distance of a pixel from the nearest left/right edge (dx) and top/bottom edge (dy), 1 at
    // the edge. maxDx[dy]: the largest dx of a differing pixel in rows at distance dy.
    BorderDifference r;
    const int yMax = (h + 1) / 2;
    std::vector<int> maxDx(static_cast<std::size_t>(yMax) + 2, 0);
    for (int y = 0; y < h; ++y) {
        const int dy = std::min(y + 1, h - y);
        for (int x = 0; x < w; ++x) {
            if (!differs[static_cast<std::size_t>(y) * w + x])
                continue;
            ++r.differing;
            maxDx[dy] = std::max(maxDx[dy], std::min(x + 1, w - x));
        }
    }
    // A band of bandY rows needs bandX = the largest dx beyond those rows; keep the one of least
    // area (then the narrowest) over every bandY.
    std::vector<int> beyond(static_cast<std::size_t>(yMax) + 2, 0);
    for (int dy = yMax; dy >= 0; --dy)
        beyond[dy] = std::max(beyond[dy + 1], maxDx[dy + 1]);
    long long bestArea = -1;
    for (int by = 0; by <= yMax; ++by) {
        const int bx = beyond[by];
        const long long area = static_cast<long long>(w) * h -
                               static_cast<long long>(std::max(0, w - 2 * bx)) * std::max(0, h - 2 * by);
        if (bestArea < 0 || area < bestArea || (area == bestArea && bx + by < r.bandX + r.bandY)) {
            bestArea = area;
            r.bandX = bx;
            r.bandY = by;
        }
    }
    return r;
}

namespace {

struct ModeNames {
    const char* opencv;
    const char* scipy;
    const char* matlab;
    const char* gimp;
    const char* gmic;
};

// DESIGN.md section 2, in the order of BorderLabWindow::kModes.
constexpr ModeNames kNames[BorderLabWindow::kModeCount] = {
    {"BORDER_CONSTANT", "constant (cval)", "X (0 by default)", "Black/White", "0 Dirichlet"},
    {"BORDER_REPLICATE", "nearest", "replicate", "Clamp", "1 Neumann"},
    {"BORDER_REFLECT", "reflect", "symmetric", "\u2014", "3 mirror"},
    {"BORDER_REFLECT_101", "mirror", "\u2014", "\u2014", "\u2014"},
    {"BORDER_WRAP", "wrap / grid-wrap", "circular", "Loop", "2 periodic"},
};

QString modeTitle(convlab::BorderMode mode, float value)
{
    const QString name = QString::fromStdString(convlab::borderName(mode));
    return mode == convlab::BorderMode::Constant ? QStringLiteral("%1 (%2)").arg(name).arg(value) : name;
}

} // namespace

int BorderLabWindow::indexOf(convlab::BorderMode mode)
{
    const auto it = std::find(kModes.begin(), kModes.end(), mode);
    if (it == kModes.end())
        throw convlab::Error("border lab: unknown border mode " + std::to_string(static_cast<int>(mode)));
    return static_cast<int>(it - kModes.begin());
}

QString BorderLabWindow::otherNames(convlab::BorderMode mode)
{
    const ModeNames& n = kNames[indexOf(mode)];
    return QStringLiteral("OpenCV %1 \u00b7 scipy %2 \u00b7 MATLAB %3 \u00b7 GIMP %4 \u00b7 G'MIC %5")
        .arg(QString::fromUtf8(n.opencv), QString::fromUtf8(n.scipy), QString::fromUtf8(n.matlab),
             QString::fromUtf8(n.gimp), QString::fromUtf8(n.gmic));
}

BorderLabWindow::BorderLabWindow(std::shared_ptr<const convlab::Image> source, convlab::ConvolveParams params,
                                 QWidget* parent)
    : QWidget(parent), source_(std::move(source))
{
    setWindowTitle(tr("Border-mode lab"));
    comparePool_.setMaxThreadCount(1);
    buildUi();
    setParams(std::move(params));
}

BorderLabWindow::~BorderLabWindow()
{
    // A comparison still running posts back to this object: let it finish first.
    comparePool_.waitForDone();
    for (Panel& p : panels_)
        p.render->shutdown();
}

void BorderLabWindow::buildUi()
{
    auto* top = new QHBoxLayout;
    referenceBox_ = new QComboBox;
    for (convlab::BorderMode m : kModes)
        referenceBox_->addItem(QString::fromStdString(convlab::borderName(m)));
    referenceBox_->setCurrentIndex(reference_);
    differencesBox_ = new QCheckBox(tr("Show &differences against the reference"));
    mappingBox_ = new QComboBox;
    mappingBox_->addItems({tr("Clamp"), tr("Absolute value"), tr("Normalize"), tr("Offset"), tr("Diverging")});
    auto* fit = new QPushButton(tr("&Fit"));
    auto* actual = new QPushButton(tr("&1:1"));
    auto* refLabel = new QLabel(tr("&Reference mode:"));
    refLabel->setBuddy(referenceBox_);
    auto* mapLabel = new QLabel(tr("&Mapping:"));
    mapLabel->setBuddy(mappingBox_);
    top->addWidget(refLabel);
    top->addWidget(referenceBox_);
    top->addWidget(differencesBox_);
    top->addStretch();
    top->addWidget(mapLabel);
    top->addWidget(mappingBox_);
    top->addWidget(fit);
    top->addWidget(actual);

    auto* grid = new QGridLayout;
    for (int i = 0; i < kModeCount; ++i) {
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
        grid->addLayout(cell, i / 3, i % 3);
        grid->setColumnStretch(i % 3, 1);
        grid->setRowStretch(i / 3, 1);

        p.render = new RenderController(this);
        connect(p.render, &RenderController::resultReady, this, [this, i](quint64 id) { onResult(i, id); });
        connect(p.render, &RenderController::failed, this,
                [this, i](quint64 id, const QString& message) { onFailed(i, id, message); });
        connect(p.view, &ImageView::viewChanged, this,
                [this, i](double zoom, QPointF origin) { followView(i, zoom, origin); });
    }
    note_ = new QLabel;
    note_->setWordWrap(true);
    note_->setTextFormat(Qt::RichText);
    note_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    grid->addWidget(note_, 1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(grid, 1);

    connect(referenceBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setReferenceMode(kModes[std::clamp(i, 0, kModeCount - 1)]); });
    connect(differencesBox_, &QCheckBox::toggled, this, &BorderLabWindow::setShowDifferences);
    connect(mappingBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        for (Panel& p : panels_)
            p.view->setMapping(static_cast<ImageView::Mapping>(i));
    });
    connect(fit, &QPushButton::clicked, this, [this] { forEachView(&ImageView::fitToWindow); });
    connect(actual, &QPushButton::clicked, this, [this] { forEachView(&ImageView::actualSize); });
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

void BorderLabWindow::setParams(convlab::ConvolveParams params)
{
    params.method = convlab::Method::Direct;
    params.device = convlab::Device::Cpu;
    params.cancel = nullptr;
    params_ = std::move(params);
    start();
}

void BorderLabWindow::setSource(std::shared_ptr<const convlab::Image> source)
{
    source_ = std::move(source);
    start();
}

void BorderLabWindow::start()
{
    ++generation_;
    comparing_ = false;
    for (int i = 0; i < kModeCount; ++i) {
        Panel& p = panels_[i];
        p.ready = false;
        p.difference = {};
        p.title->setText(QStringLiteral("<b>%1</b>").arg(modeTitle(kModes[i], params_.border.value).toHtmlEscaped()));
        p.status->setText(tr("computing\u2026"));
        p.status->setStyleSheet(QString());
        convlab::ConvolveParams run = params_;
        run.border.mode = kModes[i];
        p.render->request(source_, std::move(run));
    }
    updateNote();
}

void BorderLabWindow::onResult(int index, quint64 id)
{
    Panel& p = panels_[index];
    if (id != p.render->latestId())
        return;
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

void BorderLabWindow::compare()
{
    const quint64 generation = ++generation_;
    comparing_ = true;
    std::array<std::shared_ptr<const convlab::Image>, kModeCount> results;
    for (int i = 0; i < kModeCount; ++i)
        results[i] = panels_[i].render->result();
    const int ref = reference_;
    comparePool_.start([this, generation, results, ref] {
        std::array<BorderDifference, kModeCount> differences{};
        std::array<std::shared_ptr<const convlab::Image>, kModeCount> diffs;
        for (int i = 0; i < kModeCount; ++i) {
            if (i == ref)
                continue;
            auto diff = std::make_shared<convlab::Image>();
            differences[i] = compareBorderResults(*results[i], *results[ref], diff.get());
            diffs[i] = std::move(diff);
        }
        QMetaObject::invokeMethod(
            this, [this, generation, differences, diffs] { applyComparison(generation, differences, diffs); },
            Qt::QueuedConnection);
    });
}

void BorderLabWindow::applyComparison(quint64 generation, const std::array<BorderDifference, kModeCount>& differences,
                                      const std::array<std::shared_ptr<const convlab::Image>, kModeCount>& diffs)
{
    if (generation != generation_)
        return; // superseded by newer parameters or another reference
    comparing_ = false;
    const QString refName = QString::fromStdString(convlab::borderName(kModes[reference_]));
    const QLocale locale;
    for (int i = 0; i < kModeCount; ++i) {
        Panel& p = panels_[i];
        p.difference = differences[i];
        const BorderDifference& d = p.difference;
        if (diffs[i])
            p.view->setDifference(*diffs[i]);
        p.view->setBandOverlay(d.bandX, d.bandY, d.bandX, d.bandY);
        p.status->setStyleSheet(QString());
        if (i == reference_)
            p.status->setText(tr("reference"));
        else if (d.differing == 0)
            p.status->setText(tr("identical to %1: no pixel differs").arg(refName));
        else
            p.status->setText(tr("%1 pixels differ from %2, within %3 px of the left/right and %4 px of "
                                 "the top/bottom edges")
                                  .arg(locale.toString(d.differing), refName)
                                  .arg(d.bandX)
                                  .arg(d.bandY));
    }
    applyViewModes();
    emit updated();
}

void BorderLabWindow::applyViewModes()
{
    for (int i = 0; i < kModeCount; ++i) {
        const bool diff = showDifferences_ && i != reference_;
        panels_[i].view->setViewMode(diff ? ImageView::ViewMode::Difference : ImageView::ViewMode::Result);
    }
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
    text += tr("<br><br>Under each view: how many pixels differ (|d| &gt; 0) from the reference mode and "
               "the measured band, outlined in cyan. The difference maps show |d| from black (equal) "
               "through red to white (largest).<br><br>Every mode runs the direct method on the CPU, so "
               "pixels away from the edges come out bit-identical.");
    note_->setText(text);
}

void BorderLabWindow::setReferenceMode(convlab::BorderMode mode)
{
    const int index = indexOf(mode);
    if (index == reference_)
        return;
    reference_ = index;
    {
        const QSignalBlocker block(referenceBox_);
        referenceBox_->setCurrentIndex(index);
    }
    // The view modes change with the comparison against the new reference.
    if (std::all_of(panels_.begin(), panels_.end(), [](const Panel& p) { return p.ready; }))
        compare();
    else
        applyViewModes();
}

convlab::BorderMode BorderLabWindow::referenceMode() const
{
    return kModes[reference_];
}

void BorderLabWindow::setShowDifferences(bool on)
{
    showDifferences_ = on;
    {
        const QSignalBlocker block(differencesBox_);
        differencesBox_->setChecked(on);
    }
    applyViewModes();
}

bool BorderLabWindow::showDifferences() const
{
    return showDifferences_;
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

BorderDifference BorderLabWindow::difference(convlab::BorderMode mode) const
{
    return panels_[indexOf(mode)].difference;
}

ImageView* BorderLabWindow::view(convlab::BorderMode mode) const
{
    return panels_[indexOf(mode)].view;
}
