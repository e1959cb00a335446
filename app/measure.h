// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench measuring itself: --benchmark-latency (edit-to-display latency, the first edit
// and the steady state apart) and --screenshot (a picture of the window or of one panel), for
// app/main.cpp, which parses the options.
#pragma once
#include <QSize>
#include <QString>
#include <optional>

#include "convlab/convolve.h"
#include "convlab/kernel.h"

class MainWindow;

namespace measure {

constexpr int kEdits = 30;
constexpr int kMaxEdits = 100000;

// Exit codes of the measuring modes, so that scripts can tell "not here" from "broken".
constexpr int kExitFailed = 1;      // a result was not displayed, a file not written
constexpr int kExitUsage = 2;       // a bad option value
constexpr int kExitUnavailable = 3; // the requested backend cannot run on this machine
constexpr int kExitNoGl = 4;        // the view has no usable OpenGL context

// Prints "convlab: MESSAGE" on stderr.
void fail(const QString& message);

// What --backend, --size, --kernel, --edits, --pause-ms and --json asked for.
struct RunOptions {
    QString image;                           // IMAGE, or empty
    QSize size;                              // --size (invalid: not given)
    QString kernelText;                      // --kernel as given
    std::optional<convlab::KernelSpec> kernel;
    convlab::Device backend = convlab::Device::Auto;
    int edits = kEdits;
    int pauseMs = 0; // --pause-ms: the event loop runs this long before each edit
    QString json;
};

// "1920x1080" -> 1920x1080; an invalid size (and `error` set) for anything else.
QSize parseSize(const QString& text, QString* error);

// Measures kernel edits in `w` (see the option's help); prints the figures, returns the exit code.
int benchmarkLatency(MainWindow& w, const RunOptions& o);
// Pictures the window, or `panel` (probe, analysis, lab), into `outPath`, the view at `zoom`
// about the image's centre (0: fitted); returns the exit code.
int screenshot(MainWindow& w, const RunOptions& o, const QString& outPath, const QString& panel, double zoom = 0.0);

} // namespace measure
