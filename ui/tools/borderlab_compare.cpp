// SPDX-License-Identifier: GPL-3.0-or-later
// Every mode compared with the reference mode: the counts and bands, and the difference maps shown.
#include "tools/borderlab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLocale>

#include <algorithm>
#include <cmath>

#include "view/imageview.h"
#include "workbench/rendercontroller.h"

namespace {

// The largest finite |d| of a difference map (NaN and the infinities are counted by the
// comparison, not scaled).
double largestDifference(const convlab::Image& diff)
{
    double m = 0.0;
    for (float d : diff.data)
        if (std::isfinite(d)) m = std::max(m, double(std::fabs(d)));
    return m;
}

} // namespace

convlab::Image borderLabWidenedDifference(const convlab::Image& diff, int radius)
{
    convlab::Image out(diff.width, diff.height, diff.channels);
    if (radius <= 0) {
        std::transform(diff.data.begin(), diff.data.end(), out.data.begin(), [](float d) { return std::fabs(d); });
        return out;
    }
    // A square window is a row window then a column window (max is separable).
    std::vector<float> rows(diff.planeSize());
    for (int c = 0; c < diff.channels; ++c) {
        for (int y = 0; y < diff.height; ++y)
            for (int x = 0; x < diff.width; ++x) {
                float m = 0.0f;
                for (int u = std::max(0, x - radius); u <= std::min(diff.width - 1, x + radius); ++u)
                    m = std::max(m, std::fabs(diff.at(c, y, u)));
                rows[std::size_t(y) * diff.width + x] = m;
            }
        for (int y = 0; y < diff.height; ++y)
            for (int x = 0; x < diff.width; ++x) {
                float m = 0.0f;
                for (int v = std::max(0, y - radius); v <= std::min(diff.height - 1, y + radius); ++v)
                    m = std::max(m, rows[std::size_t(v) * diff.width + x]);
                out.at(c, y, x) = m;
            }
    }
    return out;
}

double borderLabSharedScale(const std::vector<double>& maxima)
{
    double scale = 0.0;
    for (double m : maxima)
        if (std::isfinite(m)) scale = std::max(scale, std::fabs(m));
    return scale;
}

void BorderLabWindow::compare()
{
    const quint64 generation = comparison_.begin().id;
    comparing_ = true;
    std::array<std::shared_ptr<const convlab::Image>, kModeCount> results;
    for (int i = 0; i < kModeCount; ++i)
        results[i] = panels_[i].render->result();
    const int ref = reference_;
    comparePool_.start([this, generation, results, ref] {
        std::array<BorderDifference, kModeCount> differences{};
        std::array<double, kModeCount> maxima{};
        std::array<std::shared_ptr<const convlab::Image>, kModeCount> diffs;
        for (int i = 0; i < kModeCount; ++i) {
            if (i == ref)
                continue;
            auto diff = std::make_shared<convlab::Image>();
            differences[i] = compareBorderResults(*results[i], *results[ref], diff.get());
            maxima[i] = largestDifference(*diff);
            diffs[i] = std::move(diff);
        }
        QMetaObject::invokeMethod(
            this,
            [this, generation, differences, maxima, diffs] { applyComparison(generation, differences, maxima, diffs); },
            Qt::QueuedConnection);
    });
}

