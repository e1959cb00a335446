// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench's one state object: the source image, the committed parameters (the kernel
// with its undo history, border, method, backend, threads) and what was computed from them —
// the result (path A) and the comparison with a second path (B) — each tagged with the
// generation of image and parameters it was computed for.
//
// Panels and views subscribe to its signals; nobody pushes values to them by hand. Any change
// of image or parameters starts a render on a worker (the newest wins, older runs are
// cancelled and dropped) and clears the comparison, so a difference map of older parameters
// is never shown as current. Files are decoded on a worker too, so the window never freezes.
#pragma once
#include <QObject>
#include <QSet>
#include <QString>
#include <QThreadPool>
#include <QVector>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "convlab/imagestats.h"
#include "convlab/image.h"
#include "view/displaystate.h"
#include "workbench/latest.h"
#include "workbench/memorybudget.h"

class KernelDocument;
class RenderController;

class WorkbenchDocument : public QObject {
    Q_OBJECT
public:
    // What a computed thing was computed from: the n-th source image and the m-th parameters.
    struct Generation {
        quint64 image = 0;
        quint64 params = 0;
        bool operator==(const Generation&) const = default;
    };
    // The parameters besides the kernel document's (Controls panel).
    struct RunSettings {
        convlab::Border border;
        convlab::Method method = convlab::Method::Auto;
        convlab::Device device = convlab::Device::Auto;
        int threads = 0; // 0: all hardware threads
        bool operator==(const RunSettings& o) const;
    };
    struct Result {
        // The values in host memory; null while a CUDA result is only on the device (drawn from
        // there): hostResult() or fetchHostResult() bring them, resultHostReady() says so.
        std::shared_ptr<const convlab::Image> image;
        int width = 0, height = 0, channels = 0; // the result's shape, also while on the device
        std::shared_ptr<const convlab::Image> source; // the image it was computed from
        convlab::ConvolveParams params;
        convlab::RunReport report;
        Generation generation;
        quint64 requestId = 0;
    };
    // Result A against path B run on A's very source and parameters.
    struct Comparison {
        std::shared_ptr<const convlab::Image> difference; // a - b
        convlab::DiffStats stats;
        std::vector<convlab::DiffStats> channelStats; // the same for each channel alone
        convlab::RunReport reportB;
        convlab::ConvolveParams paramsB;
        Generation generation; // A's
    };

    // A decoded file: the float image, and for 8/16-bit files also their samples as decoded
    // (for the GPU upload; null otherwise).
    struct Decoded {
        convlab::Image image;
        std::shared_ptr<const convlab::PackedImage> packed;
    };
    // Decodes a file once, as open() does (throws convlab::Error).
    static Decoded decode(const QString& path);

    explicit WorkbenchDocument(QObject* parent = nullptr);
    ~WorkbenchDocument() override;

    KernelDocument* kernel() const { return kernel_; }
    RenderController* renderer() const { return render_; }
    RenderController* comparer() const { return compare_; }

    // ---- the source ----
    // Replaces the source image (`packed`: the same image as decoded 8/16-bit samples, for the
    // GPU upload). `path` is empty for images that do not come from a file.
    void setSource(convlab::Image image, const QString& title, const QString& path = {},
                   std::shared_ptr<const convlab::PackedImage> packed = {});
    // Decodes `path` on a worker; sourceChanged() or openFailed() follows (nothing, when a
    // newer open or cancelOpen() supersedes it). An image whose working set the available memory
    // cannot hold (workbench/memorybudget.h) fails with the size it needs. Returns the open's id.
    quint64 open(const QString& path);
    // Where the available memory is read from (default memorybudget::availableBytes): the seam
    // for tests. Set while no open is on its way.
    void setAvailableMemorySource(std::function<std::optional<std::uint64_t>()> source)
    {
        availableMemory_ = std::move(source);
    }
    void cancelOpen();
    bool opening() const { return opening_.pending(); }

    // A method chosen by name whose CPU estimate is over this is not run (renderRefused says by
    // how much and which method is faster) until runOverBudget(); auto is never refused.
    static constexpr double kInteractiveBudgetSeconds = 5.0;
    // The budget in force (default kInteractiveBudgetSeconds): the seam for a test.
    void setInteractiveBudgetSeconds(double s) { budgetSeconds_ = s; }
    // Runs the refused method all the same; the waiver holds while the method and the image do.
    void runOverBudget();
    bool overBudgetWaived() const;
    std::shared_ptr<const convlab::Image> source() const { return source_; }
    std::shared_ptr<const convlab::PackedImage> packedSource() const { return packed_; }
    QString title() const { return title_; }
    QString path() const { return path_; }
    // Edit > Use Result as Source: the current result becomes the source, titled with the chain
    // of filters that made it ("coffee.png › gaussian 5x5"), as one step on the kernel
    // document's undo stack; its undo brings the previous source and title back. The kernel
    // stays, so applying it again is one more step. A step whose image was replaced since (a
    // file opened) is passed over by undo and redo. Throws convlab::Error without a result of
    // the current source and parameters.
    void useResultAsSource();
    // Whether useResultAsSource() has a result to take now.
    bool canUseResultAsSource() const;
    // A kernel's name in a chain title: "gaussian 5x5", "3x3 kernel" when it has no name.
    static QString describeKernel(const convlab::Kernel& kernel);

