// SPDX-License-Identifier: GPL-3.0-or-later
// The Pixel Probe panel and what it draws in the view: the kernel's footprint as pure geometry
// (against the taps convlab::probePixel reads, at the corners, for kernels larger than the
// image, for either semantics), the window of the side-by-side table around the anchor, the
// arithmetic it shows against the result, and the outlines in the view as the probe moves.
// Run under Xvfb (xvfb-run -a).
#include <QDockWidget>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>

#include "convlab/error.h"
#include "panels/panels.h"
#include "convlab/probe.h"
#include "kernel/kerneldocument.h"
#include "panels/controlspanel.h"
#include "panels/probepanel.h"
#include "panels/probestepper.h"
#include "testutil.h"
#include "uitestutil.h"
#include "view/imageview.h"
#include "view/probeoverlay.h"
#include "window/mainwindow.h"
#include "workbench/rendercontroller.h"
#include "workbench/workbenchdocument.h"

using namespace convlab;
using Grid = ProbePanel::Grid;

namespace {

constexpr int kWaitMs = 30000;

// The smallest rectangle holding every image coordinate the probe's taps read.
QRect tapBounds(const PixelProbe& p)
{
    long long x0 = LLONG_MAX, y0 = LLONG_MAX, x1 = LLONG_MIN, y1 = LLONG_MIN;
    for (const ProbeTap& t : p.taps) {
        x0 = std::min(x0, t.x);
        y0 = std::min(y0, t.y);
        x1 = std::max(x1, t.x);
        y1 = std::max(y1, t.y);
    }
    return QRect(QPoint(int(x0), int(y0)), QPoint(int(x1), int(y1)));
}

bool throwsError(const std::function<void()>& f, const char* mentions)
{
    try {
        f();
    } catch (const Error& e) {
        return QString::fromUtf8(e.what()).contains(QLatin1String(mentions));
    }
    return false;
}

// Whether a pixel near `at` (within `slack` px) of the grab has colour `c` (within `tol` per channel).
bool colourNear(const QImage& img, QPoint at, const QColor& c, int slack = 2, int tol = 40)
{
    for (int y = at.y() - slack; y <= at.y() + slack; ++y)
        for (int x = at.x() - slack; x <= at.x() + slack; ++x) {
            if (!img.rect().contains(x, y)) continue;
            const QColor p = img.pixelColor(x, y);
            if (std::abs(p.red() - c.red()) <= tol && std::abs(p.green() - c.green()) <= tol &&
                std::abs(p.blue() - c.blue()) <= tol)
                return true;
        }
    return false;
}

} // namespace

class TestProbePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    // Pure geometry.
    void footprintByHand();
    void footprintMatchesTheProbesTaps();
    void footprintRefusesBadInput();
    void tableWindowHoldsTheAnchor();
    // The panel and the view.
    void arithmeticSideBySideEqualsTheResult();
    void largeKernelOpensOnTheCentre();
    void viewOutlinesTheFootprintAsTheProbeMoves();
    void paddingPreviewShowsTheTapsOutside();
    void stepperSlidesAlongTheRows();
    void stepModeSumsEqualTheResult();

private:
    bool renderAfter(const std::function<void()>& action)
    {
        return test::renderAfter(w_->renderController(), action, kWaitMs);
    }
    // The window's own probe panel, its dock in front (the marks follow a probe on screen).
    ProbePanel* shownProbe();

    std::unique_ptr<MainWindow> w_;
};

void TestProbePanel::initTestCase() { test::useTestSettings("test_probepanel"); }

void TestProbePanel::init()
{
    w_ = std::make_unique<MainWindow>(false);
    w_->resize(1200, 800);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    // The probe reproduces the reference method bit for bit: the view shows that method here.
    w_->controls()->setMethod(Method::Reference);
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(23, 17, 3, 11), "random"); }));
}

void TestProbePanel::cleanup() { w_.reset(); }

ProbePanel* TestProbePanel::shownProbe()
{
    ProbePanel* probe = w_->panel<ProbePanel>();
    auto* dock = dockOf(probe);
    if (dock) {
        dock->show();
        dock->raise();
    }
    QTest::qWait(0);
    return probe;
}

