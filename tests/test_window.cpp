// SPDX-License-Identifier: GPL-3.0-or-later
// The window a teacher puts on a projector: the image keeps most of the width whatever the
// panels say and whatever layout was saved, every panel's name is readable, Reset Layout and
// Present; signed results read right at first sight (the mapping follows the kernel, a robust
// range named over the picture) and "as displayed" saves the pixels on screen.
// Run under Xvfb (xvfb-run -a): the image view draws with OpenGL.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QOpenGLWidget>
#include <QSignalSpy>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QWindow>
#include <algorithm>
#include <cmath>
#include <memory>

#include "convlab/imagestats.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "convlab/error.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneleditor.h"
#include "testutil.h"
#include "uitestutil.h"
#include "view/edgeloupe.h"
#include "view/probeoverlay.h"
#include "view/mappingrule.h"
#include "window/docklayout.h"
#include "window/presentation.h"
#include "window/mainwindow.h"
#include "workbench/rendercontroller.h"
#include "workbench/workbenchdocument.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 20000;

QString longNote()
{
    return QStringLiteral("total 30.1 ms (of which 4.22 ms one-time planning of the FFT for this size, "
                          "which the next run with the same size does not pay again) — %1")
        .arg(QString(400, QLatin1Char('x')));
}

// Lets the main window's layout settle (docks are resized by posted layout requests).
void settle()
{
    for (int i = 0; i < 5; ++i) {
        QApplication::processEvents();
        QTest::qWait(20);
    }
}

// Sums to 1 (a float image stays in its range) and weighs each neighbour differently.
Kernel ramp3x3()
{
    std::vector<float> v(9);
    for (int i = 0; i < 9; ++i) v[i] = float(i + 1) / 45.0f;
    return Kernel(3, 3, std::move(v));
}

QString shareText(const MainWindow& w)
{
    return QString("view %1 px of %2").arg(w.imageView()->width()).arg(w.width());
}

} // namespace

class TestWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    // Layout.
    void sideBudgetLeavesTheViewItsShare();
    void longNotesNeverWidenADock();
    void smallScreenKeepsTheImagesShare();
    void savedWideLayoutIsNotRestoredWide();
    void everyPanelNameIsReadable();
    void aShortWindowShowsTheWholeKernel();
    void resetLayoutBringsEveryPanelBack();
    void presentShowsTheImageAndOnePanel();
    void textSizeScalesAndClamps();
    void viewFramesLeaveTheRestOfTheWindowAlone();
    // Signed results.
    void mappingRuleFollowsTheKernelsSum();
    void mappingFollowsTheKernelUntilTheUserPicks();
    void captionNamesTheMappingAndRange();
    void asDisplayedEqualsTheScreen();
    void saveAsDisplayedWritesTheScreensColours();
    // The edge loupe.
    void loupeCropReadsTheBorderRule();
    void loupeChangesWithTheBorderMode();
    // An input pixel and the outputs it feeds.
    void outputsFedAreThoseWhoseFootprintHoldsThePixel();
    void clickOnTheOriginalMarksTheOutputsItFeeds();

private:
    bool renderAfter(const std::function<void()>& action)
    {
        return test::renderAfter(w_->renderController(), action, kWaitMs);
    }
    std::unique_ptr<MainWindow> w_;
};

void TestWindow::initTestCase() { test::useTestSettings("test_window"); }

void TestWindow::init()
{
    w_ = std::make_unique<MainWindow>(false);
    w_->setErrorReporter([](const QString&) {});
    w_->applyFirstLaunchLayout(QSize(1280, 800));
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(64, 48, 3, 11), "random"); }));
    settle();
}

void TestWindow::cleanup()
{
    w_.reset();
    TextScale::set(1.0);
}

