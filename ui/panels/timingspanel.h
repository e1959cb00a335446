// SPDX-License-Identifier: GPL-3.0-or-later
// Timings of the last run: per-stage table and bar chart, total, median of the last 20 runs,
// throughput, the method that ran and why, the rank, and the display time of the view.
// The stages add up to the total (the engine names what is left "other"); one-time costs
// (planner calibration, FFT planning) are listed apart, and throughput counts only the
// method's own time.
#pragma once
#include <QWidget>
#include <deque>

#include "convlab/convolve.h"

class QLabel;
class QPlainTextEdit;
class QTableWidget;
class ImageView;
class WorkbenchDocument;

// Horizontal bars, one per stage, lengths proportional to the stage's share of the run.
class StageChart : public QWidget {
    Q_OBJECT
public:
    explicit StageChart(QWidget* parent = nullptr);
    void setStages(const std::vector<convlab::StageTiming>& stages);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent*) override;

private:
    std::vector<convlab::StageTiming> stages_;
};

// "850 µs", "12.3 ms", "1.84 s": three significant digits with the unit that fits.
QString formatDuration(double ms);

class TimingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit TimingsPanel(QWidget* parent = nullptr);
    // Shows every result the document gets (the view is not needed).
    void attach(WorkbenchDocument* doc, ImageView* view = nullptr);
    // A finished run over an image of `pixels` pixels.
    void addRun(const convlab::RunReport& report, double pixels);
    // The view's part: how long drawing took and which way the pixels went.
    void setDisplayMs(double ms);
    void setDisplayPath(const QString& path);
    double medianMs() const;
    // The texts shown, for tests: the table's rows (stage, duration), the summary.
    QList<QPair<QString, QString>> rows() const;
    QString summaryText() const;
    QString displayText() const;

private:
    std::deque<double> history_;
    QTableWidget* table_;
    StageChart* chart_;
    QLabel* summary_;
    QPlainTextEdit* reason_; // the planner's reasoning can be long: scrollable, selectable
    QLabel* display_;
    QLabel* displayPath_;
};
