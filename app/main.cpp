// SPDX-License-Identifier: GPL-3.0-or-later
// convlab [IMAGE]                        the workbench, on IMAGE or the bundled sample
// convlab --benchmark-latency [IMAGE]    edit-to-display latency of kernel edits: the first
//                                        result after loading and the steady state apart
// convlab --screenshot FILE [IMAGE]      a picture of the window, for the documentation
//   --screenshot-panel probe|analysis|lab|present|sweep|clip  a picture of that panel (or of View >
//                       Present, the probe's sweep part-way, the clip marks)
// Both measuring modes take --backend cpu|cuda|auto, --size WxH (a generated test chart),
// --kernel SPEC (as convlab-cli -k) and --json FILE; the benchmark also --edits N.
#include <QApplication>
#include <QCoreApplication>
#include <QCommandLineParser>
#include <QSurfaceFormat>
#include <QThreadPool>
#include <exception>
#include <string>

#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/kernel.h"
#include "measure.h"
#include "window/mainwindow.h"

using namespace measure;

namespace {

// The program's options, built alike for the window and for --help and --version, which are
// answered before any window system is opened (so they work without a display).
struct CommandLine {
    QCommandLineParser parser;
    QCommandLineOption help{parser.addHelpOption()};
    QCommandLineOption version{parser.addVersionOption()};
    QCommandLineOption latency{
        "benchmark-latency",
        QObject::tr("Measure edit-to-display latency (default: %1 edits of a 5x5 box on a 1920x1080 test chart): "
                    "the first result after loading and the steady state (median, p10/p90, min/max) apart, each "
                    "with the engine's stages and the display's upload + draw; print them, exit.")
            .arg(kEdits)};
    QCommandLineOption shot{"screenshot",
                            QObject::tr("Save a picture of the window (edge kernel, split view) to FILE, exit."),
                            QObject::tr("FILE")};
    QCommandLineOption shotPanel{"screenshot-panel",
                                 QObject::tr("With --screenshot: picture the pixel probe, the kernel analysis or the "
                                             "border-mode lab (probe, analysis, lab) instead of the window, or the window in "
                                             "View > Present at 1024x768 (present), the probe's sweep part-way (sweep) or View > "
                                             "Mark Clipped Pixels on a sharpened photo (clip)."),
                                 QObject::tr("PANEL")};
    QCommandLineOption shotZoom{"screenshot-zoom",
                                QObject::tr("With --screenshot: the view's zoom, fit (the default) or image pixels "
                                            "per screen pixel from 0.01 to 256 (1: actual size), about the image's "
                                            "centre."),
                                QObject::tr("fit|Z"), "fit"};
    QCommandLineOption backendOpt{"backend",
                                  QObject::tr("With --benchmark-latency or --screenshot: run on cpu or cuda (fails "
                                              "when CUDA cannot run here), or auto: for each edit the cheaper of "
                                              "the two by measured costs, the bus included (the default)."),
                                  QObject::tr("cpu|cuda|auto"), "auto"};
    QCommandLineOption sizeOpt{"size",
                               QObject::tr("With --benchmark-latency or --screenshot and no IMAGE: a generated RGB "
                                           "test chart of that size."),
                               QObject::tr("WxH")};
    QCommandLineOption kernelOpt{"kernel",
                                 QObject::tr("With --benchmark-latency or --screenshot: the kernel, as convlab-cli -k "
                                             "takes it: inline text (\"1 1 1; 1 -8 1; 1 1 1\"), FILE.txt, FILE.json "
                                             "or preset:NAME[:k=v,...]."),
                                 QObject::tr("SPEC")};
    QCommandLineOption editsOpt{"edits",
                                QObject::tr("With --benchmark-latency: the number of timed edits after the first "
                                            "result (default %1).")
                                    .arg(kEdits),
                                QObject::tr("N"), QString::number(kEdits)};
    QCommandLineOption pauseOpt{"pause-ms",
                                QObject::tr("With --benchmark-latency: the window runs its event loop this long "
                                            "before each edit, as between a user's edits, so that an edit meets a "
                                            "window at rest (default 0: each edit right after the last was drawn)."),
                                QObject::tr("MS"), QStringLiteral("0")};
    QCommandLineOption jsonOpt{"json",
                               QObject::tr("With --benchmark-latency or --screenshot: also write what was measured "
                                           "(backend, GL renderer, display path, timings) as JSON to FILE."),
                               QObject::tr("FILE")};

