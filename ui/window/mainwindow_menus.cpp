// SPDX-License-Identifier: GPL-3.0-or-later
// The window's menu bar, the small actions behind its entries and the tool dialogs it opens.
#include "window/mainwindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QUndoStack>

#include "tools/borderlab.h"
#include "convlab/error.h"
#include "convlab/io.h"
#include "tools/crossoverdialog.h"
#include "tools/estimatedialog.h"
#include "tools/exportdialog.h"
#include "tools/helpdialogs.h"
#include "view/channelmenu.h"
#include "view/clipmarks.h"
#include "kernel/kerneldocument.h"
#include "workbench/workbenchdocument.h"
#include "window/presentation.h"

void MainWindow::buildMenus()
{
    buildFileMenu();
    buildEditMenu();
    buildViewMenu();
    buildToolsMenu();
    buildHelpMenu();
}

void MainWindow::buildFileMenu()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("&Save Result…"), QKeySequence::Save, this, &MainWindow::saveResultDialog);
    file->addSeparator();
    file->addAction(tr("Open &Kernel…"), QKeySequence(tr("Ctrl+K")), this, &MainWindow::openKernelDialog);
    file->addAction(tr("Save K&ernel…"), QKeySequence(tr("Ctrl+Shift+K")), this, &MainWindow::saveKernelDialog);
    file->addAction(tr("Es&timate Kernel from Image Pair…"), this, [this] { showEstimateDialog(); })
        ->setStatusTip(tr("The kernel that maps the image to a filtered version of it (least squares)"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setMenuRole(QAction::QuitRole);
}

void MainWindow::buildEditMenu()
{
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = doc_->kernel()->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = doc_->kernel()->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("&Copy Kernel as Text"), QKeySequence(tr("Ctrl+Shift+C")), this, &MainWindow::copyKernel);
    edit->addAction(tr("&Paste Kernel"), QKeySequence(tr("Ctrl+Shift+V")), this, &MainWindow::pasteKernel);
    edit->addSeparator();
    // Escape stops what runs; enabled only then, so that it still leaves a cell's editor when
    // nothing runs (the status bar's Cancel button does the same).
    stop_ = edit->addAction(tr("S&top Convolution"), QKeySequence(Qt::Key_Escape), doc_, &WorkbenchDocument::cancel);
    stop_->setStatusTip(tr("Abandon the running convolution or the image being opened; the view keeps the previous result"));
    stop_->setEnabled(false);
    runOverBudget_ = edit->addAction(tr("Run Over &Budget"), doc_, &WorkbenchDocument::runOverBudget);
    runOverBudget_->setStatusTip(tr("Run the chosen method although its estimate is over the window's %1 s budget")
                                     .arg(WorkbenchDocument::kInteractiveBudgetSeconds));
    runOverBudget_->setEnabled(false);
    edit->addSeparator();
    QAction* chain = edit->addAction(tr("Use Result as &Source"), QKeySequence(tr("Ctrl+Shift+R")), this, [this] {
        try {
            doc_->useResultAsSource();
        } catch (const convlab::Error& e) {
            reportError(tr("Cannot use the result as the source: %1").arg(QString::fromUtf8(e.what())));
        }
    });
    chain->setStatusTip(tr("Filter the result next: it becomes the source (one undo step), the title shows the chain"));
    chain->setEnabled(false);
    for (auto signal : {&WorkbenchDocument::resultChanged, &WorkbenchDocument::paramsChanged,
                        &WorkbenchDocument::sourceChanged})
        connect(doc_, signal, chain, [this, chain] { chain->setEnabled(doc_->canUseResultAsSource()); });
}

void MainWindow::buildViewMenu()
{
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    addViewModeActions(viewMenu);
    viewMenu->addSeparator();
    buildMappingMenu(viewMenu);
    // View > Channel is the document's; the view draws the channel it picks.
    viewMenu->addMenu(new ChannelMenu(doc_, this));
    buildDifferenceScaleMenu(viewMenu);
    addViewToggles(viewMenu);
    viewMenu->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) viewMenu->addAction(d->toggleViewAction());
    buildLayoutMenu(viewMenu);
}

