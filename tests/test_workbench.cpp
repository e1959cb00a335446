// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench window end to end: kernel edits through the grid, undo, border modes against
// the engine, stale results, bad files and bad kernel text, the CUDA backend item.
// Run under Xvfb (xvfb-run -a): the image view draws with OpenGL.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QMouseEvent>
#include <QRandomGenerator>
#include <QSettings>
#include <QProgressBar>
#include <QSignalSpy>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <cmath>
#include <memory>

#include "workbench/memorybudget.h"
#include "panels/controlspanel.h"
#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "convlab/io.h"
#include "panels/differencepanel.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneleditor.h"
#include "kernel/kernelmodel.h"
#include "window/mainwindow.h"
#include "workbench/rendercontroller.h"
#include "testutil.h"
#include "panels/timingspanel.h"
#include "workbench/workbenchdocument.h"
#include "uitestutil.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 20000;

// The engine called directly on the parameters the window holds now.
Image engineResult(const MainWindow& w)
{
    return convolve(*w.sourceImage(), w.currentParams());
}

bool sameImage(const Image& a, const Image& b) { return a.sameShape(b) && a.data == b.data; }

Kernel kernel5x5Distinct()
{
    std::vector<float> v(25);
    for (int i = 0; i < 25; ++i) v[i] = float(i + 1) / 325.0f;
    return Kernel(5, 5, std::move(v));
}

} // namespace

class TestWorkbench : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void typingIntoCellChangesResult();
    void undoRestoresKernelAndResult();
    void rejectsBadCellText_data();
    void rejectsBadCellText();
    void anchorAndResizeAreUndoable();
    void borderModesMatchEngine();
    void staleResultIsDropped();
    void fastRunSharesTheFrameOfItsEdit();
    void forcedMethodOverTheBudgetIsRefusedUpFront();
    void longRunShowsItsSecondsAgainstTheEstimate();
    void windowDropsSupersededRender();
    void openImageFileRenders();
    void corruptFileKeepsImage();
    void pasteKernel();
    void compareShowsDifference();
    void cudaItemDisabledWithReason();
    void cancelAndCloseDuringRun();
    void settingsRestoreKernelAndControls();
    void firstLaunchShowsTheImage_data();
    void firstLaunchShowsTheImage();
    void staleDifferenceIsNeverDrawn();
    void viewAndMenusFollowTheDocument();
    void controlsFollowTheDocument();
    void stageTimesAddUpToTotal();
    void durationsKeepTheirUnit();
    void openingKeepsTheWindowResponsive();
    void cancelledOpenKeepsTheImage();
    void imageOverTheMemoryBudgetIsRefused();
    void largeImageBuffersReleasedOnReturn();

private:
    // Runs `action` and waits until the render it starts has been received.
    bool renderAfter(const std::function<void()>& action);
    // Types `text` into the editor of kernel cell (row, column) and presses Enter.
    void typeIntoCell(int row, int column, const QString& text);
    RenderController* render() const { return w_->renderController(); }

    std::unique_ptr<MainWindow> w_;
    QStringList errors_;
};

void TestWorkbench::initTestCase()
{
    test::useTestSettings("test_workbench");
}

void TestWorkbench::init()
{
    errors_.clear();
    w_ = std::make_unique<MainWindow>(false);
    w_->setErrorReporter([this](const QString& m) { errors_ << m; });
    w_->resize(900, 600);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(23, 17, 3, 7), "random"); }));
}

void TestWorkbench::cleanup() { w_.reset(); }

bool TestWorkbench::renderAfter(const std::function<void()>& action)
{
    return test::renderAfter(render(), action, kWaitMs);
}

void TestWorkbench::typeIntoCell(int row, int column, const QString& text)
{
    QVERIFY(test::typeIntoCell(w_->kernelEditor()->table(), row, column, text));
}

void TestWorkbench::typingIntoCellChangesResult()
{
    const Image before = *render()->result();
    const Kernel identity = w_->kernelDocument()->kernel();
    QVERIFY(test::relativeError(before, *w_->sourceImage(), identity, before) < 1e-6);
    QVERIFY(renderAfter([&] { typeIntoCell(0, 2, "0.5"); }));
    QCOMPARE(w_->kernelDocument()->kernel().at(0, 2), 0.5f);
    QCOMPARE(w_->kernelEditor()->message(), QString());
    const Image after = *render()->result();
    QVERIFY(!sameImage(after, before));
    QVERIFY(test::relativeError(after, engineResult(*w_), w_->kernelDocument()->kernel(), before) < 1e-6);
}

void TestWorkbench::undoRestoresKernelAndResult()
{
    const Kernel k0 = w_->kernelDocument()->kernel();
    const Image r0 = *render()->result();
    QVERIFY(renderAfter([&] { typeIntoCell(1, 1, "1/4"); }));
    QCOMPARE(w_->kernelDocument()->kernel().at(1, 1), 0.25f);
    QVERIFY(!sameImage(*render()->result(), r0));

    QVERIFY(renderAfter([&] { w_->kernelDocument()->undoStack()->undo(); }));
    QCOMPARE(w_->kernelDocument()->kernel().values, k0.values);
    QVERIFY(sameImage(*render()->result(), r0));
    // The grid shows the restored value.
    QCOMPARE(w_->kernelEditor()->model()->index(1, 1).data(Qt::EditRole).toString(), QString("1"));

    QVERIFY(renderAfter([&] { w_->kernelDocument()->undoStack()->redo(); }));
    QCOMPARE(w_->kernelDocument()->kernel().at(1, 1), 0.25f);
}

