// SPDX-License-Identifier: GPL-3.0-or-later
// What the kernel does, updated as it is edited: DC gain, zero sum, symmetry, SVD rank and
// singular values, the separable factors of a rank-1 kernel, low/high/band-pass, and the
// magnitude of the frequency response as a 2-D image and as the fy = 0 cross-section. A kernel
// that is an unedited filter design (convlab/design.h) also gets its ideal response: the edges
// of the pass region over the image, the ideal cross-section over the achieved one, and how
// far the achieved response is from the ideal outside the transition band.
// The analysis runs on a worker thread (large kernels take a while); only the newest is shown.
#pragma once
#include <QImage>
#include <QThreadPool>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "convlab/analysis.h"
#include "convlab/design.h"
#include "workbench/latest.h"

class QCheckBox;
class QFormLayout;
class QLabel;
class ImageView;
class WorkbenchDocument;
class ResponseImageView;
class ResponsePlot;

class AnalysisPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr int kResponseSize = 128;

    explicit AnalysisPanel(QWidget* parent = nullptr);
    ~AnalysisPanel() override;

    // Analyses the document's kernel whenever its parameters change (the view is not needed).
    void attach(WorkbenchDocument* doc, ImageView* view = nullptr);
    // Starts analysing `k`; updated() follows when its results are shown.
    void setKernel(const convlab::Kernel& k);
    // Whether an analysis is running or queued.
    bool pending() const { return latest_.pending(); }

    bool hasAnalysis() const { return result_ != nullptr; }
    const convlab::KernelAnalysis& analysis() const;
    // The frequency response as drawn: colour-mapped, kResponseSize square, positive ωy
    // upwards (DC at column n/2, row n - 1 - n/2).
    QImage responseImage() const;
    bool logScale() const;
    void setLogScale(bool on);
    // The text of a summary field: "sum", "zeroSum", "symmetry", "rank", "factors", "class",
    // "design" (empty when the kernel is not a design).
    QString fieldText(const QString& field) const;
    // The design the shown kernel came from, when it is one, and its ideal cross-section as
    // drawn over the achieved one (empty otherwise).
    const std::optional<convlab::FilterDesign>& design() const;
    std::vector<double> idealCrossSection() const;
    // The achieved cross-section as drawn.
    std::vector<double> crossSection() const;

signals:
    void updated();

private:
    struct Result;
    void show(std::shared_ptr<const Result> r);
    void showResponse();

    QThreadPool pool_;
    LatestOnly latest_; // only the newest analysis is shown
    std::shared_ptr<const Result> result_;

    QLabel* sum_;
    QLabel* zeroSum_;
    QLabel* symmetry_;
    QLabel* rank_;
    QLabel* factors_;
    QLabel* class_;
    QLabel* design_;
    QLabel* error_;
    QFormLayout* form_;
    QCheckBox* log_;
    ResponseImageView* image_;
    ResponsePlot* plot_;
};
