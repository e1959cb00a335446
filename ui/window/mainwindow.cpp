// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/mainwindow.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDockWidget>
#include <QDir>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <algorithm>

#include "workbench/rendercontroller.h"
#include "tools/borderlab.h"
#include "panels/controlspanel.h"
#include "convlab/error.h"
#include "tools/crossoverdialog.h"
#include "panels/differencepanel.h"
#include "tools/estimatedialog.h"
#include "tools/exportdialog.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneleditor.h"
#include "kernel/kerneltextedit.h"
#include "panels/probepanel.h"
#include "panels/panels.h"
#include "panels/timingspanel.h"
#include "workbench/resultpresenter.h"
#include "workbench/viewbinding.h"
#include "workbench/workbenchdocument.h"
#include "window/docklayout.h"
#include "window/paneldock.h"
#include "window/presentation.h"

#ifndef CONVLAB_VERSION
#define CONVLAB_VERSION "unknown"
#endif

MainWindow::MainWindow(bool persistent, QWidget* parent) : QMainWindow(parent), persistent_(persistent)
{
    setWindowTitle(tr("ConvLab"));
    setAcceptDrops(true);
    doc_ = new WorkbenchDocument(this);
    // The workbench starts on the CPU (auto is a choice, as is CUDA); saved settings follow.
    WorkbenchDocument::RunSettings initial;
    initial.device = convlab::Device::Cpu;
    doc_->setRunSettings(initial);
    reporter_ = [this](const QString& message) { QMessageBox::warning(this, tr("ConvLab"), message); };

    view_ = new ImageView;
    view_->setFocusPolicy(Qt::StrongFocus);
    setCentralWidget(view_);

    buildDocks();
    layout_ = new DockLayout(this); // the state as built is the default layout
    presentation_ = new Presentation(this);
    buildMenus();
    buildStatusBar();
    connectDocument();
    bindViewToDocument(doc_, view_, [this](const QString& m) { reportError(m); });
    connect(doc_, &WorkbenchDocument::displayStateChanged, this, &MainWindow::showDisplayStateInMenu);
    showDisplayStateInMenu();

    connect(editor_, &KernelEditor::errorOccurred, this, &MainWindow::reportError);
    // The document only changes on a valid edit: whatever was rejected before is past.
    connect(doc_->kernel(), &KernelDocument::changed, this, &MainWindow::clearStaleErrors);

    connect(view_, &ImageView::pixelHovered, this, &MainWindow::showPixel);
    connect(doc_, &WorkbenchDocument::resultPixelRead, this, [this](int x, int y, const QVector<float>& values) {
        if (QPoint(x, y) == hoveredPixel_) showPixelValues(x, y, values);
    });
    connect(view_, &ImageView::zoomChanged, this,
            [this](double z) { zoomLabel_->setText(tr("zoom %1%").arg(z * 100.0, 0, 'f', z < 0.1 ? 1 : 0)); });
    view_->installEventFilter(this);

    const bool restored = persistent_ && QSettings().contains("geometry");
    if (persistent_) readSettings();
    if (!restored) applyFirstLaunchLayout();
    rebuildRecentMenu();
    onParamsChanged();
}

MainWindow::~MainWindow()
{
    // The layout rule watches the window and the view: it goes first, before the widgets it
    // watches are torn down with the window's own layout.
    delete layout_;
    layout_ = nullptr;
    doc_->shutdown();
}

KernelDocument* MainWindow::kernelDocument() const { return doc_->kernel(); }
RenderController* MainWindow::renderController() const { return doc_->renderer(); }
RenderController* MainWindow::compareController() const { return doc_->comparer(); }
std::shared_ptr<const convlab::Image> MainWindow::sourceImage() const { return doc_->source(); }
QString MainWindow::displayPath() const { return presenter_->displayPath(); }

QString MainWindow::versionString() { return QStringLiteral(CONVLAB_VERSION); }

void MainWindow::setErrorReporter(std::function<void(const QString&)> reporter) { reporter_ = std::move(reporter); }

void MainWindow::reportError(const QString& message)
{
    shownError_ = message;
    statusBar()->showMessage(message, 8000);
    emit errorReported(message);
    if (reporter_) reporter_(message);
}

void MainWindow::clearStaleErrors()
{
    // Only the error itself: a message shown since (progress, "Saved …") is left alone.
    if (!shownError_.isEmpty() && statusBar()->currentMessage() == shownError_) statusBar()->clearMessage();
    shownError_.clear();
    editor_->clearMessage();
}

