// SPDX-License-Identifier: GPL-3.0-or-later
// The Pixel Probe's step mode: Next and Play, the sweep over a region, its speed, and what the
// view shows of it (panels/probepanel.h).
#include "panels/probepanel.h"

#include <QPushButton>
#include <QHBoxLayout>
#include <QLabel>
#include <QTableWidgetItem>
#include <QVBoxLayout>

#include "panels/probestepper.h"
#include "panels/sweepcontrols.h"
#include "panels/sweepregion.h"
#include "view/imageview.h"
#include "view/sweepoverlay.h"

namespace {

QString num(double v, int digits = 4) { return QString::number(v, 'g', digits); }

} // namespace

void ProbePanel::buildStepControls(QVBoxLayout* box)
{
    stepper_ = new ProbeStepper(this);
    next_ = new QPushButton(tr("Next ▸"));
    next_->setToolTip(tr("Slide the kernel one pixel on: along the region's row, then to its next row"));
    play_ = new QPushButton(tr("Play"));
    play_->setCheckable(true);
    play_->setToolTip(tr("Sweep the region: each sum is built up a kernel row at a time, and the output "
                         "value appears, here and in the view, when it is complete"));
    auto* row = new QHBoxLayout;
    row->addWidget(next_);
    row->addWidget(play_);
    row->addStretch(1);
    box->addLayout(row);
    sweepControls_ = new SweepControls;
    box->addWidget(sweepControls_);
    stepper_->setIntervalMs(sweepControls_->intervalMs());

    connect(next_, &QPushButton::clicked, this, &ProbePanel::stepNext);
    connect(play_, &QPushButton::toggled, this, &ProbePanel::setPlaying);
    connect(stepper_, &ProbeStepper::playingChanged, this, [this](bool on) {
        const QSignalBlocker block(play_);
        play_->setChecked(on);
        play_->setText(on ? tr("Pause") : tr("Play"));
        if (!on) refresh(); // paused in the middle of a sum: the whole arithmetic
    });
    connect(stepper_, &ProbeStepper::advance, this, &ProbePanel::onAdvance);
    connect(stepper_, &ProbeStepper::revealed, this, &ProbePanel::onRevealed);
    connect(sweepControls_, &SweepControls::stepsPerSecondChanged, this,
            [this] { stepper_->setIntervalMs(sweepControls_->intervalMs()); });
    connect(sweepControls_, &SweepControls::regionEdited, this, &ProbePanel::setSweepRegion);
    connect(sweepControls_, &SweepControls::aroundProbeAsked, this, &ProbePanel::sweepAroundProbe);
}

void ProbePanel::attachSweepOverlay()
{
    sweepOverlay_ = new SweepOverlay(view_);
    connect(sweepOverlay_, &SweepOverlay::regionPicked, this, &ProbePanel::setSweepRegion);
}

bool ProbePanel::setSweepRegion(const QRect& region)
{
    if (!source_) return false;
    const QRect cut = sweep::clamped(region, QSize(source_->width, source_->height));
    if (cut.isEmpty()) return false;
    endSweep();
    regionFollowsProbe_ = false;
    region_ = cut;
    sweepControls_->showRegion(region_);
    showSweepMarks();
    return true;
}

void ProbePanel::sweepAroundProbe()
{
    endSweep();
    regionFollowsProbe_ = true;
    region_ = source_ ? sweep::around(pixel_, QSize(source_->width, source_->height)) : QRect();
    sweepControls_->showRegion(region_);
    showSweepMarks();
}

void ProbePanel::fitSweepRegion()
{
    endSweep();
    const QSize image = source_ ? QSize(source_->width, source_->height) : QSize();
    sweepControls_->setImageSize(image);
    if (regionFollowsProbe_ || sweep::clamped(region_, image) != region_) {
        sweepAroundProbe();
        return;
    }
    sweepControls_->showRegion(region_);
}

void ProbePanel::onProbeMovedByUser()
{
    endSweep();
    if (regionFollowsProbe_ && source_ && !region_.contains(pixel_)) sweepAroundProbe();
}

void ProbePanel::endSweep()
{
    if (!sweeping_ && !stepper_->playing()) return;
    sweeping_ = false;
    stepper_->setPlaying(false);
    showSweepMarks();
}

void ProbePanel::slideTo(QPoint p)
{
    sliding_ = true;
    setPixel(p.x(), p.y());
    sliding_ = false;
}

void ProbePanel::setPlaying(bool on)
{
    if (!on || !source_) {
        stepper_->setPlaying(false);
        showSweepMarks();
        return;
    }
    stepper_->setPlaying(true);
    if (sweeping_) return; // after a pause: on from where it stopped
    // A sweep starts at the region's first pixel, its sum built up like every other.
    sweeping_ = true;
    stepper_->begin(params_.kernel.height);
    slideTo(region_.topLeft());
    refresh();
}

void ProbePanel::stepNext()
{
    stepper_->setPlaying(false);
    if (!source_) return;
    const QPoint next = sweep::next(pixel_, region_);
    if (next == pixel_) sweeping_ = false; // the region's last pixel: the sweep is over
    slideTo(next);
    showSweepMarks();
    emitSumCompleted();
}

void ProbePanel::onAdvance()
{
    if (!source_) return;
    const QPoint next = sweep::next(pixel_, region_);
    if (next == pixel_) { // the last pixel: the sweep is over, every output shown
        sweeping_ = false;
        stepper_->setPlaying(false);
        showSweepMarks();
        return;
    }
    stepper_->begin(params_.kernel.height);
    slideTo(next);
}

void ProbePanel::onRevealed()
{
    if (!stepper_->complete()) {
        showPartialSum();
        return;
    }
    refresh(); // the sum is complete: the value appears, in the panel and in the view
    emitSumCompleted();
}

void ProbePanel::emitSumCompleted()
{
    if (!probe_) return;
    const convlab::PixelProbe& p = *probe_;
    const float value = p.passedThrough ? p.value : sweep::outputOf(p, sweep::partialSum(p, p.applied.height));
    emit sumCompleted(p.x, p.y, value);
}

void ProbePanel::showSweepMarks()
{
    if (!sweepOverlay_) return;
    sweepOverlay_->setShown(onScreen() && source_ && !region_.isEmpty());
    sweepOverlay_->setRegion(region_);
    const int at = sweep::indexOf(pixel_, region_);
    sweepOverlay_->setDone(sweeping_ && at >= 0 ? at + (stepper_->complete() ? 1 : 0) : -1);
}

void ProbePanel::showPartialSum()
{
    if (!probe_ || probe_->passedThrough) return;
    const convlab::PixelProbe& p = *probe_;
    const int rows = stepper_->revealedRows();
    const double sum = sweep::partialSum(p, rows);
    for (int v = window_.top(); v <= window_.bottom(); ++v)
        for (int u = window_.left(); u <= window_.right(); ++u)
            if (QTableWidgetItem* product = cell(Grid::Products, v, u))
                product->setText(v < rows ? num(p.taps[static_cast<std::size_t>(v) * p.applied.width + u].product)
                                          : QString());
    summary_->setText(tr("<table><tr><td>Σ so far</td><td>&nbsp;%1 (the first %2 of %3 kernel rows)</td></tr>"
                         "<tr><td><b>value</b></td><td>&nbsp;… when the sum is complete</td></tr></table>")
                          .arg(num(sum, 10))
                          .arg(rows)
                          .arg(p.applied.height));
}
