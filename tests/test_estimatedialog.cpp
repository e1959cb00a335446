// SPDX-License-Identifier: GPL-3.0-or-later
// File > Estimate Kernel from Image Pair end to end: the menu action opens the dialog, the
// estimate runs on its worker, and the kernel (with its semantics) lands in the grid as one
// undo step that reproduces the filtered image; failures leave the kernel and its history alone.
// Run under Xvfb (xvfb-run -a): the window's image view draws with OpenGL.
#include <QAction>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <memory>

#include "convlab/convolve.h"
#include "convlab/io.h"
#include "tools/estimatedialog.h"
#include "kernel/kerneldocument.h"
#include "window/mainwindow.h"
#include "testutil.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 30000;

Image filterWith(const Image& in, const Kernel& k, Semantics s)
{
    ConvolveParams p;
    p.kernel = k;
    p.semantics = s;
    p.border = Border{BorderMode::Reflect, 0.0f}; // the Controls panel's default
    p.method = Method::Reference;
    p.device = Device::Cpu;
    return convolve(in, p);
}

QAction* menuAction(QMenuBar* bar, const QString& text)
{
    for (QAction* menu : bar->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->text().remove(QLatin1Char('&')).startsWith(text)) return a;
    return nullptr;
}

// Presses Estimate and waits for the dialog to finish; the finished() argument, or nullopt.
std::optional<bool> estimateWith(EstimateDialog* dialog)
{
    QSignalSpy done(dialog, &EstimateDialog::finished);
    QPushButton* button = nullptr;
    for (QPushButton* b : dialog->findChildren<QPushButton*>())
        if (b->text() == QObject::tr("Estimate")) button = b;
    if (!button) return std::nullopt;
    QTest::mouseClick(button, Qt::LeftButton);
    if (done.isEmpty() && !done.wait(kWaitMs)) return std::nullopt;
    return done.first().first().toBool();
}

} // namespace

class TestEstimateDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(dir_.isValid());
    }

    void init()
    {
        w_ = std::make_unique<MainWindow>(false);
        w_->setErrorReporter([](const QString&) {});
        w_->resize(900, 600);
        w_->show();
        QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    }
    void cleanup() { w_.reset(); }

    void estimateIsOneUndoStep()
    {
        const Image source = test::randomImage(48, 40, 3, 31);
        w_->setSourceImage(source, QStringLiteral("random"));
        Kernel truth = test::randomKernel(5, 3, test::KernelKind::Dense, 32);
        const QString filtered = dir_.filePath(QStringLiteral("filtered.npy"));
        writeNpy(filterWith(source, truth, Semantics::Correlation), filtered.toStdString());

        KernelDocument* kd = w_->kernelDocument();
        kd->setScale(2.0); // settings the estimate must reset for the kernel to reproduce the pair
        const KernelState before = kd->state();
        const int steps = kd->undoStack()->count();

        QAction* action = menuAction(w_->menuBar(), QStringLiteral("Estimate Kernel from Image Pair"));
        QVERIFY(action);
        action->trigger();
        auto* dialog = w_->findChild<EstimateDialog*>();
        QVERIFY(dialog && dialog->isVisible());
        dialog->setFilteredPath(filtered);
        dialog->setKernelSize(5, 3);
        dialog->setSemantics(Semantics::Correlation);
        dialog->setBorder(Border{BorderMode::Reflect, 0.0f});
        QCOMPARE(estimateWith(dialog), std::optional<bool>(true));
        QVERIFY2(dialog->resultText().contains(QStringLiteral("Residual RMSE")), qPrintable(dialog->resultText()));

        QCOMPARE(kd->undoStack()->count(), steps + 1);
        const KernelState after = kd->state();
        QCOMPARE(after.kernel.width, 5);
        QCOMPARE(after.kernel.height, 3);
        QVERIFY(after.semantics == Semantics::Correlation);
        QCOMPARE(after.scale, 1.0);
        // The window's parameters now reproduce the filtered image, edges included.
        const Image reproduced = convolve(source, w_->currentParams());
        const double err = test::relativeError(reproduced, readNpy(filtered.toStdString()), truth, source);
        QVERIFY2(err < 1e-4, qPrintable(QString::number(err)));

        kd->undoStack()->undo(); // one step takes it all back
        QVERIFY(kd->state() == before);
        kd->undoStack()->redo();
        QVERIFY(kd->state() == after);
    }

    void failureKeepsTheKernel()
    {
        w_->setSourceImage(test::randomImage(30, 30, 1, 33), QStringLiteral("random"));
        const QString other = dir_.filePath(QStringLiteral("other.npy"));
        writeNpy(test::randomImage(31, 30, 1, 34), other.toStdString());
        KernelDocument* kd = w_->kernelDocument();
        const KernelState before = kd->state();
        const int steps = kd->undoStack()->count();
        EstimateDialog* dialog = w_->showEstimateDialog();
        dialog->setFilteredPath(other);
        QCOMPARE(estimateWith(dialog), std::optional<bool>(false));
        QVERIFY2(dialog->resultText().contains(QStringLiteral("same size and channels")),
                 qPrintable(dialog->resultText()));
        QCOMPARE(kd->undoStack()->count(), steps);
        QVERIFY(kd->state() == before);
    }

    // Without an image in the window, a source file is the source.
    void sourceFromAFile()
    {
        const Image source = test::randomImage(36, 36, 1, 35);
        const Kernel truth = test::randomKernel(3, 3, test::KernelKind::Dense, 36);
        const QString src = dir_.filePath(QStringLiteral("src.npy")), flt = dir_.filePath(QStringLiteral("flt.npy"));
        writeNpy(source, src.toStdString());
        writeNpy(filterWith(source, truth, Semantics::Convolution), flt.toStdString());
        EstimateDialog* dialog = w_->showEstimateDialog();
        dialog->setFilteredPath(flt);
        QCOMPARE(estimateWith(dialog), std::optional<bool>(false)); // no image, no source file
        dialog->setSourcePath(src);
        dialog->setKernelSize(3, 3);
        dialog->setSemantics(Semantics::Convolution);
        dialog->setBorder(std::nullopt);
        QCOMPARE(estimateWith(dialog), std::optional<bool>(true));
        const Kernel& got = w_->kernelDocument()->kernel();
        for (std::size_t i = 0; i < truth.values.size(); ++i)
            QVERIFY2(std::fabs(got.values[i] - truth.values[i]) < 1e-4f, qPrintable(QString::number(i)));
    }

private:
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> w_;
};

QTEST_MAIN(TestEstimateDialog)
#include "test_estimatedialog.moc"