// A render-to-texture widget (QOpenGLWidget) anywhere in the window makes Qt compose the whole
// window with OpenGL for each frame of the view: on a software renderer that costs more than
// the frame. The picture is a native window of its own, its overlays native windows over it,
// and a frame of the view repaints no dock.
void TestWindow::viewFramesLeaveTheRestOfTheWindowAlone()
{
    QVERIFY(w_->findChildren<QOpenGLWidget*>().isEmpty());
    ImageView* v = w_->imageView();
    QWindow* picture = v->surfaceWindow();
    QVERIFY(picture->handle() != nullptr);
    QVERIFY(picture->parent() != nullptr); // a child window, not a top level
    QVERIFY(picture->isExposed());
    for (auto* overlay : {v->findChild<QWidget*>(QStringLiteral("mappingCaption")),
                          v->findChild<QWidget*>(QStringLiteral("colorBar"))})
        QVERIFY(overlay && overlay->testAttribute(Qt::WA_NativeWindow));

    struct PaintCounter : QObject {
        int paints = 0;
        bool eventFilter(QObject*, QEvent* e) override
        {
            paints += e->type() == QEvent::Paint;
            return false;
        }
    } counter;
    const QList<QDockWidget*> docks = w_->findChildren<QDockWidget*>();
    QVERIFY(!docks.isEmpty());
    for (QDockWidget* dock : docks)
        for (QWidget* child : dock->findChildren<QWidget*>()) child->installEventFilter(&counter);
    QSignalSpy swapped(v, &GLViewHost::frameSwapped);
    for (int i = 0; i < 5; ++i) {
        const qsizetype before = swapped.count();
        v->setZoom(v->zoom() * 1.1); // a new frame of the view only
        QTRY_VERIFY(swapped.count() > before);
    }
    QCOMPARE(counter.paints, 0);
}

void TestWindow::sideBudgetLeavesTheViewItsShare()
{
    using docklayout::kLeftShare;
    using docklayout::sideBudget;
    for (int width : {1024, 1280, 1920})
        for (int overhead : {0, 30}) {
            const int left = sideBudget(width, kLeftShare, DockLayout::kFloorWidth, overhead);
            const int right = sideBudget(width, 1.0 - kLeftShare, DockLayout::kPanelFloorWidth, overhead);
            const int alone = sideBudget(width, 1.0, DockLayout::kFloorWidth, overhead);
            for (int docks : {left + right, alone})
                QVERIFY2(width - docks - overhead >= docklayout::kMinViewShare * width - 1,
                         qPrintable(QString("%1 px: docks %2").arg(width).arg(docks)));
            QVERIFY(left > right); // the grid's side is the wider
        }
    // A narrow window keeps its view before a dock's floor.
    QVERIFY(sideBudget(400, 1.0, DockLayout::kFloorWidth) <= 400 * (1 - docklayout::kMinViewShare));
}

void TestWindow::smallScreenKeepsTheImagesShare()
{
    // A 1024x768 screen's first launch: 90% of it.
    w_.reset();
    w_ = std::make_unique<MainWindow>(false);
    w_->applyFirstLaunchLayout(QSize(921, 691));
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(64, 48, 3, 11), "random"); }));
    settle();
    QVERIFY2(w_->dockLayout()->viewShare() >= docklayout::kMinViewShare, qPrintable(shareText(*w_)));
}