    // ---- the parameters ----
    void setRunSettings(const RunSettings& s);
    const RunSettings& runSettings() const { return settings_; }
    // The committed parameters as one snapshot (cancel flag unset).
    convlab::ConvolveParams params() const;
    Generation generation() const { return generation_; }

    // ---- what was computed ----
    // The newest result (null before the first); it may be of older parameters while a newer
    // render runs: resultIsCurrent() tells.
    const Result* result() const { return result_ ? &*result_ : nullptr; }
    bool resultIsCurrent() const { return result_ && result_->generation == generation_; }
    // Who reads the result's values (a visible histogram or probe, a view that cannot draw from
    // the device): while anyone does, CUDA runs download their result with the run; while
    // nobody does, a result stays on the device until asked for. `who` is forgotten when destroyed.
    void setHostResultWanted(const QObject* who, bool wanted);
    bool hostResultWanted() const { return !hostWanted_.isEmpty(); }
    // Starts copying a result left on the device to host memory; resultHostReady() follows.
    void fetchHostResult();
    // The current result's values in host memory, copied from the device first when needed
    // (running the event loop meanwhile, for a few milliseconds); null when there is no result
    // or the copy failed (renderFailed() says why).
    std::shared_ptr<const convlab::Image> hostResult();
    // One pixel of the current result, every channel, for a reader that needs one value (the
    // probe, the status bar): the values at once when they are in host memory, else read from
    // the device on the render worker (a few bytes, not the image) and resultPixelRead() follows.
    // Empty when there is no result, (x, y) lies outside it, or the read is on its way.
    QVector<float> resultPixel(int x, int y);
    // The histogram of a result left on the device, counted there (only the counts come down):
    // false when the result is in host memory (count it there) or there is none; else
    // resultHistogramCounted() follows for the current result.
    bool countResultHistogramOnDevice(int maxBins);
    // Only ever of the current result; null when none was made for it.
    const Comparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }
    // Runs path B (method, device) on the current result's source and parameters.
    void compare(convlab::Method method, convlab::Device device);
    bool comparing() const { return comparing_.pending(); }
    // After an edit, the comparison of the older parameters is made again for the new result by
    // the path B last compared when that path's CPU estimate is under this; otherwise its
    // figures are kept as staleComparison() until Compare is pressed.
    static constexpr double kAutoCompareSeconds = 0.1;
    // The limit in force (default kAutoCompareSeconds; 0: never again by itself): a test's seam.
    void setAutoCompareSeconds(double s);
    // The last comparison of older parameters of this image (its figures; no difference
    // image): shown greyed as stale until a current one replaces it. Null after another image.
    const Comparison* staleComparison() const;

    // ---- what the view shows (view/displaystate.h) ----
    // The window's view, the View menu and the panels follow it; displayStateChanged() says
    // that any of it changed.
    const display::State& displayState() const { return display_; }
    // Difference needs a comparison of the current result: without one the mode stays and
    // false is returned. A comparison that arrives switches to Difference, one that is dropped
    // (older parameters, another image) switches Difference back to Result.
    bool setViewMode(display::Mode mode);
    // The user's pick: it holds (mappingFollowsKernel off) until setMappingFollowsKernel(true).
    void setMapping(display::Mapping mapping);
    // On: the mapping follows the kernel (display::mappingForKernel), now and after each edit.
    void setMappingFollowsKernel(bool on);
    // Clamped to [0, 1]; a non-finite t is ignored.
    void setSplitPosition(double t);
    // absoluteMax: the |d| drawn white under Absolute, 0 for automatic. Throws convlab::Error
    // for a negative or non-finite absoluteMax.
    void setDifferenceScale(display::DifferenceScale scale, double absoluteMax = 0.0);
    void setPaddingShown(bool on);
    // View > Edge Loupe. Turned on again by an edit that changes the border mode or the
    // kernel's size, so that the change is seen where it happens.
    void setEdgeLoupeShown(bool on);
    void setPixelGridShown(bool on);
    void setFloatRangeByValues(bool on);
    // View > Channel: -1 shows every channel, c >= 0 channel c alone, as grey. The view, the
    // probe, the Difference and the Histogram panels follow it. A source without channel c
    // sets it back to -1. Throws convlab::Error for a channel the source does not have.
    void setDisplayChannel(int c);
    int displayChannel() const { return display_.channel; }
    // A channel's short name: "R", "G", "B" of colour images, "Grey" of one-channel ones, "A"
    // for alpha, else its number.
    static QString channelName(int c, int channels, bool hasAlpha);

    // Cancels the render, the comparison and the open in flight.
    void cancel();
    bool busy() const;
    // Cancels and waits for every worker (window closing).
    void shutdown();

