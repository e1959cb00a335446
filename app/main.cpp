// SPDX-License-Identifier: GPL-3.0-or-later
// convlab [IMAGE]                        the workbench, on IMAGE or the bundled sample
// convlab --benchmark-latency [IMAGE]    edit-to-display latency of kernel edits: the first
//                                        result after loading and the steady state apart
// convlab --screenshot FILE [IMAGE]      a picture of the window, for the documentation
//   --screenshot-panel probe|analysis|lab  a picture of that panel instead
// Both measuring modes take --backend cpu|cuda|auto, --size WxH (a generated test chart),
// --kernel SPEC (as convlab-cli -k) and --json FILE; the benchmark also --edits N.
#include <QApplication>
#include <QCommandLineParser>
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
#include "tools/borderlab.h"
#include "panels/controlspanel.h"
#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/gpu.h"
#include "convlab/kernel.h"
#include "convlab/testchart.h"
#include "view/imageview.h"
#include "kernel/kerneldocument.h"
#include "workbench/mainwindow.h"
#include "panels/probepanel.h"
#include "workbench/rendercontroller.h"
#include "workbench/workbenchdocument.h"

namespace {

constexpr int kEdits = 30;
constexpr int kMaxEdits = 100000;
constexpr int kMaxChartSide = 16384; // a 16384^2 RGB float chart is 3 GiB already
constexpr int kTimeoutMs = 120000;
// A platform that cannot make an OpenGL context for the view never initializes it; waiting
// the full render timeout for that would only hide the reason.
constexpr int kGlTimeoutMs = 20000;

// Exit codes of the measuring modes, so that scripts can tell "not here" from "broken".
constexpr int kExitFailed = 1;      // a result was not displayed, a file not written
constexpr int kExitUsage = 2;       // a bad option value
constexpr int kExitUnavailable = 3; // the requested backend cannot run on this machine
constexpr int kExitNoGl = 4;        // the view has no usable OpenGL context

void fail(const QString& message) { std::fprintf(stderr, "convlab: %s\n", qPrintable(message)); }

// What --backend, --size, --kernel, --edits and --json asked for.
struct RunOptions {
    QString image;                           // IMAGE, or empty
    QSize size;                              // --size (invalid: not given)
    QString kernelText;                      // --kernel as given
    std::optional<convlab::KernelSpec> kernel;
    convlab::Device backend = convlab::Device::Auto;
    int edits = kEdits;
    QString json;
};

// "1920x1080" -> 1920x1080; an invalid size (and `error` set) for anything else.
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
            {"display_path", s.displayPath}};
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
    std::printf("  GL renderer: %s (%s)\n  display path: %s\n", qPrintable(gl.renderer), qPrintable(gl.version),
                qPrintable(steady.empty() ? first.displayPath : steady.back().displayPath));
    printSample("first result after load", first);
    if (!steady.empty()) {
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
        QJsonObject steadyJson{{"edits", o.edits}, {"samples", samples}};
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
            {"display_path", steady.empty() ? first.displayPath : steady.back().displayPath},
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

// Shows one teaching panel populated and returns the widget to picture (null on failure):
// the probe at the corner pixel (0, 0) with a 5x5 gaussian (reference method), the analysis
// of a Laplacian of Gaussian, the border-mode lab with the edge kernel.
QWidget* showPanel(MainWindow& w, const QString& panel)
{
    auto floatDock = [&w](QWidget* content, QSize size) {
        auto* dock = qobject_cast<QDockWidget*>(content->parentWidget());
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
        w.probePanel()->setPixel(0, 0);
        return floatDock(w.probePanel(), QSize(560, 430));
    }
    if (panel == "analysis") {
        w.kernelDocument()->setKernel(convlab::makePreset("log"), QObject::tr("Analysis kernel"));
        if (!waitForDisplay(w)) return nullptr;
        w.analysisPanel()->setLogScale(false);
        if (!waitUntil([&w] { return !w.analysisPanel()->pending() && w.analysisPanel()->hasAnalysis(); }))
            return nullptr;
        return floatDock(w.analysisPanel(), QSize(460, 900));
    }
    BorderLabWindow* lab = w.showBorderLab();
    if (!lab || !waitUntil([lab] { return !lab->busy(); })) return nullptr;
    return lab;
}

// Opens IMAGE (or the bundled sample, or a test chart of --size) with the edge kernel (or
// --kernel) in split view, waits for the result to be drawn and saves a picture of the whole
// window, or of `panel` (for the documentation).
int screenshot(MainWindow& w, const RunOptions& o, const QString& outPath, const QString& panel)
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
    if (!file.open(QIODevice::WriteOnly) || !target->grab().save(&file, "PNG") || !file.commit()) {
        fail(QObject::tr("cannot write '%1': %2").arg(outPath, file.errorString()));
        return kExitFailed;
    }
    const convlab::RunReport& r = w.renderController()->report();
    std::printf("%s\n", qPrintable(outPath));
    std::printf("  backend %s, display path: %s, GL renderer: %s\n", qPrintable(deviceText(r.device)),
                qPrintable(w.displayPath()), qPrintable(gl.renderer));
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

} // namespace