void TestWindow::longNotesNeverWidenADock()
{
    QVERIFY2(w_->dockLayout()->viewShare() >= docklayout::kMinViewShare, qPrintable(shareText(*w_)));
    const int leftBefore = w_->dockLayout()->sideWidth(Qt::LeftDockWidgetArea);
    const int rightBefore = w_->dockLayout()->sideWidth(Qt::RightDockWidgetArea);
    // Every wrapped note of every dock gets a paragraph, as the FFT's timing line or a long
    // kernel remark do.
    for (QDockWidget* d : w_->findChildren<QDockWidget*>())
        for (QLabel* l : d->findChildren<QLabel*>())
            if (l->wordWrap()) l->setText(longNote());
    // And the kernel whose notes are longest: zero-sum, large.
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(makePreset("laplacian8"), "edge"); }));
    settle();
    for (QDockWidget* d : w_->findChildren<QDockWidget*>()) d->raise(); // each tab once on top
    settle();
    QVERIFY2(w_->dockLayout()->viewShare() >= docklayout::kMinViewShare, qPrintable(shareText(*w_)));
    // Neither side grew for its text.
    QVERIFY2(w_->dockLayout()->sideWidth(Qt::LeftDockWidgetArea) <= leftBefore + 1,
             qPrintable(QString("left %1 px, was %2").arg(w_->dockLayout()->sideWidth(Qt::LeftDockWidgetArea)).arg(leftBefore)));
    QVERIFY2(w_->dockLayout()->sideWidth(Qt::RightDockWidgetArea) <= rightBefore + 1,
             qPrintable(QString("right %1 px, was %2").arg(w_->dockLayout()->sideWidth(Qt::RightDockWidgetArea)).arg(rightBefore)));
}

void TestWindow::savedWideLayoutIsNotRestoredWide()
{
    // A layout saved with the docks taking most of the window (an older version, a drag).
    QList<QDockWidget*> left, right;
    for (QDockWidget* d : w_->findChildren<QDockWidget*>())
        (w_->dockWidgetArea(d) == Qt::LeftDockWidgetArea ? left : right) << d;
    for (QDockWidget* d : w_->findChildren<QDockWidget*>()) d->setMaximumWidth(QWIDGETSIZE_MAX);
    w_->resizeDocks({left.first(), right.first()}, {520, 520}, Qt::Horizontal);
    settle();
    const QByteArray wide = w_->saveState();
    w_.reset();

    w_ = std::make_unique<MainWindow>(false);
    w_->applyFirstLaunchLayout(QSize(1280, 800));
    QVERIFY(w_->dockLayout()->restore(wide));
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    settle();
    QVERIFY2(w_->dockLayout()->viewShare() >= docklayout::kMinViewShare, qPrintable(shareText(*w_)));
    // A state that does not parse is refused and changes nothing.
    QVERIFY(!w_->dockLayout()->restore(QByteArray("not a state")));
}

void TestWindow::everyPanelNameIsReadable()
{
    const QList<QTabBar*> bars = w_->findChildren<QTabBar*>();
    int tabs = 0;
    for (QTabBar* bar : bars) {
        if (!bar->isVisible()) continue;
        for (int i = 0; i < bar->count(); ++i, ++tabs) {
            const QString text = bar->tabText(i);
            const int needed = bar->fontMetrics().horizontalAdvance(text);
            const QRect r = bar->tabRect(i);
            const int along = bar->shape() == QTabBar::RoundedEast || bar->shape() == QTabBar::RoundedWest
                                  ? r.height()
                                  : r.width();
            QVERIFY2(along >= needed, qPrintable(QString("tab '%1': %2 px for %3 px of text").arg(text).arg(along).arg(needed)));
        }
    }
    QVERIFY2(tabs >= 5, qPrintable(QString("%1 tabs").arg(tabs))); // the right dock's panels
}

void TestWindow::aShortWindowShowsTheWholeKernel()
{
    w_->resize(1280, 600);
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(makePreset("laplacian8"), "edge"); }));
    settle();
    QTableView* table = w_->kernelEditor()->table();
    const QRect viewport = table->viewport()->rect();
    for (int r = 0; r < 3; ++r) {
        const QRect cell = table->visualRect(table->model()->index(r, 0));
        QVERIFY2(viewport.contains(cell), qPrintable(QString("row %1 at %2..%3 of %4").arg(r).arg(cell.top()).arg(cell.bottom()).arg(viewport.height())));
    }
    // The first tab a newcomer reads: what the kernel does.
    auto* analysis = w_->findChild<QDockWidget*>(QStringLiteral("analysisDock"));
    QVERIFY(analysis && analysis->isVisible() && !analysis->visibleRegion().isEmpty());
}

