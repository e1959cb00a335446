// SPDX-License-Identifier: GPL-3.0-or-later
// The teaching panels of the workbench: the pixel probe against the displayed result, the
// kernel analysis as the kernel is edited and undone, code export, the method crossover sweep.
// Run under Xvfb (xvfb-run -a): the image view draws with OpenGL.
#include <QApplication>
#include <QClipboard>
#include <QLineEdit>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>
#include <memory>
#include <set>

#include "panels/analysispanel.h"
#include "tools/borderlab.h"
#include "panels/controlspanel.h"
#include "convlab/export.h"
#include "tools/crossoverdialog.h"
#include "tools/exportdialog.h"
#include "view/imageview.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneleditor.h"
#include "window/mainwindow.h"
#include "workbench/workbenchdocument.h"
#include "panels/probepanel.h"
#include "workbench/rendercontroller.h"
#include "testutil.h"
#include "uitestutil.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 20000;
constexpr int kSweepWaitMs = 120000;

// 5x5, every value distinct and asymmetric, so a missing flip or a wrong tap shows.
Kernel asymmetric5x5()
{
    std::vector<float> v(25);
    for (int i = 0; i < 25; ++i) v[i] = float((i * 7) % 25 + 1) / 100.0f - 0.1f;
    return Kernel(5, 5, std::move(v));
}

} // namespace

class TestTeachingUi : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void probeEqualsResultAtCorners_data();
    void probeEqualsResultAtCorners();
    void probeMarksPaddedValues();
    void arrowKeysAndClicksMoveProbe();
    void analysisFollowsEditsAndUndo();
    void frequencyResponseImage();
    void exportDialogShowsExportCode();
    void crossoverSweepCompletes();
    void crossoverSweepCancels();
    void crossoverMarksFastestApartFromAuto();
    void paddingFollowsKernelAndToggle();
    void borderLabFollowsParameters();

private:
    bool renderAfter(const std::function<void()>& action);
    bool analysisAfter(const std::function<void()>& action);
    void typeIntoCell(int row, int column, const QString& text);
    // Sets the border (by name) and waits for its render when it changes anything.
    bool setBorder(const QString& name);
    RenderController* render() const { return w_->renderController(); }
    ProbePanel* probe() const { return w_->panel<ProbePanel>(); }
    AnalysisPanel* analysis() const { return w_->panel<AnalysisPanel>(); }

    std::unique_ptr<MainWindow> w_;
    QStringList errors_;
};

void TestTeachingUi::initTestCase()
{
    test::useTestSettings("test_teaching_ui");
}

void TestTeachingUi::init()
{
    errors_.clear();
    w_ = std::make_unique<MainWindow>(false);
    w_->setErrorReporter([this](const QString& m) { errors_ << m; });
    w_->resize(1000, 700);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    // The probe reproduces the reference method bit for bit: the view shows that method here.
    w_->controls()->setMethod(Method::Reference);
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(23, 17, 3, 11), "random"); }));
}

void TestTeachingUi::cleanup()
{
    QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    w_.reset();
}

bool TestTeachingUi::renderAfter(const std::function<void()>& action)
{
    return test::renderAfter(render(), action, kWaitMs);
}

bool TestTeachingUi::analysisAfter(const std::function<void()>& action)
{
    QSignalSpy updated(analysis(), &AnalysisPanel::updated);
    action();
    return QTest::qWaitFor([&] { return !updated.isEmpty() && !analysis()->pending(); }, kWaitMs) &&
           analysis()->hasAnalysis();
}

bool TestTeachingUi::setBorder(const QString& name)
{
    const Border b = parseBorder(name.toStdString());
    const Border now = w_->controls()->border();
    if (now.mode == b.mode && (!borderModeInfo(b.mode).takesValue || now.value == b.value)) return true;
    return renderAfter([&] { w_->controls()->setBorder(b); });
}

void TestTeachingUi::typeIntoCell(int row, int column, const QString& text)
{
    QVERIFY(test::typeIntoCell(w_->kernelEditor()->table(), row, column, text));
}

void TestTeachingUi::probeEqualsResultAtCorners_data()
{
    QTest::addColumn<QString>("border");
    QTest::addColumn<bool>("correlation");
    for (const std::string& spelled : test::borderSpellings("2.5")) {
        const QString b = QString::fromStdString(spelled);
        QTest::newRow(qPrintable(b)) << b << false;
        QTest::newRow(qPrintable(b + " correlation")) << b << true;
    }
}

