// SPDX-License-Identifier: GPL-3.0-or-later
// Designed filters in the workbench: the preset dialog's choices build the design, the Kernel
// Analysis panel overlays the ideal response (edges over the image, the ideal cross-section)
// while the kernel is the design's, and loses it when a cell is edited (undo brings it back).
// Run under Xvfb (xvfb-run -a): the image view draws with OpenGL.
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <memory>

#include "panels/analysispanel.h"
#include "panels/panels.h"
#include "convlab/design.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneleditor.h"
#include "kernel/presetdialog.h"
#include "window/mainwindow.h"
#include "testutil.h"
#include "uitestutil.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 20000;

// Pixels drawn pure white: the dashed edges (viridis never reaches white).
int whitePixels(const QImage& img)
{
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) n += img.pixel(x, y) == qRgb(255, 255, 255);
    return n;
}

} // namespace

class TestDesignUi : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void dialogBuildsTheDesign();
    void dialogRefusesBadParameters();
    void overlayFollowsTheKernel();

private:
    // Opens the preset's dialog, lets `fill` set its fields, presses OK; returns whether the
    // dialog closed (accepted).
    bool choosePreset(const QString& name, const std::function<void(PresetDialog*)>& fill);
    bool analysisAfter(const std::function<void()>& action);
    AnalysisPanel* analysis() const { return w_->panel<AnalysisPanel>(); }
    QWidget* responseImage() const { return analysis()->findChild<QWidget*>("responseImage"); }

    std::unique_ptr<MainWindow> w_;
    QStringList errors_;
};

void TestDesignUi::initTestCase()
{
    test::useTestSettings("test_design_ui");
}

void TestDesignUi::init()
{
    errors_.clear();
    w_ = std::make_unique<MainWindow>(false);
    w_->setErrorReporter([this](const QString& m) { errors_ << m; });
    w_->resize(1200, 900);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QVERIFY(test::renderAfter(w_->renderController(),
                              [&] { w_->setSourceImage(test::randomImage(40, 30, 3, 5), "random"); }, kWaitMs));
}

void TestDesignUi::cleanup()
{
    QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    w_.reset();
}

bool TestDesignUi::choosePreset(const QString& name, const std::function<void(PresetDialog*)>& fill)
{
    bool closed = false;
    QTimer answer;
    answer.setInterval(0);
    connect(&answer, &QTimer::timeout, this, [&] {
        auto* dialog = qobject_cast<PresetDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        answer.stop();
        fill(dialog);
        dialog->accept();
        closed = !dialog->isVisible();
        if (!closed) dialog->reject();
    });
    answer.start();
    w_->kernelEditor()->choosePreset(name);
    return closed;
}

bool TestDesignUi::analysisAfter(const std::function<void()>& action)
{
    QSignalSpy updated(analysis(), &AnalysisPanel::updated);
    action();
    return QTest::qWaitFor([&] { return !updated.isEmpty() && !analysis()->pending(); }, kWaitMs) &&
           analysis()->hasAnalysis();
}

void TestDesignUi::dialogBuildsTheDesign()
{
    const auto fill = [](PresetDialog* d) {
        d->findChild<QDoubleSpinBox*>("f1")->setValue(0.12);
        d->findChild<QDoubleSpinBox*>("f2")->setValue(0.3);
        d->findChild<QSpinBox*>("size")->setValue(31); // a side: an integer box
        QComboBox* window = d->findChild<QComboBox*>("window");
        QVERIFY(window);
        QCOMPARE(window->count(), 5);
        QCOMPARE(window->currentText(), QStringLiteral("hamming")); // the default
        window->setCurrentText("kaiser");
        d->findChild<QComboBox*>("shape")->setCurrentText("radial");
        if (const QByteArray dir = qgetenv("CONVLAB_TEST_GRAB_DIR"); !dir.isEmpty())
            d->grab().save(QString::fromLocal8Bit(dir) + "/design_dialog.png");
    };
    QVERIFY(analysisAfter([&] { QVERIFY(choosePreset("bandpass", fill)); }));
    const Kernel want = makePreset("bandpass", "f1=0.12,f2=0.3,size=31,window=kaiser,beta=8.6,shape=radial");
    QCOMPARE(w_->kernelDocument()->kernel().values, want.values);
    QCOMPARE(w_->kernelDocument()->kernel().name, want.name);
    QCOMPARE(w_->kernelDocument()->undoStack()->count(), 1);

    QVERIFY(analysis()->design().has_value());
    QCOMPARE(designText(*analysis()->design()), want.name);
    const QString text = analysis()->fieldText("design");
    for (const char* s : {"bandpass", "kaiser", "radial", "0.12 cycles/pixel", "stop band at most"})
        QVERIFY2(text.contains(s), qPrintable(text));
    // The ideal cross-section: 0 at DC, 1 inside the band; the achieved one within Kaiser's
    // bound of it away from the edges.
    const std::vector<double> ideal = analysis()->idealCrossSection(), got = analysis()->crossSection();
    const int n = AnalysisPanel::kResponseSize;
    QCOMPARE(int(ideal.size()), n);
    QCOMPARE(int(got.size()), n);
    const double half = transitionWidth(DesignWindow::Kaiser, 8.6, 31) / 2;
    int compared = 0;
    for (int i = 0; i < n; ++i) {
        const double f = std::fabs(double(i - n / 2) / n);
        QCOMPARE(ideal[i], f >= 0.12 && f <= 0.3 ? 1.0 : 0.0);
        if (std::fabs(f - 0.12) > half && std::fabs(f - 0.3) > half) {
            QVERIFY2(std::fabs(got[i] - ideal[i]) <= 0.002, qPrintable(QString("f %1: %2").arg(f).arg(got[i])));
            ++compared;
        }
    }
    QVERIFY(compared > n / 4);
}

