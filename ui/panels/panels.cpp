// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/panels.h"

#include <QCoreApplication>
#include <QDockWidget>

#include "panels/analysispanel.h"
#include "panels/differencepanel.h"
#include "panels/histogrampanel.h"
#include "panels/probepanel.h"
#include "panels/timingspanel.h"

namespace {

template <class Panel> QWidget* attached(WorkbenchDocument* doc, ImageView* view)
{
    auto* panel = new Panel;
    panel->attach(doc, view);
    return panel;
}

constexpr DockPanel kDockPanels[] = {
    {"timingsDock", QT_TRANSLATE_NOOP("DockPanel", "Timings"), &attached<TimingsPanel>},
    {"differenceDock", QT_TRANSLATE_NOOP("DockPanel", "Difference"), &attached<DifferencePanel>},
    {"probeDock", QT_TRANSLATE_NOOP("DockPanel", "Pixel Probe"), &attached<ProbePanel>},
    // On top at first: what the kernel does (gain, zero sum, rank, response) reads before timings.
    {"analysisDock", QT_TRANSLATE_NOOP("DockPanel", "Kernel Analysis"), &attached<AnalysisPanel>, true},
    {"histogramDock", QT_TRANSLATE_NOOP("DockPanel", "Histogram"), &attached<HistogramPanel>},
};

} // namespace

std::span<const DockPanel> dockPanels() { return kDockPanels; }

QDockWidget* dockOf(QWidget* panel)
{
    for (QWidget* w = panel; w; w = w->parentWidget())
        if (auto* dock = qobject_cast<QDockWidget*>(w)) return dock;
    return nullptr;
}