signals:
    void sourceChanged();
    void paramsChanged();
    // A render of the newest generation started (for busy indicators).
    void renderStarted();
    void resultChanged();
    // The values of a result that was left on the device arrived in host memory (result()->image).
    void resultHostReady();
    // A pixel of the current result read from the device (resultPixel()).
    void resultPixelRead(int x, int y, const QVector<float>& values);
    // The histogram of the current result counted on the device (countResultHistogramOnDevice()).
    void resultHistogramCounted(std::shared_ptr<const convlab::Histogram> histogram);
    // A CUDA result of request `id` is complete on the device (interop can draw it) before its
    // host copy arrives with resultChanged().
    void gpuResultResident(quint64 id, int width, int height, int channels);
    void renderFailed(const QString& message);
    void renderCancelled();
    // The method asked for was not run: its estimate is over the interactive budget.
    void renderRefused(const QString& message);
    void comparisonChanged();
    void comparisonFailed(const QString& message);
    // Path B started (asked for, or made again after an edit).
    void comparisonStarted();
    void openStarted(const QString& path);
    void openFailed(const QString& path, const QString& message);
    void busyChanged(bool busy);
    void displayChannelChanged(int channel);
    // Anything of displayState() changed (the channel too, after displayChannelChanged).
    void displayStateChanged();

private:
    friend class SourceCommand;
    // What setSource replaces, as one value (for the undo of useResultAsSource).
    struct SourceRecord {
        std::shared_ptr<const convlab::Image> image;
        std::shared_ptr<const convlab::PackedImage> packed;
        QString title, path;
    };
    SourceRecord sourceRecord() const { return {source_, packed_, title_, path_}; }
    void assignSource(SourceRecord record);
    // The mapping the kernel's results read best in, and taking it when the state follows it.
    display::Mapping kernelsMapping() const;
    void followKernelWithMapping();
    void showLoupeForNewBorderRule();
    struct LoupeTrigger {
        convlab::BorderMode mode = convlab::BorderMode::Reflect;
        int kernelWidth = 0, kernelHeight = 0;
        bool operator==(const LoupeTrigger&) const = default;
    };
    LoupeTrigger loupeTrigger_; // what the loupe was last shown for
    // Replaces the display state, emitting displayStateChanged() when it differs.
    void assignDisplayState(const display::State& state);
    void paramsEdited();
    void requestRender();
    void onRenderReady(quint64 id);
    void onHostCopyReady(quint64 id);
    void onHostCopyFailed(quint64 id, const QString& message);
    void onCompareReady(quint64 id);
    // Drops the comparison; its figures stay as the stale one unless the image changed.
    void clearComparison(bool keepAsStale = true);
    void emitBusy();

    KernelDocument* kernel_;
    RenderController* render_;
    RenderController* compare_;
    RunSettings settings_;
    Generation generation_;
    Generation requested_; // of the newest render request
    std::shared_ptr<const convlab::Image> source_;
    std::shared_ptr<const convlab::PackedImage> packed_;
    QString title_, path_;
    std::optional<Result> result_;
    std::optional<Comparison> comparison_;
    std::optional<Result> comparedA_; // A as it was when path B started
    LatestOnly opening_, comparing_;
    std::function<std::optional<std::uint64_t>()> availableMemory_ = memorybudget::availableBytes;
    QThreadPool workers_; // decoding and comparing, off the UI thread
    bool wasBusy_ = false;
    display::State display_;
    QSet<const QObject*> hostWanted_;
    bool forceHostCopy_ = false; // the next run downloads (a copy from the device failed)
    double budgetSeconds_ = kInteractiveBudgetSeconds;
    // runOverBudget's waiver: for this method on this image.
    std::optional<convlab::Method> waivedMethod_;
    std::weak_ptr<const convlab::Image> waivedSource_;

    // Making the comparison again after an edit (kAutoCompareSeconds).
    bool recompareIsCheap() const;
    void recompareAfterEdit();
    struct PathB {
        convlab::Method method;
        convlab::Device device;
    };
    std::optional<PathB> pathB_;          // the last path B compared on this image
    std::optional<Comparison> stale_;     // its figures, of older parameters
    bool recompareToDifference_ = false;  // the dropped comparison was on screen
    bool recompareRunning_ = false;       // the comparison in flight is one made again
    double autoCompareSeconds_ = kAutoCompareSeconds;
};
