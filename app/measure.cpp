// SPDX-License-Identifier: GPL-3.0-or-later
// --benchmark-latency and --screenshot (app/measure.h).
#include "measure.h"
#include "shots.h"
#include "panels/panels.h"

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSurfaceFormat>
#include <QThreadPool>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <vector>

#include "panels/analysispanel.h"
#include "view/glviewhost.h"
#include "window/presentation.h"
#include "tools/borderlab.h"
#include "panels/controlspanel.h"
#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/gpu.h"
#include "convlab/kernel.h"
#include "convlab/testchart.h"
#include "view/imageview.h"
#include "kernel/kerneldocument.h"
#include "window/mainwindow.h"
#include "panels/probepanel.h"
#include "workbench/rendercontroller.h"
#include "workbench/workbenchdocument.h"

namespace measure {
namespace {

constexpr int kMaxChartSide = 16384; // a 16384^2 RGB float chart is 3 GiB already
constexpr int kTimeoutMs = 120000;
// A platform that cannot make an OpenGL context for the view never initializes it; waiting
// the full render timeout for that would only hide the reason.
constexpr int kGlTimeoutMs = 20000;

// Puts the options into the window before its image arrives, so that the first render
// already has them: the kernel (with what a JSON file carries) and the backend.
bool applyOptions(MainWindow& w, const RunOptions& o)
{
    if (o.kernel) w.kernelDocument()->setSpec(*o.kernel, QObject::tr("Kernel from the command line"));
    w.controls()->setDevice(o.backend);
    // The combo refuses an entry it has disabled (CUDA without a device): say so instead of
    // measuring the other backend.
    if (w.controls()->device() != o.backend) {
        fail(QObject::tr("the window did not accept backend %1")
                 .arg(QString::fromStdString(convlab::deviceName(o.backend))));
        return false;
    }
    return true;
}

// The source: IMAGE, a test chart of --size, or `fallback` (the mode's default).
bool loadSource(MainWindow& w, const RunOptions& o, const std::function<void()>& fallback)
{
    if (!o.image.isEmpty()) return w.openImage(o.image);
    if (o.size.isValid())
        w.setSourceImage(convlab::makeTestChart(o.size.width(), o.size.height()),
                         QObject::tr("test chart %1x%2").arg(o.size.width()).arg(o.size.height()));
    else
        fallback();
    return true;
}

// The view's OpenGL context as the driver names it, once the shown view has made one.
struct GlInfo {
    QString renderer, vendor, version;
};

// Waits for the view's context; false (and said why) when there is none or it cannot draw.
bool viewGl(MainWindow& w, GlInfo* info)
{
    ImageView* view = w.imageView();
    QElapsedTimer clock;
    clock.start();
    while (!view->isValid() && clock.elapsed() < kGlTimeoutMs) {
        QEventLoop loop;
        QTimer::singleShot(20, &loop, &QEventLoop::quit);
        loop.exec();
    }
    if (!view->isValid()) {
        fail(QObject::tr("the image view got no OpenGL context within %1 s (the platform's messages above say "
                         "why)")
                 .arg(kGlTimeoutMs / 1000));
        return false;
    }
    view->makeCurrent();
    QOpenGLFunctions* gl = QOpenGLContext::currentContext()->functions();
    auto str = [gl](GLenum name) {
        const auto* s = reinterpret_cast<const char*>(gl->glGetString(name));
        return s ? QString::fromUtf8(s) : QString();
    };
    info->renderer = str(GL_RENDERER);
    info->vendor = str(GL_VENDOR);
    info->version = str(GL_VERSION);
    view->doneCurrent();
    // The view leaves its texture limit at 0 when the context lacks OpenGL 3.3 core.
    if (view->maxTextureSize() <= 0) {
        fail(QObject::tr("the image view's OpenGL context cannot draw images (OpenGL 3.3 core needed; renderer %1, "
                         "version %2)")
                 .arg(info->renderer, info->version));
        return false;
    }
    return true;
}

QJsonObject glJson(const GlInfo& gl)
{
    return {{"renderer", gl.renderer}, {"vendor", gl.vendor}, {"version", gl.version}};
}

// Writes `doc` to FILE atomically; false (and said why) when it cannot.
bool writeJson(const QString& path, const QJsonObject& doc)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(doc).toJson()) < 0 || !file.commit()) {
        fail(QObject::tr("cannot write '%1': %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

QString deviceText(convlab::Device d) { return QString::fromStdString(convlab::deviceName(d)); }

// The GPU's name when a CUDA session ran, else empty.
QString cudaDeviceName(MainWindow& w)
{
    const auto gpu = w.renderController()->gpuSession();
    return gpu ? QString::fromStdString(gpu->deviceName()) : QString();
}

// Records the moment each result is drawn, so that a result drawn before anyone waits for it
// (the event loop of openImage, say) is still timed from its own frame.
class DisplayClock {
public:
    explicit DisplayClock(MainWindow& w) : w_(w)
    {
        clock_.start();
        QObject::connect(&w, &MainWindow::resultDisplayed, &w, [this](quint64 id) {
            displayedId_ = id;
            displayedNs_ = clock_.nsecsElapsed();
        });
        QObject::connect(&w, &MainWindow::errorReported, &w, [this](const QString&) { failed_ = true; });
    }
    void start() { startNs_ = clock_.nsecsElapsed(); }
    // Runs the event loop until the newest request's result is drawn; the ms from start() to
    // that frame, or a negative value on an error or timeout.
    double waitForDisplay()
    {
        QElapsedTimer waited;
        waited.start();
        while (!done() && !failed_ && waited.elapsed() < kTimeoutMs) {
            QEventLoop loop;
            QTimer poll;
            QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
                if (done() || failed_) loop.quit();
            });
            QObject::connect(&w_, &MainWindow::resultDisplayed, &loop, [&] {
                if (done()) loop.quit();
            });
            poll.start(50);
            QTimer::singleShot(kTimeoutMs, &loop, &QEventLoop::quit);
            loop.exec();
        }
        if (!done()) return -1.0;
        return double(displayedNs_ - startNs_) / 1e6;
    }

private:
    bool done() const
    {
        const quint64 latest = w_.renderController()->latestId();
        return latest != 0 && displayedId_ == latest;
    }
    MainWindow& w_;
    QElapsedTimer clock_;
    qint64 startNs_ = 0, displayedNs_ = 0;
    quint64 displayedId_ = 0;
    bool failed_ = false;
};

// Waits until the window has drawn the result of a render; false on timeout.
bool waitForDisplay(MainWindow& w)
{
    QEventLoop loop;
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, [&loop] { loop.exit(1); });
    QObject::connect(&w, &MainWindow::resultDisplayed, &loop, [&loop, &w](quint64 id) {
        if (id == w.renderController()->latestId()) loop.exit(0);
    });
    QObject::connect(&w, &MainWindow::errorReported, &loop, [&loop] { loop.exit(2); });
    timeout.start(kTimeoutMs);
    return loop.exec() == 0;
}