void TestWorkbench::rejectsBadCellText_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("word") << "abc";
    QTest::newRow("nan") << "nan";
    QTest::newRow("inf") << "inf";
    QTest::newRow("-inf") << "-inf";
    QTest::newRow("overflow") << "1e999";
    QTest::newRow("two numbers") << "1 2";
    QTest::newRow("empty") << "";
}

void TestWorkbench::rejectsBadCellText()
{
    QFETCH(QString, text);
    const Kernel k0 = w_->kernelDocument()->kernel();
    const int steps = w_->kernelDocument()->undoStack()->count();
    const quint64 requests = render()->latestId();
    typeIntoCell(1, 1, text);
    QCOMPARE(w_->kernelDocument()->kernel().values, k0.values);
    QCOMPARE(w_->kernelDocument()->undoStack()->count(), steps);
    QCOMPARE(render()->latestId(), requests);
    QVERIFY2(w_->kernelEditor()->message().contains("not a finite number"), qPrintable(w_->kernelEditor()->message()));
    // A good value afterwards clears the message.
    typeIntoCell(1, 1, "2");
    QCOMPARE(w_->kernelDocument()->kernel().at(1, 1), 2.0f);
    QCOMPARE(w_->kernelEditor()->message(), QString());
}

void TestWorkbench::anchorAndResizeAreUndoable()
{
    KernelDocument* doc = w_->kernelDocument();
    QTableView* table = w_->kernelEditor()->table();
    const QModelIndex cell = table->model()->index(0, 2);
    QVERIFY(renderAfter([&] {
        QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::ControlModifier, table->visualRect(cell).center());
    }));
    QCOMPARE(doc->kernel().ax(), 2);
    QCOMPARE(doc->kernel().ay(), 0);
    QVERIFY(test::relativeError(*render()->result(), engineResult(*w_), doc->kernel(), *w_->sourceImage()) < 1e-6);

    QSpinBox* width = w_->kernelEditor()->widthSpin();
    QVERIFY(renderAfter([&] { width->setValue(5); }));
    QCOMPARE(doc->kernel().width, 5);
    QCOMPARE(doc->kernel().height, 3);
    QCOMPARE(doc->kernel().at(1, 2), 1.0f); // the centre stays the centre
    QCOMPARE(doc->kernel().ax(), 3);        // and the anchor moves with it
    QCOMPARE(table->model()->columnCount(), 5);

    doc->undoStack()->undo();
    QCOMPARE(doc->kernel().width, 3);
    QCOMPARE(width->value(), 3);
    doc->undoStack()->undo();
    QCOMPARE(doc->kernel().ax(), 1);
    QCOMPARE(doc->kernel().ay(), 1);
}

void TestWorkbench::borderModesMatchEngine()
{
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(kernel5x5Distinct(), "test kernel"); }));
    const Image& src = *w_->sourceImage();
    QList<float> corners;
    for (const BorderModeInfo& row : borderModes()) {
        const BorderMode mode = row.mode;
        QVERIFY(renderAfter([&] {
            QComboBox* combo = w_->controls()->borderCombo();
            combo->setCurrentIndex(combo->findData(int(mode)));
        }));
        QCOMPARE(w_->currentParams().border.mode, mode);
        ConvolveParams p = w_->currentParams();
        p.border = Border{mode, 0.0f};
        const Image want = convolve(src, p);
        const Image& got = *render()->result();
        QVERIFY(got.sameShape(want));
        for (int c = 0; c < src.channels; ++c)
            for (const auto& [x, y] : {std::pair{0, 0}, std::pair{src.width - 1, src.height - 1}})
                QVERIFY2(std::fabs(got.at(c, y, x) - want.at(c, y, x)) <= 1e-4f * 255,
                         qPrintable(QString("mode %1 c %2 (%3,%4): %5 vs %6")
                                        .arg(row.name)
                                        .arg(c)
                                        .arg(x)
                                        .arg(y)
                                        .arg(got.at(c, y, x))
                                        .arg(want.at(c, y, x))));
        corners << got.at(0, 0, 0);
    }
    // Two modes whose rules read different samples 1 and 2 pixels before the edge (the 5x5
    // kernel's reach; their n = 4 examples tell) give the top-left pixel different values.
    const auto rows = borderModes();
    const auto readsBeforeEdge = [](const BorderModeInfo& m) {
        return std::pair{test::exampleIndex(m, -2), test::exampleIndex(m, -1)};
    };
    int distinctPairs = 0;
    for (int i = 0; i < corners.size(); ++i)
        for (int j = i + 1; j < corners.size(); ++j) {
            const BorderModeInfo &a = rows[std::size_t(i)], &b = rows[std::size_t(j)];
            if (readsBeforeEdge(a) == readsBeforeEdge(b)) continue; // the same samples: may agree
            ++distinctPairs;
            QVERIFY2(std::fabs(corners[i] - corners[j]) > 1e-3f, qPrintable(QString("modes %1 and %2").arg(a.name, b.name)));
        }
    QVERIFY(distinctPairs > 0);
}

void TestWorkbench::staleResultIsDropped()
{
    RenderController controller;
    auto src = std::make_shared<const Image>(test::randomImage(400, 300, 3, 11));
    ConvolveParams slow;
    slow.kernel = test::randomKernel(9, 9, test::KernelKind::Dense, 3);
    slow.method = Method::Reference;
    ConvolveParams fast;
    fast.kernel = Kernel(3, 3, {0, 0, 0, 0, 2, 0, 0, 0, 0});
    fast.method = Method::Direct;

    QSignalSpy ready(&controller, &RenderController::resultReady);
    QSignalSpy dropped(&controller, &RenderController::resultDropped);
    const quint64 first = controller.request(src, slow);
    const quint64 second = controller.request(src, fast);
    QVERIFY(second > first);
    QVERIFY(ready.wait(kWaitMs));
    QTRY_COMPARE_WITH_TIMEOUT(dropped.count(), 1, kWaitMs);
    QCOMPARE(dropped.at(0).at(0).toULongLong(), first);
    QCOMPARE(controller.droppedResults(), 1);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(ready.at(0).at(0).toULongLong(), second);
    QCOMPARE(controller.resultId(), second);
    QVERIFY(test::relativeError(*controller.result(), convolve(*src, fast), fast.kernel, *src) < 1e-6);
    QVERIFY(!controller.busy());
    QTest::qWait(50);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(controller.resultId(), second);
}