void MainWindow::buildStatusBar()
{
    pixelLabel_ = new QLabel;
    zoomLabel_ = new QLabel;
    zoomLabel_->setToolTip(tr("Screen pixels per image pixel (F: fit to the window, 1: actual size)"));
    busy_ = new QProgressBar;
    busy_->setRange(0, 0);
    busy_->setMaximumWidth(160);
    busy_->hide();
    // A run that has gone on for a second shows its seconds against the planner's estimate.
    progressTimer_ = new QTimer(this);
    progressTimer_->setInterval(500);
    connect(progressTimer_, &QTimer::timeout, this, &MainWindow::showRunProgress);
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setToolTip(tr("Abandon the running convolution or the image being opened (Esc)"));
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
    presenter_ = new ResultPresenter(doc_, view_, this);
    connect(presenter_, &ResultPresenter::displayPathChanged, this,
            [this](const QString& path) { panel<TimingsPanel>()->setDisplayPath(path); });
    connect(presenter_, &ResultPresenter::resultDisplayed, this, [this](quint64 id, double displayMs) {
        panel<TimingsPanel>()->setDisplayMs(displayMs);
        emit resultDisplayed(id);
    });
    connect(doc_, &WorkbenchDocument::comparisonChanged, this, &MainWindow::onComparisonChanged);
    connect(doc_, &WorkbenchDocument::busyChanged, this, &MainWindow::updateBusy);
    connect(doc_, &WorkbenchDocument::renderFailed, this,
            [this](const QString& m) { reportError(tr("Convolution failed: %1").arg(m)); });
    connect(doc_, &WorkbenchDocument::renderRefused, this, [this](const QString& m) {
        reportError(tr("Not run: %1").arg(m));
        runOverBudget_->setEnabled(true);
    });
    for (auto signal : {&WorkbenchDocument::resultChanged, &WorkbenchDocument::sourceChanged})
        connect(doc_, signal, runOverBudget_, [this] { runOverBudget_->setEnabled(false); });
    connect(doc_, &WorkbenchDocument::renderCancelled, this,
            [this] { statusBar()->showMessage(tr("Cancelled: the view shows the previous result"), 4000); });
    connect(doc_, &WorkbenchDocument::openStarted, this, [this](const QString& path) {
        statusBar()->showMessage(tr("Opening %1 …").arg(QFileInfo(path).fileName()));
    });
    connect(doc_, &WorkbenchDocument::openFailed, this, [this](const QString& path, const QString& m) {
        statusBar()->clearMessage();
        // Nothing to show yet (a start-up file that failed): the sample, then the error over it,
        // rather than an empty window.
        if (!doc_->source()) {
            // No dialog over the sample: a projector demo must not wait on an OK. The status
            // bar says it, with the whole path, until the next message.
            openSample();
            const QString message = tr("Cannot open %1: %2").arg(QDir::toNativeSeparators(path), m);
            statusBar()->showMessage(message);
            emit errorReported(message);
            return;
        }
        reportError(tr("Cannot open %1: %2").arg(QFileInfo(path).fileName(), m));
    });
}

void MainWindow::showRunProgress()
{
    const RenderController::Progress p = renderController()->progress();
    if (p.elapsedS < 1.0 || !(p.estimateS > 0)) {
        busy_->setRange(0, 0);
        busy_->setTextVisible(false);
        busy_->setToolTip(p.elapsedS >= 1.0 ? tr("running for %1 s (Esc stops it)").arg(int(p.elapsedS)) : QString());
        return;
    }
    const QString estimate = p.estimateS < 10 ? QString::number(p.estimateS, 'f', 1) : QString::number(qRound(p.estimateS));
    busy_->setRange(0, 1000);
    busy_->setValue(std::min(999, int(1000.0 * p.elapsedS / p.estimateS))); // an estimate can be short
    busy_->setFormat(tr("%1 s of ~%2 s").arg(int(p.elapsedS)).arg(estimate));
    busy_->setTextVisible(true);
    busy_->setToolTip(tr("%1 s of about %2 s estimated (Esc stops it)").arg(int(p.elapsedS)).arg(estimate));
}

void MainWindow::updateBusy()
{
    const bool busy = doc_->busy();
    busy_->setVisible(busy);
    cancel_->setVisible(busy);
    if (stop_) stop_->setEnabled(busy);
    if (busy && !progressTimer_->isActive()) progressTimer_->start();
    if (!busy) {
        progressTimer_->stop();
        busy_->setRange(0, 0); // the next run starts without a fraction
        busy_->setTextVisible(false);
    }
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
    // The docks share less than half the width (docklayout::kMinViewShare, with room for the
    // tab bar and separators); the image is what the window is for.
    const int left = std::max(220, size.width() * 21 / 100), right = std::max(200, size.width() * 19 / 100);
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
    layout_->enforce();
}

void MainWindow::resetLayout()
{
    presentation_->setActive(false);
    layout_->reset();
    applyFirstLaunchLayout(size());
}