void TestProbePanel::footprintByHand()
{
    const QSize image(20, 10);
    // A centred 3x3: one pixel around, either semantics.
    for (Semantics s : {Semantics::Convolution, Semantics::Correlation}) {
        const KernelFootprint f = kernelFootprint({5, 5}, image, {3, 3}, {-1, -1}, s);
        QCOMPARE(f.window, QRect(4, 4, 3, 3));
        QCOMPARE(f.inside, f.window);
        QVERIFY(!f.reachesOutside());
    }
    // Anchor (0, 0) of a 5x3: correlation reads right and down of the pixel; convolution applies
    // the kernel rotated, anchor mirrored to (4, 2), so it reads left and up.
    QCOMPARE(kernelFootprint({5, 5}, image, {5, 3}, {0, 0}, Semantics::Correlation).window, QRect(5, 5, 5, 3));
    QCOMPARE(kernelFootprint({5, 5}, image, {5, 3}, {0, 0}, Semantics::Convolution).window, QRect(1, 3, 5, 3));
    // The corners: half of a 5x5 lies outside.
    const KernelFootprint topLeft = kernelFootprint({0, 0}, image, {5, 5}, {-1, -1}, Semantics::Convolution);
    QCOMPARE(topLeft.window, QRect(-2, -2, 5, 5));
    QCOMPARE(topLeft.inside, QRect(0, 0, 3, 3));
    QVERIFY(topLeft.reachesOutside());
    const KernelFootprint bottomRight = kernelFootprint({19, 9}, image, {5, 5}, {-1, -1}, Semantics::Convolution);
    QCOMPARE(bottomRight.window, QRect(17, 7, 5, 5));
    QCOMPARE(bottomRight.inside, QRect(17, 7, 3, 3));
    // A kernel larger than the image: the whole image is inside, most of the window outside.
    const KernelFootprint large = kernelFootprint({1, 1}, {4, 3}, {15, 15}, {-1, -1}, Semantics::Convolution);
    QCOMPARE(large.window, QRect(-6, -6, 15, 15));
    QCOMPARE(large.inside, QRect(0, 0, 4, 3));
}

// The footprint is where the engine's probe reads, for kernels of every shape and anchor.
void TestProbePanel::footprintMatchesTheProbesTaps()
{
    const Image in = test::randomImage(6, 5, 1, 3);
    struct Case {
        int w, h, ax, ay;
    };
    const Case cases[] = {{3, 3, -1, -1}, {4, 2, -1, -1}, {5, 3, 0, 2}, {1, 7, 0, 6}, {15, 15, -1, -1}, {9, 4, 8, 0}};
    const QPoint pixels[] = {{0, 0}, {5, 0}, {0, 4}, {5, 4}, {2, 3}};
    for (const Case& c : cases)
        for (Semantics s : {Semantics::Convolution, Semantics::Correlation})
            for (const QPoint& px : pixels) {
                ConvolveParams p;
                p.kernel = test::randomKernel(c.w, c.h, test::KernelKind::Dense, 5);
                p.kernel.anchorX = c.ax;
                p.kernel.anchorY = c.ay;
                p.semantics = s;
                p.border = parseBorder("reflect");
                const PixelProbe probe = probePixel(in, p, px.x(), px.y());
                const KernelFootprint f =
                    kernelFootprint(px, {in.width, in.height}, {c.w, c.h}, {c.ax, c.ay}, s);
                QCOMPARE(f.window, tapBounds(probe));
                QCOMPARE(f.inside, tapBounds(probe).intersected(QRect(0, 0, in.width, in.height)));
            }
}

void TestProbePanel::footprintRefusesBadInput()
{
    const auto footprint = [](QPoint px, QSize image, QSize kernel, QPoint anchor) {
        return [=] { kernelFootprint(px, image, kernel, anchor, Semantics::Convolution); };
    };
    QVERIFY(throwsError(footprint({0, 0}, {0, 5}, {3, 3}, {-1, -1}), "image 0x5 is empty"));
    QVERIFY(throwsError(footprint({0, 0}, {5, 5}, {0, 3}, {-1, -1}), "kernel 0x3 is empty"));
    QVERIFY(throwsError(footprint({5, 0}, {5, 5}, {3, 3}, {-1, -1}), "pixel (5, 0) is outside"));
    QVERIFY(throwsError(footprint({0, -1}, {5, 5}, {3, 3}, {-1, -1}), "pixel (0, -1) is outside"));
    QVERIFY(throwsError(footprint({0, 0}, {5, 5}, {3, 3}, {3, 0}), "anchor (3, 0) is outside the 3x3 kernel"));
}

