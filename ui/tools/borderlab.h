// SPDX-License-Identifier: GPL-3.0-or-later
// The border-mode lab: the same filter under each border mode of convlab::borderModes() side by
// side (one view per row of the table), with synchronised zoom and pan, difference maps against
// a reference mode, and the band along the edges where the modes can differ (as wide as the
// kernel reaches past a pixel). A corner or an edge can be magnified in every view at once, so
// that a band one pixel wide is plain to see. Esc and Ctrl+W close the lab.
//
// The lab works on a preview: a source above kPreviewMaxPixels is area-averaged down once (on a
// worker thread) and the filters run on that. It computes only while it is on screen
// (shown and not minimised); what changes meanwhile is computed when it shows again. Hiding it
// or changing the source releases the results, difference maps and preview.
#pragma once
#include <QSize>
#include <QString>
#include <QThreadPool>
#include <QWidget>

#include <array>
#include <atomic>
#include <memory>
#include <vector>

#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "convlab/imagestats.h"
#include "convlab/modes.h"
#include "view/displaystate.h"
#include "workbench/latest.h"

class ImageView;
class QCheckBox;
class QComboBox;
class QGridLayout;
class QHBoxLayout;
class QVBoxLayout;
class QLabel;
class RenderController;

// The lab's names for the core's comparison of two border modes' results (convlab/compare.h).
using BorderDifference = convlab::BorderDifference;

// The largest size of that aspect ratio within maxPixels (the source's own size when it fits).
QSize borderLabPreviewSize(int width, int height, qint64 maxPixels);

// The difference maps' scale, shared by every panel: the largest of the panels' max |d|
// (non-finite entries ignored), so that the largest difference is drawn white and the others
// in proportion; 0 when nothing differs.
double borderLabSharedScale(const std::vector<double>& maxima);

// How far the difference maps are widened for display at `zoom`: 0 from 1:1 up; below it,
// enough image pixels that a band one pixel wide still spans a screen pixel (a 1-px band is a
// third of a screen pixel at whole-image zoom, and would fall between the samples drawn).
int borderLabWideningRadius(double zoom);

// The difference map as drawn below 1:1: every sample the largest |d| of its channel within
// `radius` pixels (a square window, clipped to the image). radius 0: |d| itself.
convlab::Image borderLabWidenedDifference(const convlab::Image& diff, int radius);

// The band width to outline, in image pixels, for a band `band` pixels wide seen at `zoom`:
// the band as drawn (widened by borderLabWideningRadius) plus one screen pixel, so that the
// one-pixel line runs where the modes agree and never covers the band itself (a 7-px band is
// 2 screen pixels at whole-image zoom). 0 for 0.
int borderLabOutlineWidth(int band, double zoom);

// The lab window's size: `wanted`, but never larger than the screen's available area less
// room for the window frame.
QSize borderLabWindowSize(QSize wanted, QSize available);

class BorderLabWindow : public QWidget {
    Q_OBJECT
public:
    static constexpr int kModeCount = int(convlab::kBorderModeCount);
    // Sources above this many pixels are computed on a downscaled preview.
    static constexpr qint64 kPreviewMaxPixels = 1'000'000;
    // The modes in the table's display order (a mode that takes a value takes the params' one).
    static constexpr std::array<convlab::BorderMode, kModeCount> kModes = convlab::borderModeList();

    // Computes nothing until shown.
    BorderLabWindow(std::shared_ptr<const convlab::Image> source, convlab::ConvolveParams params,
                    QWidget* parent = nullptr);
    ~BorderLabWindow() override;

    // Recomputes every mode's result in the background (kernel, semantics, scale, offset and the
    // constant's value from `params`; the border mode is each view's own). Runs use the direct
    // method on the CPU so that pixels away from the edges are bit-identical across modes.
    // Off screen, the parameters are kept and computed when the lab shows again.
    void setParams(convlab::ConvolveParams params);
    // While the lab is off screen it keeps only a weak reference to the source (the caller
    // holds it), so that a replaced image is not kept alive by a hidden lab.
    void setSource(std::shared_ptr<const convlab::Image> source);

    // What every view shows: the whole image, or a corner or the middle of an edge magnified
    // (the image edge a few pixels in from the view's, so the outside is seen too).
    enum class EdgeFocus { Whole, TopLeft, Top, TopRight, Left, Right, BottomLeft, Bottom, BottomRight };
    void setEdgeFocus(EdgeFocus focus);
    EdgeFocus edgeFocus() const { return focus_; }
    // The image pixels across the smaller side of a view when magnified: four times the
    // kernel's reach past a pixel and a little more, at least 12.
    int edgeFocusSpan() const;

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
    // The largest |d| of the mode's difference map against the reference (0 for the reference).
    double maxDifference(convlab::BorderMode mode) const;
    // The panel's caption: the mode's name and, once compared, its max |d| in numbers.
    QString caption(convlab::BorderMode mode) const;
    // The |d| drawn white in every difference map (borderLabSharedScale), and how the lab
    // states it on screen.
    double differenceScale() const { return scale_; }
    QString scaleText() const;

