// SPDX-License-Identifier: GPL-3.0-or-later
// The Pixel Probe's sweep over a region (panels/sweepregion.h, panels/probepanel_sweep.cpp,
// view/sweepoverlay.h): the order and the default region as plain functions, then the rule
// that matters to a class: at every step of a sweep the sum built up row by row gives the
// engine's result at that pixel, for every border mode, odd kernel sizes and regions touching
// the image's edges; the veil over the outputs still to come; pause and resume; the region
// chosen by boxes, buttons and a Shift-drag; the speed kept in the settings.
// Run under Xvfb (xvfb-run -a).
#include <QDockWidget>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTest>

#include <memory>

#include "convlab/convolve.h"
#include "kernel/kerneldocument.h"
#include "panels/controlspanel.h"
#include "panels/panels.h"
#include "panels/probepanel.h"
#include "panels/probestepper.h"
#include "panels/sweepcontrols.h"
#include "panels/sweepregion.h"
#include "testutil.h"
#include "uitestutil.h"
#include "view/imageview.h"
#include "view/sweepoverlay.h"
#include "window/mainwindow.h"
#include "workbench/rendercontroller.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 30000;
constexpr int kWidth = 23, kHeight = 17;

QString at(QPoint p) { return QStringLiteral("(%1, %2)").arg(p.x()).arg(p.y()); }

// Every pixel of `region` in the order the engine visits them.
QVector<QPoint> rowOrder(const QRect& region)
{
    QVector<QPoint> out;
    for (int y = region.top(); y <= region.bottom(); ++y)
        for (int x = region.left(); x <= region.right(); ++x) out << QPoint(x, y);
    return out;
}

} // namespace

class TestProbeSweep : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    // Plain functions.
    void nextFollowsTheRowsOfTheRegion();
    void defaultRegionLiesAroundThePixel();
    // The panel, the engine and the view.
    void sweepSumsEqualTheEngineForEveryBorderMode();
    void veilUncoversEachOutputAsItsSumCompletes();
    void pauseResumesWhereItStopped();
    void regionFromBoxesButtonsAndDrag();
    void speedIsKeptInTheSettings();

private:
    bool renderAfter(const std::function<void()>& action)
    {
        return test::renderAfter(w_->renderController(), action, kWaitMs);
    }
    ProbePanel* shownProbe();
    // Plays the sweep of `probe`'s region to its end; the pixels and values it completed.
    QVector<QPair<QPoint, float>> playToTheEnd(ProbePanel* probe);

    std::unique_ptr<MainWindow> w_;
};

void TestProbeSweep::initTestCase() { test::useTestSettings("test_probesweep"); }

void TestProbeSweep::init()
{
    w_ = std::make_unique<MainWindow>(false);
    w_->resize(1200, 800);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    w_->controls()->setMethod(Method::Reference);
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(kWidth, kHeight, 1, 5), "random"); }));
}

void TestProbeSweep::cleanup() { w_.reset(); }

ProbePanel* TestProbeSweep::shownProbe()
{
    ProbePanel* probe = w_->panel<ProbePanel>();
    if (QDockWidget* dock = dockOf(probe)) {
        dock->show();
        dock->raise();
    }
    QTest::qWait(0);
    return probe;
}

QVector<QPair<QPoint, float>> TestProbeSweep::playToTheEnd(ProbePanel* probe)
{
    QVector<QPair<QPoint, float>> done;
    const QMetaObject::Connection c = connect(probe, &ProbePanel::sumCompleted, this,
                                              [&](int x, int y, float v) { done.append({QPoint(x, y), v}); });
    probe->stepper()->setIntervalMs(1);
    probe->setPlaying(true);
    const bool ended = QTest::qWaitFor([&] { return !probe->stepper()->playing(); }, kWaitMs);
    disconnect(c);
    if (!ended) done.clear();
    return done;
}

