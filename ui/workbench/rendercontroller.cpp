// SPDX-License-Identifier: GPL-3.0-or-later
#include "workbench/rendercontroller.h"

#include <QElapsedTimer>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "convlab/error.h"
#include "convlab/executor.h"
#include "convlab/gpu.h"

namespace {

// A run refused before it started (RenderController::request's budget).
struct OverBudget : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string seconds(double s)
{
    char text[32];
    std::snprintf(text, sizeof text, s < 10 ? "%.2g s" : "%.0f s", s);
    return text;
}

} // namespace

struct RenderController::Outcome {
    quint64 id = 0;
    std::shared_ptr<const convlab::Image> source;
    std::shared_ptr<const convlab::PackedImage> packed;
    convlab::ConvolveParams params;
    std::shared_ptr<std::atomic<bool>> cancel;
    std::shared_ptr<convlab::Image> buffer; // the output, recycled from an earlier result
    std::shared_ptr<const convlab::Image> image;
    convlab::RunReport report;
    bool hostCopy = true;       // a CUDA result is downloaded
    bool leftOnDevice = false;  // it was not: the buffer has the shape, not the values
    bool wasCancelled = false;
    QString error;
    double budgetSeconds = std::numeric_limits<double>::infinity();
    QString refusal;        // not run: over the budget, and why
    bool done = false;      // the worker is through with it (guarded by doneMutex_)
    bool delivered = false; // finish() ran for it (UI thread only)
};

RenderController::RenderController(QObject* parent)
    : QObject(parent), executor_(convlab::Executor::ExplicitCuda::FallsBack)
{
    // One run at a time: a superseded run sees its flag at its next check and gives way.
    pool_.setMaxThreadCount(1);
}

RenderController::~RenderController()
{
    shutdown(); // the worker is done: the GPU session can go
}

quint64 RenderController::request(std::shared_ptr<const convlab::Image> source, convlab::ConvolveParams params,
                                  std::shared_ptr<const convlab::PackedImage> packed, bool hostCopy,
                                  double budgetSeconds)
{
    if (fetchCancel_) fetchCancel_->store(true); // the held result is about to be replaced
    if (countCancel_) countCancel_->store(true);  // and so are counts of its histogram
    countCancel_.reset();
    const bool wasBusy = busy();
    const LatestOnly::Ticket ticket = latest_.begin(); // the run in flight gives way
    auto job = std::make_shared<Outcome>();
    job->id = ticket.id;
    job->source = std::move(source);
    job->packed = std::move(packed);
    job->cancel = ticket.cancel;
    job->buffer = takeSpare();
    job->hostCopy = hostCopy;
    job->budgetSeconds = budgetSeconds;
    params.cancel = job->cancel.get();
    job->params = std::move(params);
    if (!wasBusy) emit busyChanged(true);

    pool_.start([this, job] {
        runningEstimateS_.store(-1.0);
        runningSinceNs_.store(std::chrono::steady_clock::now().time_since_epoch().count());
        try {
            if (job->cancel->load()) throw convlab::Cancelled();
            if (!job->source) throw convlab::Error("no image loaded");
            runJob(*job);
            job->image = job->buffer;
        } catch (const convlab::Cancelled&) {
            job->wasCancelled = true;
        } catch (const OverBudget& e) {
            job->refusal = QString::fromStdString(e.what());
        } catch (const std::bad_alloc&) {
            job->error = tr("out of memory");
        } catch (const std::exception& e) {
            job->error = QString::fromUtf8(e.what());
        }
        runningSinceNs_.store(0);
        {
            std::lock_guard lock(doneMutex_);
            job->done = true;
        }
        doneCv_.notify_all();
        QMetaObject::invokeMethod(this, [this, job] { finish(job); }, Qt::QueuedConnection);
    });
    // Posted events come before the window's paint, which Qt posts at low priority: waiting
    // here, the frame that shows the edit shows its result too.
    if (report_.device == convlab::Device::Cpu && report_.totalMs > 0 && report_.totalMs < frameBudgetMs_)
        QMetaObject::invokeMethod(this, [this, job] { awaitBriefly(job); }, Qt::QueuedConnection);
    return job->id;
}