void TestProbePanel::tableWindowHoldsTheAnchor()
{
    // Up to 9 per side the whole kernel; beyond, 9 centred on the anchor, kept inside the kernel.
    QCOMPARE(ProbePanel::tableWindow({3, 3}, {1, 1}), QRect(0, 0, 3, 3));
    QCOMPARE(ProbePanel::tableWindow({9, 9}, {0, 8}), QRect(0, 0, 9, 9));
    QCOMPARE(ProbePanel::tableWindow({15, 15}, {7, 7}), QRect(3, 3, 9, 9));
    QCOMPARE(ProbePanel::tableWindow({15, 15}, {0, 0}), QRect(0, 0, 9, 9));
    QCOMPARE(ProbePanel::tableWindow({15, 3}, {14, 2}), QRect(6, 0, 9, 3));
    QCOMPARE(ProbePanel::tableWindow({4, 31}, {1, 20}), QRect(0, 16, 4, 9));
    for (int a = 0; a < 31; ++a) QVERIFY(ProbePanel::tableWindow({31, 31}, {a, 30 - a}).contains(a, 30 - a));
    QVERIFY(throwsError([] { ProbePanel::tableWindow({3, 3}, {3, 1}); }, "anchor (3, 1)"));
    QVERIFY(throwsError([] { ProbePanel::tableWindow({0, 3}, {0, 0}); }, "0x3 kernel"));
    QVERIFY(throwsError([] { ProbePanel::tableWindow({3, 3}, {1, 1}, 0); }, "side 0"));
}

// Input, applied kernel and products in one table, row against row; the products shown add up
// to the sum, and scale × sum + offset is the result the view shows.
void TestProbePanel::arithmeticSideBySideEqualsTheResult()
{
    KernelDocument* kernel = w_->kernelDocument();
    QVERIFY(renderAfter([&] { kernel->setKernel(test::randomKernel(5, 5, test::KernelKind::Dense, 7), "random"); }));
    QVERIFY(renderAfter([&] { kernel->setOffset(3.5); }));
    ProbePanel* probe = shownProbe();
    const Image& result = *w_->renderController()->result();
    for (const QPoint px : {QPoint(0, 0), QPoint(11, 8), QPoint(22, 16)}) {
        probe->setPixel(px.x(), px.y());
        const PixelProbe& p = probe->probe();
        QCOMPARE(probe->window(), QRect(0, 0, 5, 5));
        QCOMPARE(probe->table()->columnCount(), 17); // 5 | × | 5 | = | 5
        QCOMPARE(probe->table()->item(0, 5)->text(), QString("×"));
        QCOMPARE(probe->table()->item(4, 11)->text(), QString("="));
        double shown = 0.0;
        for (int v = 0; v < 5; ++v)
            for (int u = 0; u < 5; ++u) {
                const ProbeTap& t = p.taps[std::size_t(v) * 5 + u];
                QCOMPARE(probe->cell(Grid::Input, v, u)->text(), QString::number(t.value, 'g', 4));
                QCOMPARE(probe->cell(Grid::Kernel, v, u)->text(), QString::number(t.weight, 'g', 4));
                // The three cells of a tap share a row: the eye reads input × weight = product.
                QCOMPARE(probe->cell(Grid::Input, v, u)->row(), probe->cell(Grid::Products, v, u)->row());
                shown += probe->cell(Grid::Products, v, u)->data(Qt::UserRole).toDouble();
            }
        QCOMPARE(shown, p.sum);
        const float value = float(p.scale * shown + p.offset);
        QCOMPARE(value, result.at(probe->channel(), px.y(), px.x()));
        QVERIFY2(probe->summaryText().contains(QString::number(value, 'g', 9)), qPrintable(probe->summaryText()));
        QVERIFY(!probe->summaryText().contains("Σ not shown")); // every tap is shown
    }
}

