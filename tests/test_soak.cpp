// SPDX-License-Identifier: GPL-3.0-or-later
// A soak of the workbench window: 10 000 scripted edits, from a fixed random seed, through the
// paths a user takes (typing into the kernel grid, the size spin boxes, Ctrl+click on a cell,
// the presets menu and its dialog, normalize/scale/offset/semantics, the Controls panel's border,
// constant, method and threads, Edit > Undo/Redo, Paste Kernel, switching images, opening and
// closing the border-mode lab). Edits follow each other as a fast user's do: the event loop runs
// only now and then, so superseded renders are cancelled and dropped rather than all drawn.
//
// Every 500 edits and at the end, once the renders are idle, the result the view shows must be
// convlab::convolve of the current image under the current committed parameters (never an
// older result), and the lab's views (when open) the engine's for each mode. Resident memory at
// the end must stay within 20% of its level after the first 100 edits.
// Run under Xvfb (xvfb-run -a): the image views draw with OpenGL.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>

#include "tools/borderlab.h"
#include "panels/controlspanel.h"
#include "convlab/convolve.h"
#include "convlab/io.h"
#include "convlab/modes.h"
#include "view/imageview.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneleditor.h"
#include "kernel/presetcatalog.h"
#include "kernel/presetdialog.h"
#include "kernel/kernelmodel.h"
#include "window/mainwindow.h"
#include "workbench/rendercontroller.h"
#include "testutil.h"
#include "uitestutil.h"
#include "workbench/workbenchdocument.h"

using namespace convlab;

namespace {

constexpr int kBaselineEdits = 100; // resident memory is measured here first
constexpr int kDefaultEdits = 10000;
// CONVLAB_SOAK_EDITS=N runs a longer (or shorter) soak by hand.
int editCount()
{
    bool ok = false;
    const int n = qEnvironmentVariableIntValue("CONVLAB_SOAK_EDITS", &ok);
    return ok && n > kBaselineEdits ? n : kDefaultEdits;
}
constexpr int kCheckEvery = 500;
constexpr double kMaxMemoryGrowth = 0.20;
constexpr std::uint32_t kSeed = 20261201;
constexpr int kWaitMs = 30000;
// How often the event loop turns between two edits (results arrive, the window repaints): a
// fast user gets ahead of the drawing, as typing into a grid does.
constexpr double kEventLoopChance = 0.05;

// Resident set size of this process, from /proc/self/statm (pages).
qint64 residentBytes()
{
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return -1;
    long size = 0, resident = 0;
    const int read = std::fscanf(f, "%ld %ld", &size, &resident);
    std::fclose(f);
    return read == 2 ? qint64(resident) * sysconf(_SC_PAGESIZE) : -1;
}

double mib(qint64 bytes) { return double(bytes) / (1024.0 * 1024.0); }

QAction* actionWithShortcut(const QWidget& w, const QKeySequence& key)
{
    for (QAction* a : w.findChildren<QAction*>())
        if (a->shortcut() == key) return a;
    return nullptr;
}

// The view's copy of the result, read back value by value through its read-out: what is on screen.
Image shownResult(const ImageView& view, int width, int height, int channels)
{
    Image out(width, height, channels);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const QVector<float> v = view.resultValues(x, y);
            if (v.size() != channels) return {};
            for (int c = 0; c < channels; ++c) out.at(c, y, x) = v[c];
        }
    return out;
}

// The largest |a - b| (infinity for different shapes, NaN counts as infinite).
double maxAbsDifference(const Image& a, const Image& b)
{
    if (!a.sameShape(b)) return INFINITY;
    double worst = 0.0;
    for (std::size_t i = 0; i < a.data.size(); ++i) {
        const double e = std::fabs(double(a.data[i]) - double(b.data[i]));
        if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;
    }
    return worst;
}