    CommandLine()
    {
        parser.setApplicationDescription(QObject::tr("ConvLab: a workbench for image convolution"));
        for (const QCommandLineOption* o :
             {&latency, &shot, &shotPanel, &shotZoom, &backendOpt, &sizeOpt, &kernelOpt, &editsOpt, &pauseOpt, &jsonOpt})
            parser.addOption(*o);
        parser.addPositionalArgument("image", QObject::tr("Image to open (default: the bundled sample)"), "[IMAGE]");
    }
};

void nameApplication()
{
    QCoreApplication::setOrganizationName("ConvLab");
    QCoreApplication::setApplicationName("ConvLab");
    QCoreApplication::setApplicationVersion(MainWindow::versionString());
}

// --help and --version print and exit here, under a QCoreApplication: a QApplication would
// abort without a display. Anything else (Qt's own -platform, -style ...) is left to the
// QApplication's parse, which knows those options.
void answerHelpWithoutDisplay(int argc, char** argv)
{
    CommandLine cl;
    QStringList arguments;
    for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
    if (!cl.parser.parse(arguments)) return;
    const bool answers = cl.parser.isSet(cl.help) || cl.parser.isSet(cl.version) ||
                         cl.parser.optionNames().contains(QStringLiteral("help-all"));
    if (!answers) return;
    QCoreApplication core(argc, argv);
    nameApplication();
    cl.parser.process(core); // prints and exits
}

} // namespace

int main(int argc, char** argv)
{
    answerHelpWithoutDisplay(argc, argv);

    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    QSurfaceFormat::setDefaultFormat(format);

    QApplication app(argc, argv);
    nameApplication();

    CommandLine cl;
    QCommandLineParser& parser = cl.parser;
    const QCommandLineOption& latency = cl.latency;
    const QCommandLineOption& shot = cl.shot;
    const QCommandLineOption& shotPanel = cl.shotPanel;
    const QCommandLineOption& shotZoom = cl.shotZoom;
    const QCommandLineOption& backendOpt = cl.backendOpt;
    const QCommandLineOption& sizeOpt = cl.sizeOpt;
    const QCommandLineOption& kernelOpt = cl.kernelOpt;
    const QCommandLineOption& editsOpt = cl.editsOpt;
    const QCommandLineOption& pauseOpt = cl.pauseOpt;
    const QCommandLineOption& jsonOpt = cl.jsonOpt;
    parser.process(app);
    const QStringList args = parser.positionalArguments();
    const QString path = args.isEmpty() ? QString() : args.first();

    const bool measuring = parser.isSet(latency) || parser.isSet(shot);
    if (parser.isSet(shotZoom) && !parser.isSet(shot)) {
        fail(QObject::tr("--screenshot-zoom needs --screenshot FILE"));
        return kExitUsage;
    }
    for (const QCommandLineOption* opt : {&backendOpt, &sizeOpt, &kernelOpt, &editsOpt, &jsonOpt})
        if (parser.isSet(*opt) && !measuring) {
            fail(QObject::tr("--%1 applies to --benchmark-latency or --screenshot").arg(opt->names().first()));
            return kExitUsage;
        }
    for (const QCommandLineOption* opt : {&editsOpt, &pauseOpt})
        if (parser.isSet(*opt) && !parser.isSet(latency)) {
            fail(QObject::tr("--%1 applies to --benchmark-latency").arg(opt->names().first()));
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
        o.pauseMs = parser.value(pauseOpt).toInt(&ok);
        if (!ok || o.pauseMs < 0 || o.pauseMs > 10000) {
            fail(QObject::tr("--pause-ms '%1' is not a whole number from 0 to 10000").arg(parser.value(pauseOpt)));
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
        const QStringList panels{"probe", "analysis", "lab", "present", "sweep", "clip"};
        if (!panels.contains(panel)) {
            fail(QObject::tr("unknown panel '%1' (expected %2)").arg(panel, panels.join(QStringLiteral(", "))));
            return kExitUsage;
        }
    }
    if (parser.isSet(shot)) {
        MainWindow w(false);
        w.applyFirstLaunchLayout(QSize(1280, 800));
        double zoom = 0.0; // fit
        if (parser.value(shotZoom) != QLatin1String("fit")) {
            bool ok = false;
            zoom = parser.value(shotZoom).toDouble(&ok);
            if (!ok || !(zoom >= 0.01 && zoom <= 256.0)) {
                fail(QObject::tr("--screenshot-zoom '%1' is not fit or a number from 0.01 to 256")
                         .arg(parser.value(shotZoom)));
                return kExitUsage;
            }
        }
        return screenshot(w, o, parser.value(shot), parser.value(shotPanel), zoom);
    }

    // Interactive use: an FFT size never planned before gets a quick plan now and a measured one
    // in the background; the planner's one-time calibration starts while the window opens.
    convlab::setFftPlanning(convlab::FftPlanning::EstimateNow);
    QThreadPool::globalInstance()->start([] { convlab::cpuCostModel(); });

    MainWindow w;
    if (w.firstLaunch()) w.showFirstLaunchExample();
    w.show();
    w.openStartupImage(path);
    return app.exec();
}