void TestWindow::resetLayoutBringsEveryPanelBack()
{
    QList<QDockWidget*> docks = w_->findChildren<QDockWidget*>();
    QVERIFY(docks.size() >= 3);
    docks[0]->hide();
    docks[1]->setFloating(true);
    settle();
    w_->resetLayout();
    settle();
    for (QDockWidget* d : docks) {
        QVERIFY2(!d->isHidden(), qPrintable(d->objectName()));
        QVERIFY2(!d->isFloating(), qPrintable(d->objectName()));
    }
    QVERIFY2(w_->dockLayout()->viewShare() >= docklayout::kMinViewShare, qPrintable(shareText(*w_)));
}

void TestWindow::presentShowsTheImageAndOnePanel()
{
    const QFont before = QApplication::font();
    struct Placed {
        QString name;
        bool shown, floating;
        Qt::DockWidgetArea area;
        bool operator==(const Placed&) const = default;
    };
    auto placement = [this] {
        QList<Placed> out;
        for (QDockWidget* d : w_->findChildren<QDockWidget*>())
            out.append({d->objectName(), d->toggleViewAction()->isChecked(), d->isFloating(), w_->dockWidgetArea(d)});
        std::sort(out.begin(), out.end(), [](const Placed& a, const Placed& b) { return a.name < b.name; });
        return out;
    };
    const QList<Placed> placed = placement();
    Presentation* p = w_->presentation();
    p->setDock(QStringLiteral("probeDock"));
    p->setActive(true);
    settle();
    QVERIFY(w_->isFullScreen());
    for (QDockWidget* d : w_->findChildren<QDockWidget*>())
        QCOMPARE(!d->isHidden(), d->objectName() == QStringLiteral("probeDock"));
    QVERIFY(QApplication::font().pointSizeF() >= before.pointSizeF() * Presentation::kTextScale - 0.01);
    // The words over the picture grow with the rest (their style sheets kept the old font).
    auto* caption = w_->imageView()->findChild<QLabel*>(QStringLiteral("mappingCaption"));
    QVERIFY(caption);
    QVERIFY2(caption->font().pointSizeF() >= before.pointSizeF() * Presentation::kTextScale - 0.01,
             qPrintable(QString::number(caption->font().pointSizeF())));
    QVERIFY2(w_->dockLayout()->viewShare() >= docklayout::kMinViewShare, qPrintable(shareText(*w_)));
    p->setActive(false);
    settle();
    QVERIFY(!w_->isFullScreen());
    QCOMPARE(QApplication::font().pointSizeF(), before.pointSizeF());
    const QList<Placed> after = placement();
    for (int i = 0; i < after.size(); ++i)
        QVERIFY2(after[i] == placed[i], qPrintable(QString("dock %1: shown %2 floating %3 area %4")
                                                       .arg(after[i].name).arg(after[i].shown).arg(after[i].floating).arg(int(after[i].area))));
    QVERIFY2(w_->dockLayout()->viewShare() >= docklayout::kMinViewShare, qPrintable(shareText(*w_)));
}

void TestWindow::textSizeScalesAndClamps()
{
    const double base = QApplication::font().pointSizeF();
    TextScale::larger();
    QVERIFY(QApplication::font().pointSizeF() > base);
    for (int i = 0; i < 30; ++i) TextScale::larger();
    QCOMPARE(TextScale::current(), TextScale::kMax);
    for (int i = 0; i < 30; ++i) TextScale::smaller();
    QCOMPARE(TextScale::current(), TextScale::kMin);
    TextScale::set(1.0);
    QCOMPARE(QApplication::font().pointSizeF(), base);
}

