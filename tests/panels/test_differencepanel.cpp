// SPDX-License-Identifier: GPL-3.0-or-later
// The Difference panel and the difference view: the rule that picks the heat map's scale (the
// fixed one only while it shows something), FFT against the reference drawn visibly and said
// so in the panel, "show" ringing the pixel of the largest difference, and after an edit the
// comparison made again when cheap, else its figures kept greyed as stale.
// Run under Xvfb (xvfb-run -a).
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <limits>
#include <memory>

#include "convlab/compare.h"
#include "convlab/error.h"
#include "kernel/kerneldocument.h"
#include "panels/controlspanel.h"
#include "panels/differencepanel.h"
#include "testutil.h"
#include "uitestutil.h"
#include "view/differencescale.h"
#include "view/imageview.h"
#include "view/probeoverlay.h"
#include "window/mainwindow.h"
#include "workbench/rendercontroller.h"
#include "workbench/workbenchdocument.h"

using namespace convlab;
using Reason = display::DifferenceScaleChoice::Reason;

namespace {

constexpr int kWaitMs = 30000;

Kernel kernel5x5Distinct()
{
    std::vector<float> v(25);
    for (int i = 0; i < 25; ++i) v[std::size_t(i)] = float(i + 1) / 325.0f;
    return Kernel(5, 5, std::move(v));
}

bool refused(double maxAbs, double fixed, const char* mentions)
{
    try {
        display::adaptiveDifferenceScale(maxAbs, fixed);
    } catch (const Error& e) {
        return QString::fromUtf8(e.what()).contains(QLatin1String(mentions));
    }
    return false;
}

} // namespace

class TestDifferencePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void scaleRule();
    void scaleRuleRefusesBadInput();
    void fftAgainstReferenceIsVisible();
    void showRingsTheLargestDifference();
    void editComparesAgainWhenCheap();
    void editMarksTheFiguresStaleWhenCostly();

private:
    bool renderAfter(const std::function<void()>& action)
    {
        return test::renderAfter(w_->renderController(), action, kWaitMs);
    }
    DifferencePanel* panel() const { return w_->panel<DifferencePanel>(); }
    // Compares the FFT result with the reference and waits for the figures.
    bool compareFftWithReference();

    std::unique_ptr<MainWindow> w_;
};

void TestDifferencePanel::initTestCase() { test::useTestSettings("test_differencepanel"); }

void TestDifferencePanel::init()
{
    w_ = std::make_unique<MainWindow>(false);
    w_->resize(1200, 800);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    Image image = test::randomImage(48, 40, 1, 5, true);
    image.depth = SampleDepth::U8;
    QVERIFY(renderAfter([&] { w_->setSourceImage(image, "random"); }));
}

void TestDifferencePanel::cleanup() { w_.reset(); }

bool TestDifferencePanel::compareFftWithReference()
{
    if (!renderAfter([&] {
            w_->kernelDocument()->setKernel(kernel5x5Distinct(), "test kernel");
            w_->controls()->setMethod(Method::Fft);
        }))
        return false;
    QSignalSpy compared(w_->workbench(), &WorkbenchDocument::comparisonChanged);
    emit panel()->compareRequested();
    return QTest::qWaitFor([&] { return w_->workbench()->comparison() != nullptr; }, kWaitMs);
}

void TestDifferencePanel::scaleRule()
{
    // Far below a step of the fixed scale: the largest difference sets the scale.
    const auto tiny = display::adaptiveDifferenceScale(9.2e-5, 2.55);
    QCOMPARE(tiny.reason, Reason::LargestDifference);
    QCOMPARE(tiny.scale, 9.2e-5);
    const QString said = display::describeDifferenceScale(tiny, 9.2e-5, 2.55);
    QVERIFY2(said.contains("max 9.2e-05") && said.contains("scale set by the largest difference"), qPrintable(said));
    // One 255th of the fixed scale is where the fixed scale starts to be used.
    QCOMPARE(display::adaptiveDifferenceScale(0.01, 2.55), (display::DifferenceScaleChoice{2.55, Reason::Fixed}));
    QCOMPARE(display::adaptiveDifferenceScale(0.0099, 2.55).reason, Reason::LargestDifference);
    QCOMPARE(display::adaptiveDifferenceScale(0.0099, 2.55).scale, 0.0099);
    // Above the fixed scale it saturates, as Absolute means.
    QCOMPARE(display::adaptiveDifferenceScale(40.0, 2.55), (display::DifferenceScaleChoice{2.55, Reason::Fixed}));
    QVERIFY(display::describeDifferenceScale({2.55, Reason::Fixed}, 40.0, 2.55).contains("fixed scale 2.55"));
    // Identical images: nothing to show under any scale; the fixed one stays.
    QCOMPARE(display::adaptiveDifferenceScale(0.0, 2.55), (display::DifferenceScaleChoice{2.55, Reason::Identical}));
    QVERIFY(display::describeDifferenceScale({2.55, Reason::Identical}, 0.0, 2.55).startsWith("no difference"));
    // Relative: the largest difference is white whatever the fixed scale.
    QVERIFY(display::differenceScaleNote(display::DifferenceScale::Relative, 0.5, 2.55).contains("relative"));
}