// A run as quick as its predecessor was (under RenderController::kFrameBudgetMs) is delivered
// before the window's paint, which Qt posts at low priority: the frame that shows the edit shows
// its result. A slow predecessor: the result comes when it comes, after that paint.
void TestWorkbench::fastRunSharesTheFrameOfItsEdit()
{
    RenderController controller;
    auto src = std::make_shared<const Image>(test::randomImage(64, 48, 1, 4));
    ConvolveParams fast;
    fast.kernel = Kernel(3, 3, {0, 0, 0, 0, 2, 0, 0, 0, 0});
    fast.method = Method::Direct;
    fast.device = Device::Cpu;
    QSignalSpy ready(&controller, &RenderController::resultReady);
    controller.request(src, fast);
    QVERIFY(ready.wait(kWaitMs)); // the first run: nothing known of its time yet
    // A budget no run here and no scheduler delay on a loaded machine exceeds, so that the wait
    // always ends with the result (the rule, not the machine's speed, is under test).
    controller.setFrameBudgetMs(10000);

    // Stands in for the window's paint: an event posted at low priority right after the request.
    struct Paint : QObject {
        RenderController* c;
        quint64 seenId = 0;
        bool ran = false;
        bool event(QEvent* e) override
        {
            if (e->type() != QEvent::User) return QObject::event(e);
            ran = true;
            seenId = c->resultId();
            return true;
        }
    } paint;
    paint.c = &controller;
    const quint64 second = controller.request(src, fast);
    QCoreApplication::postEvent(&paint, new QEvent(QEvent::User), Qt::LowEventPriority);
    QVERIFY(QTest::qWaitFor([&] { return paint.ran; }, kWaitMs));
    QCOMPARE(paint.seenId, second); // delivered before the paint
    QVERIFY(QTest::qWaitFor([&] { return ready.count() == 2; }, kWaitMs));
    QTest::qWait(20);
    QCOMPARE(ready.count(), 2); // once, though the worker's own delivery came later

    controller.setFrameBudgetMs(0); // no predecessor is under it: never waited for
    ConvolveParams slow = fast;
    slow.kernel = test::randomKernel(31, 31, test::KernelKind::Dense, 5);
    slow.method = Method::Reference;
    auto big = std::make_shared<const Image>(test::randomImage(600, 400, 1, 6));
    controller.request(big, slow);
    QVERIFY(ready.wait(kWaitMs));
    paint.ran = false;
    const quint64 fourth = controller.request(big, slow);
    QCoreApplication::postEvent(&paint, new QEvent(QEvent::User), Qt::LowEventPriority);
    QVERIFY(QTest::qWaitFor([&] { return paint.ran; }, kWaitMs));
    QVERIFY(paint.seenId != fourth); // not waited for: the paint came first
    QVERIFY(QTest::qWaitFor([&] { return controller.resultId() == fourth; }, 4 * kWaitMs));
}

// A method chosen by name whose estimate is over the window's budget is not run: the window
// says the estimate and the faster method, the result stays, and Edit > Run Over Budget runs it.
// Auto is never refused.
void TestWorkbench::forcedMethodOverTheBudgetIsRefusedUpFront()
{
    WorkbenchDocument* doc = w_->workbench();
    QVERIFY(QTest::qWaitFor([&] { return !render()->busy() && render()->result(); }, kWaitMs));
    const auto before = render()->result();
    doc->setInteractiveBudgetSeconds(1e-9); // every priced method is over it
    QSignalSpy refused(doc, &WorkbenchDocument::renderRefused);
    QSignalSpy changed(doc, &WorkbenchDocument::resultChanged);
    QAction* anyway = nullptr;
    for (QAction* a : w_->findChildren<QAction*>())
        if (a->text().remove('&') == QStringLiteral("Run Over Budget")) anyway = a;
    QVERIFY(anyway);
    QVERIFY(!anyway->isEnabled());

    w_->controls()->setMethod(Method::Direct);
    QVERIFY(refused.wait(kWaitMs));
    const QString message = refused.at(0).at(0).toString();
    QVERIFY2(message.startsWith("direct is estimated at") && message.contains("over the window's") &&
                 message.contains("Run Over Budget"),
             qPrintable(message));
    QVERIFY(errors_.last().startsWith("Not run: direct is estimated at"));
    QCOMPARE(changed.count(), 0);
    QCOMPARE(render()->result(), before);
    QVERIFY(anyway->isEnabled());
    QVERIFY(!render()->busy());

    anyway->trigger(); // the waiver: this method, this image
    QVERIFY(changed.wait(kWaitMs));
    QCOMPARE(render()->report().method, Method::Direct);
    QVERIFY(!anyway->isEnabled());
    w_->kernelDocument()->setCell(0, 0, 1.5f); // an edit keeps the waiver
    QVERIFY(changed.wait(kWaitMs));
    QCOMPARE(refused.count(), 1);

    w_->controls()->setMethod(Method::Auto); // auto takes the fastest: never refused
    QVERIFY(changed.wait(kWaitMs));
    w_->controls()->setMethod(Method::Fft); // another method: the waiver is gone
    QVERIFY(refused.wait(kWaitMs));
    doc->setInteractiveBudgetSeconds(WorkbenchDocument::kInteractiveBudgetSeconds);
    w_->controls()->setMethod(Method::Auto);
    QVERIFY(changed.wait(kWaitMs));
}