void TestWindow::mappingRuleFollowsTheKernelsSum()
{
    using display::Mapping;
    using display::mappingForKernel;
    QCOMPARE(mappingForKernel(makePreset("laplacian8"), 1.0, 0.0), Mapping::Diverging); // sums to 0
    QCOMPARE(mappingForKernel(Kernel(3, 1, {-1, 0, 1}), 1.0, 0.0), Mapping::Diverging);  // a derivative
    QCOMPARE(mappingForKernel(Kernel(3, 1, {0.1f, 0.2f, -0.3f}), 1.0, 0.0), Mapping::Diverging); // 0 in floats
    QCOMPARE(mappingForKernel(Kernel(1, 1, {-1}), 1.0, 0.0), Mapping::Diverging);    // negative sum
    QCOMPARE(mappingForKernel(Kernel(1, 1, {1}), -1.0, 0.0), Mapping::Diverging);    // negated by the scale
    QCOMPARE(mappingForKernel(Kernel(3, 1, {1, 1, 1}), 1.0 / 3, 0.0), Mapping::Clamp); // a blur
    QCOMPARE(mappingForKernel(Kernel(3, 1, {-1, 3, -1}), 1.0, 0.0), Mapping::Clamp);   // sharpening
    QCOMPARE(mappingForKernel(Kernel(3, 1, {-1, 0, 1}), 1.0, 128.0), Mapping::Clamp);  // emboss at mid-grey
    QCOMPARE(mappingForKernel(Kernel(2, 1, {0, 0}), 1.0, 0.0), Mapping::Clamp);        // all zeros
}

void TestWindow::mappingFollowsTheKernelUntilTheUserPicks()
{
    WorkbenchDocument* doc = w_->workbench();
    QVERIFY(doc->displayState().mappingFollowsKernel); // a fresh window follows
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(makePreset("laplacian8"), "edge"); }));
    QCOMPARE(doc->displayState().mapping, display::Mapping::Diverging);
    QCOMPARE(w_->imageView()->mapping(), display::Mapping::Diverging);
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(makePreset("box"), "box"); }));
    QCOMPARE(doc->displayState().mapping, display::Mapping::Clamp);
    // The user's pick holds through edits...
    doc->setMapping(display::Mapping::Abs);
    QVERIFY(!doc->displayState().mappingFollowsKernel);
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(makePreset("laplacian8"), "edge"); }));
    QCOMPARE(doc->displayState().mapping, display::Mapping::Abs);
    // ...until automatic is asked for again.
    doc->setMappingFollowsKernel(true);
    QCOMPARE(doc->displayState().mapping, display::Mapping::Diverging);
    // The first launch's example is signed, and drawn so.
    w_->showFirstLaunchExample();
    QCOMPARE(doc->displayState().mapping, display::Mapping::Diverging);
}

void TestWindow::captionNamesTheMappingAndRange()
{
    // A signed result with a few large outliers: the map's limit is the robust one, not theirs.
    Image source(64, 48, 1, SampleDepth::U8);
    for (std::size_t i = 0; i < source.data.size(); ++i) source.data[i] = float((i * 37) % 23);
    source.data[5] = 255.0f;
    source.data[700] = 255.0f;
    QVERIFY(renderAfter([&] {
        w_->setSourceImage(source, "outliers");
        w_->kernelDocument()->setKernel(makePreset("laplacian8"), "edge");
    }));
    ImageView* v = w_->imageView();
    w_->workbench()->setViewMode(display::Mode::Result);
    settle();
    v->grabFramebuffer(); // a frame computes the statistics
    settle();
    const Image result = *w_->renderController()->result();
    const SymmetricLimit robust = robustSymmetricLimit(result, 1, display::kSignedQuantile);
    QVERIFY(robust.limit < imageStats(result, 1).maxAbs / 4);
    QCOMPARE(v->colorBarRange().second, double(robust.limit));
    QCOMPARE(v->colorBarRange().first, -double(robust.limit));
    const QString caption = v->mappingCaption();
    // Whole numbers from 100 on, shares to two digits.
    const QString limitText = robust.limit >= 100 ? QString::number(std::llround(robust.limit))
                                                  : QString::number(robust.limit, 'g', 3);
    QVERIFY2(caption.contains(QStringLiteral("signed, ±%1 at full colour").arg(limitText)), qPrintable(caption));
    QVERIFY2(caption.contains(QStringLiteral("(%1% of values beyond)")
                                  .arg(QString::number(100.0 * robust.clippedFraction(), 'g', 2))),
             qPrintable(caption));
    auto* label = v->findChild<QLabel*>(QStringLiteral("mappingCaption"));
    QVERIFY(label && label->isVisible());
    QCOMPARE(label->text(), caption);
    // Clamped greys name their range; the original alone has no result caption.
    w_->workbench()->setMapping(display::Mapping::Clamp);
    settle();
    QVERIFY2(v->mappingCaption().contains(QStringLiteral("clamped to 0…255")), qPrintable(v->mappingCaption()));
    // An 8-bit source: how much of the result an 8-bit file would clamp, counted.
    std::size_t outside = 0;
    for (float x : result.data) outside += x < 0.0f || x > 255.0f;
    const QString share = QString::number(100.0 * double(outside) / double(result.data.size()), 'g', 2);
    QVERIFY(outside > 0);
    QVERIFY2(v->mappingCaption().contains(QStringLiteral("%1% of the values lie outside and clip in 8-bit files").arg(share)),
             qPrintable(v->mappingCaption()));
    w_->workbench()->setViewMode(display::Mode::Original);
    settle();
    QVERIFY(v->mappingCaption().isEmpty());
    QVERIFY(!label->isVisible());
}