void BorderLabWindow::applyComparison(quint64 generation, const std::array<BorderDifference, kModeCount>& differences,
                                      const std::array<double, kModeCount>& maxima,
                                      const std::array<std::shared_ptr<const convlab::Image>, kModeCount>& diffs)
{
    if (!comparison_.finish(generation))
        return; // superseded by newer parameters or another reference
    comparing_ = false;
    const QString refName = QString::fromStdString(convlab::borderName(kModes[reference_]));
    const QLocale locale;
    const bool onPreview = preview_ && QSize(preview_->width, preview_->height) != sourceSize_;
    const QString pixels = onPreview ? tr("preview pixels") : tr("pixels");
    for (int i = 0; i < kModeCount; ++i) {
        Panel& p = panels_[i];
        p.difference = differences[i];
        p.maxAbs = maxima[i];
        const BorderDifference& d = p.difference;
        // Handed to the view only when shown: the view copies it and takes its statistics on
        // this thread, which costs as much as the comparison itself.
        p.diff = diffs[i];
        p.diffInView = false;
        p.view->setDifference(convlab::Image());
        outlineBand(i);
        p.status->setStyleSheet(QString());
        if (i == reference_)
            p.status->setText(tr("reference"));
        else if (d.differing == 0)
            p.status->setText(tr("identical to %1: no pixel differs").arg(refName));
        else
            p.status->setText(tr("%1 %2 differ from %3, within %4 px of the left/right and %5 px of "
                                 "the top/bottom edges")
                                  .arg(locale.toString(d.differing), pixels, refName)
                                  .arg(d.bandX)
                                  .arg(d.bandY));
    }
    applyCaptions();
    applySharedScale();
    applyViewModes();
    emit updated();
}

void BorderLabWindow::applyCaptions()
{
    for (int i = 0; i < kModeCount; ++i) {
        Panel& p = panels_[i];
        const QString name = QStringLiteral("<b>%1</b>").arg(modeTitleText(i).toHtmlEscaped());
        // Six significant digits: enough to tell modes apart that differ little.
        const QString max = i == reference_ ? tr("reference") : tr("max |d| %1").arg(p.maxAbs, 0, 'g', 6);
        p.title->setText(name + QStringLiteral(" &nbsp;—&nbsp; ") + max.toHtmlEscaped());
    }
}

void BorderLabWindow::applySharedScale()
{
    std::vector<double> maxima;
    for (const Panel& p : panels_)
        maxima.push_back(p.maxAbs);
    scale_ = borderLabSharedScale(maxima);
    // One scale for every map, so that a brighter panel means a larger difference; with nothing
    // differing the views keep their own (every map is black anyway).
    for (Panel& p : panels_)
        p.view->setDifferenceScale(ImageView::DifferenceScale::Absolute, scale_);
    scaleLabel_->setText(scaleText());
}

QString BorderLabWindow::scaleText() const
{
    if (scale_ <= 0.0)
        return tr("Difference maps: no mode differs from the reference");
    return tr("Difference maps, one scale for all: |d| 0 black … %1 white").arg(scale_, 0, 'g', 6);
}

void BorderLabWindow::outlineBand(int index)
{
    Panel& p = panels_[index];
    const double zoom = p.view->zoom();
    const int x = borderLabOutlineWidth(p.difference.bandX, zoom), y = borderLabOutlineWidth(p.difference.bandY, zoom);
    p.view->setBandOverlay(x, y, x, y);
}

double BorderLabWindow::maxDifference(convlab::BorderMode mode) const
{
    return panels_[indexOf(mode)].maxAbs;
}

QString BorderLabWindow::caption(convlab::BorderMode mode) const
{
    return panels_[indexOf(mode)].title->text();
}

void BorderLabWindow::applyViewModes()
{
    for (int i = 0; i < kModeCount; ++i)
        applyViewMode(i);
}

void BorderLabWindow::applyViewMode(int index)
{
    Panel& p = panels_[index];
    const bool diff = showDifferences_ && index != reference_;
    const int radius = borderLabWideningRadius(p.view->zoom());
    if (diff && p.diff && (!p.diffInView || p.diffRadius != radius)) {
        p.view->setDifference(radius > 0 ? borderLabWidenedDifference(*p.diff, radius) : *p.diff);
        p.diffInView = true;
        p.diffRadius = radius;
    }
    p.view->setViewMode(diff ? ImageView::ViewMode::Difference : ImageView::ViewMode::Result);
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

BorderDifference BorderLabWindow::difference(convlab::BorderMode mode) const
{
    return panels_[indexOf(mode)].difference;
}
