// SPDX-License-Identifier: GPL-3.0-or-later
#include "shots.h"

#include <QAction>
#include <QDockWidget>
#include <QObject>

#include "convlab/kernel.h"
#include "kernel/kerneldocument.h"
#include "panels/panels.h"
#include "panels/probepanel.h"
#include "panels/probestepper.h"
#include "view/clipmarks.h"
#include "view/imageview.h"
#include "window/mainwindow.h"
#include "workbench/workbenchdocument.h"

namespace measure {
namespace {

constexpr int kSweepWidth = 12, kSweepHeight = 8;
constexpr int kSweptBeforeThePicture = 41; // about 40% of the region, part-way along a row
constexpr double kSweepZoom = 24.0;

QWidget* showSweep(MainWindow& w, const std::function<bool(const std::function<bool()>&)>& until)
{
    ProbePanel* probe = w.panel<ProbePanel>();
    QDockWidget* dock = dockOf(probe);
    dock->show();
    dock->raise();
    // The result alone, the corner loupe away: the veil over the outputs still to come is the point.
    w.workbench()->setViewMode(display::Mode::Result);
    w.workbench()->setEdgeLoupeShown(false);
    const QSize image = w.imageView()->imageSize();
    const QRect region(image.width() / 2 - kSweepWidth / 2, image.height() / 2 - kSweepHeight / 2, kSweepWidth,
                       kSweepHeight);
    if (!probe->setSweepRegion(region)) return nullptr;
    w.imageView()->centreOnPixel(region.center().x(), region.center().y());
    w.imageView()->setZoom(kSweepZoom);
    // Fast to the picture's moment, then held there: the next pixel's sum one row in.
    int swept = 0;
    QObject::connect(probe, &ProbePanel::sumCompleted, probe, [&swept] { ++swept; });
    probe->stepper()->setIntervalMs(2);
    probe->setPlaying(true);
    if (!until([&] { return swept >= kSweptBeforeThePicture; })) return nullptr;
    if (!until([&] { return probe->stepper()->revealedRows() == 1; })) return nullptr;
    probe->stepper()->setIntervalMs(1 << 30);
    return &w;
}

QWidget* showClipMarks(MainWindow& w, const std::function<bool()>& displayed)
{
    w.kernelDocument()->setKernel(convlab::makePreset("sharpen"), QObject::tr("Sharpen"));
    if (!displayed()) return nullptr;
    w.workbench()->setViewMode(display::Mode::Result);
    w.workbench()->setEdgeLoupeShown(false);
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == QObject::tr("Mark &Clipped Pixels")) a->setChecked(true);
    auto* marks = w.imageView()->findChild<ClipMarks*>();
    return marks && marks->enabled() ? &w : nullptr;
}

} // namespace

QWidget* showTeachingState(MainWindow& w, const QString& name, const std::function<bool()>& displayed,
                           const std::function<bool(const std::function<bool()>&)>& until)
{
    if (name == "sweep") return showSweep(w, until);
    if (name == "clip") return showClipMarks(w, displayed);
    return nullptr;
}

} // namespace measure
