// SPDX-License-Identifier: GPL-3.0-or-later
#include "workbench/mainwindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include <algorithm>

#include "panels/analysispanel.h"
#include "tools/borderlab.h"
#include "panels/controlspanel.h"
#include "convlab/error.h"
#include "convlab/gpu.h"
#include "convlab/io.h"
#include "convlab/testchart.h"
#include "tools/crossoverdialog.h"
#include "panels/differencepanel.h"
#include "tools/estimatedialog.h"
#include "tools/exportdialog.h"
#include "tools/helpdialogs.h"
#include "view/channelmenu.h"
#include "panels/histogrampanel.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneleditor.h"
#include "kernel/kerneltextedit.h"
#include "panels/probepanel.h"
#include "workbench/rendercontroller.h"
#include "panels/panels.h"
#include "panels/timingspanel.h"
#include "workbench/workbenchdocument.h"

#ifndef CONVLAB_VERSION
#define CONVLAB_VERSION "unknown"
#endif

namespace {

constexpr int kMaxRecent = 8;

// Depth and value mapping for Save Result; the format comes from the file's extension.
bool askSaveOptions(QWidget* parent, const QString& path, convlab::SaveOptions& opts)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(QObject::tr("Save %1").arg(QFileInfo(path).fileName()));
    auto* depth = new QComboBox;
    const bool npy = path.endsWith(".npy", Qt::CaseInsensitive);
    depth->addItem(npy ? QObject::tr("32-bit float") : QObject::tr("as the source"), -1);
    depth->addItem(QObject::tr("8-bit"), int(convlab::SampleDepth::U8));
    depth->addItem(QObject::tr("16-bit"), int(convlab::SampleDepth::U16));
    depth->addItem(QObject::tr("32-bit float"), int(convlab::SampleDepth::F32));
    auto* map = new QComboBox;
    for (convlab::OutputMap m : {convlab::OutputMap::Clamp, convlab::OutputMap::Abs, convlab::OutputMap::Normalize,
                                 convlab::OutputMap::Offset})
        map->addItem(QString::fromStdString(convlab::outputMapName(m)), int(m));
    map->setToolTip(QObject::tr("How float results become integer samples (float output keeps the values)"));
    auto* form = new QFormLayout(&dialog);
    form->addRow(QObject::tr("Depth"), depth);
    form->addRow(QObject::tr("Mapping"), map);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted) return false;
    if (const int d = depth->currentData().toInt(); d >= 0) opts.depth = convlab::SampleDepth(d);
    opts.map = convlab::OutputMap(map->currentData().toInt());
    return true;
}

} // namespace

MainWindow::MainWindow(bool persistent, QWidget* parent) : QMainWindow(parent), persistent_(persistent)
{
    setWindowTitle(tr("ConvLab"));
    setAcceptDrops(true);
    doc_ = new WorkbenchDocument(this);
    reporter_ = [this](const QString& message) { QMessageBox::warning(this, tr("ConvLab"), message); };

    view_ = new ImageView;
    view_->setFocusPolicy(Qt::StrongFocus);
    setCentralWidget(view_);

    buildDocks();
    buildMenus();
    buildStatusBar();
    connectDocument();

    connect(controls_, &ControlsPanel::changed, this, [this] {
        doc_->setRunSettings({controls_->border(), controls_->method(), controls_->device(), controls_->threads()});
    });
    connect(editor_, &KernelEditor::errorOccurred, this, &MainWindow::reportError);

    connect(view_, &ImageView::pixelHovered, this, &MainWindow::showPixel);
    connect(doc_, &WorkbenchDocument::resultPixelRead, this, [this](int x, int y, const QVector<float>& values) {
        if (QPoint(x, y) == hoveredPixel_) showPixelValues(x, y, values);
    });
    connect(view_, &ImageView::zoomChanged, this,
            [this](double z) { zoomLabel_->setText(tr("zoom %1%").arg(z * 100.0, 0, 'f', z < 0.1 ? 1 : 0)); });
    view_->installEventFilter(this);
    connect(view_, &QOpenGLWidget::frameSwapped, this, [this] {
        if (pendingDisplayId_ == 0) return;
        const quint64 id = pendingDisplayId_;
        pendingDisplayId_ = 0;
        panel<TimingsPanel>()->setDisplayMs(view_->lastDisplayMs());
        emit resultDisplayed(id);
    });

    const bool restored = persistent_ && QSettings().contains("geometry");
    if (persistent_) readSettings();
    if (!restored) applyFirstLaunchLayout();
    rebuildRecentMenu();
    doc_->setRunSettings({controls_->border(), controls_->method(), controls_->device(), controls_->threads()});
    onParamsChanged();
}

