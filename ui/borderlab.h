// SPDX-License-Identifier: GPL-3.0-or-later
// The border-mode lab: the same filter under each of the five border modes side by side, with
// synchronised zoom and pan, difference maps against a reference mode, and the band along the
// edges where the modes can differ (as wide as the kernel reaches past a pixel).
#pragma once
#include <QString>
#include <QThreadPool>
#include <QWidget>

#include <array>
#include <memory>

#include "convlab/convolve.h"

class ImageView;
class QCheckBox;
class QComboBox;
class QLabel;
class RenderController;

// How one result differs from another: the pixels where any channel differs (|d| > 0), and the
// band that holds all of them: every differing pixel lies within bandX columns of the left or
// right edge or within bandY rows of the top or bottom edge. Of the bands that do, the one of
// least area (then the narrowest). {0, 0, 0} for identical images.
struct BorderDifference {
    qint64 differing = 0;
    int bandX = 0;
    int bandY = 0;
};

// Compares a with b (same shape, else convlab::Error); `diff`, when given, receives a - b.
BorderDifference compareBorderResults(const convlab::Image& a, const convlab::Image& b,
                                      convlab::Image* diff = nullptr);

class BorderLabWindow : public QWidget {
    Q_OBJECT
public:
    static constexpr int kModeCount = 5;
    // The modes in display order (constant takes the value of the params' border).
    static constexpr std::array<convlab::BorderMode, kModeCount> kModes = {
        convlab::BorderMode::Constant, convlab::BorderMode::Replicate, convlab::BorderMode::Reflect,
        convlab::BorderMode::Mirror, convlab::BorderMode::Wrap};

    BorderLabWindow(std::shared_ptr<const convlab::Image> source, convlab::ConvolveParams params,
                    QWidget* parent = nullptr);
    ~BorderLabWindow() override;

    // Recomputes all five results in the background (kernel, semantics, scale, offset and the
    // constant's value from `params`; the border mode is each view's own). Runs use the direct
    // method on the CPU so that pixels away from the edges are bit-identical across modes.
    void setParams(convlab::ConvolveParams params);
    void setSource(std::shared_ptr<const convlab::Image> source);

    void setReferenceMode(convlab::BorderMode mode);
    convlab::BorderMode referenceMode() const;
    // Shows every view but the reference's as its difference map against the reference.
    void setShowDifferences(bool on);
    bool showDifferences() const;

    // True until every result of the latest parameters and its comparison are in.
    bool busy() const;
    std::shared_ptr<const convlab::Image> result(convlab::BorderMode mode) const;
    // Against the reference mode (zero for the reference itself).
    BorderDifference difference(convlab::BorderMode mode) const;
    ImageView* view(convlab::BorderMode mode) const;

    // The mode's names in OpenCV, scipy.ndimage, MATLAB, GIMP and G'MIC (DESIGN.md section 2).
    static QString otherNames(convlab::BorderMode mode);

signals:
    // Every result of the latest parameters and the comparison against the reference are in.
    void updated();

private:
    struct Panel {
        ImageView* view = nullptr;
        QLabel* title = nullptr;
        QLabel* status = nullptr;
        RenderController* render = nullptr;
        bool ready = false;
        BorderDifference difference;
    };

    void buildUi();
    void start();
    void onResult(int index, quint64 id);
    void onFailed(int index, quint64 id, const QString& message);
    void compare();
    void applyComparison(quint64 generation, const std::array<BorderDifference, kModeCount>& differences,
                         const std::array<std::shared_ptr<const convlab::Image>, kModeCount>& diffs);
    void applyViewModes();
    void updateNote();
    void followView(int index, double zoom, QPointF origin);
    void forEachView(void (ImageView::*fn)());
    static int indexOf(convlab::BorderMode mode);

    std::shared_ptr<const convlab::Image> source_;
    convlab::ConvolveParams params_;
    std::array<Panel, kModeCount> panels_;
    int reference_ = 2; // reflect: the engine's default
    bool showDifferences_ = false;
    bool comparing_ = false;
    bool syncing_ = false;
    quint64 generation_ = 0; // bumps with every new run or reference: older comparisons are dropped
    QComboBox* referenceBox_ = nullptr;
    QCheckBox* differencesBox_ = nullptr;
    QComboBox* mappingBox_ = nullptr;
    QLabel* note_ = nullptr;
    QThreadPool comparePool_; // the comparisons run here, never on the UI thread
};