int main(int argc, char** argv)
{
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    QSurfaceFormat::setDefaultFormat(format);

    QApplication app(argc, argv);
    QApplication::setOrganizationName("ConvLab");
    QApplication::setApplicationName("ConvLab");
    QApplication::setApplicationVersion(MainWindow::versionString());

    QCommandLineParser parser;
    parser.setApplicationDescription(QObject::tr("ConvLab: a workbench for image convolution"));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption latency("benchmark-latency",
                               QObject::tr("Measure edit-to-display latency (default: %1 edits of a 5x5 box on a "
                                           "1920x1080 test chart): the first result after loading and the steady "
                                           "state (median, p10/p90, min/max) apart, each with the engine's stages "
                                           "and the display's upload + draw; print them, exit.")
                                   .arg(kEdits));
    parser.addOption(latency);
    QCommandLineOption shot("screenshot", QObject::tr("Save a picture of the window (edge kernel, split view) to FILE, exit."),
                            QObject::tr("FILE"));
    parser.addOption(shot);
    QCommandLineOption shotPanel("screenshot-panel",
                                 QObject::tr("With --screenshot: picture the pixel probe, the kernel analysis or the "
                                             "border-mode lab (probe, analysis, lab) instead of the window."),
                                 QObject::tr("PANEL"));
    parser.addOption(shotPanel);
    QCommandLineOption backendOpt("backend",
                                  QObject::tr("With --benchmark-latency or --screenshot: run on cpu or cuda (fails "
                                              "when CUDA cannot run here), or auto: for each edit the cheaper of "
                                              "the two by measured costs, the bus included (the default)."),
                                  QObject::tr("cpu|cuda|auto"), "auto");
    parser.addOption(backendOpt);
    QCommandLineOption sizeOpt("size",
                               QObject::tr("With --benchmark-latency or --screenshot and no IMAGE: a generated RGB "
                                           "test chart of that size."),
                               QObject::tr("WxH"));
    parser.addOption(sizeOpt);
    QCommandLineOption kernelOpt("kernel",
                                 QObject::tr("With --benchmark-latency or --screenshot: the kernel, as convlab-cli -k "
                                             "takes it: inline text (\"1 1 1; 1 -8 1; 1 1 1\"), FILE.txt, FILE.json "
                                             "or preset:NAME[:k=v,...]."),
                                 QObject::tr("SPEC"));
    parser.addOption(kernelOpt);
    QCommandLineOption editsOpt("edits", QObject::tr("With --benchmark-latency: the number of timed edits after the "
                                                     "first result (default %1).")
                                             .arg(kEdits),
                                QObject::tr("N"), QString::number(kEdits));
    parser.addOption(editsOpt);
    QCommandLineOption jsonOpt("json",
                               QObject::tr("With --benchmark-latency or --screenshot: also write what was measured "
                                           "(backend, GL renderer, display path, timings) as JSON to FILE."),
                               QObject::tr("FILE"));
    parser.addOption(jsonOpt);
    parser.addPositionalArgument("image", QObject::tr("Image to open (default: the bundled sample)"), "[IMAGE]");
    parser.process(app);
    const QStringList args = parser.positionalArguments();
    const QString path = args.isEmpty() ? QString() : args.first();

    const bool measuring = parser.isSet(latency) || parser.isSet(shot);
    for (const QCommandLineOption* opt : {&backendOpt, &sizeOpt, &kernelOpt, &editsOpt, &jsonOpt})
        if (parser.isSet(*opt) && !measuring) {
            fail(QObject::tr("--%1 applies to --benchmark-latency or --screenshot").arg(opt->names().first()));
            return kExitUsage;
        }
    if (parser.isSet(editsOpt) && !parser.isSet(latency)) {
        fail(QObject::tr("--edits applies to --benchmark-latency"));
        return kExitUsage;
    }
    if (parser.isSet(latency) && parser.isSet(shot)) {
        fail(QObject::tr("--benchmark-latency and --screenshot are separate runs: give one"));
        return kExitUsage;
    }

    RunOptions o;
    o.image = path;
    o.json = parser.value(jsonOpt);
    if (measuring) {
        QString error;
        if (parser.isSet(sizeOpt)) {
            if (!path.isEmpty()) {
                fail(QObject::tr("--size makes a test chart: give it or IMAGE, not both"));
                return kExitUsage;
            }
            o.size = parseSize(parser.value(sizeOpt), &error);
            if (!o.size.isValid()) {
                fail(error);
                return kExitUsage;
            }
        }
        bool ok = false;
        o.edits = parser.value(editsOpt).toInt(&ok);
        if (!ok || o.edits < 1 || o.edits > kMaxEdits) {
            fail(QObject::tr("--edits '%1' is not a whole number from 1 to %2").arg(parser.value(editsOpt)).arg(kMaxEdits));
            return kExitUsage;
        }
        try {
            o.backend = convlab::parseDevice(parser.value(backendOpt).toStdString());
        } catch (const std::exception& e) {
            fail(QObject::tr("--backend: %1").arg(QString::fromUtf8(e.what())));
            return kExitUsage;
        }
        if (parser.isSet(kernelOpt)) {
            // The CLI's resolution of -k (core), so both programs read the same specs alike.
            o.kernelText = parser.value(kernelOpt);
            try {
                o.kernel = convlab::loadKernelSpec(o.kernelText.toStdString());
                if (o.kernel->kernel.name.empty()) o.kernel->kernel.name = "inline";
                o.kernel->kernel.validate();
            } catch (const std::exception& e) {
                fail(QObject::tr("--kernel '%1': %2").arg(o.kernelText, QString::fromUtf8(e.what())));
                return kExitUsage;
            }
        }
        std::string why;
        if (o.backend == convlab::Device::Cuda && !convlab::cudaAvailable(&why)) {
            fail(QObject::tr("--backend cuda: CUDA cannot run here: %1").arg(QString::fromStdString(why)));
            return kExitUnavailable;
        }
    }

    if (parser.isSet(latency)) {
        MainWindow w(false);
        w.resize(1280, 800);
        return benchmarkLatency(w, o);
    }

    if (parser.isSet(shotPanel)) {
        const QString panel = parser.value(shotPanel);
        if (!parser.isSet(shot)) {
            fail(QObject::tr("--screenshot-panel needs --screenshot FILE"));
            return kExitUsage;
        }
        if (panel != "probe" && panel != "analysis" && panel != "lab") {
            fail(QObject::tr("unknown panel '%1' (expected probe, analysis or lab)").arg(panel));
            return kExitUsage;
        }
    }
    if (parser.isSet(shot)) {
        MainWindow w(false);
        w.applyFirstLaunchLayout(QSize(1280, 800));
        return screenshot(w, o, parser.value(shot), parser.value(shotPanel));
    }

    // Interactive use: an FFT size never planned before gets a quick plan now and a measured one
    // in the background; the planner's one-time calibration starts while the window opens.
    convlab::setFftPlanning(convlab::FftPlanning::EstimateNow);
    QThreadPool::globalInstance()->start([] { convlab::cpuCostModel(); });

    MainWindow w;
    if (w.firstLaunch()) w.showFirstLaunchExample();
    w.show();
    if (path.isEmpty())
        w.openSample();
    else
        w.openImageInBackground(path); // on failure the sample would hide the message: the view stays empty
    return app.exec();
}