MainWindow::~MainWindow() { doc_->shutdown(); }

KernelDocument* MainWindow::kernelDocument() const { return doc_->kernel(); }
RenderController* MainWindow::renderController() const { return doc_->renderer(); }
RenderController* MainWindow::compareController() const { return doc_->comparer(); }
std::shared_ptr<const convlab::Image> MainWindow::sourceImage() const { return doc_->source(); }

QString MainWindow::versionString() { return QStringLiteral(CONVLAB_VERSION); }

void MainWindow::setErrorReporter(std::function<void(const QString&)> reporter) { reporter_ = std::move(reporter); }

void MainWindow::reportError(const QString& message)
{
    statusBar()->showMessage(message, 8000);
    emit errorReported(message);
    if (reporter_) reporter_(message);
}

void MainWindow::buildStatusBar()
{
    pixelLabel_ = new QLabel;
    zoomLabel_ = new QLabel;
    zoomLabel_->setToolTip(tr("Screen pixels per image pixel (F: fit to the window, 1: actual size)"));
    busy_ = new QProgressBar;
    busy_->setRange(0, 0);
    busy_->setMaximumWidth(120);
    busy_->hide();
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setToolTip(tr("Abandon the running convolution or the image being opened"));
    cancel_->hide();
    statusBar()->addWidget(pixelLabel_, 1);
    statusBar()->addPermanentWidget(zoomLabel_);
    statusBar()->addPermanentWidget(busy_);
    statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, doc_, &WorkbenchDocument::cancel);
}

void MainWindow::connectDocument()
{
    connect(doc_, &WorkbenchDocument::sourceChanged, this, &MainWindow::onSourceChanged);
    connect(doc_, &WorkbenchDocument::paramsChanged, this, &MainWindow::onParamsChanged);
    connect(doc_, &WorkbenchDocument::resultChanged, this, &MainWindow::onResultChanged);
    connect(doc_, &WorkbenchDocument::gpuResultResident, this, &MainWindow::onGpuResultResident);
    connect(doc_, &WorkbenchDocument::resultHostReady, this, &MainWindow::onResultHostReady);
    connect(doc_, &WorkbenchDocument::comparisonChanged, this, &MainWindow::onComparisonChanged);
    connect(doc_, &WorkbenchDocument::busyChanged, this, &MainWindow::updateBusy);
    connect(doc_, &WorkbenchDocument::renderFailed, this,
            [this](const QString& m) { reportError(tr("Convolution failed: %1").arg(m)); });
    connect(doc_, &WorkbenchDocument::renderCancelled, this,
            [this] { statusBar()->showMessage(tr("Cancelled: the view shows the previous result"), 4000); });
    connect(doc_, &WorkbenchDocument::openStarted, this, [this](const QString& path) {
        statusBar()->showMessage(tr("Opening %1 …").arg(QFileInfo(path).fileName()));
    });
    connect(doc_, &WorkbenchDocument::openFailed, this, [this](const QString& path, const QString& m) {
        statusBar()->clearMessage();
        reportError(tr("Cannot open %1: %2").arg(QFileInfo(path).fileName(), m));
    });
}

void MainWindow::updateBusy()
{
    const bool busy = doc_->busy();
    busy_->setVisible(busy);
    cancel_->setVisible(busy);
    if (!doc_->opening() && statusBar()->currentMessage().startsWith(tr("Opening"))) statusBar()->clearMessage();
}

void MainWindow::applyFirstLaunchLayout(QSize size)
{
    if (!size.isValid()) {
        const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1280, 800);
        size = QSize(std::min(1600, avail.width() * 9 / 10), std::min(1000, avail.height() * 9 / 10));
        move(avail.topLeft() + QPoint((avail.width() - size.width()) / 2, (avail.height() - size.height()) / 2));
    }
    resize(size);
    // The docks share at most half the width; the image is what the window is for.
    const int left = std::max(240, size.width() * 22 / 100), right = std::max(220, size.width() / 5);
    QList<QDockWidget*> leftDocks, rightDocks;
    for (QDockWidget* d : findChildren<QDockWidget*>())
        if (!d->isFloating()) (dockWidgetArea(d) == Qt::LeftDockWidgetArea ? leftDocks : rightDocks).append(d);
    QList<QDockWidget*> docks;
    QList<int> widths;
    if (!leftDocks.isEmpty()) {
        docks << leftDocks.first();
        widths << left;
    }
    if (!rightDocks.isEmpty()) {
        docks << rightDocks.first();
        widths << right;
    }
    resizeDocks(docks, widths, Qt::Horizontal);
}