void TestWindow::asDisplayedEqualsTheScreen()
{
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(makePreset("laplacian8"), "edge"); }));
    ImageView* v = w_->imageView();
    w_->workbench()->setViewMode(display::Mode::Result);
    v->actualSize();
    settle();
    const QImage screen = v->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    const Image result = *w_->renderController()->result();
    const QImage saved = v->resultAsDisplayed(result).convertToFormat(QImage::Format_RGB32);
    QCOMPARE(saved.size(), QSize(result.width, result.height));
    // The image's pixel (x, y) sits at origin + (x, y) at 1:1 (device pixels = widget pixels here).
    const QPointF o = v->origin() * v->devicePixelRatioF();
    int compared = 0, worst = 0;
    for (int y = 0; y < result.height; y += 3)
        for (int x = 0; x < result.width; x += 3) {
            const int sx = int(std::floor(o.x() + x + 0.5)), sy = int(std::floor(o.y() + y + 0.5));
            if (!screen.rect().contains(sx, sy)) continue;
            const QRgb a = screen.pixel(sx, sy), b = saved.pixel(x, y);
            worst = std::max({worst, std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)),
                              std::abs(qBlue(a) - qBlue(b))});
            ++compared;
        }
    QVERIFY2(compared > 100, qPrintable(QString::number(compared)));
    QVERIFY2(worst <= 1, qPrintable(QString("largest difference %1 levels").arg(worst)));
}

void TestWindow::saveAsDisplayedWritesTheScreensColours()
{
    if (!imageFormatsAvailable()) QSKIP("this build reads and writes .npy only (no OpenCV image formats)");
    Image eightBit = test::randomImage(40, 30, 3, 5, true);
    eightBit.depth = SampleDepth::U8;
    QVERIFY(renderAfter([&] {
        w_->setSourceImage(eightBit, "random");
        w_->kernelDocument()->setKernel(makePreset("laplacian8"), "edge");
    }));
    QCOMPARE(w_->workbench()->displayState().mapping, display::Mapping::Diverging);
    const Image result = *w_->renderController()->result();
    QTemporaryDir dir;
    const QString shown = dir.filePath("shown.png"), values = dir.filePath("values.png");
    w_->saveResultTo(shown, true);
    SaveOptions clamp;
    clamp.depth = SampleDepth::U8;
    w_->saveResultTo(values, false, clamp);
    const Image file = loadImage(shown.toStdString());
    const QImage screen = w_->imageView()->resultAsDisplayed(result);
    QCOMPARE(file.channels, 3);
    QCOMPARE(QSize(file.width, file.height), screen.size());
    for (int y = 0; y < file.height; ++y)
        for (int x = 0; x < file.width; ++x) {
            const QRgb p = screen.pixel(x, y);
            QCOMPARE(file.at(0, y, x), float(qRed(p)));
            QCOMPARE(file.at(1, y, x), float(qGreen(p)));
            QCOMPARE(file.at(2, y, x), float(qBlue(p)));
        }
    // The values, clamped: another picture (the diverging map is white at zero, clamp black).
    const Image numbers = loadImage(values.toStdString());
    QVERIFY(numbers.data != file.data);
    for (int y = 0; y < result.height; ++y)
        for (int x = 0; x < result.width; ++x)
            QCOMPARE(numbers.at(0, y, x), std::round(std::clamp(result.at(0, y, x), 0.0f, 255.0f)));
}