// Runs the event loop until `done` holds (polled); false on timeout.
bool waitUntil(const std::function<bool()>& done)
{
    QEventLoop loop;
    QTimer poll;
    QElapsedTimer clock;
    clock.start();
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (done())
            loop.exit(0);
        else if (clock.elapsed() > kTimeoutMs)
            loop.exit(1);
    });
    poll.start(20);
    return loop.exec() == 0;
}

double percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    const double pos = q * (v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

// One measured edit: from the change (or the new image) to the frame that drew its result.
struct Sample {
    double wallMs = 0.0;
    convlab::RunReport report; // the engine's total and stages, the device and method that ran
    double displayMs = 0.0;    // the view's upload + draw of that result
    QString displayPath;
    QString drawnFrom; // what the view's texture held: "8-bit colours" mapped on the host, or "float values"
    // What neither the engine nor the view's drawing accounts for: queueing, the event loop,
    // Qt composing the window. Negative when the display overlapped the engine's last stage
    // (CUDA interop draws the result before its host copy has been downloaded).
    double restMs() const { return wallMs - report.totalMs - displayMs; }
};

QJsonObject statsJson(const std::vector<double>& v)
{
    return {{"median", percentile(v, 0.5)},
            {"p10", percentile(v, 0.1)},
            {"p90", percentile(v, 0.9)},
            {"min", *std::min_element(v.begin(), v.end())},
            {"max", *std::max_element(v.begin(), v.end())}};
}

QJsonObject sampleJson(const Sample& s)
{
    QJsonArray stages;
    for (const convlab::StageTiming& t : s.report.stages)
        stages.append(QJsonObject{{"name", QString::fromStdString(t.name)}, {"ms", t.ms}, {"once", t.once}});
    QJsonArray notices;
    for (const std::string& n : s.report.notices) notices.append(QString::fromStdString(n));
    const QJsonObject engine{{"total_ms", s.report.totalMs},
                             {"stages", stages},
                             {"method", QString::fromStdString(convlab::methodName(s.report.method))},
                             {"device", deviceText(s.report.device)},
                             {"threads", s.report.threads},
                             {"reason", QString::fromStdString(s.report.reason)},
                             {"notices", notices}};
    return {{"wall_ms", s.wallMs},
            {"engine", engine},
            {"display_ms", s.displayMs},
            {"rest_ms", s.restMs()},
            {"display_path", s.displayPath},
            {"drawn_from", s.drawnFrom}};
}

QString stagesText(const convlab::RunReport& r)
{
    QStringList parts;
    for (const convlab::StageTiming& t : r.stages)
        parts << QStringLiteral("%1 %2%3").arg(QString::fromStdString(t.name)).arg(t.ms, 0, 'f', 2).arg(t.once ? " (once)" : "");
    return parts.join(", ");
}

void printSample(const char* what, const Sample& s)
{
    std::printf("%s: %.2f ms = engine %.2f + display (upload + draw) %.2f + rest %.2f\n", what, s.wallMs,
                s.report.totalMs, s.displayMs, s.restMs());
    std::printf("    engine: %s on %s: %s\n", convlab::methodName(s.report.method).c_str(),
                convlab::deviceName(s.report.device).c_str(), qPrintable(stagesText(s.report)));
    for (const std::string& n : s.report.notices) std::printf("    notice: %s\n", n.c_str());
}

} // namespace