void MainWindow::addViewModeActions(QMenu* viewMenu)
{
    modeGroup_ = new QActionGroup(this);
    const std::pair<ImageView::ViewMode, QString> modes[] = {{ImageView::ViewMode::Result, tr("&Result")},
                                                             {ImageView::ViewMode::Original, tr("&Original")},
                                                             {ImageView::ViewMode::Split, tr("&Split")},
                                                             {ImageView::ViewMode::Difference, tr("&Difference")}};
    int key = Qt::Key_1;
    for (const auto& [mode, text] : modes) {
        QAction* a = viewMenu->addAction(text, this, [this, m = mode] { showViewMode(m); });
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(key++)));
        a->setCheckable(true);
        a->setData(int(mode));
        modeGroup_->addAction(a);
    }
}

void MainWindow::buildMappingMenu(QMenu* viewMenu)
{
    QMenu* mapping = viewMenu->addMenu(tr("&Mapping"));
    mapGroup_ = new QActionGroup(this);
    const std::pair<ImageView::Mapping, QString> maps[] = {
        {ImageView::Mapping::Clamp, tr("&Clamp to the source range")},
        {ImageView::Mapping::Abs, tr("&Absolute value")},
        {ImageView::Mapping::Normalize, tr("&Normalize min–max")},
        {ImageView::Mapping::Offset, tr("&Offset to mid-grey")},
        {ImageView::Mapping::Diverging, tr("&Diverging colour map")}};
    mappingFollows_ = mapping->addAction(tr("A&utomatic: as the kernel's results read best"), doc_,
                                         &WorkbenchDocument::setMappingFollowsKernel);
    mappingFollows_->setCheckable(true);
    mappingFollows_->setStatusTip(tr("Signed results (edge kernels, Laplacians) in the diverging map centred at "
                                     "zero, the others clamped to the source's range; follows each edit"));
    mapping->addSeparator();
    for (const auto& [m, text] : maps) {
        QAction* a = mapping->addAction(text, this, [this, m = m] { doc_->setMapping(m); });
        a->setCheckable(true);
        a->setData(int(m));
        mapGroup_->addAction(a);
    }
}

void MainWindow::buildDifferenceScaleMenu(QMenu* viewMenu)
{
    QMenu* scaleMenu = viewMenu->addMenu(tr("Difference &Scale"));
    scaleGroup_ = new QActionGroup(this);
    const std::pair<ImageView::DifferenceScale, QString> scales[] = {
        {ImageView::DifferenceScale::Absolute, tr("&Fixed: 1% of the value range (rounding noise stays dark)")},
        {ImageView::DifferenceScale::Relative, tr("&Relative: the largest difference is full scale")}};
    for (const auto& [scale, text] : scales) {
        QAction* a = scaleMenu->addAction(text, this, [this, sc = scale] { doc_->setDifferenceScale(sc); });
        a->setCheckable(true);
        a->setData(int(scale));
        scaleGroup_->addAction(a);
    }
}