// A 15x15 kernel: a 9x9 window centred on the anchor, scrolled so that the anchor is on screen,
// with the sums of what is shown and of all 225 taps.
void TestProbePanel::largeKernelOpensOnTheCentre()
{
    QVERIFY(renderAfter(
        [&] { w_->kernelDocument()->setKernel(test::randomKernel(15, 15, test::KernelKind::Dense, 4), "random 15"); }));
    ProbePanel* probe = shownProbe();
    probe->setPixel(4, 9);
    const PixelProbe& p = probe->probe();
    QCOMPARE(probe->window(), QRect(3, 3, 9, 9));
    QVERIFY(probe->window().contains(p.applied.ax(), p.applied.ay()));
    QVERIFY(!probe->cell(Grid::Input, 0, 0)); // outside the window
    QTableWidget* table = probe->table();
    QTableWidgetItem* anchor = probe->cell(Grid::Kernel, 7, 7);
    QVERIFY(anchor);
    QVERIFY(anchor->font().bold());
    QTRY_VERIFY2(table->viewport()->rect().contains(table->visualItemRect(anchor).center()),
                 qPrintable(QString("anchor cell at %1,%2, viewport %3x%4")
                                .arg(table->visualItemRect(anchor).x())
                                .arg(table->visualItemRect(anchor).y())
                                .arg(table->viewport()->width())
                                .arg(table->viewport()->height())));
    double shown = 0.0;
    for (int v = 3; v < 12; ++v)
        for (int u = 3; u < 12; ++u) shown += probe->cell(Grid::Products, v, u)->data(Qt::UserRole).toDouble();
    const QString summary = probe->summaryText();
    QVERIFY2(summary.contains("Σ shown") && summary.contains(QString::number(shown, 'g', 10)), qPrintable(summary));
    QVERIFY2(summary.contains("the other 144 taps") && summary.contains("all 225 taps"), qPrintable(summary));
    QVERIFY2(summary.contains(QString::number(p.sum, 'g', 10)), qPrintable(summary));
    QCOMPARE(p.value, w_->renderController()->result()->at(probe->channel(), 9, 4));
}

void TestProbePanel::viewOutlinesTheFootprintAsTheProbeMoves()
{
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(test::randomKernel(5, 3, test::KernelKind::Dense, 2), "5x3"); }));
    ImageView* view = w_->imageView();
    ProbePanel* probe = shownProbe();
    probe->setPixel(10, 8);
    QVERIFY(view->hasProbeMarks());
    QCOMPARE(view->probeMarkPixel(), QPoint(10, 8));
    QCOMPARE(view->probeMarkWindow(), QRect(8, 7, 5, 3));
    // The arrow keys on the view move the probe, and the outlines with it.
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Right);
    QCOMPARE(view->probeMarkPixel(), QPoint(11, 8));
    QCOMPARE(view->probeMarkWindow(), QRect(9, 7, 5, 3));
    // At the corner, without the padding preview, only the part inside the image is outlined.
    probe->setPixel(0, 0);
    QCOMPARE(view->probeMarkWindow(), QRect(0, 0, 3, 2));

    // Drawn over the picture: the footprint's and the pixel's colours on their outlines.
    probe->setPixel(12, 8);
    view->setZoom(16.0, QPointF(view->width() / 2.0, view->height() / 2.0));
    view->centreOnPixel(12, 8);
    const QImage shot = view->grabFramebuffer();
    const auto at = [&](double x, double y) {
        return QPoint(int(std::lround(view->origin().x() + x * view->zoom())),
                      int(std::lround(view->origin().y() + y * view->zoom())));
    };
    // The window (10, 7, 5, 3): the middle of its top edge, and the probed pixel's left edge.
    QVERIFY(colourNear(shot, at(12.5, 7), ProbeOverlay::footprintColour()));
    QVERIFY(colourNear(shot, at(12, 8.5), ProbeOverlay::probeColour()));
    QVERIFY(!colourNear(shot, at(12.5, 8.5), ProbeOverlay::probeColour(), 1)); // the pixel itself is not covered

    // A probe off screen (its dock closed, or behind another tab) leaves the picture clean.
    dockOf(probe)->hide();
    QVERIFY(!view->hasProbeMarks());
    shownProbe();
    QVERIFY(view->hasProbeMarks());
    auto* probeDock = dockOf(probe);
    const QList<QDockWidget*> tabs = w_->tabifiedDockWidgets(probeDock);
    QVERIFY(!tabs.isEmpty()); // the window's first layout tabs the panels together
    tabs.first()->raise();
    QTRY_VERIFY(!view->hasProbeMarks());
    probeDock->raise();
    QTRY_VERIFY(view->hasProbeMarks());
}

void TestProbePanel::paddingPreviewShowsTheTapsOutside()
{
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(test::randomKernel(5, 5, test::KernelKind::Dense, 2), "5x5"); }));
    ImageView* view = w_->imageView();
    ProbePanel* probe = shownProbe();
    probe->setPixel(0, 0);
    QCOMPARE(view->probeMarkWindow(), QRect(0, 0, 3, 3));
    w_->workbench()->setPaddingShown(true);
    QVERIFY(view->paddingPreview());
    QVERIFY(view->paddingMargin() >= 2);
    // The taps the border rule fills are outlined too.
    QCOMPARE(view->probeMarkWindow(), QRect(-2, -2, 5, 5));
    probe->setPixel(22, 16);
    QCOMPARE(view->probeMarkWindow(), QRect(20, 14, 5, 5));
    w_->workbench()->setPaddingShown(false);
    QCOMPARE(view->probeMarkWindow(), QRect(20, 14, 3, 3));
}

