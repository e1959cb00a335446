// SPDX-License-Identifier: GPL-3.0-or-later
// Method crossover: direct, separable and fft timed on the current image for square dense
// random kernels of growing size, drawn as time against kernel size (log time), with the method
// the auto planner picks at each size marked apart from the method measured fastest (the table
// and the chart say where the two disagree). The sweep runs on its own thread and can be
// cancelled; images above a megapixel are box-downscaled first so that it takes seconds.
#pragma once
#include <QDialog>
#include <atomic>
#include <map>
#include <memory>
#include <vector>

#include "convlab/convolve.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QThread;
class CrossoverChart;

struct CrossoverPoint {
    int size = 0;
    convlab::Method method = convlab::Method::Direct; // one of CrossoverDialog::kMethods
    double ms = 0.0;          // the engine's RunReport::totalMs, the best of two or three runs
    bool skipped = false;     // not run: the planner estimated more than kMaxRunMs
    double estimateMs = 0.0;  // the planner's estimate
};

class CrossoverDialog : public QDialog {
    Q_OBJECT
public:
    static constexpr int kMaxPixels = 1 << 20;
    static constexpr double kMaxRunMs = 2000.0;
    // The methods timed: those auto weighs (convlab/modes.h), one column each.
    static constexpr auto kMethods = convlab::autoCandidates();
    static std::vector<int> defaultSizes() { return {3, 5, 7, 9, 11, 15, 21, 31, 45, 63}; }

    explicit CrossoverDialog(QWidget* parent = nullptr);
    // Cancels a running sweep and waits for it.
    ~CrossoverDialog() override;

    // What the next sweep uses: the image and the parameters (border, semantics, threads);
    // the kernel is replaced at each size and the CPU runs every method.
    void setInput(std::shared_ptr<const convlab::Image> image, const convlab::ConvolveParams& params);
    void setSizes(std::vector<int> sizes);
    const std::vector<int>& sizes() const { return sizes_; }

    void start();
    void cancel();
    bool running() const { return thread_ != nullptr; }

    const std::vector<CrossoverPoint>& points() const { return points_; }
    // The method auto ran for kernels of side `size` (Auto when that size has not run).
    convlab::Method autoChoice(int size) const;
    // The method measured fastest at `size` among those that ran (Auto when none did).
    convlab::Method fastest(int size) const;
    static convlab::Method fastestOf(const std::vector<CrossoverPoint>& points, int size);
    // Sizes where auto's pick is not the measured fastest.
    std::vector<int> mismatches() const;

    // Shows a given sweep (sizes, measured points, auto's picks) as if it had just run; used to
    // present saved or synthetic measurements. Ignored while a sweep runs.
    void showSweep(std::vector<int> sizes, std::vector<CrossoverPoint> points,
                   std::map<int, convlab::Method> autoChoices);
    QTableWidget* table() const { return table_; }
    QString statusText() const;
    // The column of a timed method in the table (-1 for the methods the sweep does not time).
    static int methodColumn(convlab::Method m);
    static constexpr int kAutoColumn = static_cast<int>(convlab::kAutoCandidateCount);

signals:
    void finished(bool completed);

protected:
    // A hidden dialog stops its sweep.
    void hideEvent(QHideEvent* e) override;

private:
    void addPoint(const CrossoverPoint& p);
    void setAutoChoice(int size, convlab::Method m);
    void done(bool completed, const QString& message);
    void updateTable();
    QString mismatchSummary() const;

    std::shared_ptr<const convlab::Image> image_;
    convlab::ConvolveParams params_;
    std::vector<int> sizes_ = defaultSizes();
    std::vector<CrossoverPoint> points_;
    std::map<int, convlab::Method> auto_;
    std::unique_ptr<QThread> thread_;
    std::atomic<bool> cancel_{false};

    QLabel* info_;
    CrossoverChart* chart_;
    QTableWidget* table_;
    QProgressBar* progress_;
    QLabel* status_;
    QPushButton* run_;
    QPushButton* stop_;
};
