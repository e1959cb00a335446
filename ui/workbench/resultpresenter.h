// SPDX-License-Identifier: GPL-3.0-or-later
// How a result reaches the image view (the display path): a CPU result from host memory; a
// CUDA result straight from GPU memory into the view's OpenGL pixel buffer (interop), as soon
// as the run is complete on the device and before any host copy; or, where interop cannot run
// here (another GL device, no session), the host copy, which it then asks the document to bring
// with every run. It names the path it took and says when the frame that shows a result has
// been drawn. The window owns one; it holds no state of the workbench beyond what the view shows.
#pragma once
#include <QObject>
#include <QString>

#include "convlab/convolve.h"

class ImageView;
class WorkbenchDocument;

class ResultPresenter : public QObject {
    Q_OBJECT
public:
    ResultPresenter(WorkbenchDocument* doc, ImageView* view, QObject* parent = nullptr);

    // How the last result reached the screen ("host memory to the OpenGL buffer", "CUDA to the
    // OpenGL buffer (interop)", "download + upload (interop unavailable: ...)").
    QString displayPath() const { return displayPath_; }

signals:
    void displayPathChanged(const QString& path);
    // The frame showing the result of request `id` has been drawn, in `displayMs` (upload + draw).
    void resultDisplayed(quint64 id, double displayMs);

private:
    void onResultChanged();
    // A result drawn without its values (left on the device) got them: the view draws them now
    // unless it drew the result from the device already.
    void onResultHostReady();
    // Shows a CUDA result from device memory before its host copy arrives.
    void onGpuResultResident(quint64 id, int width, int height, int channels);
    // Shows a CUDA run's result from GPU memory and returns the path; empty (and the path of
    // the host copy named) when the view must take the host copy instead.
    QString showGpuResult(int width, int height, int channels, const convlab::RunReport& report);
    // Copies the GPU session's last result into the view's pixel buffer; false (and the reason
    // kept in interopError_ on a failure) when the view must take the host copy.
    bool copyGpuResultIntoView(int width, int height, int channels);
    void setDisplayPath(const QString& path);

    WorkbenchDocument* doc_;
    ImageView* view_;
    QString displayPath_;
    QString interopError_;          // why CUDA cannot write the view's buffer here; empty: not known to fail
    quint64 pendingDisplayId_ = 0;  // the request the next frame shows
    quint64 earlyDisplayedId_ = 0;  // the request whose CUDA result was shown before its download
};
