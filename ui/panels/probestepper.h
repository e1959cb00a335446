// SPDX-License-Identifier: GPL-3.0-or-later
// The Pixel Probe's step mode: the probe slides over a region as the kernel does, one pixel
// at a time, row after row (the order: panels/sweepregion.h). Playing, each pixel's sum is
// built up a kernel row per tick (the products appear, the running sum grows) and its output
// value appears once the sum is complete; the next tick moves on. The stepper keeps only that schedule; the panel shows it.
#pragma once
#include <QObject>

class QTimer;

class ProbeStepper : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultIntervalMs = 250;

    explicit ProbeStepper(QObject* parent = nullptr);

    void setPlaying(bool on);
    bool playing() const { return playing_; }
    // Milliseconds per tick (at least 1).
    void setIntervalMs(int ms);
    // A new pixel of `rows` kernel rows: playing, none of them is summed yet; else all are.
    void begin(int rows);
    // Kernel rows whose products are in the sum so far; complete() when all are.
    int revealedRows() const { return revealed_; }
    bool complete() const { return revealed_ >= rows_; }

signals:
    // One more kernel row was added to the sum (revealedRows() says how many).
    void revealed();
    // The pixel's sum is complete and shown: time for the next pixel.
    void advance();
    void playingChanged(bool playing);

private:
    void tick();

    QTimer* timer_;
    bool playing_ = false;
    int rows_ = 0;
    int revealed_ = 0;
};