void TestWindow::loupeCropReadsTheBorderRule()
{
    using namespace edgeloupe;
    const Image image = test::randomImage(5, 4, 2, 3);
    for (const BorderModeInfo& info : detail::kBorderModes)
        for (Corner c : {Corner::TopLeft, Corner::TopRight, Corner::BottomRight, Corner::BottomLeft}) {
            const Border border{info.mode, 7.5f};
            const CropRect r = cropAt(image.width, image.height, c, kPixels, 3);
            // Fewer pixels than the loupe's side: the whole image and the padding at the corner.
            QCOMPARE(r.width, image.width + 3);
            QCOMPARE(r.height, image.height + 3);
            QCOMPARE(r.x0, padsLeft(c) ? -3 : 0);
            QCOMPARE(r.y0, padsTop(c) ? -3 : 0);
            const Image out = crop(image, r, border);
            for (int ch = 0; ch < image.channels; ++ch)
                for (int y = 0; y < r.height; ++y)
                    for (int x = 0; x < r.width; ++x) {
                        const int sx = borderIndex(r.x0 + x, image.width, info.mode);
                        const int sy = borderIndex(r.y0 + y, image.height, info.mode);
                        const float want = sx < 0 || sy < 0 ? 7.5f : image.at(ch, sy, sx);
                        QCOMPARE(out.at(ch, y, x), want);
                    }
        }
    // A large image: kPixels of it at the corner, the padding beyond the two edges that meet there.
    const CropRect r = cropAt(100, 60, Corner::BottomRight, kPixels, 2);
    QCOMPARE(r, (CropRect{100 - kPixels, 60 - kPixels, kPixels + 2, kPixels + 2, 2}));
}

void TestWindow::loupeChangesWithTheBorderMode()
{
    WorkbenchDocument* doc = w_->workbench();
    ImageView* v = w_->imageView();
    EdgeLoupe* loupe = v->edgeLoupe();
    // A kernel whose result at the corner depends on what lies beyond the edge.
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(ramp3x3(), "ramp"); }));
    auto withBorder = [&](BorderMode mode) {
        WorkbenchDocument::RunSettings s = doc->runSettings();
        s.border = Border{mode, 0.0f};
        return renderAfter([&] { doc->setRunSettings(s); });
    };
    QVERIFY(withBorder(BorderMode::Mirror));
    settle();
    QVERIFY(v->edgeLoupeShown() && loupe->isVisible());
    const QImage reflectSource = loupe->sourcePanel(), reflectResult = loupe->resultPanel();
    QVERIFY(!reflectSource.isNull() && !reflectResult.isNull());
    QVERIFY2(loupe->title().contains(QStringLiteral("mirror")), qPrintable(loupe->title()));
    QVERIFY(withBorder(BorderMode::Wrap));
    settle();
    QVERIFY(loupe->sourcePanel() != reflectSource); // the padding is another one
    QVERIFY(loupe->resultPanel() != reflectResult); // and so is the result at the edge
    QVERIFY2(loupe->title().contains(QStringLiteral("wrap")), qPrintable(loupe->title()));
    // Hidden by the user, it comes back when the border mode changes...
    doc->setEdgeLoupeShown(false);
    settle();
    QVERIFY(!v->edgeLoupeShown());
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setCell(0, 0, 0.5f); })); // same size: stays hidden
    QVERIFY(!v->edgeLoupeShown());
    QVERIFY(withBorder(BorderMode::Constant));
    settle();
    QVERIFY(v->edgeLoupeShown());
    // ...and a click moves it to the next corner.
    const QImage before = loupe->sourcePanel();
    QTest::mouseClick(loupe, Qt::LeftButton);
    QCOMPARE(loupe->corner(), edgeloupe::Corner::TopRight);
    QVERIFY(loupe->sourcePanel() != before);
}

