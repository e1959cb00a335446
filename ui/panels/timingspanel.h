// SPDX-License-Identifier: GPL-3.0-or-later
// Timings of the last run: per-stage table and bar chart, total, median of the last 20 runs of
// the same image, kernel, method and backend, the planner's estimate beside the measured time
// (and why they differ when they do by more than 2×), throughput, the method that ran and why,
// the rank, and the display time of the view.
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

// The planner's estimate for the method that ran (the report's, for the device that ran it);
// below 0 when there is none (a method chosen by name is not estimated).
double plannedEstimateMs(const convlab::RunReport& report);
// One plain line saying why a measured time is more than twice or less than half the estimate;
// empty when they agree that well (or either is unknown).
QString estimateGapExplanation(double measuredMs, double estimateMs);

// What a run filtered with what: runs share a median only when this, the method and the
// backend are the same.
struct RunSubject {
    quint64 image = 0;      // the document's image generation
    std::size_t kernel = 0; // a hash of the kernel's size, anchor and values
    bool operator==(const RunSubject&) const = default;
    static RunSubject of(quint64 imageGeneration, const convlab::Kernel& kernel);
};

class TimingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit TimingsPanel(QWidget* parent = nullptr);
    // Shows every result the document gets (the view is not needed).
    void attach(WorkbenchDocument* doc, ImageView* view = nullptr);
    // A finished run over an image of `pixels` pixels, of `subject`.
    void addRun(const convlab::RunReport& report, double pixels, const RunSubject& subject = {});
    // The view's part: how long drawing took and which way the pixels went.
    void setDisplayMs(double ms);
    void setDisplayPath(const QString& path);
    // The median of the last run and the runs before it like it (medianCount of them, at most 20).
    double medianMs() const;
    int medianCount() const;
    // The texts shown, for tests: the table's rows (stage, duration), the summary.
    QList<QPair<QString, QString>> rows() const;
    QString summaryText() const;
    QString displayText() const;
    // The estimate against the measured time, and the explanation of a gap (full text).
    QString estimateText() const;
    QLabel* estimateLabel() const { return estimate_; }

private:
    struct Run {
        RunSubject subject;
        convlab::Method method;
        convlab::Device device;
        double perRunMs;
    };
    // The per-run times of the latest runs like the last one, newest last.
    std::vector<double> matchingTimes() const;
    void showEstimate(const convlab::RunReport& report, double perRunMs);

    std::deque<Run> history_;
    QTableWidget* table_;
    StageChart* chart_;
    QLabel* summary_;
    QLabel* estimate_;
    QPlainTextEdit* reason_; // the planner's reasoning can be long: scrollable, selectable
    QLabel* display_;
    QLabel* displayPath_;
};
