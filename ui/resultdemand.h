// SPDX-License-Identifier: GPL-3.0-or-later
// A panel that reads the result's values (the histogram counts them all) needs them in host
// memory only while it is on screen: a CUDA result then comes down with its run, and while no
// such panel is shown it stays on the device. A reader of one value (the probe) reads that
// pixel instead (WorkbenchDocument::resultPixel; docs/architecture.md, *The display path*).
#pragma once
#include <QEvent>
#include <QObject>
#include <QWidget>

#include "workbenchdocument.h"

class ResultValuesWhileShown : public QObject {
public:
    ResultValuesWhileShown(QWidget* panel, WorkbenchDocument* doc) : QObject(panel), panel_(panel), doc_(doc)
    {
        panel->installEventFilter(this);
        doc->setHostResultWanted(panel, panel->isVisible());
    }

protected:
    bool eventFilter(QObject* watched, QEvent* e) override
    {
        if (watched == panel_ && (e->type() == QEvent::Show || e->type() == QEvent::Hide))
            doc_->setHostResultWanted(panel_, e->type() == QEvent::Show);
        return false;
    }

private:
    QWidget* panel_;
    WorkbenchDocument* doc_;
};