void TestTeachingUi::probeEqualsResultAtCorners()
{
    QFETCH(QString, border);
    QFETCH(bool, correlation);
    KernelDocument* doc = w_->kernelDocument();
    QVERIFY(renderAfter([&] { doc->setKernel(asymmetric5x5(), "kernel"); }));
    if (correlation) QVERIFY(renderAfter([&] { doc->setSemantics(Semantics::Correlation); }));
    QVERIFY(setBorder(border));
    QCOMPARE(render()->resultParams().border.mode, parseBorder(border.toStdString()).mode);

    const Image& result = *render()->result();
    const QPoint corners[] = {{0, 0}, {result.width - 1, 0}, {0, result.height - 1},
                              {result.width - 1, result.height - 1}, {1, 2}};
    for (const QPoint& c : corners)
        for (int ch = 0; ch < result.channels; ++ch) {
            probe()->setChannel(ch);
            probe()->setPixel(c.x(), c.y());
            QCOMPARE(probe()->pixel(), c);
            QVERIFY(probe()->hasProbe());
            QCOMPARE(probe()->probe().channel, ch);
            QCOMPARE(probe()->probe().taps.size(), std::size_t(25));
            QCOMPARE(probe()->probe().value, result.at(ch, c.y(), c.x()));
            QCOMPARE(probe()->displayedValue().value(), result.at(ch, c.y(), c.x()));
        }
    // The table holds one cell per tap in each grid.
    QCOMPARE(probe()->window(), QRect(0, 0, 5, 5));
    QCOMPARE(probe()->table()->rowCount(), 5);
    QCOMPARE(probe()->table()->columnCount(), 3 * 5 + 2);
}

void TestTeachingUi::probeMarksPaddedValues()
{
    KernelDocument* doc = w_->kernelDocument();
    QVERIFY(renderAfter([&] { doc->setKernel(asymmetric5x5(), "kernel"); }));
    QVERIFY(setBorder("reflect"));
    probe()->setChannel(1);
    probe()->setPixel(0, 0);
    const auto in = [this](int v, int u) { return probe()->cell(ProbePanel::Grid::Input, v, u); };
    // Tap (0,0) reads (-2,-2): reflect takes it from (1,1).
    QTableWidgetItem* padded = in(0, 0);
    QVERIFY(padded);
    QVERIFY(padded->font().italic());
    QVERIFY2(padded->toolTip().contains("reflect reads (1, 1)"), qPrintable(padded->toolTip()));
    QCOMPARE(padded->text(), QString::number(w_->sourceImage()->at(1, 1, 1), 'g', 4));
    QTableWidgetItem* inside = in(2, 2);
    QVERIFY(!inside->font().italic());
    QVERIFY(inside->font().bold()); // the anchor
    // The applied kernel is the written one rotated by 180 degrees.
    const Kernel k = asymmetric5x5();
    QCOMPARE(probe()->cell(ProbePanel::Grid::Kernel, 0, 0)->text(), QString::number(k.at(4, 4), 'g', 4));

    QVERIFY(setBorder("constant:7"));
    padded = in(0, 0);
    QVERIFY(padded->toolTip().contains("border constant"));
    QCOMPARE(padded->text(), QString("7"));
    QCOMPARE(probe()->probe().value, render()->result()->at(1, 0, 0));
}

void TestTeachingUi::arrowKeysAndClicksMoveProbe()
{
    probe()->setPixel(5, 5);
    ImageView* view = w_->imageView();
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Right);
    QCOMPARE(probe()->pixel(), QPoint(6, 5));
    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(probe()->pixel(), QPoint(6, 6));
    QTest::keyClick(view, Qt::Key_Up);
    QTest::keyClick(view, Qt::Key_Left);
    QCOMPARE(probe()->pixel(), QPoint(5, 5));
    // Shift moves by ten, clamped at the edges.
    QTest::keyClick(view, Qt::Key_Left, Qt::ShiftModifier);
    QCOMPARE(probe()->pixel(), QPoint(0, 5));
    QTest::keyClick(view, Qt::Key_Down, Qt::ShiftModifier);
    QTest::keyClick(view, Qt::Key_Down, Qt::ShiftModifier);
    QCOMPARE(probe()->pixel(), QPoint(0, 16));
    QCOMPARE(probe()->probe().value, render()->result()->at(probe()->channel(), 16, 0));

    emit view->pixelClicked(20, 3);
    QCOMPARE(probe()->pixel(), QPoint(20, 3));
    QCOMPARE(probe()->probe().x, 20);
    QCOMPARE(probe()->probe().value, render()->result()->at(probe()->channel(), 3, 20));
}

