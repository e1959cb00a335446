// SPDX-License-Identifier: GPL-3.0-or-later
// The Pixel Probe's sweep controls: the region of output pixels the kernel slides over (x, y,
// width, height; "Around probe" puts a small one around the probed pixel, "Whole image" the
// whole; a Shift-drag on the view draws one) and the speed in steps per second, a step being
// one kernel row added to the sum or the move to the next pixel. The speed is kept in the
// settings. The panel owns the sweep; this widget only shows and edits its choices.
#pragma once
#include <QRect>
#include <QSize>
#include <QWidget>

class QPushButton;
class QSpinBox;

class SweepControls : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMinStepsPerSecond = 1;
    static constexpr int kMaxStepsPerSecond = 60;
    static constexpr int kDefaultStepsPerSecond = 4;

    explicit SweepControls(QWidget* parent = nullptr);

    // The image the region lies in (the boxes' ranges).
    void setImageSize(QSize image);
    // Shows `region` in the boxes (no regionEdited).
    void showRegion(const QRect& region);
    QRect region() const;
    int stepsPerSecond() const;
    void setStepsPerSecond(int steps);
    // Milliseconds between two steps at the speed chosen.
    int intervalMs() const;

signals:
    // The user typed a region (already cut to the image).
    void regionEdited(const QRect& region);
    void aroundProbeAsked();
    void stepsPerSecondChanged(int steps);

private:
    QSpinBox* makeBox(const QString& tip);
    void onBoxEdited();

    QSize image_;
    QSpinBox* x_;
    QSpinBox* y_;
    QSpinBox* w_;
    QSpinBox* h_;
    QSpinBox* speed_;
    QPushButton* around_;
    QPushButton* whole_;
};
