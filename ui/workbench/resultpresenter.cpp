// SPDX-License-Identifier: GPL-3.0-or-later
#include "workbench/resultpresenter.h"



#include "convlab/error.h"
#include "convlab/gpu.h"
#include "view/imageview.h"
#include "workbench/rendercontroller.h"
#include "workbench/workbenchdocument.h"

ResultPresenter::ResultPresenter(WorkbenchDocument* doc, ImageView* view, QObject* parent)
    : QObject(parent), doc_(doc), view_(view)
{
    connect(doc, &WorkbenchDocument::resultChanged, this, &ResultPresenter::onResultChanged);
    connect(doc, &WorkbenchDocument::gpuResultResident, this, &ResultPresenter::onGpuResultResident);
    connect(doc, &WorkbenchDocument::resultHostReady, this, &ResultPresenter::onResultHostReady);
    connect(view, &GLViewHost::frameSwapped, this, [this] {
        if (pendingDisplayId_ == 0) return;
        const quint64 id = pendingDisplayId_;
        pendingDisplayId_ = 0;
        emit resultDisplayed(id, view_->lastDisplayMs());
    });
}

namespace {

// Whether a GPU backend produced the result (any row of backends() but the CPU).
bool ranOnGpu(const convlab::RunReport& report)
{
    return report.device != convlab::Device::Cpu && report.device != convlab::Device::Auto;
}

QString gpuLabel(const convlab::RunReport& report)
{
    return QString::fromUtf8(convlab::backendInfo(report.device).label);
}

} // namespace

void ResultPresenter::onResultChanged()
{
    const WorkbenchDocument::Result& r = *doc_->result();
    pendingDisplayId_ = r.requestId;
    if (earlyDisplayedId_ == r.requestId && ranOnGpu(r.report)) {
        setDisplayPath(r.image ? tr("%1 to the OpenGL buffer (interop), shown before the download").arg(gpuLabel(r.report))
                               : tr("%1 to the OpenGL buffer (interop); the values stay on the GPU").arg(gpuLabel(r.report)));
    } else if (const QString gpu = showGpuResult(r.width, r.height, r.channels, r.report); !gpu.isEmpty()) {
        setDisplayPath(gpu);
    } else if (r.image) {
        view_->setResult(r.image);
        if (!ranOnGpu(r.report)) setDisplayPath(tr("host memory to the OpenGL buffer"));
    } else {
        // CUDA cannot draw into the view here: the values come down (onResultHostReady draws them,
        // and the frame after that is the result's), and from now on with each run.
        pendingDisplayId_ = 0;
        doc_->setHostResultWanted(view_, true);
        return;
    }
    view_->update();
}

void ResultPresenter::onResultHostReady()
{
    const WorkbenchDocument::Result& r = *doc_->result();
    if (earlyDisplayedId_ == r.requestId) return; // drawn from the device already
    pendingDisplayId_ = r.requestId; // the next frame shows it
    view_->setResult(r.image);
    view_->update();
}

void ResultPresenter::setDisplayPath(const QString& path)
{
    displayPath_ = path;
    emit displayPathChanged(path);
}

bool ResultPresenter::copyGpuResultIntoView(int width, int height, int channels)
{
    const auto gpu = doc_->renderer()->gpuSession();
    if (!gpu || !interopError_.isEmpty()) return false;
    // CUDA writes the view's pixel buffer on the device: no trip through host memory.
    try {
        view_->makeCurrent();
        const unsigned int buffer = view_->resultBuffer(width, height, channels);
        gpu->copyLastResultToGlBuffer(buffer, static_cast<std::size_t>(width) * height * channels);
        view_->doneCurrent();
        view_->resultBufferWritten(width, height, channels);
        return true;
    } catch (const convlab::Error& e) {
        view_->doneCurrent();
        interopError_ = QString::fromUtf8(e.what()); // e.g. the GL context is not on the NVIDIA device
        return false;
    }
}

void ResultPresenter::onGpuResultResident(quint64 id, int width, int height, int channels)
{
    if (id != doc_->renderer()->latestId()) return; // superseded
    if (copyGpuResultIntoView(width, height, channels)) earlyDisplayedId_ = id; // else the host copy follows
}

QString ResultPresenter::showGpuResult(int width, int height, int channels, const convlab::RunReport& report)
{
    if (!ranOnGpu(report)) return {};
    if (copyGpuResultIntoView(width, height, channels))
        return tr("%1 to the OpenGL buffer (interop)").arg(gpuLabel(report));
    // The caller draws the host copy.
    setDisplayPath(tr("download + upload (%1)")
                       .arg(interopError_.isEmpty() ? tr("no GPU session")
                                                    : tr("interop unavailable: %1").arg(interopError_)));
    return {};
}