void TestTeachingUi::analysisFollowsEditsAndUndo()
{
    KernelDocument* doc = w_->kernelDocument();
    QVERIFY(analysisAfter([&] { doc->setKernel(makePreset("gaussian", "sigma=1.2,size=7"), "gaussian"); }));
    QCOMPARE(analysis()->analysis().rank, 1);
    QVERIFY2(analysis()->fieldText("rank").startsWith("1 "), qPrintable(analysis()->fieldText("rank")));
    QVERIFY(analysis()->fieldText("factors").contains("column"));
    QVERIFY(analysis()->fieldText("class").contains("low-pass"));
    QVERIFY(!analysis()->analysis().zeroSum);

    QVERIFY(analysisAfter([&] { doc->setKernel(makePreset("laplacian4"), "laplacian"); }));
    QVERIFY(analysis()->analysis().zeroSum);
    QVERIFY(analysis()->fieldText("zeroSum").startsWith("yes"));
    QVERIFY(analysis()->analysis().rank > 1);
    QVERIFY(analysis()->fieldText("factors").startsWith("not"));
    const int w = doc->kernel().width, h = doc->kernel().height;

    // A typed cell breaks the zero sum; undo restores it.
    QVERIFY(analysisAfter([&] { typeIntoCell(0, 0, "5"); }));
    QCOMPARE(doc->kernel().at(0, 0), 5.0f);
    QVERIFY(!analysis()->analysis().zeroSum);
    QVERIFY(analysis()->fieldText("zeroSum").startsWith("no"));
    QVERIFY(analysisAfter([&] { doc->undoStack()->undo(); }));
    QVERIFY(analysis()->analysis().zeroSum);
    QCOMPARE(doc->kernel().width, w);
    QCOMPARE(doc->kernel().height, h);
}

void TestTeachingUi::frequencyResponseImage()
{
    QVERIFY(analysisAfter([&] { w_->kernelDocument()->setKernel(makePreset("gaussian", "sigma=1.5,size=9"), "g"); }));
    const QImage lin = analysis()->responseImage();
    QCOMPARE(lin.size(), QSize(AnalysisPanel::kResponseSize, AnalysisPanel::kResponseSize));
    // DC lies at column n/2 and, positive frequencies drawn upwards, at row n - 1 - n/2.
    const int c = AnalysisPanel::kResponseSize / 2, r = AnalysisPanel::kResponseSize - 1 - c;
    // Low-pass: bright (yellow) at DC, dark at the highest frequencies.
    QVERIFY(qGreen(lin.pixel(c, r)) > 200);
    QVERIFY(qGreen(lin.pixel(0, 0)) < 40);
    analysis()->setLogScale(true);
    const QImage db = analysis()->responseImage();
    QCOMPARE(db.size(), lin.size());
    QVERIFY(db != lin);
    QCOMPARE(db.pixel(c, r), lin.pixel(c, r)); // the peak maps to the top of either scale
}

void TestTeachingUi::exportDialogShowsExportCode()
{
    KernelDocument* doc = w_->kernelDocument();
    QVERIFY(renderAfter([&] { doc->setKernel(asymmetric5x5(), "kernel"); }));
    QVERIFY(setBorder("wrap"));
    ExportDialog* dlg = w_->showExportDialog();
    QVERIFY(dlg->isVisible());
    for (ExportTarget t : ExportDialog::kTargets)
        QCOMPARE(dlg->text(t), QString::fromStdString(exportCode(w_->currentParams(), t)));
    // The open dialog follows parameter changes.
    QVERIFY(setBorder("mirror"));
    QVERIFY(renderAfter([&] { doc->setSemantics(Semantics::Correlation); }));
    for (ExportTarget t : ExportDialog::kTargets) {
        QCOMPARE(dlg->text(t), QString::fromStdString(exportCode(w_->currentParams(), t)));
        QVERIFY(dlg->text(t).contains("mirror") || dlg->text(t).contains("REFLECT_101") ||
                dlg->text(t).contains("REFLECT101"));
    }
    QVERIFY(dlg->text(ExportTarget::Dask).contains("convlab.dask.correlate(src, kk, mode=\"mirror\""));
    dlg->setCurrentTarget(ExportTarget::Dask);
    QCOMPARE(dlg->currentTarget(), ExportTarget::Dask);
    dlg->setCurrentTarget(ExportTarget::OpencvCpp);
    dlg->copy();
    QCOMPARE(QGuiApplication::clipboard()->text(),
             QString::fromStdString(exportCode(w_->currentParams(), ExportTarget::OpencvCpp)));
}