void MainWindow::showFirstLaunchExample()
{
    KernelState example;
    example.kernel = convlab::makePreset("laplacian8");
    doc_->kernel()->reset(example);
    view_->setMapping(ImageView::Mapping::Abs);
    showViewMode(ImageView::ViewMode::Split);
    for (QAction* a : mapGroup_->actions()) a->setChecked(a->data().toInt() == int(ImageView::Mapping::Abs));
}

void MainWindow::buildDocks()
{
    editor_ = new KernelEditor(doc_->kernel());
    controls_ = new ControlsPanel;
    auto dock = [this](QWidget* w, const QString& title, const QString& name, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    // The text form under the grid; the splitter lets either take the room.
    kernelText_ = new KernelTextEdit(doc_->kernel());
    auto* kernelSplit = new QSplitter(Qt::Vertical);
    kernelSplit->setObjectName("kernelSplit");
    kernelSplit->addWidget(editor_);
    kernelSplit->addWidget(kernelText_);
    kernelSplit->setStretchFactor(0, 3);
    kernelSplit->setStretchFactor(1, 1);
    dock(kernelSplit, tr("Kernel"), "kernelDock", Qt::LeftDockWidgetArea);
    dock(controls_, tr("Controls"), "controlsDock", Qt::LeftDockWidgetArea);
    // The panels that show what the document holds, tabbed beside the image (ui/panels/panels.h).
    // Each is tabbed onto the second, as the layout has been since the panels were written by hand.
    QDockWidget* first = nullptr;
    QDockWidget* second = nullptr;
    for (const DockPanel& p : dockPanels()) {
        QDockWidget* d = dock(p.make(doc_, view_), QCoreApplication::translate("DockPanel", p.title),
                              QString::fromLatin1(p.objectName), Qt::RightDockWidgetArea);
        if (!first) {
            first = d;
            continue;
        }
        tabifyDockWidget(second ? second : first, d);
        if (!second) second = d;
    }
    if (first) first->raise();
}

void MainWindow::buildMenus()
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

    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
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
        a->setChecked(mode == ImageView::ViewMode::Result);
        a->setData(int(mode));
        modeGroup_->addAction(a);
    }
    viewMenu->addSeparator();
    QMenu* mapping = viewMenu->addMenu(tr("&Mapping"));
    mapGroup_ = new QActionGroup(this);
    const std::pair<ImageView::Mapping, QString> maps[] = {
        {ImageView::Mapping::Clamp, tr("&Clamp to the source range")},
        {ImageView::Mapping::Abs, tr("&Absolute value")},
        {ImageView::Mapping::Normalize, tr("&Normalize min–max")},
        {ImageView::Mapping::Offset, tr("&Offset to mid-grey")},
        {ImageView::Mapping::Diverging, tr("&Diverging colour map")}};
    for (const auto& [m, text] : maps) {
        QAction* a = mapping->addAction(text, this, [this, m = m] { view_->setMapping(m); });
        a->setCheckable(true);
        a->setChecked(m == ImageView::Mapping::Clamp);
        a->setData(int(m));
        mapGroup_->addAction(a);
    }
    // View > Channel is the document's; the view draws the channel it picks.
    viewMenu->addMenu(new ChannelMenu(doc_, this));
    connect(doc_, &WorkbenchDocument::displayChannelChanged, view_, &ImageView::setDisplayChannel);
    QMenu* scaleMenu = viewMenu->addMenu(tr("Difference &Scale"));
    auto* scaleGroup = new QActionGroup(this);
    const std::pair<ImageView::DifferenceScale, QString> scales[] = {
        {ImageView::DifferenceScale::Absolute, tr("&Fixed: 1% of the value range (rounding noise stays dark)")},
        {ImageView::DifferenceScale::Relative, tr("&Relative: the largest difference is full scale")}};
    for (const auto& [scale, text] : scales) {
        QAction* a = scaleMenu->addAction(text, this, [this, sc = scale] { view_->setDifferenceScale(sc); });
        a->setCheckable(true);
        a->setChecked(scale == view_->differenceScale());
        scaleGroup->addAction(a);
    }
    padding_ = viewMenu->addAction(tr("Show &Padding"), this, [this](bool on) { setPaddingShown(on); });
    padding_->setCheckable(true);
    padding_->setStatusTip(tr("Extend the view past the image edges with what the border mode invents there"));
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
    QAction* grid = viewMenu->addAction(tr("Pixel G&rid"), view_, &ImageView::setPixelGridEnabled);
    grid->setCheckable(true);
    grid->setChecked(view_->pixelGridEnabled());
    grid->setShortcut(QKeySequence(Qt::Key_G));
    grid->setStatusTip(tr("Zoomed in beyond 800%: outline every pixel; beyond 3200%: write its values into it"));
    for (QAction* a : {fit, actual, original, grid}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        view_->addAction(a);
    }
    viewMenu->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) viewMenu->addAction(d->toggleViewAction());

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("&Export Code…"), QKeySequence(tr("Ctrl+E")), this, [this] { showExportDialog(); })
        ->setStatusTip(tr("The current filter written for scipy, OpenCV (Python, C++) and CuPy"));
    tools->addAction(tr("&Crossover Sweep…"), this, [this] { showCrossoverDialog(); })
        ->setStatusTip(tr("Time each method auto weighs against kernel size on this image"));
    tools->addAction(tr("&Border-Mode Lab…"), QKeySequence(tr("Ctrl+B")), this, [this] { showBorderLab(); })
        ->setStatusTip(tr("The filter under every border mode side by side, with difference maps"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Teaching Guide"), QKeySequence::HelpContents, this, [this] { showGuide(); })
        ->setStatusTip(tr("What each panel shows, and a suggested classroom sequence"));
    help->addAction(tr("&Keyboard Shortcuts"), QKeySequence(tr("Ctrl+/")), this, [this] { showShortcuts(); });
    help->addSeparator();
    QAction* aboutAction = help->addAction(tr("&About ConvLab"), this, &MainWindow::about);
    aboutAction->setMenuRole(QAction::AboutRole);
}

convlab::ConvolveParams MainWindow::currentParams() const { return doc_->params(); }

void MainWindow::onParamsChanged()
{
    const convlab::ConvolveParams p = currentParams();
    try {
        view_->setBorderForPreview(p.border);
        if (paddingShown()) view_->setPaddingPreview(true, paddingMargin());
    } catch (const convlab::Error& e) {
        reportError(tr("Cannot show the padding: %1").arg(QString::fromUtf8(e.what())));
    }
    if (lab_ && lab_->isVisible()) lab_->setParams(p);
    if (export_ && export_->isVisible()) export_->setParams(p);
    if (crossover_ && crossover_->isVisible()) crossover_->setInput(doc_->source(), p);
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
    } else {
        lab_->setSource(doc_->source());
        lab_->setParams(currentParams());
    }
    lab_->show();
    lab_->raise();
    return lab_;
}