void TestProbePanel::stepperSlidesAlongTheRows()
{
    // (The order over a region: test_probesweep.)
    // Paused, a pixel's sum is complete at once; playing, it takes a tick per kernel row.
    ProbeStepper stepper;
    stepper.begin(3);
    QVERIFY(stepper.complete());
    stepper.setIntervalMs(1);
    stepper.setPlaying(true);
    stepper.begin(3);
    QCOMPARE(stepper.revealedRows(), 0);
    QSignalSpy revealed(&stepper, &ProbeStepper::revealed);
    QSignalSpy advance(&stepper, &ProbeStepper::advance);
    QTRY_VERIFY(!advance.isEmpty());
    QCOMPARE(revealed.count(), 3); // every row before the pixel is done
    QVERIFY(stepper.complete());
    stepper.setPlaying(false);
}

// Next and Play slide the probe along the row and on to the next (the region swept: the whole
// image); the outline in the view follows, and every sum, once complete, gives the result at
// its pixel.
void TestProbePanel::stepModeSumsEqualTheResult()
{
    KernelDocument* kernel = w_->kernelDocument();
    QVERIFY(renderAfter([&] { kernel->setKernel(test::randomKernel(5, 3, test::KernelKind::Dense, 9), "5x3"); }));
    QVERIFY(renderAfter([&] { kernel->setOffset(-2.0); }));
    ImageView* view = w_->imageView();
    ProbePanel* probe = shownProbe();
    const Image& result = *w_->renderController()->result();
    const auto checkSum = [&](QPoint at) {
        const PixelProbe& p = probe->probe();
        return probe->pixel() == at && p.x == at.x() && p.y == at.y() &&
               float(p.scale * p.sum + p.offset) == result.at(probe->channel(), at.y(), at.x()) &&
               view->probeMarkPixel() == at;
    };
    QVERIFY(probe->setSweepRegion(QRect(0, 0, 23, 17)));
    probe->setPixel(21, 3);
    for (const QPoint at : {QPoint(22, 3), QPoint(0, 4), QPoint(1, 4)}) {
        probe->stepNext();
        QVERIFY2(checkSum(at), qPrintable(QString("at (%1, %2)").arg(at.x()).arg(at.y())));
        QVERIFY(probe->summaryText().contains(QString::number(probe->probe().value, 'g', 9)));
    }
    probe->setPixel(22, 16);
    probe->stepNext();
    QCOMPARE(probe->pixel(), QPoint(22, 16));

    // Playing over a region of four pixels of row 5: the products of the rows not yet summed
    // are blank and no value is shown; once the sum is complete it is the result.
    ProbeStepper* stepper = probe->stepper();
    stepper->setIntervalMs(1);
    QVERIFY(probe->setSweepRegion(QRect(3, 5, 4, 1)));
    int partial = 0, complete = 0;
    bool consistent = true;
    connect(stepper, &ProbeStepper::revealed, probe, [&] {
        const int rows = stepper->revealedRows();
        if (stepper->complete()) {
            ++complete;
            consistent = consistent && checkSum(probe->pixel()) &&
                         !probe->cell(Grid::Products, 2, 0)->text().isEmpty();
            if (probe->pixel() == QPoint(6, 5)) stepper->setPlaying(false);
            return;
        }
        ++partial;
        consistent = consistent && probe->summaryText().contains("Σ so far") &&
                     !probe->cell(Grid::Products, rows - 1, 0)->text().isEmpty() &&
                     probe->cell(Grid::Products, rows, 0)->text().isEmpty();
    });
    probe->setPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(!stepper->playing(), kWaitMs);
    QCOMPARE(probe->pixel(), QPoint(6, 5));
    QVERIFY(consistent);
    QCOMPARE(complete, 4); // pixels 3 to 6 of the row, each built up
    QCOMPARE(partial, 2 * complete); // rows 1 and 2 of 3 before each pixel's sum is complete
    QVERIFY(checkSum(QPoint(6, 5)));
}

QTEST_MAIN(TestProbePanel)
#include "test_probepanel.moc"