// What float rounding may change in a result: a small fraction of the largest possible value.
double roundingTolerance(const Image& in, const ConvolveParams& p)
{
    double maxIn = 0.0;
    for (float v : in.data) maxIn = std::max(maxIn, double(std::fabs(v)));
    const double sum = p.kernel.sum();
    double scale = std::fabs(p.scale);
    if (p.normalize && std::fabs(sum) > 1e-12 * std::max(1.0, p.kernel.absSum())) scale /= std::fabs(sum);
    return 1e-5 * (scale * p.kernel.absSum() * std::max(maxIn, 1.0) + std::fabs(p.offset)) + 1e-6;
}

QString describe(const ConvolveParams& p)
{
    return QString("%1x%2 kernel, anchor (%3,%4), %5, method %6, threads %7, scale %8%9, offset %10, %11")
        .arg(p.kernel.width)
        .arg(p.kernel.height)
        .arg(p.kernel.ax())
        .arg(p.kernel.ay())
        .arg(QString::fromStdString(borderName(p.border.mode)))
        .arg(QString::fromStdString(methodName(p.method)))
        .arg(p.threads)
        .arg(p.scale)
        .arg(p.normalize ? " normalized" : "")
        .arg(p.offset)
        .arg(p.semantics == Semantics::Convolution ? "convolution" : "correlation");
}

} // namespace

class TestSoak : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void tenThousandEdits();

private:
    enum class Edit {
        TypeCell, SetCell, RejectedCell, Resize, Anchor, Preset, Normalize, ScaleOffset, Semantics,
        Border, Method, Threads, Undo, Redo, Paste, SwitchImage, Lab
    };
    // Performs one edit of kind `e`.
    void perform(Edit e);
    Edit pickEdit();
    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
    float cellValue();

    void typeCell();
    void setCell();
    void rejectCell();
    void resizeKernel();
    void clickAnchor();
    void choosePreset();
    void toggleNormalize();
    void setScaleOrOffset();
    void switchSemantics();
    void chooseBorder();
    void chooseMethod();
    void chooseThreads();
    void pasteKernel();
    void switchImage();
    void toggleLab();

    // Waits until the render, the comparison and the lab are idle and the newest result is drawn.
    bool settle();
    // After settle(): the view shows the engine's result for the current image and parameters.
    void checkShownResult(int edits);
    void checkLab(int edits);

    std::unique_ptr<MainWindow> w_;
    std::mt19937 rng_{kSeed};
    QTemporaryDir files_;
    QStringList imageFiles_;
    Image generated_;
    QStringList errors_;
    quint64 displayedId_ = 0;
    int labEditsLeft_ = 0; // edits until the open lab is closed again
    std::map<Edit, int> counts_;
    std::map<Edit, qint64> nanos_; // time spent in each kind of edit
    QAction* undo_ = nullptr;
    QAction* redo_ = nullptr;
    QAction* paste_ = nullptr;
    QAction* lab_ = nullptr;
};

void TestSoak::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("ConvLabTest");
    QCoreApplication::setApplicationName("test_soak");
    QSettings().clear();
    QVERIFY(files_.isValid());
    // Three small images: one set directly, two opened as files (decoded on the worker).
    generated_ = test::randomImage(64, 48, 3, 1);
    const QString npy = files_.filePath("narrow.npy");
    writeNpy(test::randomImage(97, 31, 1, 2), npy.toStdString());
    imageFiles_ << npy;
    Image third = test::randomImage(33, 57, 3, 3, true);
    if (imageFormatsAvailable()) {
        const QString png = files_.filePath("tall.png");
        third.depth = SampleDepth::U8; // 8-bit samples: the packed path of the document
        saveImage(third, png.toStdString(), SaveOptions{});
        imageFiles_ << png;
    } else {
        const QString other = files_.filePath("tall.npy");
        writeNpy(third, other.toStdString());
        imageFiles_ << other;
    }
}

float TestSoak::cellValue()
{
    switch (uniform(0, 3)) {
    case 0: return float(uniform(-4, 8));
    case 1: return float(uniform(-8, 8)) / 16.0f;
    case 2: return 0.0f;
    default: return std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng_);
    }
}

