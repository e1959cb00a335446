// SPDX-License-Identifier: GPL-3.0-or-later
#include "workbench/viewbinding.h"

#include <QCoreApplication>
#include <algorithm>

#include "convlab/error.h"
#include "kernel/kerneldocument.h"
#include "view/imageview.h"
#include "workbench/workbenchdocument.h"

int paddingMarginFor(const WorkbenchDocument& doc)
{
    const convlab::Kernel& k = doc.kernel()->kernel();
    const int reach = std::max({k.ax(), k.width - 1 - k.ax(), k.ay(), k.height - 1 - k.ay()});
    return std::clamp(reach, 16, ImageView::kMaxPaddingMargin);
}

namespace {

void showPadding(const WorkbenchDocument& doc, ImageView* view, const std::function<void(const QString&)>& report)
{
    try {
        view->setBorderForPreview(doc.runSettings().border);
        const convlab::Kernel& k = doc.kernel()->kernel();
        view->setKernelReach(std::max({k.ax(), k.width - 1 - k.ax(), k.ay(), k.height - 1 - k.ay()}));
        if (doc.displayState().paddingShown || view->paddingPreview())
            view->setPaddingPreview(doc.displayState().paddingShown, paddingMarginFor(doc));
    } catch (const convlab::Error& e) {
        if (report)
            report(QCoreApplication::translate("MainWindow", "Cannot show the padding: %1").arg(QString::fromUtf8(e.what())));
    }
}

} // namespace

void bindViewToDocument(WorkbenchDocument* doc, ImageView* view, std::function<void(const QString&)> reportError)
{
    auto show = [doc, view, reportError] {
        view->showDisplayState(doc->displayState());
        showPadding(*doc, view, reportError);
    };
    QObject::connect(doc, &WorkbenchDocument::displayStateChanged, view, show);
    QObject::connect(doc, &WorkbenchDocument::paramsChanged, view,
                     [doc, view, reportError] { showPadding(*doc, view, reportError); });
    QObject::connect(view, &ImageView::splitDragged, doc, &WorkbenchDocument::setSplitPosition);
    show();
}