void TestDifferencePanel::scaleRuleRefusesBadInput()
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    QVERIFY(refused(nan, 1.0, "largest difference"));
    QVERIFY(refused(-1.0, 1.0, "largest difference"));
    QVERIFY(refused(inf, 1.0, "largest difference"));
    QVERIFY(refused(0.5, 0.0, "fixed scale"));
    QVERIFY(refused(0.5, -2.0, "fixed scale"));
    QVERIFY(refused(0.5, inf, "fixed scale"));
    QVERIFY(display::differenceScaleNote(display::DifferenceScale::Absolute, nan, 1.0).isEmpty());
}

// FFT against the reference differs by rounding alone, far below the default fixed scale (1% of
// 255): the largest difference sets the scale, the panel says so, and its pixel is drawn white.
void TestDifferencePanel::fftAgainstReferenceIsVisible()
{
    QVERIFY(compareFftWithReference());
    ImageView* view = w_->imageView();
    const DiffStats& s = w_->workbench()->comparison()->stats;
    QVERIFY(s.maxAbs > 0.0 && s.maxAbs < 2.55 / 255.0);
    QCOMPARE(view->viewMode(), ImageView::ViewMode::Difference);
    QCOMPARE(view->differenceScale(), ImageView::DifferenceScale::Absolute);
    QCOMPARE(view->differenceFixedScale(), 2.55);
    QVERIFY(view->differenceScaleInUse() < 2.55 / 255.0);
    QCOMPARE(float(view->differenceScaleInUse()), float(s.maxAbs));
    QCOMPARE(view->colorBarRange().second, view->differenceScaleInUse());
    QVERIFY2(panel()->scaleText().contains("scale set by the largest difference"), qPrintable(panel()->scaleText()));
    QVERIFY2(view->differenceScaleNote().contains("scale set by the largest difference"),
             qPrintable(view->differenceScaleNote()));

    view->centreOnPixel(s.maxX, s.maxY);
    const QImage shot = view->grabFramebuffer();
    const QPoint centre(int(view->origin().x() + (s.maxX + 0.5) * view->zoom()),
                        int(view->origin().y() + (s.maxY + 0.5) * view->zoom()));
    const QColor c = shot.pixelColor(centre);
    QVERIFY2(c.red() > 200 && c.green() > 200, qPrintable(QString("largest difference drawn %1").arg(c.name())));

    // A fixed scale the difference reaches is used as set.
    w_->workbench()->setDifferenceScale(display::DifferenceScale::Absolute, s.maxAbs * 10.0);
    QCOMPARE(view->differenceScaleInUse(), s.maxAbs * 10.0);
    QVERIFY2(panel()->scaleText().contains("fixed scale"), qPrintable(panel()->scaleText()));
}

