// SPDX-License-Identifier: GPL-3.0-or-later
// convlab [IMAGE]                        the workbench, on IMAGE or the bundled sample
// convlab --benchmark-latency [IMAGE]    edit-to-display latency of 5x5 kernel edits
// convlab --screenshot FILE [IMAGE]      a picture of the window, for the documentation
//   --screenshot-panel probe|analysis|lab  a picture of that panel instead
#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QSaveFile>
#include <QEventLoop>
#include <QSurfaceFormat>
#include <QThreadPool>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "analysispanel.h"
#include "borderlab.h"
#include "controlspanel.h"
#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/kernel.h"
#include "convlab/testchart.h"
#include "kerneldocument.h"
#include "imageview.h"
#include "mainwindow.h"
#include "probepanel.h"
#include "rendercontroller.h"

namespace {

constexpr int kEdits = 30;
constexpr int kTimeoutMs = 120000;

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

// Each edit goes through the kernel document exactly as a typed cell does; the clock stops
// when the view has drawn that edit's result.
int benchmarkLatency(MainWindow& w, const QString& imagePath)
{
    w.setErrorReporter([](const QString& m) { std::fprintf(stderr, "convlab: %s\n", qPrintable(m)); });
    if (imagePath.isEmpty())
        w.setSourceImage(convlab::makeTestChart(1920, 1080), QObject::tr("test chart"));
    else if (!w.openImage(imagePath))
        return 1;
    w.kernelDocument()->setKernel(convlab::makePreset("box", "size=5"), QObject::tr("Benchmark kernel"));
    w.show();
    if (!waitForDisplay(w)) {
        std::fprintf(stderr, "convlab: the first result was not displayed\n");
        return 1;
    }
    std::vector<double> ms, convolveMs, displayMs;
    for (int i = 0; i < kEdits; ++i) {
        QElapsedTimer t;
        t.start();
        // A new value each time (the box kernel's cells are all 0.04), so every edit renders.
        w.kernelDocument()->setCell(i % 5, (i / 5) % 5, 0.05f + 0.01f * float(i));
        if (!waitForDisplay(w)) {
            std::fprintf(stderr, "convlab: edit %d was not displayed\n", i + 1);
            return 1;
        }
        ms.push_back(double(t.nsecsElapsed()) / 1e6);
        convolveMs.push_back(w.renderController()->report().totalMs);
        displayMs.push_back(w.imageView()->lastDisplayMs());
    }
    const auto& img = *w.sourceImage();
    std::printf("edit-to-display latency, %d edits of a 5x5 kernel on %dx%dx%d: median %.2f ms, p90 %.2f ms "
                "(min %.2f, max %.2f)\n",
                kEdits, img.width, img.height, img.channels, percentile(ms, 0.5), percentile(ms, 0.9),
                *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()));
    std::printf("  of which convolve (engine) median %.2f ms, display (upload + draw) median %.2f ms\n",
                percentile(convolveMs, 0.5), percentile(displayMs, 0.5));
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

// Opens IMAGE (or the bundled sample) with the edge kernel in split view, waits for the result
// to be drawn and saves a picture of the whole window, or of `panel` (for the documentation).
int screenshot(MainWindow& w, const QString& imagePath, const QString& outPath, const QString& panel)
{
    w.setErrorReporter([](const QString& m) { std::fprintf(stderr, "convlab: %s\n", qPrintable(m)); });
    w.showFirstLaunchExample(); // what a new user sees first (set before the image: one render)
    if (imagePath.isEmpty())
        w.openSample();
    else if (!w.openImage(imagePath))
        return 1;
    w.show();
    if (!waitForDisplay(w)) {
        std::fprintf(stderr, "convlab: the result was not displayed\n");
        return 1;
    }
    QWidget* target = &w;
    if (!panel.isEmpty() && !(target = showPanel(w, panel))) {
        std::fprintf(stderr, "convlab: the %s panel was not ready\n", qPrintable(panel));
        return 1;
    }
    // Let pending layout and paint events settle before the picture is taken.
    QEventLoop settle;
    QTimer::singleShot(500, &settle, &QEventLoop::quit);
    settle.exec();
    QSaveFile file(outPath);
    if (!file.open(QIODevice::WriteOnly) || !target->grab().save(&file, "PNG") || !file.commit()) {
        std::fprintf(stderr, "convlab: cannot write '%s': %s\n", qPrintable(outPath), qPrintable(file.errorString()));
        return 1;
    }
    std::printf("%s\n", qPrintable(outPath));
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
                               QObject::tr("Measure edit-to-display latency of %1 kernel edits (default image: "
                                           "a 1920x1080 test chart), print median and p90, exit.")
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
    parser.addPositionalArgument("image", QObject::tr("Image to open (default: the bundled sample)"), "[IMAGE]");
    parser.process(app);
    const QStringList args = parser.positionalArguments();
    const QString path = args.isEmpty() ? QString() : args.first();

    if (parser.isSet(latency)) {
        MainWindow w(false);
        w.resize(1280, 800);
        return benchmarkLatency(w, path);
    }

    if (parser.isSet(shotPanel)) {
        const QString panel = parser.value(shotPanel);
        if (!parser.isSet(shot)) {
            std::fprintf(stderr, "convlab: --screenshot-panel needs --screenshot FILE\n");
            return 2;
        }
        if (panel != "probe" && panel != "analysis" && panel != "lab") {
            std::fprintf(stderr, "convlab: unknown panel '%s' (expected probe, analysis or lab)\n", qPrintable(panel));
            return 2;
        }
    }
    if (parser.isSet(shot)) {
        MainWindow w(false);
        w.applyFirstLaunchLayout(QSize(1280, 800));
        return screenshot(w, path, parser.value(shot), parser.value(shotPanel));
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