void TestTeachingUi::crossoverSweepCompletes()
{
    CrossoverDialog* dlg = w_->showCrossoverDialog();
    const std::vector<int> sizes{3, 5, 9};
    dlg->setSizes(sizes);
    QSignalSpy finished(dlg, &CrossoverDialog::finished);
    dlg->start();
    QVERIFY(dlg->running());
    QVERIFY(finished.wait(kSweepWaitMs));
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY(!dlg->running());
    // One point per size and method auto weighs; auto picks among those.
    const std::size_t timed = test::autoCandidates().size();
    QCOMPARE(dlg->points().size(), sizes.size() * timed);
    std::set<std::pair<int, int>> seen;
    for (const CrossoverPoint& p : dlg->points()) {
        QVERIFY(!p.skipped);
        QVERIFY(p.ms > 0.0);
        QVERIFY2(methodInfo(p.method).autoCandidate, methodInfo(p.method).name);
        seen.insert({p.size, int(p.method)});
    }
    QCOMPARE(seen.size(), sizes.size() * timed);
    for (int s : sizes) {
        const Method m = dlg->autoChoice(s);
        QVERIFY2(methodInfo(m).autoCandidate, qPrintable(QString::number(s)));
    }
    QCOMPARE(dlg->autoChoice(7), Method::Auto); // not swept
}

void TestTeachingUi::crossoverSweepCancels()
{
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(640, 480, 3, 5), "large"); }));
    CrossoverDialog* dlg = w_->showCrossoverDialog();
    QSignalSpy finished(dlg, &CrossoverDialog::finished);
    dlg->start();
    dlg->cancel();
    QVERIFY(finished.wait(kSweepWaitMs));
    QCOMPARE(finished.first().first().toBool(), false);
    QVERIFY(!dlg->running());
    QVERIFY(dlg->points().size() < CrossoverDialog::defaultSizes().size() * test::autoCandidates().size());
    // It runs again afterwards.
    dlg->setSizes({3});
    dlg->start();
    QVERIFY(finished.wait(kSweepWaitMs));
    QCOMPARE(finished.last().first().toBool(), true);
    QCOMPARE(dlg->points().size(), test::autoCandidates().size());
    // Closing the dialog stops a sweep.
    dlg->setSizes(CrossoverDialog::defaultSizes());
    dlg->start();
    dlg->close();
    QVERIFY(finished.wait(kSweepWaitMs));
    QCOMPARE(finished.last().first().toBool(), false);
}

void TestTeachingUi::crossoverMarksFastestApartFromAuto()
{
    CrossoverDialog* dlg = w_->showCrossoverDialog();
    auto point = [](int size, Method m, double ms) {
        CrossoverPoint p;
        p.size = size;
        p.method = m;
        p.ms = ms;
        p.estimateMs = ms;
        return p;
    };
    CrossoverPoint skipped = point(45, Method::Direct, 0.0);
    skipped.skipped = true;
    skipped.estimateMs = 2500.0;
    // At 31x31 auto ran direct (33.8 ms) where fft measured 10.3 ms.
    const std::vector<CrossoverPoint> points{
        point(3, Method::Direct, 0.5),      point(3, Method::Separable, 0.9), point(3, Method::Fft, 4.0),
        point(31, Method::Direct, 33.8),    point(31, Method::Separable, 40.2), point(31, Method::Fft, 10.3),
        skipped,                            point(45, Method::Separable, 70.0), point(45, Method::Fft, 11.0)};
    dlg->showSweep({3, 31, 45}, points, {{3, Method::Direct}, {31, Method::Direct}, {45, Method::Fft}});
    QCOMPARE(dlg->fastest(3), Method::Direct);
    QCOMPARE(dlg->fastest(31), Method::Fft);
    QCOMPARE(dlg->fastest(45), Method::Fft);
    QCOMPARE(dlg->mismatches(), std::vector<int>{31});

    QTableWidget* t = dlg->table();
    // A column of its own for each method auto weighs, none for the others.
    std::set<int> columns;
    for (const MethodInfo& m : methods()) {
        const int column = CrossoverDialog::methodColumn(m.method);
        QVERIFY2(m.autoCandidate ? column >= 0 && column != CrossoverDialog::kAutoColumn : column == -1, m.name);
        if (m.autoCandidate) columns.insert(column);
    }
    QCOMPARE(columns.size(), test::autoCandidates().size());
    const int direct = CrossoverDialog::methodColumn(Method::Direct);
    const int separable = CrossoverDialog::methodColumn(Method::Separable);
    const int fft = CrossoverDialog::methodColumn(Method::Fft);
    // Bold marks the measured fastest, not auto's pick.
    QVERIFY(t->item(0, direct)->font().bold());
    QVERIFY(!t->item(0, fft)->font().bold());
    QVERIFY(t->item(1, fft)->font().bold());
    QVERIFY(!t->item(1, direct)->font().bold());
    QVERIFY(!t->item(1, separable)->font().bold());
    QVERIFY(t->item(2, fft)->font().bold());
    QVERIFY(t->item(2, direct)->text().startsWith("skipped"));
    // The auto column names the fastest where auto missed it, highlighted.
    QCOMPARE(t->item(0, CrossoverDialog::kAutoColumn)->text(), QString("direct"));
    QCOMPARE(t->item(0, CrossoverDialog::kAutoColumn)->background().style(), Qt::NoBrush);
    QCOMPARE(t->item(1, CrossoverDialog::kAutoColumn)->text(), QString("direct (fastest: fft)"));
    QVERIFY(t->item(1, CrossoverDialog::kAutoColumn)->background().style() != Qt::NoBrush);
    QVERIFY2(t->item(1, CrossoverDialog::kAutoColumn)->toolTip().contains("3.3"),
             qPrintable(t->item(1, CrossoverDialog::kAutoColumn)->toolTip()));
    QCOMPARE(t->item(2, CrossoverDialog::kAutoColumn)->text(), QString("fft"));
    QVERIFY2(dlg->statusText().contains(QString::fromUtf8("31×31 (auto direct, fastest fft)")),
             qPrintable(dlg->statusText()));
    dlg->resize(760, 720);
    QTest::qWait(50);
    dlg->grab().save("/tmp/crossover-mismatch.png");

    // Where auto agrees everywhere, the status says so.
    dlg->showSweep({3}, {point(3, Method::Direct, 0.5), point(3, Method::Fft, 4.0)}, {{3, Method::Direct}});
    QVERIFY(dlg->mismatches().empty());
    QVERIFY(dlg->statusText().contains("fastest method at every size"));
}