TestSoak::Edit TestSoak::pickEdit()
{
    // Relative frequencies: cells and undo most, dialogs and image switches now and then.
    static constexpr std::array<std::pair<Edit, int>, 17> weights{{{Edit::TypeCell, 2},
                                                                   {Edit::SetCell, 22},
                                                                   {Edit::RejectedCell, 1},
                                                                   {Edit::Resize, 8},
                                                                   {Edit::Anchor, 3},
                                                                   {Edit::Preset, 1},
                                                                   {Edit::Normalize, 3},
                                                                   {Edit::ScaleOffset, 5},
                                                                   {Edit::Semantics, 2},
                                                                   {Edit::Border, 8},
                                                                   {Edit::Method, 6},
                                                                   {Edit::Threads, 1},
                                                                   {Edit::Undo, 10},
                                                                   {Edit::Redo, 6},
                                                                   {Edit::Paste, 1},
                                                                   {Edit::SwitchImage, 3},
                                                                   {Edit::Lab, 1}}};
    int total = 0;
    for (const auto& [e, weight] : weights) total += weight;
    int r = uniform(0, total - 1);
    for (const auto& [e, weight] : weights) {
        if (r < weight) return e;
        r -= weight;
    }
    return Edit::SetCell;
}

void TestSoak::perform(Edit e)
{
    ++counts_[e];
    switch (e) {
    case Edit::TypeCell: typeCell(); break;
    case Edit::SetCell: setCell(); break;
    case Edit::RejectedCell: rejectCell(); break;
    case Edit::Resize: resizeKernel(); break;
    case Edit::Anchor: clickAnchor(); break;
    case Edit::Preset: choosePreset(); break;
    case Edit::Normalize: toggleNormalize(); break;
    case Edit::ScaleOffset: setScaleOrOffset(); break;
    case Edit::Semantics: switchSemantics(); break;
    case Edit::Border: chooseBorder(); break;
    case Edit::Method: chooseMethod(); break;
    case Edit::Threads: chooseThreads(); break;
    case Edit::Undo: undo_->trigger(); break; // disabled (nothing to undo): nothing happens
    case Edit::Redo: redo_->trigger(); break;
    case Edit::Paste: pasteKernel(); break;
    case Edit::SwitchImage: switchImage(); break;
    case Edit::Lab: toggleLab(); break;
    }
}

// Typed as a user does: select the cell, type, Enter.
void TestSoak::typeCell()
{
    QTableView* table = w_->kernelEditor()->table();
    const int row = uniform(0, table->model()->rowCount() - 1), column = uniform(0, table->model()->columnCount() - 1);
    static const QStringList texts{"0", "1", "-1", "2", "0.5", "1/4", "-3", "2e-1", "0.125", "4"};
    table->scrollTo(table->model()->index(row, column));
    QVERIFY(test::typeIntoCell(table, row, column, texts[uniform(0, int(texts.size()) - 1)]));
}

// What the grid's delegate does when an edit is committed.
void TestSoak::setCell()
{
    KernelModel* model = w_->kernelEditor()->model();
    const QModelIndex index = model->index(uniform(0, model->rowCount() - 1), uniform(0, model->columnCount() - 1));
    // In integer view a typed t means t x 1/N: either way the model is handed text.
    model->setData(index, QString::number(cellValue(), 'g', 9), Qt::EditRole);
}

void TestSoak::rejectCell()
{
    KernelModel* model = w_->kernelEditor()->model();
    static const QStringList bad{"abc", "nan", "inf", "1 2", ""};
    const Kernel before = w_->kernelDocument()->kernel();
    QVERIFY(!model->setData(model->index(0, 0), bad[uniform(0, int(bad.size()) - 1)], Qt::EditRole));
    QCOMPARE(w_->kernelDocument()->kernel().values, before.values);
}

void TestSoak::resizeKernel()
{
    QSpinBox* spin = chance(0.5) ? w_->kernelEditor()->widthSpin() : w_->kernelEditor()->heightSpin();
    // Mostly small kernels, now and then up to the grid's limit.
    spin->setValue(chance(0.9) ? uniform(1, 9) : uniform(10, KernelEditor::kMaxEditSide));
}