// A run that goes on for a second shows, in the status bar's busy bar, its seconds against the
// planner's estimate of the method asked for; when it ends the bar is gone.
void TestWorkbench::longRunShowsItsSecondsAgainstTheEstimate()
{
    w_->workbench()->setInteractiveBudgetSeconds(1e9); // nothing refused
    QProgressBar* bar = nullptr;
    for (QProgressBar* b : w_->statusBar()->findChildren<QProgressBar*>()) bar = b;
    QVERIFY(bar);
    QCOMPARE(render()->progress().elapsedS, 0.0); // nothing runs
    w_->controls()->setMethod(Method::Direct);
    // About 10^11 multiply-adds: seconds on any machine this runs on.
    w_->kernelDocument()->setKernel(test::randomKernel(301, 301, test::KernelKind::Dense, 5), "big");
    w_->setSourceImage(test::randomImage(1600, 1200, 1, 9), "big");
    QVERIFY(render()->busy());
    QVERIFY(QTest::qWaitFor([&] { return bar->maximum() == 1000 || !render()->busy(); }, kWaitMs));
    QVERIFY2(render()->busy(), "the run ended before a second: no progress to see");
    const RenderController::Progress p = render()->progress();
    QVERIFY(p.elapsedS > 0.0); // running
    QVERIFY(p.estimateS > 0.0);
    QVERIFY2(bar->isTextVisible() && bar->text().contains(" s of ~"), qPrintable(bar->text()));
    QVERIFY(bar->value() > 0 && bar->value() < 1000);
    QVERIFY(bar->toolTip().contains("Esc stops it"));
    QSignalSpy cancelled(render(), &RenderController::cancelled);
    w_->workbench()->cancel();
    QVERIFY(cancelled.wait(kWaitMs));
    QVERIFY(bar->isHidden());
    QCOMPARE(bar->maximum(), 0); // the next run starts without a fraction
    QCOMPARE(render()->progress().elapsedS, 0.0);
    w_->workbench()->setInteractiveBudgetSeconds(WorkbenchDocument::kInteractiveBudgetSeconds);
}

void TestWorkbench::windowDropsSupersededRender()
{
    KernelDocument* doc = w_->kernelDocument();
    const int dropped0 = render()->droppedResults();
    const quint64 before = render()->latestId();
    doc->setCell(1, 1, 3.0f);
    doc->setCell(1, 1, 5.0f);
    QCOMPARE(render()->latestId(), before + 2);
    QVERIFY(QTest::qWaitFor([&] { return render()->resultId() == before + 2; }, kWaitMs));
    QTRY_COMPARE_WITH_TIMEOUT(render()->droppedResults(), dropped0 + 1, kWaitMs);
    const Image& src = *w_->sourceImage();
    QVERIFY(test::relativeError(*render()->result(), engineResult(*w_), doc->kernel(), src) < 1e-6);
    QVERIFY(std::fabs(render()->result()->at(0, 5, 5) - 5.0f * src.at(0, 5, 5)) < 1e-3f);
}

void TestWorkbench::openImageFileRenders()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("ramp.npy");
    Image img(6, 4, 1);
    for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = float(i);
    writeNpy(img, path.toStdString());
    QVERIFY(renderAfter([&] { QVERIFY(w_->openImage(path)); }));
    QVERIFY(errors_.isEmpty());
    QCOMPARE(w_->sourceImage()->width, 6);
    QCOMPARE(w_->sourceImage()->channels, 1);
    QCOMPARE(render()->resultSource(), w_->sourceImage());
    QVERIFY(w_->windowTitle().contains("ramp.npy"));
}

void TestWorkbench::corruptFileKeepsImage()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("corrupt.png");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QByteArray junk(4096, '\0');
    QRandomGenerator rng(42);
    for (char& c : junk) c = char(rng.bounded(256));
    f.write(junk);
    f.close();

    const auto source = w_->sourceImage();
    const auto result = render()->result();
    const quint64 requests = render()->latestId();
    const Kernel k0 = w_->kernelDocument()->kernel();
    QVERIFY(!w_->openImage(path));
    QCOMPARE(errors_.size(), 1);
    QVERIFY2(errors_.first().contains("corrupt.png"), qPrintable(errors_.first()));
    QCOMPARE(w_->sourceImage(), source);
    QCOMPARE(render()->result(), result);
    QCOMPARE(render()->latestId(), requests);
    QCOMPARE(w_->kernelDocument()->kernel().values, k0.values);

    errors_.clear();
    QVERIFY(!w_->openImage(dir.filePath("missing.png")));
    QCOMPARE(errors_.size(), 1);
    QCOMPARE(w_->sourceImage(), source);
}