RenderController::Progress RenderController::progress() const
{
    const long long since = runningSinceNs_.load();
    if (since == 0) return {};
    const long long now = std::chrono::steady_clock::now().time_since_epoch().count();
    return {double(now - since) / 1e9, runningEstimateS_.load()};
}

void RenderController::awaitBriefly(const std::shared_ptr<Outcome>& job)
{
    if (job->delivered || job->id != latest_.latest()) return;
    std::unique_lock lock(doneMutex_);
    if (!doneCv_.wait_for(lock, std::chrono::milliseconds(frameBudgetMs_), [&] { return job->done; })) return;
    lock.unlock();
    finish(job);
}

// Worker thread: the planner's estimate against the request's budget, before anything runs.
void RenderController::refuseOverBudget(const Outcome& job)
{
    const convlab::Image& s = *job.source;
    const convlab::BudgetVerdict v = convlab::judgeBudget(job.params, s.width, s.height, s.channels, s.hasAlpha,
                                                          job.budgetSeconds);
    runningEstimateS_.store(v.askedSeconds); // the progress of a run that goes ahead
    if (!v.over) return;
    const std::string asked = convlab::methodName(job.params.method);
    std::string text = asked + " is estimated at " + seconds(v.askedSeconds) + " on this CPU, over the window's " +
                       seconds(job.budgetSeconds) + " budget";
    if (v.fastest != job.params.method)
        text += "; " + convlab::methodName(v.fastest) + " is estimated at " + seconds(v.fastestSeconds) + ": choose " +
                convlab::methodName(v.fastest) + " (or auto), or Edit > Run Over Budget";
    else
        text += ": Edit > Run Over Budget runs it";
    throw OverBudget(text);
}

convlab::RunFootprint RenderController::footprintOf(const Outcome& job) const
{
    // What only this controller knows: which image it is (a session that holds it uploads
    // nothing), and that a result nobody reads on the host (it is drawn from the device) costs no
    // download.
    convlab::RunFootprint f = job.packed ? convlab::footprintOf(*job.packed) : convlab::footprintOf(*job.source);
    f.image = job.source;
    if (!job.hostCopy) f.downloadBytes = 0.0;
    return f;
}

void RenderController::runJob(Outcome& job)
{
    // A method asked for by name: judged against the budget (an infinite one refuses nothing)
    // and its estimate kept for progress(); auto takes the fastest and is not judged.
    if (job.params.method != convlab::Method::Auto) refuseOverBudget(job);
    // Worker thread only. Where the run goes, and the fall-back when the GPU cannot take it,
    // are the executor's (convlab/executor.h), as for convolve().
    const convlab::Executor::Attempt gpu = executor_.tryGpu(job.params, footprintOf(job), nullptr,
                                                            [&](convlab::GpuSession& session) { runOnGpu(session, job); });
    if (gpu.deviceFailed) {
        convlab::rerunOnCpuAfterGpuFailure(*job.source, job.params, *job.buffer, job.report, gpu.failure);
    } else if (!gpu.ran) {
        convlab::ConvolveParams cpu = job.params; // placed by the executor, not again by the engine
        cpu.device = convlab::Device::Cpu;
        convlab::convolveInto(*job.source, cpu, *job.buffer, &job.report);
        if (!gpu.notice.empty()) job.report.notices.push_back(gpu.notice);
    }
    if (!gpu.reason.empty() && job.report.deviceReason.empty()) job.report.deviceReason = gpu.reason;
}

