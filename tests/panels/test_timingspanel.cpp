// SPDX-License-Identifier: GPL-3.0-or-later
// The Timings panel: the median counts only runs of the same image, kernel, method and backend;
// the planner's estimate stands beside the measured time, with one line explaining a gap of
// more than 2×, which wraps in the dock instead of widening it. Run under Xvfb (xvfb-run -a).
#include <QLabel>
#include <QLayout>
#include <QTest>
#include <memory>
#include <utility>

#include "kernel/kerneldocument.h"
#include "panels/timingspanel.h"
#include "testutil.h"
#include "uitestutil.h"
#include "window/mainwindow.h"
#include "workbench/rendercontroller.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 20000;

// A run whose method took `ms` (one stage), estimated at `estimateMs` (below 0: none).
RunReport run(double ms, Method method = Method::Direct, Device device = Device::Cpu, double estimateMs = -1.0)
{
    RunReport r;
    r.method = method;
    r.device = device;
    r.stages = {{"convolve", ms, false}};
    r.totalMs = ms;
    r.computeMs = ms;
    if (estimateMs >= 0) r.estimates = {{method, estimateMs, 1}, {Method::Fft, estimateMs * 7, 1}};
    return r;
}

const Kernel kBox(3, 3, std::vector<float>(9, 1.0f / 9));
const Kernel kEdge(3, 3, {1, 1, 1, 1, -8, 1, 1, 1, 1});

} // namespace

class TestTimingsPanel : public QObject {
    Q_OBJECT

private slots:
    void subjectsTellKernelsAndImagesApart();
    void medianOnlyOverRunsAlike();
    void medianCountsAtMostTwenty();
    void gapOfMoreThanTwiceIsExplained_data();
    void gapOfMoreThanTwiceIsExplained();
    void estimateStandsBesideTheMeasuredTime();
    void longExplanationNeverWidensThePanel();
    void windowRunsOfTwoKernelsShareNoMedian();
};

void TestTimingsPanel::subjectsTellKernelsAndImagesApart()
{
    QVERIFY(RunSubject::of(1, kBox) == RunSubject::of(1, kBox));
    QVERIFY(!(RunSubject::of(1, kBox) == RunSubject::of(1, kEdge)));
    QVERIFY(!(RunSubject::of(1, kBox) == RunSubject::of(2, kBox)));
    Kernel moved = kBox;
    moved.anchorX = 0;
    QVERIFY(!(RunSubject::of(1, kBox) == RunSubject::of(1, moved)));
    Kernel named = kBox;
    named.name = "box"; // a name computes nothing
    QVERIFY(RunSubject::of(1, kBox) == RunSubject::of(1, named));
}

void TestTimingsPanel::medianOnlyOverRunsAlike()
{
    TimingsPanel panel;
    const RunSubject box = RunSubject::of(1, kBox), edge = RunSubject::of(1, kEdge);
    panel.addRun(run(10), 100, box);
    panel.addRun(run(1000), 100, edge);
    panel.addRun(run(20), 100, box);
    panel.addRun(run(2000), 100, edge);
    panel.addRun(run(30), 100, box);
    QCOMPARE(panel.medianCount(), 3);
    QCOMPARE(panel.medianMs(), 20.0);
    QVERIFY2(panel.summaryText().contains("median of last 3"), qPrintable(panel.summaryText()));

    panel.addRun(run(3000), 100, edge);
    QCOMPARE(panel.medianCount(), 3);
    QCOMPARE(panel.medianMs(), 2000.0);

    // Another method, another backend, another image: each a median of its own.
    panel.addRun(run(5, Method::Fft), 100, edge);
    QCOMPARE(panel.medianCount(), 1);
    QCOMPARE(panel.medianMs(), 5.0);
    panel.addRun(run(7, Method::Direct, Device::Cuda), 100, edge);
    QCOMPARE(panel.medianCount(), 1);
    panel.addRun(run(40), 100, RunSubject::of(2, kBox));
    QCOMPARE(panel.medianCount(), 1);
    QCOMPARE(panel.medianMs(), 40.0);
    // Back to the first: its runs were kept.
    panel.addRun(run(40), 100, box);
    QCOMPARE(panel.medianCount(), 4);
    QCOMPARE(panel.medianMs(), 30.0);
}

void TestTimingsPanel::medianCountsAtMostTwenty()
{
    TimingsPanel panel;
    const RunSubject box = RunSubject::of(1, kBox);
    for (int i = 1; i <= 30; ++i) panel.addRun(run(i), 100, box);
    QCOMPARE(panel.medianCount(), 20);
    QCOMPARE(panel.medianMs(), 21.0); // the last 20: 11..30
}

