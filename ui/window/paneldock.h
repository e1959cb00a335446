// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench's dock: a QDockWidget whose title follows the interface's text size. Qt draws
// a docked title in the font the application had when the dock was made (QDockWidget keeps
// a copy of it), so View > Larger Text and Present grew every panel's text but their titles.
#pragma once
#include <QDockWidget>

class PanelDock : public QDockWidget {
    Q_OBJECT
public:
    PanelDock(const QString& title, QWidget* parent = nullptr);

protected:
    void paintEvent(QPaintEvent* e) override;
};