void TestProbeSweep::nextFollowsTheRowsOfTheRegion()
{
    const QRect region(2, 5, 3, 2); // columns 2..4, rows 5..6
    QCOMPARE(sweep::next({2, 5}, region), QPoint(3, 5));
    QCOMPARE(sweep::next({4, 5}, region), QPoint(2, 6)); // the row's end: the next row's start
    QCOMPARE(sweep::next({4, 6}, region), QPoint(4, 6)); // the last pixel stays
    QCOMPARE(sweep::next({0, 0}, region), QPoint(2, 5)); // from outside: the region's first
    QCOMPARE(sweep::next({7, 7}, QRect()), QPoint(7, 7));
    QCOMPARE(sweep::indexOf({2, 5}, region), 0);
    QCOMPARE(sweep::indexOf({3, 6}, region), 4);
    QCOMPARE(sweep::indexOf({5, 6}, region), -1);
    // A 1x1 region: its one pixel is first and last.
    QCOMPARE(sweep::next({9, 9}, QRect(3, 3, 1, 1)), QPoint(3, 3));
    QCOMPARE(sweep::next({3, 3}, QRect(3, 3, 1, 1)), QPoint(3, 3));
    QCOMPARE(sweep::clamped(QRect(20, 15, 10, 10), QSize(kWidth, kHeight)), QRect(20, 15, 3, 2));
    QVERIFY(sweep::clamped(QRect(30, 0, 4, 4), QSize(kWidth, kHeight)).isEmpty());
}

void TestProbeSweep::defaultRegionLiesAroundThePixel()
{
    const QSize image(kWidth, kHeight), size = sweep::kDefaultSize;
    const QRect middle = sweep::around({11, 8}, image);
    QCOMPARE(middle.size(), size);
    QVERIFY(middle.contains(11, 8));
    QCOMPARE(middle.center(), QPoint(11 - 1, 8 - 1) + QPoint(size.width() % 2, size.height() % 2));
    // At a corner it is moved inside, not cut: a whole region to sweep.
    QCOMPARE(sweep::around({0, 0}, image), QRect(QPoint(0, 0), size));
    QCOMPARE(sweep::around({kWidth - 1, kHeight - 1}, image),
             QRect(QPoint(kWidth - size.width(), kHeight - size.height()), size));
    // An image smaller than the region: the whole image.
    QCOMPARE(sweep::around({1, 0}, QSize(3, 1)), QRect(0, 0, 3, 1));
    QVERIFY(sweep::around({0, 0}, QSize()).isEmpty());
}

// The rule: each sum the sweep completes, built up a kernel row at a time, is the engine's
// output at that pixel, bit for bit (the reference method adds in the same order), in every
// border mode, with odd and even-by-odd kernels, over regions at a corner and along an edge.
void TestProbeSweep::sweepSumsEqualTheEngineForEveryBorderMode()
{
    ProbePanel* probe = shownProbe();
    KernelDocument* kernel = w_->kernelDocument();
    struct Case {
        QSize kernel;
        QRect region;
    };
    const Case cases[] = {{{5, 3}, QRect(0, 0, 4, 3)},                       // the top-left corner
                          {{3, 7}, QRect(kWidth - 3, kHeight - 4, 3, 4)},     // the bottom-right corner
                          {{7, 5}, QRect(9, kHeight - 2, 5, 2)}};             // along the bottom edge
    for (const Case& c : cases) {
        QVERIFY(renderAfter([&] {
            kernel->setKernel(test::randomKernel(c.kernel.width(), c.kernel.height(), test::KernelKind::Dense, 3),
                              "odd");
        }));
        for (const BorderModeInfo& mode : borderModes()) {
            Border border;
            border.mode = mode.mode;
            border.value = 17.5f;
            QVERIFY(renderAfter([&] { w_->controls()->setBorder(border); }));
            ConvolveParams params = w_->currentParams();
            params.method = Method::Reference;
            const Image engine = convolve(*w_->sourceImage(), params);
            QVERIFY(probe->setSweepRegion(c.region));
            const QVector<QPair<QPoint, float>> done = playToTheEnd(probe);
            const QString what = QStringLiteral("%1x%2 kernel, %3, region at %4")
                                     .arg(c.kernel.width()).arg(c.kernel.height())
                                     .arg(QString::fromUtf8(mode.name), at(c.region.topLeft()));
            const QVector<QPoint> order = rowOrder(c.region);
            QVERIFY2(done.size() == order.size(), qPrintable(what + QStringLiteral(": %1 sums").arg(done.size())));
            for (int i = 0; i < done.size(); ++i) {
                const QPoint p = done[i].first;
                QVERIFY2(p == order[i], qPrintable(what + ": step " + QString::number(i) + " at " + at(p)));
                QVERIFY2(done[i].second == engine.at(0, p.y(), p.x()),
                         qPrintable(what + " at " + at(p) + QStringLiteral(": %1 against %2")
                                                               .arg(done[i].second, 0, 'g', 9)
                                                               .arg(engine.at(0, p.y(), p.x()), 0, 'g', 9)));
            }
            QVERIFY(!probe->sweeping()); // over at the region's last pixel
        }
    }
}