// Ctrl+click on a cell moves the anchor.
void TestSoak::clickAnchor()
{
    QTableView* table = w_->kernelEditor()->table();
    const QModelIndex cell =
        table->model()->index(uniform(0, table->model()->rowCount() - 1), uniform(0, table->model()->columnCount() - 1));
    table->scrollTo(cell);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::ControlModifier, table->visualRect(cell).center());
}

// Presets menu > a preset; its dialog's parameters nudged by a step or two, then OK (or Cancel
// when the dialog refuses them).
void TestSoak::choosePreset()
{
    QList<QAction*> presets;
    for (QAction* a : w_->kernelEditor()->findChildren<QAction*>())
        if (a->objectName().startsWith("preset-")) presets << a;
    QVERIFY(!presets.isEmpty());
    QAction* preset = presets[uniform(0, int(presets.size()) - 1)];
    std::vector<int> steps;
    for (int i = 0; i < 8; ++i) steps.push_back(chance(0.5) ? 0 : uniform(-2, 2));
    bool answered = false;
    QTimer answer;
    answer.setInterval(0);
    connect(&answer, &QTimer::timeout, this, [&] {
        auto* dialog = qobject_cast<PresetDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        answer.stop();
        answered = true;
        const QList<QAbstractSpinBox*> spins = dialog->findChildren<QAbstractSpinBox*>();
        for (int i = 0; i < spins.size(); ++i) spins[i]->stepBy(steps[std::size_t(i) % steps.size()]);
        dialog->accept();
        if (dialog->isVisible()) dialog->reject(); // parameters it does not take
    });
    answer.start();
    preset->trigger(); // the dialog runs modal in here
    answer.stop();
    // A preset without parameters applies at once, with no dialog to answer.
    const convlab::PresetInfo* info = presetcatalog::findPreset(preset->objectName().mid(int(qstrlen("preset-"))));
    QVERIFY(info);
    QVERIFY(answered == !info->params.empty());
}

void TestSoak::toggleNormalize()
{
    QCheckBox* box = nullptr;
    for (QCheckBox* b : w_->kernelEditor()->findChildren<QCheckBox*>())
        if (b->text() == "Normalize") box = b;
    QVERIFY(box);
    box->click();
}

void TestSoak::setScaleOrOffset()
{
    // The kernel editor's spin boxes: scale first, offset second.
    const QList<QDoubleSpinBox*> spins = w_->kernelEditor()->findChildren<QDoubleSpinBox*>();
    QVERIFY(spins.size() >= 2);
    static constexpr std::array<double, 6> scales{1.0, 0.5, 2.0, -1.0, 0.25, 3.0};
    static constexpr std::array<double, 5> offsets{0.0, 10.0, -5.0, 128.0, 0.5};
    if (chance(0.5))
        spins[0]->setValue(scales[std::size_t(uniform(0, int(scales.size()) - 1))]);
    else
        spins[1]->setValue(offsets[std::size_t(uniform(0, int(offsets.size()) - 1))]);
}

void TestSoak::switchSemantics()
{
    QComboBox* combo = w_->kernelEditor()->findChild<QComboBox*>();
    QVERIFY(combo);
    const int i = 1 - combo->currentIndex();
    combo->setCurrentIndex(i);
    emit combo->activated(i); // what choosing the item in the popup emits
}

void TestSoak::chooseBorder()
{
    QComboBox* combo = w_->controls()->borderCombo();
    if (chance(0.25)) {
        // The constant's value (used by the constant mode only).
        auto* constant = w_->controls()->findChild<QDoubleSpinBox*>();
        QVERIFY(constant);
        constant->setValue(double(uniform(-2, 10)) * 25.5);
        return;
    }
    combo->setCurrentIndex(uniform(0, combo->count() - 1));
}

void TestSoak::chooseMethod()
{
    QComboBox* combo = w_->controls()->methodCombo();
    combo->setCurrentIndex(uniform(0, combo->count() - 1));
}

