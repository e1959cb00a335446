// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/probestepper.h"

#include <QTimer>
#include <algorithm>

ProbeStepper::ProbeStepper(QObject* parent) : QObject(parent), timer_(new QTimer(this))
{
    timer_->setInterval(kDefaultIntervalMs);
    connect(timer_, &QTimer::timeout, this, &ProbeStepper::tick);
}

void ProbeStepper::setPlaying(bool on)
{
    if (on == playing_) return;
    playing_ = on;
    if (on)
        timer_->start();
    else {
        timer_->stop();
        revealed_ = rows_; // paused: the pixel's arithmetic shown whole
    }
    emit playingChanged(on);
}

void ProbeStepper::setIntervalMs(int ms) { timer_->setInterval(std::max(1, ms)); }

void ProbeStepper::begin(int rows)
{
    rows_ = std::max(0, rows);
    revealed_ = playing_ ? 0 : rows_;
}

void ProbeStepper::tick()
{
    if (complete()) {
        emit advance();
        return;
    }
    ++revealed_;
    emit revealed();
}