void fail(const QString& message) { std::fprintf(stderr, "convlab: %s\n", qPrintable(message)); }

QSize parseSize(const QString& text, QString* error)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d{1,9})\\s*[xX]\\s*(\\d{1,9})\\s*$"));
    const QRegularExpressionMatch m = re.match(text);
    const int w = m.hasMatch() ? m.captured(1).toInt() : 0;
    const int h = m.hasMatch() ? m.captured(2).toInt() : 0;
    if (w < 1 || h < 1 || w > kMaxChartSide || h > kMaxChartSide) {
        *error = QObject::tr("--size '%1' is not WIDTHxHEIGHT with each side from 1 to %2 (e.g. 1920x1080)")
                     .arg(text)
                     .arg(kMaxChartSide);
        return {};
    }
    return QSize(w, h);
}

// Each edit goes through the kernel document exactly as a typed cell does; the clock stops
// at the frame that drew that edit's result. The first result after the image arrives is
// timed apart: it pays what later edits do not (the output buffers, the source's upload and
// texture, a GPU session or FFT plans).
int benchmarkLatency(MainWindow& w, const RunOptions& o)
{
    w.setErrorReporter([](const QString& m) { fail(m); });
    if (!o.kernel)
        w.kernelDocument()->setKernel(convlab::makePreset("box", "size=5"), QObject::tr("Benchmark kernel"));
    if (!applyOptions(w, o)) return kExitUnavailable;
    // The window is up, with its GL context, before the image arrives: the first result is
    // what loading an image into an open window costs, not the window's creation.
    w.show();
    GlInfo gl;
    if (!viewGl(w, &gl)) return kExitNoGl;

    DisplayClock clock(w);
    QObject::connect(w.workbench(), &WorkbenchDocument::sourceChanged, &w, [&clock] { clock.start(); });
    if (!loadSource(w, o, [&w] {
            w.setSourceImage(convlab::makeTestChart(1920, 1080), QObject::tr("test chart 1920x1080"));
        }))
        return kExitFailed;
    auto measure = [&](double wallMs) {
        Sample s;
        s.wallMs = wallMs;
        s.report = w.renderController()->report();
        s.displayMs = w.imageView()->lastDisplayMs();
        s.displayPath = w.displayPath();
        s.drawnFrom = w.imageView()->resultDrawnFromColours() ? QStringLiteral("8-bit colours")
                                                             : QStringLiteral("float values");
        return s;
    };
    const double firstMs = clock.waitForDisplay();
    if (firstMs < 0) {
        fail(QObject::tr("the first result was not displayed"));
        return kExitFailed;
    }
    const Sample first = measure(firstMs);

    std::vector<Sample> steady;
    const convlab::Kernel& k = w.kernelDocument()->kernel();
    for (int i = 0; i < o.edits; ++i) {
        // A new value each time (cells are visited in turn, each raised further on every
        // visit), so that every edit renders. For the default 5x5 box (cells 0.04) these are
        // the values 0.05, 0.06, ... of earlier versions of this benchmark.
        const int row = i % k.height, column = (i / k.height) % k.width;
        const float value = k.at(row, column) + 0.01f * float(i + 1);
        if (o.pauseMs > 0) { // the window settles: late panels, their frames, the histogram
            QEventLoop rest;
            QTimer::singleShot(o.pauseMs, &rest, &QEventLoop::quit);
            rest.exec();
        }
        clock.start();
        w.kernelDocument()->setCell(row, column, value);
        const double ms = clock.waitForDisplay();
        if (ms < 0) {
            fail(QObject::tr("edit %1 was not displayed").arg(i + 1));
            return kExitFailed;
        }
        steady.push_back(measure(ms));
    }

    std::vector<double> wall, engine, display, rest;
    for (const Sample& s : steady) {
        wall.push_back(s.wallMs);
        engine.push_back(s.report.totalMs);
        display.push_back(s.displayMs);
        rest.push_back(s.restMs());
    }
    // The edit whose time is the median (the lower of the middle two), with its own stages:
    // its parts add up, which medians taken stage by stage would not.
    std::vector<std::size_t> order(steady.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return wall[a] < wall[b]; });
    const std::size_t medianIndex = order[(order.size() - 1) / 2];

    // The backend that ran: every result's own device, not the one asked for.
    const convlab::Device ran = first.report.device;
    bool mixed = false;
    for (const Sample& s : steady) mixed = mixed || s.report.device != ran;
    const QString backend = mixed ? QStringLiteral("mixed") : deviceText(ran);

    const auto& img = *w.sourceImage();
    const QString source = w.workbench()->title();
    const QString kernelSpec = o.kernelText.isEmpty() ? QStringLiteral("preset:box:size=5") : o.kernelText;
    std::printf("edit-to-display latency: %s (%dx%dx%d), kernel %s (%dx%d), backend %s (asked: %s)%s\n",
                qPrintable(source), img.width, img.height, img.channels, qPrintable(kernelSpec), k.width, k.height,
                qPrintable(backend),
                qPrintable(deviceText(o.backend)),
                cudaDeviceName(w).isEmpty() ? "" : qPrintable(QStringLiteral(" on ") + cudaDeviceName(w)));
    const Sample& last = steady.empty() ? first : steady.back();
    std::printf("  GL renderer: %s (%s)\n  display path: %s, drawn from %s\n", qPrintable(gl.renderer),
                qPrintable(gl.version), qPrintable(last.displayPath), qPrintable(last.drawnFrom));
    printSample("first result after load", first);
    if (!steady.empty()) {
        if (o.pauseMs > 0) std::printf("each edit after %d ms of the event loop\n", o.pauseMs);
        std::printf("steady state, %d edits: median %.2f ms, p10 %.2f, p90 %.2f (min %.2f, max %.2f)\n", o.edits,
                    percentile(wall, 0.5), percentile(wall, 0.1), percentile(wall, 0.9),
                    *std::min_element(wall.begin(), wall.end()), *std::max_element(wall.begin(), wall.end()));
        std::printf("  medians: engine %.2f ms, display (upload + draw) %.2f ms, rest %.2f ms\n",
                    percentile(engine, 0.5), percentile(display, 0.5), percentile(rest, 0.5));
        printSample(qPrintable(QStringLiteral("  the median edit (#%1)").arg(medianIndex + 1)), steady[medianIndex]);
    }

    if (!o.json.isEmpty()) {
        QJsonArray samples;
        for (const Sample& s : steady)
            samples.append(QJsonObject{{"wall_ms", s.wallMs},
                                       {"engine_ms", s.report.totalMs},
                                       {"display_ms", s.displayMs},
                                       {"device", deviceText(s.report.device)}});
        QJsonObject steadyJson{{"edits", o.edits}, {"pause_ms", o.pauseMs}, {"samples", samples}};
        if (!steady.empty()) {
            steadyJson["wall_ms"] = statsJson(wall);
            steadyJson["engine_ms"] = statsJson(engine);
            steadyJson["display_ms"] = statsJson(display);
            steadyJson["rest_ms"] = statsJson(rest);
            QJsonObject median = sampleJson(steady[medianIndex]);
            median["index"] = int(medianIndex);
            steadyJson["median_edit"] = median;
        }
        const QJsonObject doc{
            {"mode", "benchmark-latency"},
            {"image", QJsonObject{{"source", source},
                                  {"width", img.width},
                                  {"height", img.height},
                                  {"channels", img.channels}}},
            {"kernel", QJsonObject{{"spec", kernelSpec},
                                   {"name", QString::fromStdString(k.name)},
                                   {"width", k.width},
                                   {"height", k.height}}},
            {"backend_requested", deviceText(o.backend)},
            {"backend", backend},
            {"cuda_device", cudaDeviceName(w)},
            {"gl", glJson(gl)},
            {"display_path", last.displayPath},
            {"drawn_from", last.drawnFrom},
            {"first", sampleJson(first)},
            {"steady", steadyJson},
        };
        if (!writeJson(o.json, doc)) return kExitFailed;
    }
    if (o.backend != convlab::Device::Auto && (mixed || ran != o.backend)) {
        fail(QObject::tr("asked for backend %1 but %2 ran (the notices above say why)")
                 .arg(deviceText(o.backend), backend));
        return kExitUnavailable;
    }
    return 0;
}