void TestDifferencePanel::showRingsTheLargestDifference()
{
    QVERIFY(compareFftWithReference());
    ImageView* view = w_->imageView();
    const DiffStats& s = w_->workbench()->comparison()->stats;
    QCOMPARE(view->ringedPixel(), QPoint(-1, -1));
    emit panel()->locateRequested(s.maxX, s.maxY);
    QCOMPARE(view->ringedPixel(), QPoint(s.maxX, s.maxY));
    QVERIFY(view->zoom() >= 4.0);
    // The ring surrounds the pixel at a radius of a few screen pixels more than the pixel's half.
    const double r = ProbeOverlay::ringRadius(view->zoom());
    QVERIFY(r > 0.5 * view->zoom());
    const QImage shot = view->grabFramebuffer();
    const QPointF centre(view->origin().x() + (s.maxX + 0.5) * view->zoom(),
                         view->origin().y() + (s.maxY + 0.5) * view->zoom());
    const auto ringAt = [&](double dx, double dy) {
        const QPoint p = (centre + QPointF(dx, dy)).toPoint();
        for (int y = p.y() - 1; y <= p.y() + 1; ++y)
            for (int x = p.x() - 1; x <= p.x() + 1; ++x) {
                const QColor c = shot.pixelColor(x, y);
                if (c.red() > 200 && c.green() < 120 && c.blue() > 200) return true;
            }
        return false;
    };
    QVERIFY(ringAt(r, 0));
    QVERIFY(ringAt(-r, 0));
    QVERIFY(ringAt(0, r));
    QVERIFY(!ringAt(0, 0)); // the pixel itself stays visible

    // A new result: the ring pointed at an older one.
    w_->workbench()->setAutoCompareSeconds(0.0);
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setCell(2, 2, 0.75f); }));
    QCOMPARE(view->ringedPixel(), QPoint(-1, -1));
}

void TestDifferencePanel::editComparesAgainWhenCheap()
{
    WorkbenchDocument* doc = w_->workbench();
    QVERIFY(compareFftWithReference());
    const WorkbenchDocument::Generation first = doc->comparison()->generation;
    // A 48x40 image is compared in well under 100 ms: the edit brings a new comparison by itself.
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setCell(2, 2, 0.75f); }));
    QVERIFY(QTest::qWaitFor([&] { return doc->comparison() != nullptr; }, kWaitMs));
    QVERIFY(!(doc->comparison()->generation == first));
    QVERIFY(doc->comparison()->generation == doc->result()->generation);
    QCOMPARE(doc->comparison()->reportB.method, Method::Reference);
    const DiffStats now = compareImages(*doc->result()->image, *w_->compareController()->result());
    QCOMPARE(doc->comparison()->stats.maxAbs, now.maxAbs);
    QVERIFY(!panel()->statsStale());
    QVERIFY(!doc->staleComparison());
    // It was on screen before the edit: it is again.
    QCOMPARE(w_->imageView()->viewMode(), ImageView::ViewMode::Difference);
}

void TestDifferencePanel::editMarksTheFiguresStaleWhenCostly()
{
    WorkbenchDocument* doc = w_->workbench();
    QVERIFY(compareFftWithReference());
    const double before = doc->comparison()->stats.maxAbs;
    doc->setAutoCompareSeconds(0.0); // as if path B took longer than the limit
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setCell(2, 2, 0.75f); }));
    QTest::qWait(50);
    QVERIFY(!doc->comparison());
    QVERIFY(!doc->comparing());
    QVERIFY(doc->staleComparison());
    QVERIFY(!doc->staleComparison()->difference); // the old map is never drawn
    QCOMPARE(doc->staleComparison()->stats.maxAbs, before);
    QVERIFY(panel()->statsStale());
    QVERIFY2(panel()->statsText().startsWith("stale: press Compare"), qPrintable(panel()->statsText()));
    QVERIFY(w_->imageView()->viewMode() != ImageView::ViewMode::Difference);

    // Compare: current figures again.
    emit panel()->compareRequested();
    QVERIFY(QTest::qWaitFor([&] { return doc->comparison() != nullptr; }, kWaitMs));
    QVERIFY(!panel()->statsStale());
    QVERIFY(!panel()->statsText().contains("stale"));
    QCOMPARE(w_->imageView()->viewMode(), ImageView::ViewMode::Difference);
    // Compare again while those are shown: the panel waits for the new ones.
    emit panel()->compareRequested();
    QVERIFY(doc->comparing()); // the statistics are made on a worker
    QCOMPARE(panel()->statsText(), QString("Comparing…"));
    QVERIFY(QTest::qWaitFor([&] { return !doc->comparing() && doc->comparison(); }, kWaitMs));
    QVERIFY(panel()->statsText().contains("max |A−B|"));

    // Another image: nothing of the old comparison remains.
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(20, 10, 1, 8), "other"); }));
    QVERIFY(!doc->comparison());
    QVERIFY(!doc->staleComparison());
    QVERIFY(!panel()->statsStale());
    QVERIFY2(panel()->statsText().startsWith("Pick path B"), qPrintable(panel()->statsText()));
}

QTEST_MAIN(TestDifferencePanel)
#include "test_differencepanel.moc"