void MainWindow::showFirstLaunchExample()
{
    KernelState example;
    example.kernel = convlab::makePreset("laplacian8");
    doc_->kernel()->reset(example);
    doc_->setMappingFollowsKernel(true); // signed: the diverging map, named over the picture
    showViewMode(display::Mode::Split);
}

namespace {

// A panel in a scroll area: narrower than its controls want, it scrolls instead of widening its
// dock into the image's room (window/docklayout.h).
QWidget* scrolled(QWidget* panel)
{
    auto* area = new QScrollArea;
    area->setObjectName(panel->objectName().isEmpty() ? QStringLiteral("panelScroll")
                                                       : panel->objectName() + QStringLiteral("Scroll"));
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(panel);
    return area;
}

} // namespace

void MainWindow::buildDocks()
{
    editor_ = new KernelEditor(doc_->kernel());
    controls_ = new ControlsPanel;
    controls_->attach(doc_);
    auto dock = [this](QWidget* w, const QString& title, const QString& name, Qt::DockWidgetArea area) {
        auto* d = new PanelDock(title, this);
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
    // Scrolled like the panels: in a short window its wrapped notes (the border's names in other
    // libraries) keep the height they need instead of being squeezed and cut.
    dock(scrolled(controls_), tr("Controls"), "controlsDock", Qt::LeftDockWidgetArea);
    // The panels that show what the document holds, tabbed beside the image (ui/panels/panels.h).
    // Each is tabbed onto the second, as the layout has been since the panels were written by hand.
    QDockWidget* first = nullptr;
    QDockWidget* second = nullptr;
    for (const DockPanel& p : dockPanels()) {
        QDockWidget* d = dock(scrolled(p.make(doc_, view_)), QCoreApplication::translate("DockPanel", p.title),
                              QString::fromLatin1(p.objectName), Qt::RightDockWidgetArea);
        if (!first) {
            first = d;
            continue;
        }
        tabifyDockWidget(second ? second : first, d);
        if (!second) second = d;
    }
    QDockWidget* onTop = first;
    for (const DockPanel& p : dockPanels())
        if (p.onTop)
            if (auto* d = findChild<QDockWidget*>(QString::fromLatin1(p.objectName))) onTop = d;
    if (onTop) onTop->raise();
    // Tabs along the window's edge, each as long as its name: five names never fit across a
    // dock a fifth of the window wide (they were elided to "T…", "Diff…").
    setTabPosition(Qt::RightDockWidgetArea, QTabWidget::East);
}

convlab::ConvolveParams MainWindow::currentParams() const { return doc_->params(); }

void MainWindow::onParamsChanged()
{
    const convlab::ConvolveParams p = currentParams();
    if (lab_ && lab_->isVisible()) lab_->setParams(p);
    if (export_ && export_->isVisible()) export_->setParams(p);
    if (crossover_ && crossover_->isVisible()) crossover_->setInput(doc_->source(), p);
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

void MainWindow::onComparisonChanged()
{
    const WorkbenchDocument::Comparison* c = doc_->comparison();
    // The document switches the mode to Difference and back; the view needs the image. Whatever
    // was compared before is of older parameters or another image: never shown again.
    if (c)
        view_->setDifference(c->difference);
    else
        view_->clearDifference();
}

void MainWindow::showViewMode(display::Mode m)
{
    if (doc_->setViewMode(m)) return;
    // No difference exists for what is on screen: say so rather than draw an old one.
    statusBar()->showMessage(tr("No difference for the current result: pick path B in the Difference "
                                "panel and press Compare."),
                             6000);
    if (QDockWidget* dock = dockOf(panel<DifferencePanel>())) dock->raise();
    showDisplayStateInMenu(); // the entry the user ticked goes back to the mode shown
}

void MainWindow::showDisplayStateInMenu()
{
    const display::State& s = doc_->displayState();
    for (QAction* a : modeGroup_->actions()) a->setChecked(a->data().toInt() == int(s.mode));
    for (QAction* a : mapGroup_->actions()) a->setChecked(a->data().toInt() == int(s.mapping));
    mappingFollows_->setChecked(s.mappingFollowsKernel);
    for (QAction* a : scaleGroup_->actions()) a->setChecked(a->data().toInt() == int(s.differenceScale));
    padding_->setChecked(s.paddingShown);
    loupe_->setChecked(s.edgeLoupe);
    pixelGrid_->setChecked(s.pixelGrid);
    floatRange_->setChecked(s.floatRangeByValues);
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

void MainWindow::onSourceChanged()
{
    clearStaleErrors();
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

void MainWindow::closeEvent(QCloseEvent* e)
{
    presentation_->setActive(false); // the layout saved is the one to work in, not the projector's
    if (persistent_) writeSettings();
    doc_->shutdown();
    e->accept();
}