void TestWorkbench::pasteKernel()
{
    QAction* paste = nullptr;
    for (QAction* a : w_->findChildren<QAction*>())
        if (a->text().remove('&') == "Paste Kernel") paste = a;
    QVERIFY(paste);
    KernelDocument* doc = w_->kernelDocument();
    const Kernel k0 = doc->kernel();
    const int steps = doc->undoStack()->count();

    for (const char* bad : {"1 2; 3", "1 x 2", "nan 1", ""}) {
        errors_.clear();
        QGuiApplication::clipboard()->setText(bad);
        paste->trigger();
        QCOMPARE(errors_.size(), 1);
        QCOMPARE(doc->kernel().width, k0.width);
        QCOMPARE(doc->kernel().values, k0.values);
        QCOMPARE(doc->undoStack()->count(), steps);
    }

    errors_.clear();
    QGuiApplication::clipboard()->setText("1 2 1\n2 4 2\n1 2 1");
    QVERIFY(renderAfter([&] { paste->trigger(); }));
    QVERIFY(errors_.isEmpty());
    QCOMPARE(doc->kernel().values, (std::vector<float>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
    QCOMPARE(doc->undoStack()->count(), steps + 1);
    QVERIFY(test::relativeError(*render()->result(), engineResult(*w_), doc->kernel(), *w_->sourceImage()) < 1e-6);
}

void TestWorkbench::compareShowsDifference()
{
    QVERIFY(renderAfter([&] {
        w_->kernelDocument()->setKernel(kernel5x5Distinct(), "test kernel");
        w_->controls()->setMethod(Method::Fft);
    }));
    QCOMPARE(render()->report().method, Method::Fft);
    // Path B runs on a worker, then the statistics and the difference map are made off the UI thread.
    QSignalSpy compared(w_->workbench(), &WorkbenchDocument::comparisonChanged);
    emit w_->panel<DifferencePanel>()->compareRequested();
    QVERIFY(compared.wait(kWaitMs));
    QVERIFY(w_->workbench()->comparison());
    QCOMPARE(w_->compareController()->report().method, Method::Reference);
    QCOMPARE(w_->imageView()->viewMode(), ImageView::ViewMode::Difference);
    const DiffStats s = compareImages(*render()->result(), *w_->compareController()->result());
    QVERIFY(s.maxAbs > 0.0);   // FFT and the double reference differ in float rounding...
    QVERIFY(s.maxAbs < 1e-2);  // ...and nothing more.

    // "Show" on the largest difference centres the view on that pixel.
    ImageView* view = w_->imageView();
    emit w_->panel<DifferencePanel>()->locateRequested(s.maxX, s.maxY);
    const QPointF centre = view->widgetToImage(QPointF(view->width() / 2.0, view->height() / 2.0));
    QVERIFY(view->zoom() >= 4.0);
    QVERIFY2(std::fabs(centre.x() - (s.maxX + 0.5)) < 0.5 && std::fabs(centre.y() - (s.maxY + 0.5)) < 0.5,
             qPrintable(QString("centre at (%1, %2), pixel (%3, %4)").arg(centre.x()).arg(centre.y()).arg(s.maxX).arg(s.maxY)));
}

void TestWorkbench::cudaItemDisabledWithReason()
{
    QComboBox* combo = w_->controls()->backendCombo();
    const int cuda = combo->findData(int(Device::Cuda));
    QVERIFY(cuda >= 0);
    auto* model = qobject_cast<QStandardItemModel*>(combo->model());
    QVERIFY(model);
    std::string reason;
    if (cudaAvailable(&reason)) {
        QVERIFY(model->item(cuda)->isEnabled());
        return;
    }
    QVERIFY(!model->item(cuda)->isEnabled());
    const QString tip = combo->itemData(cuda, Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QString::fromStdString(reason)), qPrintable(tip));
    // Asking for it anyway keeps the CPU.
    w_->controls()->setDevice(Device::Cuda);
    QCOMPARE(w_->controls()->device(), Device::Cpu);
}

void TestWorkbench::cancelAndCloseDuringRun()
{
    const auto before = render()->result();
    const quint64 heldId = render()->resultId();
    QPushButton* cancel = nullptr;
    for (QPushButton* b : w_->findChildren<QPushButton*>())
        if (b->text() == "Cancel") cancel = b;
    QVERIFY(cancel);
    QVERIFY(cancel->isHidden());

    // A run long enough (the double-precision reference, 31x31) to be caught in flight.
    QSignalSpy cancelled(render(), &RenderController::cancelled);
    w_->controls()->setMethod(Method::Reference);
    w_->kernelDocument()->setKernel(test::randomKernel(31, 31, test::KernelKind::Dense, 5), "big");
    w_->setSourceImage(test::randomImage(600, 400, 3, 9), "big");
    QVERIFY(render()->busy());
    QVERIFY(!cancel->isHidden());
    cancel->click();
    QVERIFY(cancelled.wait(kWaitMs));
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!render()->busy());
    QVERIFY(cancel->isHidden());
    QCOMPARE(render()->resultId(), heldId);
    QCOMPARE(render()->result(), before);

    // Escape does the same, through Edit > Stop Convolution, enabled only while something runs
    // (so that, idle, Escape still leaves a cell's editor).
    QAction* stop = nullptr;
    for (QAction* a : w_->findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(Qt::Key_Escape)) stop = a;
    QVERIFY(stop);
    QVERIFY(!stop->isEnabled());
    w_->kernelDocument()->setCell(0, 0, 3.0f);
    QVERIFY(render()->busy());
    QVERIFY(stop->isEnabled());
    w_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(w_.get()));
    QTest::keyClick(w_.get(), Qt::Key_Escape);
    QVERIFY(cancelled.wait(kWaitMs));
    QCOMPARE(cancelled.count(), 2);
    QVERIFY(!render()->busy());
    QVERIFY(!stop->isEnabled());
    QCOMPARE(render()->resultId(), heldId);

    // Closing and destroying the window while a run is in flight waits for it safely.
    w_->kernelDocument()->setCell(0, 0, 2.0f);
    QVERIFY(render()->busy());
    w_->close();
    w_.reset();
}