bool MainWindow::paddingShown() const { return padding_->isChecked(); }

int MainWindow::paddingMargin() const
{
    const convlab::Kernel& k = doc_->kernel()->kernel();
    const int reach = std::max({k.ax(), k.width - 1 - k.ax(), k.ay(), k.height - 1 - k.ay()});
    return std::clamp(reach, 16, ImageView::kMaxPaddingMargin);
}

void MainWindow::setPaddingShown(bool on)
{
    padding_->setChecked(on);
    try {
        view_->setBorderForPreview(controls_->border());
        view_->setPaddingPreview(on, paddingMargin());
    } catch (const convlab::Error& e) {
        reportError(tr("Cannot show the padding: %1").arg(QString::fromUtf8(e.what())));
    }
}

bool MainWindow::eventFilter(QObject* watched, QEvent* e)
{
    if (watched == view_ && e->type() == QEvent::KeyPress && doc_->source()) {
        const auto* k = static_cast<QKeyEvent*>(e);
        const int step = k->modifiers() & Qt::ShiftModifier ? 10 : 1;
        const Qt::KeyboardModifiers other = k->modifiers() & ~(Qt::ShiftModifier | Qt::KeypadModifier);
        int dx = 0, dy = 0;
        switch (k->key()) {
        case Qt::Key_Left: dx = -step; break;
        case Qt::Key_Right: dx = step; break;
        case Qt::Key_Up: dy = -step; break;
        case Qt::Key_Down: dy = step; break;
        default: break;
        }
        if ((dx || dy) && other == Qt::NoModifier) {
            panel<ProbePanel>()->moveBy(dx, dy);
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, e);
}

void MainWindow::onResultChanged()
{
    const WorkbenchDocument::Result& r = *doc_->result();
    pendingDisplayId_ = r.requestId;
    if (earlyDisplayedId_ == r.requestId && r.report.device == convlab::Device::Cuda) {
        setDisplayPath(r.image ? tr("CUDA to the OpenGL buffer (interop), shown before the download")
                               : tr("CUDA to the OpenGL buffer (interop); the values stay on the GPU"));
    } else if (const QString gpu = showGpuResult(r.width, r.height, r.channels, r.report); !gpu.isEmpty()) {
        setDisplayPath(gpu);
    } else if (r.image) {
        view_->setResult(r.image);
        if (r.report.device != convlab::Device::Cuda) setDisplayPath(tr("host memory to the OpenGL buffer"));
    } else {
        // CUDA cannot draw into the view here: the values come down (onResultHostReady draws them,
        // and the frame after that is the result's), and from now on with each run.
        pendingDisplayId_ = 0;
        doc_->setHostResultWanted(view_, true);
        return;
    }
    view_->update();
}

void MainWindow::onResultHostReady()
{
    const WorkbenchDocument::Result& r = *doc_->result();
    if (earlyDisplayedId_ == r.requestId) return; // drawn from the device already
    pendingDisplayId_ = r.requestId; // the next frame shows it
    view_->setResult(r.image);
    view_->update();
}

void MainWindow::setDisplayPath(const QString& path)
{
    displayPath_ = path;
    panel<TimingsPanel>()->setDisplayPath(path);
}

bool MainWindow::copyGpuResultIntoView(int width, int height, int channels)
{
    const auto gpu = renderController()->gpuSession();
    if (!gpu || !interopError_.isEmpty()) return false;
    // CUDA writes the view's pixel buffer on the device: no trip through host memory.
    try {
        view_->makeCurrent();
        const unsigned int buffer = view_->resultBuffer(width, height, channels);
        gpu->copyLastResultToGlBuffer(buffer, static_cast<std::size_t>(width) * height * channels);
        view_->doneCurrent();
        view_->resultBufferWritten(width, height, channels);
        return true;
    } catch (const convlab::Error& e) {
        view_->doneCurrent();
        interopError_ = QString::fromUtf8(e.what()); // e.g. the GL context is not on the NVIDIA device
        return false;
    }
}

void MainWindow::onGpuResultResident(quint64 id, int width, int height, int channels)
{
    if (id != renderController()->latestId()) return; // superseded
    if (copyGpuResultIntoView(width, height, channels)) earlyDisplayedId_ = id; // else the host copy follows
}

QString MainWindow::showGpuResult(int width, int height, int channels, const convlab::RunReport& report)
{
    if (report.device != convlab::Device::Cuda) return {};
    if (copyGpuResultIntoView(width, height, channels))
        return tr("CUDA to the OpenGL buffer (interop)");
    // The caller draws the host copy.
    setDisplayPath(tr("download + upload (%1)")
                       .arg(interopError_.isEmpty() ? tr("no GPU session")
                                                    : tr("interop unavailable: %1").arg(interopError_)));
    return {};
}

void MainWindow::onComparisonChanged()
{
    const WorkbenchDocument::Comparison* c = doc_->comparison();
    if (!c) {
        // Whatever was compared is of older parameters or another image: never shown again.
        view_->clearDifference();
        if (view_->viewMode() == ImageView::ViewMode::Difference) showViewMode(ImageView::ViewMode::Result);
        return;
    }
    view_->setDifference(c->difference);
    showViewMode(ImageView::ViewMode::Difference);
}

void MainWindow::showViewMode(ImageView::ViewMode m)
{
    if (m == ImageView::ViewMode::Difference && !doc_->comparison()) {
        // No difference exists for what is on screen: say so rather than draw an old one.
        statusBar()->showMessage(tr("No difference for the current result: pick path B in the Difference "
                                    "panel and press Compare."),
                                 6000);
        panel<DifferencePanel>()->parentWidget()->raise(); // its dock
        m = view_->viewMode();
    }
    view_->setViewMode(m);
    for (QAction* a : modeGroup_->actions()) a->setChecked(a->data().toInt() == int(m));
}

void MainWindow::showPixel(int x, int y) { showPixelValues(x, y, {}); }

void MainWindow::showPixelValues(int x, int y, QVector<float> result)
{
    hoveredPixel_ = QPoint(x, y);
    const auto source = doc_->source();
    if (x < 0 || y < 0 || !source || x >= source->width || y >= source->height) {
        pixelLabel_->clear();
        return;
    }
    auto join = [](const QVector<float>& v) {
        QStringList parts;
        for (float f : v) parts << QString::number(f, 'g', 6);
        return parts.join(' ');
    };
    QVector<float> sourceValues(source->channels);
    for (int c = 0; c < source->channels; ++c) sourceValues[c] = source->at(c, y, x);
    QString text = tr("(%1, %2)  source %3").arg(x).arg(y).arg(join(sourceValues));
    const WorkbenchDocument::Result* r = doc_->result();
    if (r && r->source == source) {
        // One pixel, not the image: a result on the device is read there (resultPixelRead follows).
        if (result.isEmpty()) result = doc_->resultPixel(x, y);
        text += result.isEmpty() ? tr("  result on the GPU (reading)") : tr("  result %1").arg(join(result));
    }
    pixelLabel_->setText(text);
}

void MainWindow::openImageInBackground(const QString& path) { doc_->open(path); }

bool MainWindow::openImage(const QString& path)
{
    const quint64 before = doc_->generation().image;
    QEventLoop loop;
    auto done = connect(doc_, &WorkbenchDocument::sourceChanged, &loop, [&loop] { loop.exit(0); });
    auto failed = connect(doc_, &WorkbenchDocument::openFailed, &loop, [&loop] { loop.exit(1); });
    doc_->open(path);
    if (doc_->opening()) loop.exec();
    disconnect(done);
    disconnect(failed);
    return doc_->generation().image != before;
}

void MainWindow::setSourceImage(convlab::Image image, const QString& title,
                                std::shared_ptr<const convlab::PackedImage> packed)
{
    doc_->setSource(std::move(image), title, {}, std::move(packed));
}

void MainWindow::onSourceChanged()
{
    const auto source = doc_->source();
    view_->setSource(source); // shared, not copied
    // A chain step (or its undo) keeps the size: the zoom and the place looked at stay.
    if (QSize(source->width, source->height) != shownSourceSize_) view_->fitToWindow();
    shownSourceSize_ = QSize(source->width, source->height);
    setWindowTitle(tr("%1 (%2×%3×%4) — ConvLab")
                       .arg(doc_->title())
                       .arg(source->width)
                       .arg(source->height)
                       .arg(source->channels));
    if (!doc_->path().isEmpty()) addRecent(doc_->path());
    if (crossover_ && crossover_->isVisible()) crossover_->setInput(source, currentParams());
    if (lab_ && lab_->isVisible()) lab_->setSource(source);
    if (estimate_) estimate_->setCurrentSource(source);
}

void MainWindow::openSample()
{
    Q_INIT_RESOURCE(resources);
    // The engine reads files: the embedded photograph goes through a temporary copy.
    const QString name = QStringLiteral("coffee.png");
    QTemporaryDir dir;
    const QString copy = dir.filePath(name);
    if (dir.isValid() && QFile::copy(":/samples/" + name, copy)) {
        try {
            WorkbenchDocument::Decoded decoded = WorkbenchDocument::decode(copy);
            setSourceImage(std::move(decoded.image), name, std::move(decoded.packed));
            return;
        } catch (const convlab::Error&) {
            // Builds without image codecs read only .npy: the chart below needs no file.
        }
    }
    setSourceImage(convlab::makeTestChart(), tr("test chart"));
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

QString MainWindow::lastDir() const { return doc_->path().isEmpty() ? QString() : QFileInfo(doc_->path()).path(); }

void MainWindow::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Image"), lastDir(),
        tr("Images (*.png *.jpg *.jpeg *.tif *.tiff *.bmp *.pgm *.ppm *.pnm *.webp *.npy);;All files (*)"));
    if (!path.isEmpty()) openImageInBackground(path);
}