void TestDesignUi::dialogRefusesBadParameters()
{
    const Kernel before = w_->kernelDocument()->kernel();
    for (auto [field, value, message] : {std::tuple{"size", 14.0, "size=14 must be odd"},
                                         std::tuple{"f1", 0.3, "f1=0.3 must be below f2=0.25"}}) {
        QString shown;
        QVERIFY(!choosePreset("bandstop", [&](PresetDialog* d) {
            if (auto* whole = d->findChild<QSpinBox*>(field))
                whole->setValue(int(value));
            else
                d->findChild<QDoubleSpinBox*>(field)->setValue(value);
            d->accept();
            for (QLabel* l : d->findChildren<QLabel*>())
                if (l->isVisible() && l->text().contains("preset 'bandstop'")) shown = l->text();
        }));
        QVERIFY2(shown.contains(message), qPrintable(shown));
    }
    QCOMPARE(w_->kernelDocument()->kernel().values, before.values);
}

void TestDesignUi::overlayFollowsTheKernel()
{
    KernelDocument* doc = w_->kernelDocument();
    QVERIFY(analysisAfter([&] { doc->setKernel(makePreset("lowpass", "cutoff=0.15,size=15,shape=radial"), "lp"); }));
    QVERIFY(analysis()->design().has_value());
    QVERIFY(analysis()->findChild<QLabel*>("design")->isVisible());
    // Pictured at a realistic size: in the test's window the dock keeps the image's share and
    // the response map is drawn small.
    QDockWidget* analysisDock = dockOf(analysis());
    QVERIFY(analysisDock);
    analysisDock->setFloating(true);
    analysisDock->resize(460, 1000);
    analysisDock->show();
    QTest::qWait(200);
    const QImage withEdges = responseImage()->grab().toImage();
    QVERIFY2(whitePixels(withEdges) > 20, qPrintable(QString("%1 white pixels in %2x%3").arg(whitePixels(withEdges)).arg(withEdges.width()).arg(withEdges.height())));
    analysisDock->setFloating(false);
    QCOMPARE(int(analysis()->idealCrossSection().size()), AnalysisPanel::kResponseSize);
    // A picture to look at: the panel floated at a realistic size.
    if (const QByteArray dir = qgetenv("CONVLAB_TEST_GRAB_DIR"); !dir.isEmpty()) {
        auto* dock = dockOf(analysis());
        QVERIFY(dock);
        dock->setFloating(true);
        dock->resize(460, 1000);
        dock->show();
        QTest::qWait(300);
        analysis()->grab().save(QString::fromLocal8Bit(dir) + "/analysis_design.png");
    }

    // An edited tap is no longer the design: no overlay, no design row.
    QVERIFY(analysisAfter([&] { doc->setCell(7, 7, doc->kernel().at(7, 7) + 0.25f); }));
    QVERIFY(!analysis()->design().has_value());
    QVERIFY(analysis()->idealCrossSection().empty());
    QVERIFY(!analysis()->findChild<QLabel*>("design")->isVisible());
    QCOMPARE(whitePixels(responseImage()->grab().toImage()), 0);

    // Undo restores the design's taps and its overlay; moving the anchor keeps it.
    QVERIFY(analysisAfter([&] { doc->undoStack()->undo(); }));
    QVERIFY(analysis()->design().has_value());
    QVERIFY(analysisAfter([&] { doc->setAnchor(0, 0); }));
    QVERIFY(analysis()->design().has_value());
    QVERIFY(whitePixels(responseImage()->grab().toImage()) > 20);

    // A kernel of another kind never shows one.
    QVERIFY(analysisAfter([&] { doc->setKernel(makePreset("gaussian"), "g"); }));
    QVERIFY(!analysis()->design().has_value());
}

QTEST_MAIN(TestDesignUi)
#include "test_design_ui.moc"