void TestWindow::outputsFedAreThoseWhoseFootprintHoldsThePixel()
{
    const QSize image(9, 7);
    for (Semantics sem : {Semantics::Convolution, Semantics::Correlation})
        for (QSize kernel : {QSize(3, 3), QSize(4, 2), QSize(1, 5)})
            for (QPoint anchor : {QPoint(-1, -1), QPoint(0, 0), QPoint(kernel.width() - 1, kernel.height() - 1)})
                for (QPoint input : {QPoint(0, 0), QPoint(4, 3), QPoint(8, 6), QPoint(1, 5)}) {
                    const QRect fed = outputsFedBy(input, image, kernel, anchor, sem);
                    // Brute force: every output whose footprint holds the input, and no other.
                    for (int y = 0; y < image.height(); ++y)
                        for (int x = 0; x < image.width(); ++x) {
                            const bool reads =
                                kernelFootprint(QPoint(x, y), image, kernel, anchor, sem).window.contains(input);
                            QVERIFY2(fed.contains(QPoint(x, y)) == reads,
                                     qPrintable(QString("%1x%2 anchor (%3,%4) input (%5,%6) output (%7,%8)")
                                                    .arg(kernel.width()).arg(kernel.height()).arg(anchor.x())
                                                    .arg(anchor.y()).arg(input.x()).arg(input.y()).arg(x).arg(y)));
                        }
                }
}

void TestWindow::clickOnTheOriginalMarksTheOutputsItFeeds()
{
    // An off-centre anchor: the outputs fed lie on the other side of the pixel than its footprint.
    Kernel k(3, 3, std::vector<float>(9, 1.0f / 9));
    k.anchorX = 0;
    k.anchorY = 0;
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(k, "corner anchor"); }));
    auto* probeDock = w_->findChild<QDockWidget*>(QStringLiteral("probeDock"));
    QVERIFY(probeDock);
    probeDock->raise();
    ImageView* v = w_->imageView();
    w_->workbench()->setViewMode(display::Mode::Original);
    v->setZoom(4.0);
    settle();
    const QPoint pixel(20, 15);
    const QPoint at = (v->origin() + QPointF(pixel.x() + 0.5, pixel.y() + 0.5) * v->zoom()).toPoint();
    QTest::mouseClick(v, Qt::LeftButton, Qt::NoModifier, at);
    settle();
    const QRect want = outputsFedBy(pixel, v->imageSize(), QSize(3, 3), QPoint(0, 0), Semantics::Convolution);
    QCOMPARE(v->fedOutputs(), want);
    QCOMPARE(want, QRect(QPoint(20, 15), QPoint(22, 17))); // convolution: x - ax + u
    // Correlation flips it.
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setSemantics(Semantics::Correlation); }));
    settle();
    QCOMPARE(v->fedOutputs(), QRect(QPoint(18, 13), QPoint(20, 15)));
    // A click on the result asks for its footprint alone.
    w_->workbench()->setViewMode(display::Mode::Result);
    settle();
    QTest::mouseClick(v, Qt::LeftButton, Qt::NoModifier, at);
    settle();
    QVERIFY(v->fedOutputs().isEmpty());
    QVERIFY(v->hasProbeMarks());
}

QTEST_MAIN(TestWindow)
#include "test_window.moc"