void RenderController::runOnGpu(convlab::GpuSession& session, Outcome& job)
{
    // Worker thread only (the pool runs one job at a time). The session keeps the image on the
    // device until the source changes, so a kernel edit uploads only the kernel. The result is
    // announced for display while it is still on the device; the host copy follows.
    const convlab::Image& source = *job.source;
    convlab::RunReport& report = job.report;
    QElapsedTimer wall;
    wall.start();
    QElapsedTimer t;
    double uploadMs = 0.0;
    if (!executor_.holds(job.source)) {
        t.start();
        executor_.noteHeld(nullptr);
        if (job.packed)
            session.setImage(*job.packed); // 8/16-bit samples, converted on the device
        else
            session.setImage(source);
        executor_.noteHeld(job.source);
        uploadMs = double(t.nsecsElapsed()) / 1e6;
    }
    session.runResident(job.params, &report);
    deviceResultId_ = job.id;
    emit gpuResultResident(job.id, source.width, source.height, source.channels);
    convlab::Image& out = *job.buffer;
    if (out.width != source.width || out.height != source.height || out.channels != source.channels)
        out = convlab::Image::uninitialized(source.width, source.height, source.channels);
    out.depth = source.depth;
    out.hasAlpha = source.hasAlpha;
    if (job.hostCopy) {
        // Straight into the recycled buffer, in chunks: a newer edit raises the cancel flag
        // and stops the download between chunks, so the next run need not wait for all of it.
        t.start();
        session.downloadLastResult(convlab::OutputPlanes(out), job.params.cancel);
        report.stages.push_back({"download", double(t.nsecsElapsed()) / 1e6});
    } else {
        job.leftOnDevice = true; // fetchHostCopy() brings the values when someone needs them
    }
    if (uploadMs > 0)
        report.stages.insert(report.stages.begin(),
                             {job.packed ? "upload image (8/16-bit, converted on the GPU)" : "upload image", uploadMs});
    convlab::closeStages(report, double(wall.nsecsElapsed()) / 1e6); // the session's total plus upload and download
}

bool RenderController::fetchHostCopy()
{
    if (!resultOnDevice_ || fetching_ != 0 || !result_) return false;
    const quint64 id = resultId_;
    fetching_ = id;
    fetchCancel_ = std::make_shared<std::atomic<bool>>(false);
    // The worker runs one job at a time, in order: the session still holds this result unless a
    // run came in between, which deviceResultId_ tells.
    auto buffer = std::const_pointer_cast<convlab::Image>(result_);
    pool_.start([this, id, buffer, cancel = fetchCancel_] {
        QString error;
        bool superseded = false;
        try {
            const auto session = executor_.sessionHandle();
            if (deviceResultId_ != id || !session) throw convlab::Cancelled();
            session->downloadLastResult(convlab::OutputPlanes(*buffer), cancel.get());
            superseded = cancel->load();
        } catch (const convlab::Cancelled&) {
            superseded = true;
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
            executor_.dropSession(); // the next run starts a fresh session (or runs on the CPU)
        }
        QMetaObject::invokeMethod(
            this, [this, id, superseded, error] { finishHostCopy(id, superseded, error); }, Qt::QueuedConnection);
    });
    return true;
}

bool RenderController::readPixel(int x, int y)
{
    if (!resultOnDevice_ || !result_ || x < 0 || y < 0 || x >= result_->width || y >= result_->height) return false;
    const quint64 id = resultId_;
    const int channels = result_->channels;
    pool_.start([this, id, x, y, channels] {
        // Queued behind any run: the session still holds this result unless one came in between.
        const auto session = executor_.sessionHandle();
        if (deviceResultId_ != id || !session) return;
        QVector<float> values(channels);
        QString error;
        try {
            session->readLastResultPixel(x, y, values.data());
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
            executor_.dropSession(); // the next run starts a fresh session (or runs on the CPU)
        }
        QMetaObject::invokeMethod(
            this,
            [this, id, x, y, values, error] {
                if (id != resultId_ || !resultOnDevice_) return; // a newer result replaced it
                if (!error.isEmpty())
                    emit hostCopyFailed(id, error);
                else
                    emit pixelRead(id, x, y, values);
            },
            Qt::QueuedConnection);
    });
    return true;
}