// While a sweep runs, the outputs still to come are veiled in the view; each appears when its
// sum is complete, and the veil is gone when the sweep is over.
void TestProbeSweep::veilUncoversEachOutputAsItsSumCompletes()
{
    ProbePanel* probe = shownProbe();
    SweepOverlay* overlay = w_->imageView()->findChild<SweepOverlay*>();
    QVERIFY(overlay);
    QVERIFY(overlay->shown());
    const QRect region(kWidth - 4, 2, 4, 3); // along the right edge
    QVERIFY(probe->setSweepRegion(region));
    QCOMPARE(overlay->region(), region);
    QCOMPARE(overlay->done(), -1); // no sweep yet: nothing veiled
    bool consistent = true;
    int partial = 0;
    auto veiledPixels = [&] {
        int n = 0;
        for (const QRect& r : overlay->veiled()) n += r.width() * r.height();
        return n;
    };
    connect(probe->stepper(), &ProbeStepper::revealed, probe, [&] {
        const int index = sweep::indexOf(probe->pixel(), region);
        const int doneNow = probe->stepper()->complete() ? index + 1 : index;
        const int area = region.width() * region.height();
        if (!probe->stepper()->complete()) ++partial;
        consistent = consistent && overlay->done() == doneNow && veiledPixels() == area - doneNow;
        // The pixel being summed is veiled until its sum is complete.
        bool pixelVeiled = false;
        for (const QRect& r : overlay->veiled()) pixelVeiled = pixelVeiled || r.contains(probe->pixel());
        consistent = consistent && pixelVeiled == !probe->stepper()->complete();
    });
    QCOMPARE(playToTheEnd(probe).size(), region.width() * region.height());
    QVERIFY(consistent);
    QVERIFY(partial > 0);
    QCOMPARE(overlay->done(), -1);
    QVERIFY(overlay->veiled().isEmpty());
    // Hidden with its panel.
    dockOf(probe)->hide();
    QTRY_VERIFY(!overlay->shown());
}

void TestProbeSweep::pauseResumesWhereItStopped()
{
    ProbePanel* probe = shownProbe();
    QVERIFY(probe->setSweepRegion(QRect(0, kHeight - 2, 5, 2)));
    QVector<QPoint> done;
    connect(probe, &ProbePanel::sumCompleted, this, [&](int x, int y) {
        done << QPoint(x, y);
        if (done.size() == 3) probe->setPlaying(false);
    });
    probe->stepper()->setIntervalMs(1);
    probe->setPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(!probe->stepper()->playing(), kWaitMs);
    QCOMPARE(done.size(), 3);
    QVERIFY(probe->sweeping()); // paused, not over
    QCOMPARE(probe->pixel(), QPoint(2, kHeight - 2));
    // Next steps on from there, then Play goes on to the end without starting again.
    probe->stepNext();
    QCOMPARE(probe->pixel(), QPoint(3, kHeight - 2));
    probe->setPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(!probe->stepper()->playing(), kWaitMs);
    QCOMPARE(done, rowOrder(probe->sweepRegion()));
    QVERIFY(!probe->sweeping());
    // A click of the user's elsewhere ends a sweep.
    probe->setPlaying(true);
    QVERIFY(probe->sweeping());
    probe->setPixel(20, 1);
    QVERIFY(!probe->sweeping());
    QVERIFY(!probe->stepper()->playing());
}