void MainWindow::saveResultDialog()
{
    const WorkbenchDocument::Result* r = doc_->result();
    if (!r) {
        reportError(tr("There is no result to save yet."));
        return;
    }
    const auto result = doc_->hostResult(); // kept alive while the dialogs are open
    if (!result) {
        reportError(tr("The result could not be copied from the GPU."));
        return;
    }
    QString path = QFileDialog::getSaveFileName(this, tr("Save Result"), lastDir(),
                                                tr("PNG (*.png);;TIFF (*.tif *.tiff);;NumPy array (*.npy)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += ".png";
    convlab::SaveOptions opts;
    if (!askSaveOptions(this, path, opts)) return;
    try {
        convlab::saveImage(*result, path.toStdString(), opts);
        statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    } catch (const convlab::Error& e) {
        reportError(tr("Cannot save %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what())));
    }
}

void MainWindow::openKernelDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Kernel"), lastDir(),
                                                      tr("Kernels (*.json *.txt *.kernel);;All files (*)"));
    if (path.isEmpty()) return;
    try {
        if (!QFileInfo(path).isFile()) throw convlab::Error("no such file: " + path.toStdString());
        doc_->kernel()->setSpec(convlab::loadKernelSpec(path.toStdString()),
                                tr("Open kernel %1").arg(QFileInfo(path).fileName()));
    } catch (const convlab::Error& e) {
        reportError(tr("Cannot open the kernel %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what())));
    }
}

void MainWindow::saveKernelDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Kernel"), lastDir(),
                                                      tr("JSON kernel (*.json);;Text kernel (*.txt)"));
    if (path.isEmpty()) return;
    try {
        convlab::saveKernelFile(doc_->kernel()->state().toSpec(), path.toStdString());
        statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    } catch (const convlab::Error& e) {
        reportError(tr("Cannot save the kernel %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what())));
    }
}

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

void MainWindow::addRecent(const QString& path)
{
    recent_.removeAll(path);
    recent_.prepend(path);
    while (recent_.size() > kMaxRecent) recent_.removeLast();
    rebuildRecentMenu();
    if (persistent_) QSettings().setValue("recentFiles", recent_);
}

void MainWindow::rebuildRecentMenu()
{
    recentMenu_->clear();
    for (const QString& path : recent_)
        recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openImageInBackground(path); })
            ->setToolTip(path);
    recentMenu_->setToolTipsVisible(true);
    recentMenu_->setEnabled(!recent_.isEmpty());
}

void MainWindow::readSettings()
{
    QSettings s;
    restoreGeometry(s.value("geometry").toByteArray());
    restoreState(s.value("windowState").toByteArray());
    recent_ = s.value("recentFiles").toStringList();
    // Entries written by another version may not parse: each falls back to its default.
    try {
        if (s.contains("border")) controls_->setBorder(convlab::parseBorder(s.value("border").toString().toStdString()));
    } catch (const convlab::Error&) {
    }
    try {
        if (s.contains("method")) controls_->setMethod(convlab::parseMethod(s.value("method").toString().toStdString()));
        if (s.contains("device")) controls_->setDevice(convlab::parseDevice(s.value("device").toString().toStdString()));
    } catch (const convlab::Error&) {
    }
    controls_->setThreads(s.value("threads", 0).toInt());
    firstLaunch_ = !s.contains("kernel");
    try {
        if (s.contains("kernel"))
            doc_->kernel()->reset(
                KernelState::fromSpec(convlab::parseKernelJson(s.value("kernel").toString().toStdString())));
    } catch (const convlab::Error&) {
    }
}

void MainWindow::writeSettings()
{
    QSettings s;
    s.setValue("geometry", saveGeometry());
    s.setValue("windowState", saveState());
    s.setValue("recentFiles", recent_);
    const convlab::Border b = controls_->border();
    QString border = QString::fromStdString(convlab::borderName(b.mode));
    if (b.mode == convlab::BorderMode::Constant) border += ':' + QString::number(b.value, 'g', 9);
    s.setValue("border", border);
    s.setValue("method", QString::fromStdString(convlab::methodName(controls_->method())));
    s.setValue("device", QString::fromStdString(convlab::deviceName(controls_->device())));
    s.setValue("threads", controls_->threads());
    s.setValue("kernel", QString::fromStdString(convlab::kernelToJson(doc_->kernel()->state().toSpec())));
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (persistent_) writeSettings();
    doc_->shutdown();
    e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    const QList<QUrl> urls = e->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    const QList<QUrl> urls = e->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    e->acceptProposedAction();
    openImageInBackground(urls.first().toLocalFile());
}
