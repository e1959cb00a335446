// SPDX-License-Identifier: GPL-3.0-or-later
// Runs convlab::convolve off the UI thread. Each request gets an increasing id and carries a
// snapshot of every parameter plus the shared source image. A newer request supersedes the
// older ones: their cancel flags are raised and whatever they return is dropped, so only the
// newest result is ever held.
#pragma once
#include <QObject>
#include <QVector>
#include <QThreadPool>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/imagestats.h"
#include "convlab/costs.h"
#include "convlab/executor.h"
#include "convlab/gpu.h"
#include "workbench/latest.h"

class RenderController : public QObject {
    Q_OBJECT
public:
    explicit RenderController(QObject* parent = nullptr);
    // Cancels whatever runs and waits for it: the worker never outlives the controller.
    ~RenderController() override;

    // Starts a run; params.cancel is set by the controller. Returns the request id. `packed`,
    // when given, is the same source as decoded 8/16-bit samples: a CUDA run uploads that (a
    // quarter or half of the bytes) and converts on the device. `hostCopy` false: a CUDA result
    // stays on the device (drawn from there by interop) and result() holds a buffer of its shape
    // whose values are not there yet (resultOnDevice() says so) until fetchHostCopy() brings them.
    // A method asked for by name whose CPU estimate is over `budgetSeconds` is not run: the
    // request ends with refused() (convlab::judgeBudget), the held result stays.
    quint64 request(std::shared_ptr<const convlab::Image> source, convlab::ConvolveParams params,
                    std::shared_ptr<const convlab::PackedImage> packed = {}, bool hostCopy = true,
                    double budgetSeconds = std::numeric_limits<double>::infinity());
    // Raises the cancel flag of the newest request (it then ends with cancelled()).
    void cancel();
    // Cancels and blocks until no run is left (window closing).
    void shutdown();

    bool busy() const { return latest_.pending(); }
    // How long the run on the worker has been going, and the planner's estimate for it (below
    // 0: none; auto's runs are not estimated apart from their plan). Zero elapsed: none runs.
    struct Progress {
        double elapsedS = 0.0;
        double estimateS = -1.0;
    };
    Progress progress() const;
    quint64 latestId() const { return latest_.latest(); }
    // Frees the output buffers kept for reuse (the image changed size: they fit no more).
    void releaseSpareBuffers() { retired_.clear(); }
    // Bytes held in output buffers kept for reuse.
    std::size_t spareBufferBytes() const
    {
        std::size_t bytes = 0;
        for (const auto& b : retired_) bytes += b->data.size() * sizeof(float);
        return bytes;
    }

