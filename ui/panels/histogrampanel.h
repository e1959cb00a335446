// SPDX-License-Identifier: GPL-3.0-or-later
// Histograms of the result and of the source, per channel (or the one View > Channel picks), with the values the view's display
// mapping sends to black and white (and to the middle of the diverging and offset maps) marked,
// updated as the result, the source and the mapping change. Non-finite values are counted
// apart and listed under each plot. The counts come from convlab::imageHistogram; images of
// more than kSyncValues samples are counted on a worker, the newest wins. A CUDA result left on
// the device is counted there while the panel is shown (only the counts come down).
#pragma once
#include <QThreadPool>
#include <QWidget>
#include <memory>
#include <vector>

#include "convlab/image.h"
#include "convlab/imagestats.h"
#include "view/displaystate.h"
#include "workbench/latest.h"

class QCheckBox;
class QLabel;
class QShowEvent;
class HistogramPlot;
class ImageView;
class WorkbenchDocument;

class HistogramPanel : public QWidget {
    Q_OBJECT
public:
    enum class Which { Result, Source };
    // A value the display maps to a named colour ("black", "white", "mid-grey", ...).
    struct Marker {
        double value = 0.0;
        QString label;
    };
    static constexpr int kBins = 256;
    static constexpr std::size_t kSyncValues = std::size_t(1) << 18;

    explicit HistogramPanel(QWidget* parent = nullptr);
    ~HistogramPanel() override;

    // Counts the document's result and source whenever they change, and marks the mapping of
    // `view` (when given; the result's mapping, the source being drawn as Clamp maps it).
    void attach(WorkbenchDocument* doc, ImageView* view = nullptr);
    void setMapping(display::Mapping m);
    display::Mapping mapping() const { return mapping_; }
    // Draws channel c alone (View > Channel; -1: every channel). The counts keep every channel.
    void setChannel(int c);
    int channel() const { return channel_; }

    // Counts `image` now or on the worker (null: nothing to show).
    void setImage(Which which, std::shared_ptr<const convlab::Image> image);
    // The histogram shown (null before one is counted) and its markers.
    const convlab::Histogram* histogram(Which which) const;
    std::vector<Marker> markers(Which which) const;
    // The top of the range the view maps an image of `depth` by (ImageView::displayRange).
    double displayRange(convlab::SampleDepth depth) const;
    // The line under a plot: the non-finite counts per channel.
    QString infoText(Which which) const;
    bool pending() const;
    void setLogCounts(bool on);

    // The values a mapping sends to black, white and between, for an image whose depth tag
    // has nominal maximum `nominal` and whose colour channels hold finite values lo..hi with
    // largest magnitude maxAbs (docs/semantics.md, *Output mapping*; shaders/image.frag).
    static std::vector<Marker> mappingMarkers(display::Mapping m, double nominal, double lo, double hi,
                                              double maxAbs);

signals:
    // A histogram or its markers changed on screen.
    void updated();

private:
    struct Slot {
        std::shared_ptr<const convlab::Image> image;
        convlab::SampleDepth depth = convlab::SampleDepth::F32; // of the image counted (markers)
        std::shared_ptr<const convlab::Histogram> histogram;
        LatestOnly latest;
        HistogramPlot* plot = nullptr;
        QLabel* info = nullptr;
    };
    Slot& slot(Which which) { return which == Which::Result ? result_ : source_; }
    const Slot& slot(Which which) const { return which == Which::Result ? result_ : source_; }
    void display(Which which, std::shared_ptr<const convlab::Histogram> h);
    void refreshMarkers(Which which);
    // The document's result: counted here from host memory, or on the device while shown.
    void takeResult();
    bool event(QEvent* e) override;
    // Whether the panel is off screen inside a shown window (e.g. behind another dock's tab:
    // tabbed docks stay "visible" with nothing of them on screen).
    bool hiddenInShownWindow() const;

    WorkbenchDocument* doc_ = nullptr;
    // A result arrived while the panel was off screen: counted when it is next painted.
    // Counting a 1080p result takes a core for ~15 ms; behind another tab every edit paid it.
    bool countOwed_ = false;

    QThreadPool pool_;
    Slot result_, source_;
    display::Mapping mapping_ = display::Mapping::Clamp;
    bool floatRangeByValues_ = true; // the document's display state, as the view follows it
    int channel_ = -1;
    QCheckBox* log_;
};