void TestTimingsPanel::gapOfMoreThanTwiceIsExplained_data()
{
    QTest::addColumn<double>("measured");
    QTest::addColumn<double>("estimate");
    QTest::addColumn<QString>("expected"); // empty: no explanation
    QTest::newRow("85x slower") << 12.0 << 0.142 << "measured 12.0 ms is 85× the estimate 142 µs";
    QTest::newRow("2.3x slower") << 2.3 << 1.0 << "is 2.3× the estimate";
    QTest::newRow("5x faster") << 0.2 << 1.0 << "measured 200 µs is 1/5 of the estimate 1.00 ms";
    QTest::newRow("twice: agrees") << 2.0 << 1.0 << "";
    QTest::newRow("half: agrees") << 0.5 << 1.0 << "";
    QTest::newRow("close") << 1.1 << 1.0 << "";
    QTest::newRow("no estimate") << 12.0 << -1.0 << "";
}

void TestTimingsPanel::gapOfMoreThanTwiceIsExplained()
{
    QFETCH(double, measured);
    QFETCH(double, estimate);
    QFETCH(QString, expected);
    const QString text = estimateGapExplanation(measured, estimate);
    if (expected.isEmpty()) {
        QCOMPARE(text, QString());
        return;
    }
    QVERIFY2(text.contains(expected), qPrintable(text));
    QVERIFY(!text.contains('\n')); // one line (the label wraps it)
}

void TestTimingsPanel::estimateStandsBesideTheMeasuredTime()
{
    TimingsPanel panel;
    panel.addRun(run(1.2, Method::Direct, Device::Cpu, 1.0), 100, RunSubject::of(1, kBox));
    QVERIFY2(panel.estimateText().contains("estimate 1.00 ms"), qPrintable(panel.estimateText()));
    QVERIFY(panel.estimateText().contains("measured 1.20 ms"));
    QVERIFY(!panel.estimateText().contains('\n')); // within 2×: nothing to explain

    panel.addRun(run(12.0, Method::Direct, Device::Cpu, 0.142), 100, RunSubject::of(1, kBox));
    QVERIFY2(panel.estimateText().contains("85× the estimate"), qPrintable(panel.estimateText()));
    QCOMPARE(panel.estimateLabel()->toolTip(), panel.estimateText());

    panel.addRun(run(3.0), 100, RunSubject::of(1, kBox)); // a method by name: no estimate
    QVERIFY(panel.estimateText().contains("measured 3.00 ms"));
    QVERIFY(panel.estimateText().contains("no estimate"));
}

void TestTimingsPanel::longExplanationNeverWidensThePanel()
{
    TimingsPanel panel;
    panel.resize(260, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.addRun(run(9000.0, Method::Direct, Device::Cpu, 0.001), 100, RunSubject::of(1, kBox));
    QLabel* label = panel.estimateLabel();
    QVERIFY(!estimateGapExplanation(9000.0, 0.001).isEmpty());
    QVERIFY(label->wordWrap());
    // The text alone would need several times the panel's width on one line.
    QVERIFY(label->fontMetrics().horizontalAdvance(panel.estimateText()) > 2 * panel.width());
    // What the panel asks of the dock is the same with the label as without it.
    auto widths = [&] {
        panel.layout()->invalidate();
        return std::pair(panel.sizeHint().width(), panel.minimumSizeHint().width());
    };
    const auto shown = widths();
    label->hide();
    const auto hidden = widths();
    label->show();
    QCOMPARE(shown.first, hidden.first);
    QCOMPARE(shown.second, hidden.second);
    QTRY_VERIFY(label->width() <= panel.width());
    // Wrapped into several lines, all of them shown.
    QTRY_VERIFY(label->height() >= 3 * label->fontMetrics().lineSpacing());
}

void TestTimingsPanel::windowRunsOfTwoKernelsShareNoMedian()
{
    test::useTestSettings("test_timingspanel");
    MainWindow w(false);
    w.resize(900, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    RenderController* render = w.renderController();
    TimingsPanel* panel = w.panel<TimingsPanel>();
    QVERIFY(panel);
    KernelDocument* kernel = w.kernelDocument();
    kernel->setKernel(kBox, "box");
    QVERIFY(test::renderAfter(render, [&] { w.setSourceImage(test::randomImage(31, 17, 1, 4), "random"); }, kWaitMs));
    QCOMPARE(panel->medianCount(), 1);
    QVERIFY(test::renderAfter(render, [&] { kernel->setKernel(kEdge, "edge"); }, kWaitMs));
    QCOMPARE(panel->medianCount(), 1); // the box's run is not the edge's
    QVERIFY(test::renderAfter(render, [&] { kernel->undoStack()->undo(); }, kWaitMs));
    QCOMPARE(kernel->kernel().values, kBox.values);
    QCOMPARE(panel->medianCount(), 2); // the box's two runs, the edge's between them left out
    QVERIFY(panel->summaryText().contains("median of last 2"));
}

QTEST_MAIN(TestTimingsPanel)
#include "test_timingspanel.moc"