void TestWorkbench::settingsRestoreKernelAndControls()
{
    const Kernel k = kernel5x5Distinct();
    {
        MainWindow first(true);
        first.kernelDocument()->setKernel(k, "test kernel");
        first.kernelDocument()->setNormalize(true);
        first.controls()->setBorder(Border{BorderMode::Constant, 2.5f});
        first.controls()->setMethod(Method::Separable);
        first.close();
    }
    MainWindow second(true);
    QCOMPARE(second.kernelDocument()->kernel().width, 5);
    QCOMPARE(second.kernelDocument()->kernel().values, k.values);
    QVERIFY(second.kernelDocument()->state().normalize);
    QCOMPARE(second.controls()->border().mode, BorderMode::Constant);
    QCOMPARE(second.controls()->border().value, 2.5f);
    QCOMPARE(second.controls()->method(), Method::Separable);
    // A restored kernel is a starting point, not an undo step.
    QCOMPARE(second.kernelDocument()->undoStack()->count(), 0);
    QSettings().clear();
}


void TestWorkbench::firstLaunchShowsTheImage_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
}

// A fresh start: the docks leave the image at least half the window, and the sample is drawn
// with a kernel that visibly does something, original and result side by side.
void TestWorkbench::firstLaunchShowsTheImage()
{
    QFETCH(QSize, size);
    w_.reset();
    MainWindow w(false);
    w.applyFirstLaunchLayout(size);
    w.showFirstLaunchExample();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy displayed(&w, &MainWindow::resultDisplayed);
    QVERIFY(test::renderAfter(w.renderController(), [&] { w.openSample(); }, kWaitMs));
    QVERIFY(displayed.count() > 0 || displayed.wait(kWaitMs));
    QCOMPARE(w.size(), size);
    QVERIFY2(w.imageView()->width() * 2 >= w.width(),
             qPrintable(QString("view %1 px of %2").arg(w.imageView()->width()).arg(w.width())));
    QCOMPARE(w.imageView()->viewMode(), ImageView::ViewMode::Split);
    QCOMPARE(w.kernelDocument()->kernel().values, (std::vector<float>{1, 1, 1, 1, -8, 1, 1, 1, 1}));
    const QImage shot = w.imageView()->grabFramebuffer();
    QSet<QRgb> colours;
    for (int y = 0; y < shot.height(); y += 7)
        for (int x = 0; x < shot.width(); x += 7) colours.insert(shot.pixel(x, y));
    QVERIFY2(colours.size() > 50, qPrintable(QString("%1 distinct colours").arg(colours.size())));
}

// Compare, change the kernel, open other images, come back, ask for the difference view: the
// old map is never drawn as if it were of the current result.
void TestWorkbench::staleDifferenceIsNeverDrawn()
{
    WorkbenchDocument* doc = w_->workbench();
    const Image original = *w_->sourceImage();
    QVERIFY(renderAfter([&] {
        w_->kernelDocument()->setKernel(kernel5x5Distinct(), "test kernel");
        w_->controls()->setMethod(Method::Fft);
    }));
    QSignalSpy compared(doc, &WorkbenchDocument::comparisonChanged);
    emit w_->panel<DifferencePanel>()->compareRequested();
    QVERIFY(compared.wait(kWaitMs));
    QVERIFY(doc->comparison());
    QCOMPARE(w_->imageView()->viewMode(), ImageView::ViewMode::Difference);

    QVERIFY(renderAfter([&] { w_->kernelDocument()->setCell(2, 2, 0.75f); }));
    QVERIFY(!doc->comparison());
    QVERIFY(w_->imageView()->viewMode() != ImageView::ViewMode::Difference);
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(31, 29, 1, 4), "other"); }));
    QVERIFY(renderAfter([&] { w_->setSourceImage(original, "random"); }));

    QAction* differenceAction = nullptr;
    for (QAction* a : w_->findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_4)) differenceAction = a;
    QVERIFY(differenceAction);
    differenceAction->trigger();
    QVERIFY(w_->imageView()->viewMode() != ImageView::ViewMode::Difference);
    QVERIFY(!doc->comparison());
    QVERIFY2(w_->statusBar()->currentMessage().contains("Compare"), qPrintable(w_->statusBar()->currentMessage()));
}