void MainWindow::addViewToggles(QMenu* viewMenu)
{
    padding_ = viewMenu->addAction(tr("Show &Padding"), doc_, &WorkbenchDocument::setPaddingShown);
    padding_->setCheckable(true);
    padding_->setStatusTip(tr("Extend the view past the image edges with what the border mode invents there"));
    loupe_ = viewMenu->addAction(tr("&Edge Loupe"), doc_, &WorkbenchDocument::setEdgeLoupeShown);
    loupe_->setCheckable(true);
    loupe_->setShortcut(QKeySequence(Qt::Key_L));
    loupe_->setStatusTip(tr("A corner magnified: the source with the padding the border mode invents beside the "
                            "result; shown again when the border mode or the kernel's size changes"));
    QAction* clip = buildClipMarksAction(viewMenu);
    viewMenu->addSeparator();
    // Single-key shortcuts live on the view so they never steal keys typed into the kernel grid.
    QAction* fit = viewMenu->addAction(tr("&Fit to Window"), this, [this] { view_->fitToWindow(); });
    fit->setShortcut(QKeySequence(Qt::Key_F));
    QAction* actual = viewMenu->addAction(tr("&Actual Size (1:1)"), this, [this] { view_->actualSize(); });
    actual->setShortcut(QKeySequence(Qt::Key_1));
    QAction* original = viewMenu->addAction(tr("Show Ori&ginal (hold Space)"), view_, &ImageView::setOriginalShown);
    original->setCheckable(true);
    original->setShortcut(QKeySequence(Qt::Key_O));
    original->setStatusTip(tr("Before/after: the original in place of the result, whatever the view mode"));
    QAction* grid = pixelGrid_ = viewMenu->addAction(tr("Pixel G&rid"), doc_, &WorkbenchDocument::setPixelGridShown);
    grid->setCheckable(true);
    grid->setShortcut(QKeySequence(Qt::Key_G));
    grid->setStatusTip(tr("Zoomed in beyond 800%: outline every pixel; beyond 3200%: write its values into it"));
    QAction* floatRange = floatRange_ =
        viewMenu->addAction(tr("Float Range by &Values"), doc_, &WorkbenchDocument::setFloatRangeByValues);
    floatRange->setCheckable(true);
    floatRange->setStatusTip(tr("Float images: map 0..255 (or 0..65535, or 0..max) when their values say so; "
                                "off: 0..1 as written to files"));
    for (QAction* a : {fit, actual, original, grid, loupe_, clip}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        view_->addAction(a);
    }
}

void MainWindow::buildToolsMenu()
{
    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("&Export Code…"), QKeySequence(tr("Ctrl+E")), this, [this] { showExportDialog(); })
        ->setStatusTip(tr("The current filter written for scipy, OpenCV (Python, C++) and CuPy"));
    tools->addAction(tr("&Crossover Sweep…"), this, [this] { showCrossoverDialog(); })
        ->setStatusTip(tr("Time each method auto weighs against kernel size on this image"));
    tools->addAction(tr("&Border-Mode Lab…"), QKeySequence(tr("Ctrl+B")), this, [this] { showBorderLab(); })
        ->setStatusTip(tr("The filter under every border mode side by side, with difference maps"));
}

void MainWindow::buildHelpMenu()
{
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Teaching Guide"), QKeySequence::HelpContents, this, [this] { showGuide(); })
        ->setStatusTip(tr("What each panel shows, and a suggested classroom sequence"));
    help->addAction(tr("&Keyboard Shortcuts"), QKeySequence(tr("Ctrl+/")), this, [this] { showShortcuts(); });
    help->addSeparator();
    QAction* aboutAction = help->addAction(tr("&About ConvLab"), this, &MainWindow::about);
    aboutAction->setMenuRole(QAction::AboutRole);
}

QAction* MainWindow::buildClipMarksAction(QMenu* viewMenu)
{
    auto* marks = new ClipMarks(view_);
    marks->attach(doc_);
    QAction* clip = viewMenu->addAction(tr("Mark &Clipped Pixels"));
    clip->setCheckable(true);
    clip->setShortcut(QKeySequence(Qt::Key_C));
    clip->setStatusTip(tr("8- and 16-bit sources: tint the result's pixels a file of that type would clamp, "
                          "blue below 0, magenta above the top, and count them in the caption"));
    connect(clip, &QAction::toggled, marks, &ClipMarks::setEnabled);
    connect(clip, &QAction::toggled, this, [this](bool on) {
        if (persistent_) QSettings().setValue("view/markClipped", on);
    });
    if (persistent_) clip->setChecked(QSettings().value("view/markClipped", false).toBool());
    return clip;
}

ExportDialog* MainWindow::showExportDialog()
{
    if (!export_) export_ = new ExportDialog(this);
    export_->setParams(currentParams());
    export_->show();
    export_->raise();
    return export_;
}

CrossoverDialog* MainWindow::showCrossoverDialog()
{
    if (!crossover_) crossover_ = new CrossoverDialog(this);
    crossover_->setInput(doc_->source(), currentParams());
    crossover_->show();
    crossover_->raise();
    return crossover_;
}

EstimateDialog* MainWindow::showEstimateDialog()
{
    if (!estimate_) estimate_ = new EstimateDialog(doc_->kernel(), this);
    estimate_->setCurrentSource(doc_->source());
    estimate_->show();
    estimate_->raise();
    return estimate_;
}