    // How every view maps values to intensities (the window passes its view's on opening).
    void setMapping(display::Mapping mapping);
    display::Mapping mapping() const;
    ImageView* view(convlab::BorderMode mode) const;

    // The image the filters run on: the source itself, or its preview when the source is
    // above kPreviewMaxPixels. Null while off screen or while the preview is prepared.
    std::shared_ptr<const convlab::Image> input() const { return preview_; }
    bool preparingPreview() const;
    // True while shown and not minimised: only then does the lab compute.
    bool onScreen() const;
    // Filter runs requested so far (kModeCount per computation).
    int requestCount() const { return requests_; }
    QString noteText() const;

    // The mode's names in OpenCV, scipy.ndimage, MATLAB, GIMP and G'MIC (docs/semantics.md, Border modes).
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
        double maxAbs = 0.0; // the largest |d| against the reference
        std::shared_ptr<const convlab::Image> diff; // against the reference (null for the reference)
        bool diffInView = false;                    // handed to the view
        int diffRadius = 0;                         // widened by this much (borderLabWideningRadius)
    };

    void buildUi();
    // The row above the panels: reference mode, differences, magnifier, mapping, zoom buttons.
    QHBoxLayout* buildControls();
    void connectControls();
    QGridLayout* buildPanelGrid();
    // Panel i's cell: title, view, the modes it equals, status; its renderer and view links.
    QVBoxLayout* buildPanel(int i);
    void addCloseKeys();
    RenderController* makeRender(int index);
    // Computes what is missing for the latest source and parameters, if on screen.
    void refresh();
    void preparePreview();
    void onPreviewReady(quint64 sourceGeneration, std::shared_ptr<const convlab::Image> preview);
    // Drops the preview, results and difference maps (hidden, or a new source).
    void releaseComputed();
    // Stops what runs (minimised); what was finished stays.
    void pause();
    void start();
    void onResult(int index, quint64 id);
    void onFailed(int index, quint64 id, const QString& message);
    void compare();
    void applyComparison(quint64 generation, const std::array<BorderDifference, kModeCount>& differences,
                         const std::array<double, kModeCount>& maxima,
                         const std::array<std::shared_ptr<const convlab::Image>, kModeCount>& diffs);
    void applyViewModes();
    // Shows the panel's result or its difference map, widened for its view's zoom.
    void applyViewMode(int index);
    QString modeTitleText(int index) const;
    void applyCaptions();
    void applySharedScale();
    // Outlines the panel's band for its view's zoom (borderLabOutlineWidth).
    void outlineBand(int index);
    // Keeps the window within the screen it opens on.
    void fitToScreen();
    void updateNote();
    void followView(int index, double zoom, QPointF origin);
    // Sets every view's transform for focus_ on the image computed (nothing before there is one).
    void applyEdgeFocus();
    void forEachView(void (ImageView::*fn)());
    static int indexOf(convlab::BorderMode mode);

    void showEvent(QShowEvent* e) override;
    void hideEvent(QHideEvent* e) override;
    void changeEvent(QEvent* e) override;

    std::shared_ptr<const convlab::Image> source_; // held while on screen
    std::weak_ptr<const convlab::Image> weakSource_;
    QSize sourceSize_;
    std::shared_ptr<const convlab::Image> preview_;
    quint64 sourceGeneration_ = 1;    // bumps with every new source and every release
    quint64 preparingGeneration_ = 0; // the source generation whose preview is being prepared
    std::shared_ptr<std::atomic<bool>> previewCancel_;
    quint64 inputVersion_ = 1;   // bumps with every new source or parameters
    quint64 startedVersion_ = 0; // the version the panels' runs were started for
    int requests_ = 0;
    bool mapped_ = false; // between a show event and a hide event
    convlab::ConvolveParams params_;
    std::array<Panel, kModeCount> panels_;
    int reference_ = indexOf(convlab::Border{}.mode); // the engine's default
    bool showDifferences_ = false;
    bool comparing_ = false;
    bool syncing_ = false;
    LatestOnly comparison_; // a new run or reference makes the comparison in flight stale
    QComboBox* referenceBox_ = nullptr;
    QCheckBox* differencesBox_ = nullptr;
    QComboBox* mappingBox_ = nullptr;
    QComboBox* focusBox_ = nullptr;
    QLabel* scaleLabel_ = nullptr;
    double scale_ = 0.0; // the shared difference scale
    EdgeFocus focus_ = EdgeFocus::Whole;
    const convlab::Image* focusedInput_ = nullptr; // the input the focus was applied to
    QLabel* note_ = nullptr;
    QThreadPool comparePool_; // the comparisons run here, never on the UI thread
    QThreadPool previewPool_; // and the downscaling here
};
