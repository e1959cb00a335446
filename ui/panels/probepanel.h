// SPDX-License-Identifier: GPL-3.0-or-later
// The pixel probe: how one output value comes about. For the probed pixel it shows the input
// neighbourhood the kernel reads (values the border rule invents are marked, with where they
// come from), the kernel as applied, the products, their sum, scale, offset and the final value
// (convlab::probePixel, the reference method's output exactly) beside the value the view shows.
#pragma once
#include <QPoint>
#include <QVector>
#include <QWidget>
#include <memory>
#include <optional>

#include "convlab/probe.h"

class QComboBox;
class ImageView;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTableWidget;
class QShowEvent;
class WorkbenchDocument;

class ProbePanel : public QWidget {
    Q_OBJECT
public:
    // Grids are filled for kernels up to this side; larger kernels show the totals only.
    static constexpr int kMaxGridSide = 63;
    enum class Grid { Input, Kernel, Products };

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
    QTableWidget* grid(Grid g) const;

signals:
    void pixelChanged(int x, int y);

private:
    void refresh();
    void fillGrids();
    void fillChannels();

    // A CUDA result left on the device: the probed pixel's values are read from there alone.
    void readDevicePixel();
    void showEvent(QShowEvent* e) override;

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
    QTabWidget* tabs_;
    QTableWidget* grids_[3];
    QLabel* summary_;
};