void TestTeachingUi::paddingFollowsKernelAndToggle()
{
    ImageView* view = w_->imageView();
    QVERIFY(!w_->workbench()->displayState().paddingShown);
    QVERIFY(!view->paddingPreview());
    w_->workbench()->setPaddingShown(true);
    QVERIFY(view->paddingPreview());
    QCOMPARE(view->paddingMargin(), 16); // the floor: a 1x1 kernel reaches nowhere
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(makePreset("box", "size=41"), "box"); }));
    QCOMPARE(view->paddingMargin(), 20);
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(Kernel(301, 3, std::vector<float>(903, 1.0f)), "wide"); }));
    QCOMPARE(view->paddingMargin(), ImageView::kMaxPaddingMargin);
    w_->workbench()->setPaddingShown(false);
    QVERIFY(!view->paddingPreview());
}

void TestTeachingUi::borderLabFollowsParameters()
{
    KernelDocument* doc = w_->kernelDocument();
    QVERIFY(renderAfter([&] { doc->setKernel(asymmetric5x5(), "kernel"); }));
    w_->workbench()->setMapping(display::Mapping::Offset);
    BorderLabWindow* lab = w_->showBorderLab();
    QVERIFY(lab);
    QVERIFY(lab->isVisible());
    // It opens reading values as the main view does, and no larger than the screen.
    QCOMPARE(lab->mapping(), display::Mapping::Offset);
    QVERIFY(lab->screen()->availableGeometry().contains(lab->geometry()));
    auto labMatchesWindow = [&] {
        if (!QTest::qWaitFor([&] { return !lab->busy(); }, kWaitMs)) return false;
        ConvolveParams p = w_->currentParams();
        p.method = Method::Reference;
        for (BorderMode m : BorderLabWindow::kModes) {
            p.border.mode = m;
            const auto r = lab->result(m);
            if (!r || test::relativeError(*r, convolve(*w_->sourceImage(), p), p.kernel, *w_->sourceImage()) > 1e-6)
                return false;
        }
        return true;
    };
    QVERIFY(labMatchesWindow());
    // Edits in the window reach the open lab.
    QVERIFY(renderAfter([&] { doc->setCell(0, 0, 3.0f); }));
    QVERIFY(labMatchesWindow());
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(19, 13, 1, 3), "grey"); }));
    QVERIFY(labMatchesWindow());
    QCOMPARE(lab->result(BorderMode::Reflect)->channels, 1);
}

QTEST_MAIN(TestTeachingUi)
#include "test_teaching_ui.moc"
