// SPDX-License-Identifier: GPL-3.0-or-later
#include "rendercontroller.h"

#include <new>

#include "convlab/error.h"

struct RenderController::Outcome {
    quint64 id = 0;
    std::shared_ptr<const convlab::Image> source;
    convlab::ConvolveParams params;
    std::shared_ptr<std::atomic<bool>> cancel;
    std::shared_ptr<const convlab::Image> image;
    convlab::RunReport report;
    bool wasCancelled = false;
    QString error;
};

RenderController::RenderController(QObject* parent) : QObject(parent)
{
    // One run at a time: a superseded run sees its flag at its next check and gives way.
    pool_.setMaxThreadCount(1);
}

RenderController::~RenderController() { shutdown(); }

quint64 RenderController::request(std::shared_ptr<const convlab::Image> source, convlab::ConvolveParams params)
{
    if (pendingCancel_) pendingCancel_->store(true);
    auto job = std::make_shared<Outcome>();
    job->id = ++latestId_;
    job->source = std::move(source);
    job->cancel = std::make_shared<std::atomic<bool>>(false);
    params.cancel = job->cancel.get();
    job->params = std::move(params);

    const bool wasBusy = busy();
    pendingId_ = job->id;
    pendingCancel_ = job->cancel;
    if (!wasBusy) emit busyChanged(true);

    pool_.start([this, job] {
        try {
            if (job->cancel->load()) throw convlab::Cancelled();
            if (!job->source) throw convlab::Error("no image loaded");
            job->image = std::make_shared<const convlab::Image>(
                convlab::convolve(*job->source, job->params, &job->report));
        } catch (const convlab::Cancelled&) {
            job->wasCancelled = true;
        } catch (const std::bad_alloc&) {
            job->error = tr("out of memory");
        } catch (const std::exception& e) {
            job->error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(this, [this, job] { finish(job); }, Qt::QueuedConnection);
    });
    return job->id;
}

void RenderController::cancel()
{
    if (pendingCancel_) pendingCancel_->store(true);
}

void RenderController::shutdown()
{
    cancel();
    pool_.waitForDone();
}

void RenderController::finish(const std::shared_ptr<Outcome>& outcome)
{
    if (outcome->id != pendingId_) { // superseded: never shown
        ++dropped_;
        emit resultDropped(outcome->id);
        return;
    }
    pendingId_ = 0;
    pendingCancel_.reset();
    emit busyChanged(false);
    if (outcome->wasCancelled) {
        emit cancelled(outcome->id);
    } else if (!outcome->error.isEmpty()) {
        emit failed(outcome->id, outcome->error);
    } else {
        resultId_ = outcome->id;
        result_ = outcome->image;
        resultSource_ = outcome->source;
        resultParams_ = outcome->params;
        resultParams_.cancel = nullptr;
        report_ = outcome->report;
        emit resultReady(outcome->id);
    }
}
