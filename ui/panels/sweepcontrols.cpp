// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/sweepcontrols.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>

#include "panels/sweepregion.h"

namespace {
const char* const kSpeedKey = "probe/sweepStepsPerSecond";
}

QSpinBox* SweepControls::makeBox(const QString& tip)
{
    auto* box = new QSpinBox;
    box->setRange(0, 0);
    box->setToolTip(tip);
    box->setKeyboardTracking(false); // a region once the number is typed, not at each digit
    connect(box, &QSpinBox::valueChanged, this, &SweepControls::onBoxEdited);
    return box;
}

SweepControls::SweepControls(QWidget* parent) : QWidget(parent)
{
    const QString drag = tr("\nor Shift-drag a rectangle on the view");
    x_ = makeBox(tr("The region's left column") + drag);
    y_ = makeBox(tr("The region's top row") + drag);
    w_ = makeBox(tr("The region's width in pixels") + drag);
    h_ = makeBox(tr("The region's height in pixels") + drag);
    speed_ = new QSpinBox;
    speed_->setRange(kMinStepsPerSecond, kMaxStepsPerSecond);
    speed_->setSuffix(tr(" steps/s"));
    speed_->setToolTip(tr("Play's speed: a step adds one kernel row to the sum, or moves on to the next pixel"));
    speed_->setValue(std::clamp(QSettings().value(kSpeedKey, kDefaultStepsPerSecond).toInt(), kMinStepsPerSecond,
                                kMaxStepsPerSecond));
    around_ = new QPushButton(tr("Around probe"));
    around_->setToolTip(tr("A small region around the probed pixel (it follows the probe)"));
    whole_ = new QPushButton(tr("Whole image"));
    whole_->setToolTip(tr("Sweep every pixel, row by row, as the engine does"));

    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(new QLabel(tr("Sweep x")), 0, 0);
    grid->addWidget(x_, 0, 1);
    grid->addWidget(new QLabel(tr("y")), 0, 2);
    grid->addWidget(y_, 0, 3);
    grid->addWidget(new QLabel(tr("w")), 1, 0, Qt::AlignRight);
    grid->addWidget(w_, 1, 1);
    grid->addWidget(new QLabel(tr("h")), 1, 2);
    grid->addWidget(h_, 1, 3);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(around_);
    buttons->addWidget(whole_);
    buttons->addStretch(1);
    grid->addLayout(buttons, 2, 0, 1, 4);
    grid->addWidget(new QLabel(tr("Speed")), 3, 0);
    grid->addWidget(speed_, 3, 1, 1, 3);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);

    connect(around_, &QPushButton::clicked, this, &SweepControls::aroundProbeAsked);
    connect(whole_, &QPushButton::clicked, this, [this] {
        const QRect whole(QPoint(0, 0), image_);
        showRegion(whole);
        emit regionEdited(whole);
    });
    connect(speed_, &QSpinBox::valueChanged, this, [this](int steps) {
        QSettings().setValue(kSpeedKey, steps);
        emit stepsPerSecondChanged(steps);
    });
}

void SweepControls::setImageSize(QSize image)
{
    image_ = image;
    const QSignalBlocker bx(x_), by(y_), bw(w_), bh(h_);
    x_->setRange(0, std::max(0, image.width() - 1));
    y_->setRange(0, std::max(0, image.height() - 1));
    w_->setRange(image.isEmpty() ? 0 : 1, std::max(0, image.width()));
    h_->setRange(image.isEmpty() ? 0 : 1, std::max(0, image.height()));
}

void SweepControls::showRegion(const QRect& region)
{
    const QSignalBlocker bx(x_), by(y_), bw(w_), bh(h_);
    x_->setValue(region.x());
    y_->setValue(region.y());
    w_->setValue(region.width());
    h_->setValue(region.height());
}

QRect SweepControls::region() const { return QRect(x_->value(), y_->value(), w_->value(), h_->value()); }

void SweepControls::onBoxEdited()
{
    // A width past the image's edge is cut there: the boxes then show what the sweep covers.
    const QRect region = sweep::clamped(this->region(), image_);
    if (region.isEmpty()) return;
    showRegion(region);
    emit regionEdited(region);
}

int SweepControls::stepsPerSecond() const { return speed_->value(); }

void SweepControls::setStepsPerSecond(int steps) { speed_->setValue(steps); }

int SweepControls::intervalMs() const { return std::max(1, 1000 / stepsPerSecond()); }