    // The held result: the newest request that finished successfully.
    quint64 resultId() const { return resultId_; }
    // The held result's values are still only on the device (a CUDA run asked for no host copy).
    bool resultOnDevice() const { return resultOnDevice_; }
    // Downloads the values of a result left on the device, on the worker, into result()'s
    // buffer; hostCopyReady(id) follows, or hostCopyFailed(id, message). A newer request cancels
    // it (nothing follows then: the newer result replaces this one). False when there is nothing
    // to fetch or a fetch is already on its way.
    bool fetchHostCopy();
    bool fetchingHostCopy() const { return fetching_ != 0; }
    // Reads pixel (x, y) of a result left on the device, every channel, on the worker (a few
    // bytes, not the image); pixelRead(id, x, y, values) follows, or hostCopyFailed(id, message)
    // when the device fails (the values then come with a repeated run, as for a failed fetch).
    // Nothing follows when a newer result replaced it. False when no result is on the device
    // or (x, y) lies outside it.
    bool readPixel(int x, int y);
    // Counts the histogram of a result left on the device there (GpuSession::
    // histogramOfLastResult), on the worker: the counts come down, not the image.
    // histogramCounted(id, histogram) follows, or hostCopyFailed(id, message) when the device
    // fails; nothing when a newer result replaced it, or the count was cancelled by the next run.
    // False when no result is on the device.
    bool countHistogram(int maxBins);
    // Where CUDA sessions come from (default the CUDA row's startSession, convlab/modes.h): the
    // one seam for a stand-in device.
    using GpuSessionFactory = convlab::Executor::SessionFactory;
    void setGpuSessionFactory(GpuSessionFactory factory);
    std::shared_ptr<const convlab::Image> result() const { return result_; }
    std::shared_ptr<const convlab::Image> resultSource() const { return resultSource_; }
    const convlab::ConvolveParams& resultParams() const { return resultParams_; }
    const convlab::RunReport& report() const { return report_; }
    // The CUDA session of the last GPU runs (null before the first, or after a failure); its
    // copyLastResultToGlBuffer is the display path from GPU memory.
    std::shared_ptr<convlab::GpuSession> gpuSession() const;
    // Results (or cancellations) of superseded requests that arrived and were thrown away.
    int droppedResults() const { return dropped_; }

signals:
    void busyChanged(bool busy);
    void resultReady(quint64 id);
    // A CUDA run's result is complete on the device (gpuSession()->copyLastResultToGlBuffer can
    // show it) while the worker still downloads the host copy that resultReady delivers.
    void gpuResultResident(quint64 id, int width, int height, int channels);
    void hostCopyReady(quint64 id);
    void hostCopyFailed(quint64 id, const QString& message);
    void pixelRead(quint64 id, int x, int y, const QVector<float>& values);
    void histogramCounted(quint64 id, std::shared_ptr<const convlab::Histogram> histogram);
    void failed(quint64 id, const QString& message);
    // Not run: the method asked for is estimated over the request's budget (`message` says by
    // how much, and which method is faster).
    void refused(quint64 id, const QString& message);
    void cancelled(quint64 id);
    void resultDropped(quint64 id);

public:
    // A CPU run whose predecessor took less than this is waited for on the UI thread before the
    // window paints the edit that asked for it (awaitBriefly): the edit and its result then
    // reach the screen in one frame instead of two. Under a software GL a frame of the window
    // costs about 15 ms, more than such a run.
    static constexpr int kFrameBudgetMs = 12;
    // The budget in force (default kFrameBudgetMs): the seam for a test on a loaded machine.
    void setFrameBudgetMs(int ms) { frameBudgetMs_ = ms; }

private:
    struct Outcome;
    void finish(const std::shared_ptr<Outcome>& outcome);
    // Waits up to the frame budget for `job` (still the newest) and delivers it at once when done.
    void awaitBriefly(const std::shared_ptr<Outcome>& job);
    // Output buffers are reused from run to run (no allocation, no page faults): finished ones
    // are retired here and taken again once nobody else holds them.
    void recycle(std::shared_ptr<convlab::Image> buffer);
    std::shared_ptr<convlab::Image> takeSpare();
    // The run on the worker, placed by the executor (worker thread only).
    void runJob(Outcome& job);
    // Throws OverBudget when the method asked for is estimated over the job's budget.
    void refuseOverBudget(const Outcome& job);
    // What the bus would move for this run: nothing for an image the session holds, nothing
    // down for a result drawn from the device.
    convlab::RunFootprint footprintOf(const Outcome& job) const;
    // The CUDA run: the session keeps the source on the device, the result stays there.
    void runOnGpu(convlab::GpuSession& session, Outcome& job);
    void finishHostCopy(quint64 id, bool superseded, const QString& error);

    QThreadPool pool_;
    int frameBudgetMs_ = kFrameBudgetMs;
    std::atomic<long long> runningSinceNs_{0}; // steady clock of the run's start on the worker; 0: none
    std::atomic<double> runningEstimateS_{-1.0};
    std::mutex doneMutex_;             // with doneCv_: the worker says a job is done (awaitBriefly)
    std::condition_variable doneCv_;
    LatestOnly latest_;
    quint64 resultId_ = 0;
    std::shared_ptr<const convlab::Image> result_;
    std::shared_ptr<const convlab::Image> resultSource_;
    convlab::ConvolveParams resultParams_;
    convlab::RunReport report_;
    int dropped_ = 0;
    std::vector<std::shared_ptr<convlab::Image>> retired_;
    convlab::Executor executor_;                          // its session is used by the worker thread
    std::atomic<quint64> deviceResultId_{0};              // whose result the session holds (worker writes)
    bool resultOnDevice_ = false;
    quint64 fetching_ = 0;                                // the result id a fetch is for; 0: none
    std::shared_ptr<std::atomic<bool>> fetchCancel_;      // raised by the next request
    std::shared_ptr<std::atomic<bool>> countCancel_;      // the held result's histogram counts, likewise
};