// The display state is the document's: set there, the view draws it and the View menu ticks
// it; picked in the menu, it becomes the document's; a drag of the split divider goes back.
void TestWorkbench::viewAndMenusFollowTheDocument()
{
    WorkbenchDocument* doc = w_->workbench();
    ImageView* view = w_->imageView();
    auto menuAction = [&](const QString& text) -> QAction* {
        for (QAction* a : w_->findChildren<QAction*>())
            if (a->text() == text) return a;
        return nullptr;
    };
    QAction* abs = menuAction(QStringLiteral("&Absolute value"));
    QAction* split = menuAction(QStringLiteral("&Split"));
    QAction* grid = menuAction(QStringLiteral("Pixel G&rid"));
    QAction* relative = menuAction(QStringLiteral("&Relative: the largest difference is full scale"));
    QVERIFY(abs && split && grid && relative);

    QSignalSpy changed(doc, &WorkbenchDocument::displayStateChanged);
    doc->setMapping(display::Mapping::Abs);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(view->mapping(), display::Mapping::Abs);
    QVERIFY(abs->isChecked());
    doc->setMapping(display::Mapping::Abs); // no change, no signal
    QCOMPARE(changed.count(), 1);

    split->trigger();
    QCOMPARE(doc->displayState().mode, display::Mode::Split);
    QCOMPARE(view->viewMode(), display::Mode::Split);
    grid->trigger();
    QVERIFY(!doc->displayState().pixelGrid);
    QVERIFY(!view->pixelGridEnabled());
    relative->trigger();
    QCOMPARE(view->differenceScale(), display::DifferenceScale::Relative);
    QVERIFY_THROWS_EXCEPTION(convlab::Error, doc->setDifferenceScale(display::DifferenceScale::Absolute, -1.0));
    QCOMPARE(doc->displayState().differenceScale, display::DifferenceScale::Relative); // kept

    // Difference needs a comparison: refused, and the mode and its tick stay.
    QVERIFY(!doc->comparison());
    QVERIFY(!doc->setViewMode(display::Mode::Difference));
    QCOMPARE(view->viewMode(), display::Mode::Split);
    QVERIFY(split->isChecked());

    // Dragging the divider (in Split) moves the document's split position.
    const QPoint divider(int(view->splitPosition() * view->width()), view->height() / 2);
    QTest::mousePress(view, Qt::LeftButton, {}, divider);
    QMouseEvent move(QEvent::MouseMove, QPointF(view->width() * 0.25, view->height() / 2.0),
                     view->mapToGlobal(QPointF(view->width() * 0.25, view->height() / 2.0)), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view, &move);
    QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(view->width() / 4, view->height() / 2));
    QVERIFY2(std::abs(doc->displayState().splitPosition - 0.25) < 0.02,
             qPrintable(QString::number(doc->displayState().splitPosition)));
    QCOMPARE(view->splitPosition(), doc->displayState().splitPosition);

    // The padding preview: on in the document, on in the view, with the kernel's margin.
    doc->setPaddingShown(true);
    QVERIFY(view->paddingPreview());
    QVERIFY(menuAction(QStringLiteral("Show &Padding"))->isChecked());
    doc->setPaddingShown(false);
    QVERIFY(!view->paddingPreview());
}

// The run settings are the document's: the Controls panel shows them and hands what the user
// picks to the document; saved settings go to the document, not to the panel.
void TestWorkbench::controlsFollowTheDocument()
{
    WorkbenchDocument* doc = w_->workbench();
    ControlsPanel* controls = w_->controls();
    WorkbenchDocument::RunSettings s = doc->runSettings();
    s.border = {BorderMode::Wrap, 0.0f};
    s.method = Method::Separable;
    s.threads = 2;
    QVERIFY(renderAfter([&] { doc->setRunSettings(s); }));
    QCOMPARE(controls->border().mode, BorderMode::Wrap);
    QCOMPARE(controls->method(), Method::Separable);
    QCOMPARE(controls->threads(), 2);
    QVERIFY(controls->settings() == doc->runSettings());

    QVERIFY(renderAfter([&] { controls->setMethod(Method::Direct); }));
    QCOMPARE(doc->runSettings().method, Method::Direct);
    QCOMPARE(doc->runSettings().border.mode, BorderMode::Wrap); // the rest as it was
    QCOMPARE(doc->result()->params.method, Method::Direct);
}

void TestWorkbench::stageTimesAddUpToTotal()
{
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(640, 480, 3, 2), "photo-sized"); }));
    // Every method but the reference, which is too slow at this size to repeat for a check.
    for (Method m : test::methodsUnderTest()) {
        // The method already chosen (auto, at first) ran for the image: its result is there.
        if (w_->controls()->method() != m) QVERIFY(renderAfter([&] { w_->controls()->setMethod(m); }));
        QCOMPARE(w_->workbench()->result()->params.method, m);
        const RunReport& r = w_->workbench()->result()->report;
        double sum = 0.0;
        for (const StageTiming& s : r.stages) sum += s.ms;
        QVERIFY2(std::fabs(sum - r.totalMs) <= 0.05 * r.totalMs + 0.011,
                 qPrintable(QString("%1: stages %2 ms, total %3 ms").arg(QString::fromStdString(methodName(m))).arg(sum).arg(r.totalMs)));
        // The panel lists every stage and the total, each with its unit.
        const auto rows = w_->panel<TimingsPanel>()->rows();
        QCOMPARE(rows.size(), int(r.stages.size()) + 1);
        QCOMPARE(rows.last().second, formatDuration(r.totalMs));
        for (const auto& row : rows)
            QVERIFY2(row.second.endsWith(" ms") || row.second.endsWith(" s") || row.second.endsWith(QString::fromUtf8(" µs")),
                     qPrintable(row.second));
    }
}

void TestWorkbench::durationsKeepTheirUnit()
{
    QCOMPARE(formatDuration(0.0123), QString::fromUtf8("12.3 µs"));
    QCOMPARE(formatDuration(0.85), QString::fromUtf8("850 µs"));
    QCOMPARE(formatDuration(1.5), QString("1.50 ms"));
    QCOMPARE(formatDuration(95.04), QString("95.0 ms"));
    QCOMPARE(formatDuration(508.4), QString("508 ms"));
    QCOMPARE(formatDuration(1843.42), QString("1.84 s"));
    QCOMPARE(formatDuration(61234.0), QString("61.2 s"));
}

namespace {
// A PNG that takes a noticeable time to decode (noise compresses badly).
QString writeLargePng(const QTemporaryDir& dir)
{
    const QString path = dir.filePath("large.png");
    Image img = test::randomImage(3000, 2000, 3, 17);
    for (float& v : img.data) v = std::floor(v * 255.0f);
    img.depth = SampleDepth::U8;
    saveImage(img, path.toStdString(), SaveOptions{});
    return path;
}
} // namespace