void TestSoak::chooseThreads()
{
    auto* threads = w_->controls()->findChild<QSpinBox*>();
    QVERIFY(threads);
    threads->setValue(uniform(0, 4));
}

void TestSoak::pasteKernel()
{
    static const QStringList texts{"1 2 1\n2 4 2\n1 2 1", "0 -1 0; -1 5 -1; 0 -1 0", "1 1 1 1 1",
                                   "1; 2; 3; 2; 1", "1 2; 3", "-1 0 1"};
    QGuiApplication::clipboard()->setText(texts[uniform(0, int(texts.size()) - 1)]);
    paste_->trigger(); // "1 2; 3" is refused with a message and the kernel kept
}

void TestSoak::switchImage()
{
    const int which = uniform(0, int(imageFiles_.size()));
    if (which == imageFiles_.size())
        w_->setSourceImage(generated_, "generated");
    else if (chance(0.2))
        QVERIFY(w_->openImage(imageFiles_[which])); // waits for the decode, as --screenshot does
    else
        w_->openImageInBackground(imageFiles_[which]); // File > Open, drop, recent files: arrives later
}

// Tools > Border-Mode Lab opens it; it stays open for a few edits and is then closed.
void TestSoak::toggleLab()
{
    if (auto* lab = w_->findChild<BorderLabWindow*>(); lab && lab->isVisible()) {
        lab->close();
        labEditsLeft_ = 0;
        return;
    }
    lab_->trigger();
    auto* lab = w_->findChild<BorderLabWindow*>();
    QVERIFY(lab && lab->isVisible());
    labEditsLeft_ = uniform(3, 30);
}

bool TestSoak::settle()
{
    WorkbenchDocument* doc = w_->workbench();
    auto* lab = w_->findChild<BorderLabWindow*>();
    return QTest::qWaitFor(
        [&] {
            return !doc->busy() && doc->resultIsCurrent() && doc->result()->requestId == displayedId_ &&
                   (!lab || !lab->isVisible() || !lab->busy());
        },
        kWaitMs);
}

void TestSoak::checkShownResult(int edits)
{
    const WorkbenchDocument* doc = w_->workbench();
    const Image& source = *w_->sourceImage();
    const ConvolveParams p = w_->currentParams();
    const QString what = QString("after %1 edits: %2 on %3x%4x%5")
                             .arg(edits)
                             .arg(describe(p))
                             .arg(source.width)
                             .arg(source.height)
                             .arg(source.channels);
    QVERIFY2(doc->resultIsCurrent(), qPrintable(what));
    QVERIFY2(doc->result()->source == w_->sourceImage(), qPrintable(what));

    const Image shown = shownResult(*w_->imageView(), source.width, source.height, source.channels);
    QVERIFY2(!shown.empty(), qPrintable("the view holds no result of the image's shape " + what));
    QVERIFY2(shown.data == doc->result()->image->data, qPrintable("the view shows another result " + what));
    for (int y = 0; y < source.height; y += 7)
        for (int x = 0; x < source.width; x += 5) {
            const QVector<float> v = w_->imageView()->sourceValues(x, y);
            QVERIFY2(v.size() == source.channels, qPrintable("the view shows another source " + what));
            for (int c = 0; c < source.channels; ++c)
                QVERIFY2(v[c] == source.at(c, y, x), qPrintable("the view shows another source " + what));
        }

    // The engine on the same image and parameters: within rounding of the committed method
    // (auto may pick another method now, having learned from the runs)...
    const Image want = convolve(source, p);
    const double err = maxAbsDifference(shown, want), tol = roundingTolerance(source, p);
    QVERIFY2(err <= tol, qPrintable(QString("shown result differs by %1 (tolerance %2) %3").arg(err).arg(tol).arg(what)));
    // ...and bit for bit under the method that ran.
    ConvolveParams same = p;
    same.method = doc->result()->report.method;
    const Image exact = convolve(source, same);
    QVERIFY2(shown.data == exact.data,
             qPrintable(QString("shown result is not the engine's (%1 ran; max |d| %2) %3")
                            .arg(QString::fromStdString(methodName(same.method)))
                            .arg(maxAbsDifference(shown, exact))
                            .arg(what)));
}