namespace {

// Shows one teaching panel populated and returns the widget to picture (null on failure):
// the probe at the corner pixel (0, 0) with a 5x5 gaussian (reference method), the analysis
// of a Laplacian of Gaussian, the border-mode lab with the edge kernel.
QWidget* showPanel(MainWindow& w, const QString& panel)
{
    auto floatDock = [&w](QWidget* content, QSize size) {
        auto* dock = dockOf(content);
        dock->setFloating(true);
        dock->resize(size);
        dock->show();
        dock->raise();
        return dock;
    };
    if (panel == "probe") {
        // The reference method: the view then shows the probe's value bit for bit.
        w.controls()->setMethod(convlab::Method::Reference);
        w.kernelDocument()->setKernel(convlab::makePreset("gaussian", "size=5,sigma=1"), QObject::tr("Probe kernel"));
        if (!waitForDisplay(w)) return nullptr;
        w.panel<ProbePanel>()->setPixel(0, 0);
        return floatDock(w.panel<ProbePanel>(), QSize(560, 430));
    }
    if (panel == "analysis") {
        w.kernelDocument()->setKernel(convlab::makePreset("log"), QObject::tr("Analysis kernel"));
        if (!waitForDisplay(w)) return nullptr;
        w.panel<AnalysisPanel>()->setLogScale(false);
        if (!waitUntil([&w] { return !w.panel<AnalysisPanel>()->pending() && w.panel<AnalysisPanel>()->hasAnalysis(); }))
            return nullptr;
        return floatDock(w.panel<AnalysisPanel>(), QSize(460, 900));
    }
    if (panel == "sweep" || panel == "clip")
        return showTeachingState(w, panel, [&w] { return waitForDisplay(w); }, waitUntil);
    if (panel == "present") {
        // A projector's 1024x768: full screen, the image and the kernel, the text 1.5x.
        w.resize(1024, 768);
        w.presentation()->setActive(true); // nothing to compute again: the picture settles below
        return &w;
    }
    BorderLabWindow* lab = w.showBorderLab();
    // The difference maps: what the lab is for, on their shared scale.
    if (lab) lab->setShowDifferences(true);
    if (!lab || !waitUntil([lab] { return !lab->busy(); })) return nullptr;
    return lab;
}

} // namespace

