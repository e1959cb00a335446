// SPDX-License-Identifier: GPL-3.0-or-later
// Every mode compared with the reference mode: the counts and bands, and the difference maps shown.
#include "tools/borderlab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLocale>

#include <algorithm>

#include "view/imageview.h"
#include "workbench/rendercontroller.h"

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
        const BorderDifference& d = p.difference;
        // Handed to the view only when shown: the view copies it and takes its statistics on
        // this thread, which costs as much as the comparison itself.
        p.diff = diffs[i];
        p.diffInView = false;
        p.view->setDifference(convlab::Image());
        p.view->setBandOverlay(d.bandX, d.bandY, d.bandX, d.bandY);
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
    applyViewModes();
    emit updated();
}

void BorderLabWindow::applyViewModes()
{
    for (int i = 0; i < kModeCount; ++i) {
        Panel& p = panels_[i];
        const bool diff = showDifferences_ && i != reference_;
        if (diff && p.diff && !p.diffInView) {
            p.view->setDifference(*p.diff);
            p.diffInView = true;
        }
        p.view->setViewMode(diff ? ImageView::ViewMode::Difference : ImageView::ViewMode::Result);
    }
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
