// SPDX-License-Identifier: GPL-3.0-or-later
// The docks that show what the workbench document holds, in one table: MainWindow builds them
// from it, tabbed together beside the image in this order (the one marked onTop is raised). A panel is a
// QWidget with `void attach(WorkbenchDocument*, ImageView*)`, which subscribes it to the
// document (and the view, when it needs one); a new panel is its two files and a row here.
#pragma once
#include <QtGlobal>
#include <span>

class ImageView;
class QDockWidget;
class QWidget;
class WorkbenchDocument;

struct DockPanel {
    const char* objectName; // the dock's name in the saved layout
    const char* title;      // translated in the context "DockPanel"
    QWidget* (*make)(WorkbenchDocument* doc, ImageView* view);
    bool onTop = false; // the tab a first launch shows (the one a newcomer reads first)
};

std::span<const DockPanel> dockPanels();

// The dock a panel sits in (through the scroll area MainWindow puts it in), or null.
QDockWidget* dockOf(QWidget* panel);