bool RenderController::countHistogram(int maxBins)
{
    if (!resultOnDevice_ || !result_) return false;
    const quint64 id = resultId_;
    if (!countCancel_) countCancel_ = std::make_shared<std::atomic<bool>>(false);
    auto cancel = countCancel_;
    pool_.start([this, id, maxBins, cancel] {
        const auto session = executor_.sessionHandle();
        if (deviceResultId_ != id || !session || cancel->load()) return;
        std::shared_ptr<const convlab::Histogram> histogram;
        QString error;
        try {
            histogram = std::make_shared<const convlab::Histogram>(session->histogramOfLastResult(maxBins, cancel.get()));
        } catch (const convlab::Cancelled&) {
            return;
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
            executor_.dropSession(); // the next run starts a fresh session (or runs on the CPU)
        }
        QMetaObject::invokeMethod(
            this,
            [this, id, histogram, error] {
                if (id != resultId_ || !resultOnDevice_) return; // a newer result replaced it
                if (!error.isEmpty())
                    emit hostCopyFailed(id, error);
                else
                    emit histogramCounted(id, histogram);
            },
            Qt::QueuedConnection);
    });
    return true;
}

void RenderController::finishHostCopy(quint64 id, bool superseded, const QString& error)
{
    if (fetching_ == id) {
        fetching_ = 0;
        fetchCancel_.reset();
    }
    if (id != resultId_ || !resultOnDevice_) return; // a newer result replaced it
    if (superseded && busy()) return;                // a newer result is on its way
    if (superseded) {
        emit hostCopyFailed(id, tr("the GPU no longer holds the result"));
        return;
    }
    if (!error.isEmpty()) {
        emit hostCopyFailed(id, error);
        return;
    }
    resultOnDevice_ = false;
    emit hostCopyReady(id);
}

std::shared_ptr<convlab::GpuSession> RenderController::gpuSession() const { return executor_.sessionHandle(); }

void RenderController::setGpuSessionFactory(GpuSessionFactory factory) { executor_.setSessionFactory(std::move(factory)); }

void RenderController::cancel() { latest_.cancel(); }

void RenderController::shutdown()
{
    cancel();
    pool_.waitForDone();
}

void RenderController::recycle(std::shared_ptr<convlab::Image> buffer)
{
    if (!buffer) return;
    // Only buffers of the current result's shape can be reused; others are memory held for nothing.
    if (result_ && (buffer->width != result_->width || buffer->height != result_->height ||
                    buffer->channels != result_->channels))
        return;
    retired_.push_back(std::move(buffer));
    if (retired_.size() > 2) retired_.erase(retired_.begin());
}

std::shared_ptr<convlab::Image> RenderController::takeSpare()
{
    // A retired output that nobody shares any more (the view lets go when it gets a newer one).
    for (auto it = retired_.begin(); it != retired_.end(); ++it)
        if (it->use_count() == 1) {
            auto buffer = std::move(*it);
            retired_.erase(it);
            return buffer;
        }
    return std::make_shared<convlab::Image>();
}

void RenderController::finish(const std::shared_ptr<Outcome>& outcome)
{
    if (std::exchange(outcome->delivered, true)) return; // awaitBriefly delivered it already
    outcome->image.reset();
    if (!latest_.finish(outcome->id)) { // superseded: never shown
        recycle(std::move(outcome->buffer));
        ++dropped_;
        emit resultDropped(outcome->id);
        return;
    }
    emit busyChanged(false);
    if (outcome->wasCancelled) {
        recycle(std::move(outcome->buffer));
        emit cancelled(outcome->id);
    } else if (!outcome->refusal.isEmpty()) {
        recycle(std::move(outcome->buffer));
        emit refused(outcome->id, outcome->refusal);
    } else if (!outcome->error.isEmpty()) {
        emit failed(outcome->id, outcome->error);
    } else {
        resultId_ = outcome->id;
        resultOnDevice_ = outcome->leftOnDevice;
        auto previous = std::exchange(result_, outcome->buffer);
        recycle(std::const_pointer_cast<convlab::Image>(std::move(previous)));
        resultSource_ = outcome->source;
        resultParams_ = outcome->params;
        resultParams_.cancel = nullptr;
        report_ = outcome->report;
        emit resultReady(outcome->id);
    }
}