void TestProbeSweep::regionFromBoxesButtonsAndDrag()
{
    ProbePanel* probe = shownProbe();
    SweepControls* controls = probe->sweepControls();
    // By default a small region around the probe, following it.
    probe->setPixel(12, 9);
    QCOMPARE(probe->sweepRegion(), sweep::around({12, 9}, QSize(kWidth, kHeight)));
    probe->setPixel(1, 1);
    QVERIFY(probe->sweepRegion().contains(1, 1));
    QCOMPARE(controls->region(), probe->sweepRegion());
    // Boxes: a width past the edge is cut there.
    const QList<QSpinBox*> boxes = controls->findChildren<QSpinBox*>();
    QVERIFY(boxes.size() >= 4);
    boxes[0]->setValue(20); // x
    boxes[2]->setValue(8);  // w: 20 + 8 > 23
    QCOMPARE(probe->sweepRegion().left(), 20);
    QCOMPARE(probe->sweepRegion().right(), kWidth - 1);
    QCOMPARE(controls->region(), probe->sweepRegion());
    // A chosen region stays when the probe moves out of it.
    probe->setPixel(2, 2);
    QCOMPARE(probe->sweepRegion().left(), 20);
    // Whole image, then Around probe again.
    QPushButton* whole = nullptr;
    QPushButton* around = nullptr;
    for (QPushButton* b : controls->findChildren<QPushButton*>()) {
        if (b->text().contains("Whole")) whole = b;
        if (b->text().contains("Around")) around = b;
    }
    QVERIFY(whole && around);
    whole->click();
    QCOMPARE(probe->sweepRegion(), QRect(0, 0, kWidth, kHeight));
    around->click();
    QCOMPARE(probe->sweepRegion(), sweep::around({2, 2}, QSize(kWidth, kHeight)));
    // A Shift-drag on the view draws a region, from one pixel to the other, both included.
    ImageView* view = w_->imageView();
    view->setZoom(8.0);
    QTest::qWait(100); // the dock's layout settles; the view keeps the image centred
    const auto centreOf = [view](QPoint px) {
        return (view->origin() + (QPointF(px) + QPointF(0.5, 0.5)) * view->zoom()).toPoint();
    };
    QCOMPARE(view->widgetToImage(centreOf({7, 6})), QPointF(7.5, 6.5));
    QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, centreOf({7, 6}));
    QTest::mouseMove(view, centreOf({4, 3}));
    QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, centreOf({4, 3}));
    QCOMPARE(probe->sweepRegion(), QRect(QPoint(4, 3), QPoint(7, 6)));
    QCOMPARE(controls->region(), probe->sweepRegion());
    // A region wholly outside the image is refused and changes nothing.
    QVERIFY(!probe->setSweepRegion(QRect(40, 40, 3, 3)));
    QCOMPARE(probe->sweepRegion(), QRect(QPoint(4, 3), QPoint(7, 6)));
}

void TestProbeSweep::speedIsKeptInTheSettings()
{
    ProbePanel* probe = shownProbe();
    SweepControls* controls = probe->sweepControls();
    QCOMPARE(controls->stepsPerSecond(), SweepControls::kDefaultStepsPerSecond);
    controls->setStepsPerSecond(20);
    QCOMPARE(controls->intervalMs(), 50);
    controls->setStepsPerSecond(1000); // beyond the range: the fastest
    QCOMPARE(controls->stepsPerSecond(), SweepControls::kMaxStepsPerSecond);
    controls->setStepsPerSecond(20);
    // A new window (a new session) starts at the speed chosen.
    w_ = std::make_unique<MainWindow>(false);
    QCOMPARE(w_->panel<ProbePanel>()->sweepControls()->stepsPerSecond(), 20);
    QSettings().remove("probe/sweepStepsPerSecond");
}

QTEST_MAIN(TestProbeSweep)
#include "test_probesweep.moc"
