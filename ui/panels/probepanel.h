// SPDX-License-Identifier: GPL-3.0-or-later
// The pixel probe: how one output value comes about. For the probed pixel it shows the input
// neighbourhood the kernel reads (values the border rule invents are marked, with where they
// come from), the kernel as applied, the products, their sum, scale, offset and the final value
// (convlab::probePixel, the reference method's output exactly) beside the value the view shows.
// The three grids sit side by side in one table (input × kernel = products), row against row,
// centred on the anchor; kernels wider than kMaxWindowSide show a window around the anchor and
// the sums over all taps. The view outlines the probed pixel and the kernel's footprint.
#pragma once
#include <QPoint>
#include <QRect>
#include <QVector>
#include <QWidget>
#include <memory>
#include <optional>

#include "convlab/probe.h"

class ProbeStepper;
class SweepControls;
class SweepOverlay;
class QComboBox;
class QHBoxLayout;
class QVBoxLayout;
class QPushButton;
class ImageView;
class QLabel;
class QSpinBox;
class QTableWidget;
class QHideEvent;
class QResizeEvent;
class QShowEvent;
class QTableWidgetItem;
class WorkbenchDocument;

class ProbePanel : public QWidget {
    Q_OBJECT
public:
    // Kernels up to this side are shown whole; larger ones a window of this side around the anchor.
    static constexpr int kMaxWindowSide = 9;
    enum class Grid { Input, Kernel, Products };

    // The taps shown of a kernel of `kernel` size with its anchor (resolved) at `anchor`: at
    // most maxSide per side, centred on the anchor as far as the kernel allows, always holding it.
    // Throws convlab::Error for an empty kernel, an anchor outside it or maxSide below 1.
    static QRect tableWindow(QSize kernel, QPoint anchor, int maxSide = kMaxWindowSide);

    explicit ProbePanel(QWidget* parent = nullptr);

    // The run the view shows: its source, parameters, result and the method that made it.
    // Probes every result the document gets, at the pixel last clicked in `view` (when given).
    void attach(WorkbenchDocument* doc, ImageView* view = nullptr);
    void setRun(std::shared_ptr<const convlab::Image> source, const convlab::ConvolveParams& params,
                std::shared_ptr<const convlab::Image> result, convlab::Method ran);
    // Moves the probe, clamped into the image; emits pixelChanged when it moves.
    void setPixel(int x, int y);
    void moveBy(int dx, int dy) { setPixel(pixel_.x() + dx, pixel_.y() + dy); }
    QPoint pixel() const { return pixel_; }
    void setChannel(int c);
    int channel() const;

    bool hasProbe() const { return probe_.has_value(); }
    const convlab::PixelProbe& probe() const { return *probe_; }
    // The result value under the probe, as the view shows it; none without a result.
    std::optional<float> displayedValue() const;
    // The one table of the three grids side by side.
    QTableWidget* table() const { return table_; }
    // The cell of tap (v, u) of the applied kernel in grid g; null when the tap is not shown.
    QTableWidgetItem* cell(Grid g, int v, int u) const;
    // The taps shown (applied kernel coordinates); empty without a probe.
    QRect window() const { return window_; }
    // The summary under the table (sums, scale, offset, value).
    QString summaryText() const;

    // Step mode (panels/probestepper.h, panels/probepanel_sweep.cpp): the kernel slides over
    // a region of output pixels (panels/sweepregion.h) in the engine's order. Next moves the
    // probe one pixel on, its arithmetic whole; Play sweeps the region from its first pixel
    // (after a pause: on from where it stopped), building each sum up a kernel row at a time,
    // and the view veils the region's outputs not yet computed (view/sweepoverlay.h).
    void stepNext();
    void setPlaying(bool on);
    ProbeStepper* stepper() const { return stepper_; }
    SweepControls* sweepControls() const { return sweepControls_; }
    // The region swept: a small one around the probe (following it) until one is chosen.
    QRect sweepRegion() const { return region_; }
    // A chosen region, cut to the image (an empty cut is refused: false); ends a sweep.
    bool setSweepRegion(const QRect& region);
    // The region around the probe again, following it as it moves.
    void sweepAroundProbe();
    bool sweeping() const { return sweeping_; }

signals:
    void pixelChanged(int x, int y);
    // A sum of the step mode is complete (Next, or a step of Play): the output it gives,
    // scale x sum + offset in float, from the sum as built up row by row.
    void sumCompleted(int x, int y, float value);

private:
    std::optional<QPoint> fedInput_; // an input pixel clicked on the original
    void refresh();
    void fillGrids();
    void fillChannels();
    // The column of tap column u in grid g, as laid out for the current window.
    int columnOf(Grid g, int u) const;
    void labelTable();
    // Scrolls the table so that the anchor's weight lies in its middle.
    void centreOnAnchor();
    // Shows the probed pixel and its footprint in the view (when visible), or clears them.
    void showMarks();
    // The input pixel last clicked on the original and the outputs it feeds, for the kernel now.
    void showFedMarks();
    // Visible and not behind another tab of its dock area (a dock tabified behind another is
    // still "visible", moved out of sight).
    bool onScreen() const;
    void followDock();

    // A CUDA result left on the device: the probed pixel's values are read from there alone.
    void readDevicePixel();
    void showEvent(QShowEvent* e) override;
    void hideEvent(QHideEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

    WorkbenchDocument* doc_ = nullptr;
    QVector<float> devicePixel_;      // the values read from the device, at devicePixelAt_
    QPoint devicePixelAt_{-1, -1};
    std::shared_ptr<const convlab::Image> source_;
    std::shared_ptr<const convlab::Image> result_;
    convlab::ConvolveParams params_;
    convlab::Method ran_ = convlab::Method::Reference;
    std::optional<convlab::PixelProbe> probe_;
    QPoint pixel_{0, 0};

    QSpinBox* x_;
    QSpinBox* y_;
    QComboBox* channel_;
    QLabel* flipNote_;
    QTableWidget* table_;
    QRect window_;
    QLabel* summary_;
    ImageView* view_ = nullptr;
    bool followsDock_ = false;

    // Step mode.
    void buildStepControls(QVBoxLayout* box);
    void onAdvance();
    void onRevealed();
    // Moves the probe as the sweep does (not a user's move: the sweep goes on).
    void slideTo(QPoint p);
    // A move by the user (click, keys, boxes) ends a sweep; the region follows if it does.
    void onProbeMovedByUser();
    // A new image: the region kept if it fits, else a new one around the probe.
    void fitSweepRegion();
    void endSweep();
    void emitSumCompleted();
    // The region and, during a sweep, the veil over the outputs to come, in the view.
    void showSweepMarks();
    void attachSweepOverlay();
    QRect region_;
    bool regionFollowsProbe_ = true;
    bool sweeping_ = false;
    bool sliding_ = false;
    SweepControls* sweepControls_ = nullptr;
    SweepOverlay* sweepOverlay_ = nullptr;
    // While a sum is being built: the products of the rows not yet summed blanked, the sum so far.
    void showPartialSum();
    ProbeStepper* stepper_ = nullptr;
    QPushButton* next_ = nullptr;
    QPushButton* play_ = nullptr;
};