// Decoding runs on a worker: the event loop keeps turning (a timer keeps firing) meanwhile.
void TestWorkbench::openingKeepsTheWindowResponsive()
{
    QTemporaryDir dir;
    const QString path = writeLargePng(dir);
    int ticks = 0;
    QTimer timer;
    connect(&timer, &QTimer::timeout, [&ticks] { ++ticks; });
    QSignalSpy opened(w_->workbench(), &WorkbenchDocument::sourceChanged);
    timer.start(2);
    w_->openImageInBackground(path);
    const int ticksAtStart = ticks;
    QVERIFY(w_->workbench()->opening());
    QVERIFY(opened.wait(kWaitMs));
    timer.stop();
    QVERIFY2(ticks - ticksAtStart >= 3, qPrintable(QString("%1 timer ticks during the decode").arg(ticks - ticksAtStart)));
    QCOMPARE(w_->sourceImage()->width, 3000);
    QVERIFY(errors_.isEmpty());
}

void TestWorkbench::cancelledOpenKeepsTheImage()
{
    QTemporaryDir dir;
    const QString path = writeLargePng(dir);
    const auto before = w_->sourceImage();
    QSignalSpy opened(w_->workbench(), &WorkbenchDocument::sourceChanged);
    w_->openImageInBackground(path);
    QVERIFY(w_->workbench()->opening());
    w_->workbench()->cancel();
    QVERIFY(!w_->workbench()->opening());
    QTest::qWait(1500); // longer than the decode: its result must be dropped
    QCOMPARE(opened.count(), 0);
    QCOMPARE(w_->sourceImage(), before);
    QVERIFY(errors_.isEmpty());
}

// An image whose working set the available memory cannot hold is refused with the size it
// needs; the current image and its result stay. With the memory there, the same file opens.
void TestWorkbench::imageOverTheMemoryBudgetIsRefused()
{
    QTemporaryDir dir;
    const QString path = writeLargePng(dir);
    const auto before = w_->sourceImage();
    const auto resultBefore = render()->result();
    WorkbenchDocument* doc = w_->workbench();
    doc->setAvailableMemorySource([] { return std::optional<std::uint64_t>(std::uint64_t(64) << 20); }); // 64 MiB
    QSignalSpy failed(doc, &WorkbenchDocument::openFailed);
    QSignalSpy opened(doc, &WorkbenchDocument::sourceChanged);
    doc->open(path);
    QVERIFY(failed.wait(kWaitMs));
    const QString message = failed.first().at(1).toString();
    QVERIFY2(message.contains("needs about") && message.contains("GiB") && message.contains("current image stays"),
             qPrintable(message));
    QCOMPARE(opened.count(), 0);
    QCOMPARE(w_->sourceImage(), before);
    QCOMPARE(render()->result(), resultBefore);
    errors_.clear(); // the window reported the refusal, as it should
    doc->setAvailableMemorySource(memorybudget::availableBytes);
    doc->open(path);
    QVERIFY(opened.wait(kWaitMs));
    QCOMPARE(w_->sourceImage()->width, 3000);
    // The arithmetic: seven float buffers of the image; what is already decoded counts as free.
    QCOMPARE(memorybudget::workingSetBytes(100, 50, 3), std::uint64_t(7 * 4 * 100 * 50 * 3));
    QVERIFY(memorybudget::refusal(100, 50, 3, std::uint64_t(7 * 4 * 100 * 50 * 3)).isEmpty());
    QVERIFY(!memorybudget::refusal(100, 50, 3, std::uint64_t(1000)).isEmpty());
    QVERIFY(memorybudget::refusal(100, 50, 3, std::uint64_t(1000), std::uint64_t(7 * 4 * 100 * 50 * 3)).isEmpty());
    QVERIFY(memorybudget::refusal(100, 50, 3, std::nullopt).isEmpty()); // unknown: not refused
    QVERIFY(memorybudget::availableBytes().value_or(1) > 0);

    // Judged by what the header claims, before the decode: a file whose image data is damaged
    // (a byte of its first IDAT flipped, which only the decoder finds) is refused for its size,
    // not for the damage, when the memory cannot hold it.
    QByteArray png;
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        png = f.readAll();
    }
    const qsizetype idat = png.indexOf("IDAT");
    png[idat + 100] = char(png[idat + 100] ^ 0xff);
    const QString damaged = dir.filePath("damaged.png");
    {
        QFile f(damaged);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(png);
    }
    failed.clear();
    doc->open(damaged);
    QVERIFY(failed.wait(kWaitMs));
    QVERIFY2(!failed.first().at(1).toString().contains("needs about"), "with memory enough the decoder finds the damage");
    failed.clear();
    doc->setAvailableMemorySource([] { return std::optional<std::uint64_t>(std::uint64_t(64) << 20); });
    doc->open(damaged);
    QVERIFY(failed.wait(kWaitMs));
    QVERIFY2(failed.first().at(1).toString().contains("needs about"), qPrintable(failed.first().at(1).toString()));
    doc->setAvailableMemorySource(memorybudget::availableBytes);
    errors_.clear();
}

// Back from a large image to a small one, nothing image-sized of the large one is kept.
void TestWorkbench::largeImageBuffersReleasedOnReturn()
{
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(1500, 1000, 3, 3), "large"); }));
    for (int i = 0; i < 3; ++i) // several results: spare buffers of the large size pile up
        QVERIFY(renderAfter([&] { w_->kernelDocument()->setCell(1, 1, 2.0f + float(i)); }));
    QVERIFY(render()->spareBufferBytes() > 0);
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(40, 30, 3, 4), "small"); }));
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setCell(1, 1, 7.0f); }));
    const std::size_t smallImage = std::size_t(40) * 30 * 3 * sizeof(float);
    QVERIFY2(render()->spareBufferBytes() <= 2 * smallImage,
             qPrintable(QString("%1 bytes kept").arg(render()->spareBufferBytes())));
    QCOMPARE(render()->result()->width, 40);
}

QTEST_MAIN(TestWorkbench)
#include "test_workbench.moc"