// Opens IMAGE (or the bundled sample, or a test chart of --size) with the edge kernel (or
// --kernel) in split view, waits for the result to be drawn and saves a picture of the whole
// window, or of `panel` (for the documentation).
int screenshot(MainWindow& w, const RunOptions& o, const QString& outPath, const QString& panel, double zoom)
{
    w.setErrorReporter([](const QString& m) { fail(m); });
    w.showFirstLaunchExample(); // what a new user sees first (set before the image: one render)
    if (!applyOptions(w, o)) return kExitUnavailable;
    w.show();
    GlInfo gl;
    if (!viewGl(w, &gl)) return kExitNoGl;
    if (!loadSource(w, o, [&w] { w.openSample(); })) return kExitFailed;
    if (!waitForDisplay(w)) {
        fail(QObject::tr("the result was not displayed"));
        return kExitFailed;
    }
    if (zoom > 0.0) w.imageView()->setZoom(zoom); // about the view's centre, where the fitted image's centre is
    QWidget* target = &w;
    if (!panel.isEmpty() && !(target = showPanel(w, panel))) {
        fail(QObject::tr("the %1 panel was not ready").arg(panel));
        return kExitFailed;
    }
    // Let pending layout and paint events settle before the picture is taken.
    QEventLoop settle;
    QTimer::singleShot(500, &settle, &QEventLoop::quit);
    settle.exec();
    QSaveFile file(outPath);
    if (!file.open(QIODevice::WriteOnly) || !GLViewHost::grabComposed(target).save(&file, "PNG") || !file.commit()) {
        fail(QObject::tr("cannot write '%1': %2").arg(outPath, file.errorString()));
        return kExitFailed;
    }
    const convlab::RunReport& r = w.renderController()->report();
    std::printf("%s\n", qPrintable(outPath));
    std::printf("  backend %s, display path: %s, GL renderer: %s, view zoom %g\n", qPrintable(deviceText(r.device)),
                qPrintable(w.displayPath()), qPrintable(gl.renderer), w.imageView()->zoom());
    if (!o.json.isEmpty()) {
        const auto& img = *w.sourceImage();
        const QJsonObject doc{{"mode", "screenshot"},
                              {"file", outPath},
                              {"image", QJsonObject{{"source", w.workbench()->title()},
                                                    {"width", img.width},
                                                    {"height", img.height},
                                                    {"channels", img.channels}}},
                              {"backend_requested", deviceText(o.backend)},
                              {"backend", deviceText(r.device)},
                              {"cuda_device", cudaDeviceName(w)},
                              {"gl", glJson(gl)},
                              {"display_path", w.displayPath()}};
        if (!writeJson(o.json, doc)) return kExitFailed;
    }
    if (o.backend != convlab::Device::Auto && r.device != o.backend) {
        fail(QObject::tr("asked for backend %1 but %2 ran").arg(deviceText(o.backend), deviceText(r.device)));
        return kExitUnavailable;
    }
    return 0;
}

} // namespace measure