ShortcutsDialog* MainWindow::showShortcuts()
{
    if (!shortcuts_) shortcuts_ = new ShortcutsDialog(this);
    shortcuts_->refresh();
    shortcuts_->show();
    shortcuts_->raise();
    return shortcuts_;
}

GuideDialog* MainWindow::showGuide()
{
    if (!guide_) guide_ = new GuideDialog(this);
    guide_->show();
    guide_->raise();
    return guide_;
}

BorderLabWindow* MainWindow::showBorderLab()
{
    if (!doc_->source()) {
        reportError(tr("Open an image first: the border-mode lab filters the current image."));
        return nullptr;
    }
    if (!lab_) {
        lab_ = new BorderLabWindow(doc_->source(), currentParams(), this);
        lab_->setWindowFlag(Qt::Window);
        lab_->setWindowTitle(tr("Border-Mode Lab — ConvLab"));
        lab_->resize(1200, 760);
        lab_->setMapping(doc_->displayState().mapping); // the lab reads like the main view
    } else {
        lab_->setSource(doc_->source());
        lab_->setParams(currentParams());
    }
    lab_->show();
    lab_->raise();
    return lab_;
}

bool MainWindow::pasteKernelText(const QString& text)
{
    try {
        doc_->kernel()->setKernel(convlab::parseKernelText(text.toStdString()), tr("Paste kernel"));
    } catch (const convlab::Error& e) {
        reportError(tr("Cannot paste the kernel: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    return true;
}

void MainWindow::copyKernel() { QGuiApplication::clipboard()->setText(QString::fromStdString(doc_->kernel()->kernel().toText())); }

void MainWindow::pasteKernel() { pasteKernelText(QGuiApplication::clipboard()->text()); }

void MainWindow::about()
{
    std::string why;
    const bool cuda = convlab::cudaAvailable(&why);
    std::string formatsWhy;
    const QString formats = convlab::imageFormatsAvailable(&formatsWhy)
                                ? tr("PNG, JPEG, TIFF, BMP, PNM, WebP through OpenCV imgcodecs (via the engine); .npy")
                                : tr(".npy only (%1)").arg(QString::fromStdString(formatsWhy).toHtmlEscaped());
    QMessageBox::about(this, tr("About ConvLab"),
                       tr("<h3>ConvLab %1</h3><p>A workbench for image convolution.</p>"
                          "<p>Qt %2 (built with %3)<br>Image files: %4<br>CUDA: %5</p>"
                          "<p>License: GPL-3.0-or-later</p>")
                           .arg(versionString(), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
                                formats,
                                cuda ? tr("available") : tr("unavailable — %1").arg(QString::fromStdString(why))));
}

void MainWindow::buildLayoutMenu(QMenu* viewMenu)
{
    viewMenu->addSeparator();
    viewMenu->addAction(tr("Reset &Layout"), this, &MainWindow::resetLayout)
        ->setStatusTip(tr("Every panel back where it was at the first launch, the image at most of the width"));
    QAction* present = viewMenu->addAction(tr("&Present"), presentation_, &Presentation::setActive);
    present->setCheckable(true);
    present->setShortcut(QKeySequence(Qt::Key_F11));
    present->setStatusTip(tr("For a projector: full screen, the image and one panel, larger text (F11 leaves)"));
    connect(presentation_, &Presentation::activeChanged, present, &QAction::setChecked);
    QMenu* presentWith = viewMenu->addMenu(tr("Present &With"));
    auto* presentGroup = new QActionGroup(this);
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        QAction* a = presentWith->addAction(d->windowTitle(), this, [this, name = d->objectName()] {
            presentation_->setDock(name);
        });
        a->setCheckable(true);
        a->setChecked(d->objectName() == presentation_->dock());
        presentGroup->addAction(a);
    }
    viewMenu->addAction(tr("&Larger Text"), QKeySequence::ZoomIn, this, [] { TextScale::larger(); });
    viewMenu->addAction(tr("S&maller Text"), QKeySequence::ZoomOut, this, [] { TextScale::smaller(); });
}