void TestSoak::checkLab(int edits)
{
    auto* lab = w_->findChild<BorderLabWindow*>();
    if (!lab || !lab->isVisible()) return;
    const ConvolveParams p = w_->currentParams();
    QVERIFY(lab->input());
    QCOMPARE(lab->input()->data, w_->sourceImage()->data); // small images: no preview
    for (BorderMode mode : BorderLabWindow::kModes) {
        ConvolveParams q = p;
        q.border.mode = mode;
        q.method = Method::Direct;
        q.threads = 0;
        const Image want = convolve(*w_->sourceImage(), q);
        const auto got = lab->result(mode);
        QVERIFY2(got && got->sameShape(want) && got->data == want.data,
                 qPrintable(QString("lab view %1 after %2 edits: %3")
                                .arg(QString::fromStdString(borderName(mode)))
                                .arg(edits)
                                .arg(describe(p))));
    }
}

void TestSoak::tenThousandEdits()
{
    w_ = std::make_unique<MainWindow>(false);
    w_->setErrorReporter([this](const QString& m) { errors_ << m; });
    connect(w_.get(), &MainWindow::resultDisplayed, this, [this](quint64 id) { displayedId_ = std::max(displayedId_, id); });
    w_->applyFirstLaunchLayout(QSize(960, 600)); // the docks leave the image view half the window
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    undo_ = actionWithShortcut(*w_, QKeySequence::Undo);
    redo_ = actionWithShortcut(*w_, QKeySequence::Redo);
    lab_ = actionWithShortcut(*w_, QKeySequence(Qt::CTRL | Qt::Key_B));
    for (QAction* a : w_->findChildren<QAction*>())
        if (a->text().remove('&') == "Paste Kernel") paste_ = a;
    QVERIFY(undo_ && redo_ && lab_ && paste_);
    w_->controls()->setDevice(Device::Cpu);
    QVERIFY(test::renderAfter(w_->renderController(), [&] { w_->setSourceImage(generated_, "generated"); }, kWaitMs));

    // The first edits take every kind once, so that what is made once (the lab's views, the
    // dialogs, the decoders) exists before memory is first measured.
    std::vector<Edit> script{Edit::TypeCell, Edit::SetCell,  Edit::RejectedCell, Edit::Resize,    Edit::Anchor,
                             Edit::Preset,   Edit::Normalize, Edit::ScaleOffset, Edit::Semantics, Edit::Border,
                             Edit::Method,   Edit::Threads,   Edit::Undo,        Edit::Redo,      Edit::Paste,
                             Edit::SwitchImage, Edit::SwitchImage, Edit::SwitchImage, Edit::Lab};

    const int edits = editCount();
    qint64 baseline = -1;
    QElapsedTimer clock, checking;
    qint64 checkingMs = 0;
    qint64 eventNanos = 0;
    clock.start();
    for (int n = 1; n <= edits; ++n) {
        Edit e;
        if (std::size_t(n) <= script.size())
            e = script[std::size_t(n) - 1];
        else if (labEditsLeft_ > 0 && --labEditsLeft_ == 0)
            e = Edit::Lab; // closes it
        else
            e = pickEdit();
        QElapsedTimer editClock;
        editClock.start();
        perform(e);
        nanos_[e] += editClock.nsecsElapsed();
        if (QTest::currentTestFailed()) {
            qWarning("edit %d failed", n);
            return;
        }
        // A fast user: the event loop turns between some edits only.
        if (chance(kEventLoopChance)) {
            editClock.start();
            QCoreApplication::processEvents();
            eventNanos += editClock.nsecsElapsed();
        }
        if (n % 1000 == 0)
            qInfo("soak: %d edits, %.1f s, resident %.1f MiB, image view %d px wide", n, double(clock.elapsed()) / 1000.0,
                  mib(residentBytes()), w_->imageView()->width());

        if (n == kBaselineEdits || n % kCheckEvery == 0 || n == edits) {
            checking.start();
            QVERIFY2(settle(), qPrintable(QString("the window did not settle after %1 edits").arg(n)));
            checkShownResult(n);
            if (QTest::currentTestFailed()) return;
            checkLab(n);
            if (QTest::currentTestFailed()) return;
            if (n == kBaselineEdits) {
                baseline = residentBytes();
                qInfo("soak: resident memory after %d edits: %.1f MiB", n, mib(baseline));
            }
            checkingMs += checking.elapsed();
        }
    }
    const double seconds = double(clock.elapsed()) / 1000.0;
    const double editSeconds = seconds - double(checkingMs) / 1000.0;
    const qint64 end = residentBytes();

    qInfo("soak: %d edits in %.1f s (%.0f edits/s; %.1f s of it checking against the engine, %.0f edits/s "
          "without)",
          edits, seconds, edits / seconds, double(checkingMs) / 1000.0, edits / editSeconds);
    qInfo("soak: resident memory after %d edits: %.1f MiB; at the end: %.1f MiB (%+.1f%%)", kBaselineEdits,
          mib(baseline), mib(end), 100.0 * double(end - baseline) / double(baseline));
    const RenderController* render = w_->renderController();
    qInfo("soak: %llu render requests, %d superseded results dropped, %lld errors reported (expected: refused "
          "pastes and preset parameters)",
          static_cast<unsigned long long>(render->latestId()), render->droppedResults(),
          static_cast<long long>(errors_.size()));
    QStringList kinds;
    for (const auto& [e, count] : counts_)
        kinds << QString("%1 (%2 ms)").arg(count).arg(double(nanos_[e]) / 1e6, 0, 'f', 0);
    qInfo("soak: edits per kind (type, set, rejected, resize, anchor, preset, normalize, scale/offset, semantics, "
          "border, method, threads, undo, redo, paste, image, lab) and the time spent in them: %s; event loop %.1f s",
          qPrintable(kinds.join(", ")), double(eventNanos) / 1e9);

    int total = 0;
    for (const auto& [e, count] : counts_) total += count;
    QCOMPARE(total, edits);
    QVERIFY(counts_[Edit::Lab] >= 20);
    QVERIFY2(render->droppedResults() > 0, "edits never overtook a render: the soak did not exercise LatestOnly");
    for (const QString& m : errors_)
        QVERIFY2(!m.startsWith("Convolution failed"), qPrintable(m));
    QVERIFY(baseline > 0 && end > 0);
    QVERIFY2(double(end) <= double(baseline) * (1.0 + kMaxMemoryGrowth),
             qPrintable(QString("resident memory grew from %1 MiB to %2 MiB").arg(mib(baseline)).arg(mib(end))));

    // The check can fail: one more cell edit, before its render arrives, leaves the shown result
    // unequal to the engine's for the new parameters.
    const ConvolveParams before = w_->currentParams();
    const Kernel& k = before.kernel;
    w_->kernelDocument()->setCell(k.ay(), k.ax(), k.at(k.ay(), k.ax()) + 1.0f);
    QVERIFY(!w_->workbench()->resultIsCurrent());
    const Image& source = *w_->sourceImage();
    const Image shown = shownResult(*w_->imageView(), source.width, source.height, source.channels);
    QVERIFY(maxAbsDifference(shown, convolve(source, w_->currentParams())) > roundingTolerance(source, before));
    QVERIFY(settle());
    checkShownResult(edits + 1);

    // CONVLAB_SOAK_SCREENSHOT=FILE.png keeps a picture of the window as the soak left it.
    if (const QString shot = qEnvironmentVariable("CONVLAB_SOAK_SCREENSHOT"); !shot.isEmpty())
        QVERIFY(w_->grab().save(shot));
    w_->close();
    w_.reset();
}

QTEST_MAIN(TestSoak)
#include "test_soak.moc"
