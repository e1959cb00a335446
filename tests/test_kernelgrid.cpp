// SPDX-License-Identifier: GPL-3.0-or-later
// The kernel grid's presentation: every value to at least four significant digits in columns
// wide enough for their text, integer kernels as integers with their common factor 1/N, and
// edits in either view (one undo step each); cells tinted by sign and size, the kernel's
// picture, and the presets as people meet them: grouped, named plainly, parameterless ones at
// once, whole-number parameters in integer boxes. Run under Xvfb (xvfb-run -a).
#include <QApplication>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QTest>
#include <QUndoStack>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>

#include "convlab/kernel.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneleditor.h"
#include "kernel/kernelmodel.h"
#include "kernel/kernelpicture.h"
#include "kernel/presetcatalog.h"
#include "kernel/presetdialog.h"
#include "uitestutil.h"

using convlab::Kernel;

namespace {

Kernel kernelOf(int width, int height, std::vector<float> values)
{
    return Kernel(width, height, std::move(values));
}

// 1 2 1; 2 4 2; 1 2 1 / 16
Kernel binomial3()
{
    std::vector<float> v{1, 2, 1, 2, 4, 2, 1, 2, 1};
    for (float& x : v) x /= 16.0f;
    return kernelOf(3, 3, v);
}

// WCAG relative luminance of an sRGB colour.
double luminance(const QColor& c)
{
    const auto linear = [](double u) { return u <= 0.04045 ? u / 12.92 : std::pow((u + 0.055) / 1.055, 2.4); };
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

// Contrast of black text on `background` (1..21).
double contrastWithBlack(const QColor& background) { return (luminance(background) + 0.05) / 0.05; }

} // namespace

class TestKernelGrid : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void formatKeepsFourSignificantDigits();
    void denominatorOfIntegerKernels();
    void noDenominatorWithoutCommonFactor();
    void gaussianCellsShowFourDigitsUnelided();
    void boxShowsOnesTimesFactor();
    void binomialShowsSixteenth();
    void nonIntegerKernelShowsDecimals();
    void toggleSwitchesToDecimals();
    void integerViewEditMultipliesByFactorAndUndoes();
    void decimalViewEditIsLiteral();
    void wideKernelScrolls();
    void bigKernelFitsCellsInView();
    void tintFollowsSignAndSize();
    void cellsCarryTheirTint();
    void pictureFollowsTheKernel();
    void presetMenuComesFromTheTable();
    void parameterlessPresetAppliesAtOnce();
    void presetDialogUsesIntegerBoxes();

private:
    QTableView* table() const { return editor_->table(); }
    QString cell(int row, int column) const { return table()->model()->index(row, column).data().toString(); }
    // Every cell parses back to its value within `rel` and fits its column (only those in view
    // when `inView`).
    void checkCellsReadable(double rel, bool inView = false);
    void saveScreenshot(const QString& name);

    std::unique_ptr<KernelDocument> doc_;
    std::unique_ptr<KernelEditor> editor_;
};

void TestKernelGrid::init()
{
    doc_ = std::make_unique<KernelDocument>();
    editor_ = std::make_unique<KernelEditor>(doc_.get());
    editor_->resize(420, 520);
    editor_->show();
    QVERIFY(QTest::qWaitForWindowExposed(editor_.get()));
}

void TestKernelGrid::cleanup()
{
    editor_.reset();
    doc_.reset();
}

void TestKernelGrid::saveScreenshot(const QString& name)
{
    QCoreApplication::processEvents();
    editor_->grab().save(QStringLiteral("/tmp/kernelgrid-%1.png").arg(name));
}

void TestKernelGrid::checkCellsReadable(double rel, bool inView)
{
    const Kernel& k = doc_->kernel();
    const int n = editor_->model()->displayDenominator();
    const QHeaderView* header = table()->horizontalHeader();
    for (int r = 0; r < k.height; ++r)
        for (int c = 0; c < k.width; ++c) {
            const QModelIndex index = table()->model()->index(r, c);
            if (inView && !table()->viewport()->rect().intersects(table()->visualRect(index))) continue;
            const QString text = index.data().toString();
            bool ok = false;
            const double shown = text.toDouble(&ok) / (n > 0 ? n : 1);
            QVERIFY2(ok, qPrintable(text));
            const double v = k.at(r, c);
            QVERIFY2(std::fabs(shown - v) <= rel * std::fabs(v),
                     qPrintable(QString("(%1,%2): '%3' for %4").arg(r).arg(c).arg(text).arg(v, 0, 'g', 9)));
            const QVariant fontRole = index.data(Qt::FontRole);
            const QFont font = fontRole.isValid() ? fontRole.value<QFont>() : table()->font();
            const int advance = QFontMetrics(font).horizontalAdvance(text);
            QVERIFY2(header->sectionSize(c) >= advance,
                     qPrintable(QString("column %1 is %2 px for '%3' (%4 px)")
                                    .arg(c)
                                    .arg(header->sectionSize(c))
                                    .arg(text)
                                    .arg(advance)));
        }
}

void TestKernelGrid::formatKeepsFourSignificantDigits()
{
    using kernelgrid::formatSignificant;
    QCOMPARE(formatSignificant(4.9140e-05), QString("4.914e-05"));
    QCOMPARE(formatSignificant(1.0 / 81), QString("0.01235"));
    QCOMPARE(formatSignificant(0.0625), QString("0.0625"));
    QCOMPARE(formatSignificant(0.5), QString("0.5"));
    QCOMPARE(formatSignificant(-2.0), QString("-2"));
    QCOMPARE(formatSignificant(0.0), QString("0"));
    QCOMPARE(formatSignificant(123456.0), QString("123456"));
    QCOMPARE(formatSignificant(std::numbers::pi), QString("3.142"));
    QCOMPARE(formatSignificant(1.5e20), QString("1.5e+20"));
    // Whatever the magnitude: four digits that read back within rounding.
    for (double v : {1.23456e-9, 9.87654e-3, 0.333333, 7.77777, 98765.4321, -4.56789e-7}) {
        const QString s = formatSignificant(v);
        QVERIFY2(std::fabs(s.toDouble() - v) <= 5e-4 * std::fabs(v), qPrintable(s));
    }
}

void TestKernelGrid::denominatorOfIntegerKernels()
{
    using kernelgrid::integerDenominator;
    QCOMPARE(integerDenominator(binomial3().values), 16);
    QCOMPARE(integerDenominator(convlab::makePreset("box", "size=9").values), 81);
    QCOMPARE(integerDenominator(convlab::makePreset("box", "size=31").values), 961);
    QCOMPARE(integerDenominator({0, 1, 0, 1, -4, 1, 0, 1, 0}), 1);
    QCOMPARE(integerDenominator({0, 0, 0}), 1);
    QCOMPARE(integerDenominator({0.5f, 1.5f}), 2);
    QCOMPARE(integerDenominator({0.1f, 0.2f, 0.4f, 0.3f}), 10);
    QCOMPARE(integerDenominator({1.0f / 3, 2.0f / 3}), 3);
    // 9x9 binomial: 1 8 28 56 70 56 28 8 1 along each axis, / 65536.
    const float b[9] = {1, 8, 28, 56, 70, 56, 28, 8, 1};
    std::vector<float> outer;
    for (float y : b)
        for (float x : b) outer.push_back(y * x / 65536.0f);
    QCOMPARE(integerDenominator(outer), 65536);
    // The limit applies.
    QCOMPARE(integerDenominator(outer, 1000), 0);
}

void TestKernelGrid::noDenominatorWithoutCommonFactor()
{
    using kernelgrid::integerDenominator;
    const float pi = std::numbers::pi_v<float>;
    QCOMPARE(integerDenominator({0.3f, 0.7f, pi}), 0);
    QCOMPARE(integerDenominator({1.0f, 2.0f, pi}), 0);
    QCOMPARE(integerDenominator({std::sqrt(2.0f)}), 0);
    QCOMPARE(integerDenominator(convlab::makePreset("gaussian", "sigma=2").values), 0);
    QCOMPARE(integerDenominator(convlab::makePreset("gaussian", "sigma=1").values), 0);
    QCOMPARE(integerDenominator({1.0f, std::numeric_limits<float>::infinity()}), 0);
}

void TestKernelGrid::gaussianCellsShowFourDigitsUnelided()
{
    doc_->setKernel(convlab::makePreset("gaussian", "sigma=2"), "gaussian");
    QCOMPARE(doc_->kernel().width, 13);
    QCOMPARE(editor_->model()->displayDenominator(), 0);
    QVERIFY(!editor_->factorLabel()->isVisible());
    // The corner is 4.92e-06, its neighbour 4.9e-05: shown in scientific notation with their
    // digits, not elided to "4.9…" or rounded to "0.0…".
    QVERIFY2(cell(0, 0).contains("e-06"), qPrintable(cell(0, 0)));
    QVERIFY2(cell(0, 1).contains("e-05") && cell(0, 1).size() >= 8, qPrintable(cell(0, 1)));
    checkCellsReadable(1e-3);
    // 13 columns of that width do not fit the panel: the grid scrolls instead of eliding.
    QVERIFY(table()->horizontalScrollBar()->maximum() > 0);
    saveScreenshot("gaussian13");
}

void TestKernelGrid::boxShowsOnesTimesFactor()
{
    doc_->setKernel(convlab::makePreset("box", "size=9"), "box");
    QCOMPARE(editor_->model()->displayDenominator(), 81);
    for (int r = 0; r < 9; ++r)
        for (int c = 0; c < 9; ++c) QCOMPARE(cell(r, c), QString("1"));
    QVERIFY(editor_->factorLabel()->isVisible());
    QCOMPARE(editor_->factorLabel()->text(), QString("× 1/81"));
    checkCellsReadable(1e-6);
    saveScreenshot("box9");
}

void TestKernelGrid::binomialShowsSixteenth()
{
    doc_->setKernel(binomial3(), "binomial");
    QCOMPARE(editor_->factorLabel()->text(), QString("× 1/16"));
    QVERIFY(editor_->factorLabel()->isVisible());
    QCOMPARE(cell(0, 0), QString("1"));
    QCOMPARE(cell(0, 1), QString("2"));
    QCOMPARE(cell(1, 1), QString("4"));
    QVERIFY(table()->model()->index(1, 1).data(Qt::ToolTipRole).toString().contains("1/16"));
    checkCellsReadable(1e-6);
    saveScreenshot("binomial3");
}

void TestKernelGrid::nonIntegerKernelShowsDecimals()
{
    doc_->setKernel(kernelOf(3, 1, {0.3f, 0.7f, std::numbers::pi_v<float>}), "decimals");
    QCOMPARE(editor_->model()->displayDenominator(), 0);
    QVERIFY(!editor_->factorLabel()->isVisible());
    QCOMPARE(cell(0, 0), QString("0.3"));
    QCOMPARE(cell(0, 1), QString("0.7"));
    QCOMPARE(cell(0, 2), QString("3.142"));
    checkCellsReadable(1e-3);
}

void TestKernelGrid::toggleSwitchesToDecimals()
{
    doc_->setKernel(binomial3(), "binomial");
    QVERIFY(editor_->integerViewBox()->isChecked());
    editor_->integerViewBox()->setChecked(false);
    QCOMPARE(editor_->model()->displayDenominator(), 0);
    QVERIFY(!editor_->factorLabel()->isVisible());
    QCOMPARE(cell(0, 0), QString("0.0625"));
    QCOMPARE(cell(1, 1), QString("0.25"));
    checkCellsReadable(1e-6);
    editor_->integerViewBox()->setChecked(true);
    QCOMPARE(cell(0, 0), QString("1"));
    QCOMPARE(editor_->factorLabel()->text(), QString("× 1/16"));
}

void TestKernelGrid::integerViewEditMultipliesByFactorAndUndoes()
{
    doc_->setKernel(binomial3(), "binomial");
    const std::vector<float> before = doc_->kernel().values;
    const int steps = doc_->undoStack()->count();
    QVERIFY(convlab::test::typeIntoCell(table(), 1, 1, "3"));
    QCOMPARE(doc_->kernel().at(1, 1), float(3.0 / 16));
    QCOMPARE(doc_->undoStack()->count(), steps + 1);
    QCOMPARE(cell(1, 1), QString("3"));
    QCOMPARE(editor_->factorLabel()->text(), QString("× 1/16"));
    // A fraction or a decimal counts in the same units.
    QVERIFY(convlab::test::typeIntoCell(table(), 0, 0, "1/2"));
    QCOMPARE(doc_->kernel().at(0, 0), float(0.5 / 16));
    QCOMPARE(editor_->factorLabel()->text(), QString("× 1/32")); // the factor follows the values
    QCOMPARE(cell(0, 0), QString("1"));
    QCOMPARE(cell(1, 1), QString("6"));
    QCOMPARE(doc_->undoStack()->count(), steps + 2);
    doc_->undoStack()->undo();
    QCOMPARE(doc_->kernel().at(0, 0), 1.0f / 16);
    QCOMPARE(editor_->factorLabel()->text(), QString("× 1/16"));
    doc_->undoStack()->undo();
    QCOMPARE(doc_->kernel().values, before);
    QCOMPARE(cell(1, 1), QString("4"));
}

void TestKernelGrid::decimalViewEditIsLiteral()
{
    doc_->setKernel(binomial3(), "binomial");
    editor_->integerViewBox()->setChecked(false);
    QVERIFY(convlab::test::typeIntoCell(table(), 1, 1, "3"));
    QCOMPARE(doc_->kernel().at(1, 1), 3.0f);
    QVERIFY(convlab::test::typeIntoCell(table(), 0, 0, "1/8"));
    QCOMPARE(doc_->kernel().at(0, 0), 0.125f);
    doc_->undoStack()->undo();
    doc_->undoStack()->undo();
    QCOMPARE(doc_->kernel().values, binomial3().values);
    // Text that is no number is refused in either view.
    editor_->integerViewBox()->setChecked(true);
    QVERIFY(convlab::test::typeIntoCell(table(), 1, 1, "abc"));
    QCOMPARE(doc_->kernel().values, binomial3().values);
    QVERIFY(editor_->message().contains("not a finite number"));
}

void TestKernelGrid::wideKernelScrolls()
{
    std::vector<float> v(31 * 3);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = float(std::sin(double(i) + 0.5) * 1e-3);
    doc_->setKernel(kernelOf(31, 3, v), "wide");
    checkCellsReadable(1e-3);
    QVERIFY(table()->horizontalScrollBar()->maximum() > 0);
    // Back to a small kernel: the columns fill the panel again, still unelided.
    doc_->setKernel(binomial3(), "binomial");
    checkCellsReadable(1e-6);
    QCOMPARE(table()->horizontalScrollBar()->maximum(), 0);
    QVERIFY(table()->horizontalHeader()->sectionSize(0) > 60);
}

void TestKernelGrid::bigKernelFitsCellsInView()
{
    // 181 x 181: too many cells to measure on every edit; those in view are, as they scroll in.
    const Kernel big = convlab::makePreset("gaussian", "sigma=30");
    QCOMPARE(big.width, 181);
    QElapsedTimer timer;
    timer.start();
    doc_->setKernel(big, "big");
    QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
    checkCellsReadable(1e-3, true);
    // The corner's values are the smallest, with the longest texts.
    table()->scrollTo(table()->model()->index(180, 180));
    QCoreApplication::processEvents();
    QVERIFY(table()->horizontalScrollBar()->value() > 0);
    checkCellsReadable(1e-3, true);
    saveScreenshot("gaussian181-corner");
}

void TestKernelGrid::tintFollowsSignAndSize()
{
    using kernelgrid::cellTint;
    // Sign picks the hue: red over blue for positive values, blue over red for negative ones.
    const QColor pos = cellTint(2.0, 4.0), neg = cellTint(-2.0, 4.0);
    QVERIFY(pos.isValid() && neg.isValid());
    QVERIFY2(pos.red() > pos.blue(), qPrintable(pos.name()));
    QVERIFY2(neg.blue() > neg.red(), qPrintable(neg.name()));
    // Zero, a non-finite value and a zero kernel get no tint.
    QVERIFY(!cellTint(0.0, 4.0).isValid());
    QVERIFY(!cellTint(std::numeric_limits<double>::quiet_NaN(), 4.0).isValid());
    QCOMPARE(cellTint(1.0, 0.0), QColor(Qt::white));
    // Size: a larger |v| is a stronger (darker) tint, the same for either sign.
    QVERIFY(cellTint(4.0, 4.0).lightnessF() < cellTint(1.0, 4.0).lightnessF());
    QVERIFY(cellTint(-4.0, 4.0).lightnessF() < cellTint(-1.0, 4.0).lightnessF());
    QCOMPARE(cellTint(3.0, 4.0), cellTint(6.0, 8.0)); // relative to max|v|
    // Readable: every tint light, black text on it above 7:1, the strongest included.
    for (double v = -4.0; v <= 4.0; v += 0.25) {
        const QColor t = cellTint(v, 4.0);
        if (!t.isValid()) continue;
        QVERIFY2(t.lightnessF() >= 0.7, qPrintable(QString("%1: %2").arg(v).arg(t.name())));
        QVERIFY2(contrastWithBlack(t) >= 7.0, qPrintable(QString("%1: %2").arg(v).arg(contrastWithBlack(t))));
    }
}

void TestKernelGrid::cellsCarryTheirTint()
{
    doc_->setKernel(convlab::makePreset("sobel-x"), "sobel"); // 1 0 -1; 2 0 -2; 1 0 -1
    const QAbstractItemModel* m = table()->model();
    const auto background = [&](int r, int c) { return m->index(r, c).data(Qt::BackgroundRole); };
    QCOMPARE(background(1, 0).value<QBrush>().color(), kernelgrid::cellTint(2.0, 2.0));
    QCOMPARE(background(0, 2).value<QBrush>().color(), kernelgrid::cellTint(-1.0, 2.0));
    QVERIFY(!background(0, 1).isValid()); // zero: the table's own background
    QCOMPARE(m->index(1, 0).data(Qt::ForegroundRole).value<QBrush>().color(), QColor(Qt::black));
    // The anchor (centre, a zero) is marked by its role and bold text, not by a fill.
    QVERIFY(m->index(1, 1).data(kernelgrid::kAnchorRole).toBool());
    QVERIFY(!m->index(0, 0).data(kernelgrid::kAnchorRole).toBool());
    QVERIFY(!background(1, 1).isValid());
    // An edit changes the scale of every tint: 2 is no longer the largest.
    doc_->setCell(0, 0, 4.0f);
    QCOMPARE(background(1, 0).value<QBrush>().color(), kernelgrid::cellTint(2.0, 4.0));
    saveScreenshot("tint-sobel");
}

void TestKernelGrid::pictureFollowsTheKernel()
{
    KernelPicture* picture = editor_->picture();
    QVERIFY(picture && picture->isVisible());
    doc_->setKernel(convlab::makePreset("sobel-x"), "sobel");
    QImage image = picture->image();
    QCOMPARE(image.size(), QSize(3, 3));
    for (int v = 0; v < 3; ++v)
        for (int u = 0; u < 3; ++u)
            QCOMPARE(image.pixel(u, v), kernelgrid::valueColour(doc_->kernel().at(v, u), 2.0).rgb());
    QVERIFY(QColor(image.pixel(0, 1)).red() > QColor(image.pixel(0, 1)).blue()); // +2: red
    QVERIFY(QColor(image.pixel(2, 1)).blue() > QColor(image.pixel(2, 1)).red()); // -2: blue
    QCOMPARE(image.pixel(1, 1), QColor(Qt::white).rgb());                           // 0: white
    // The anchor's square sits in the middle cell of the drawn kernel.
    const QRectF k = picture->kernelRect(), a = picture->anchorRect();
    QVERIFY(picture->rect().contains(k.toAlignedRect()));
    QCOMPARE(a.center(), k.center());
    // It follows edits: a new size, a moved anchor.
    doc_->setKernel(kernelOf(5, 2, std::vector<float>(10, -1.0f)), "row");
    QCOMPARE(picture->image().size(), QSize(5, 2));
    QCOMPARE(picture->image().pixel(4, 1), kernelgrid::valueColour(-1.0, 1.0).rgb());
    doc_->setAnchor(0, 0);
    QCOMPARE(picture->anchorRect().topLeft(), picture->kernelRect().topLeft());
    saveScreenshot("picture-row");
}

void TestKernelGrid::presetMenuComesFromTheTable()
{
    QToolButton* button = nullptr;
    for (QToolButton* b : editor_->findChildren<QToolButton*>())
        if (b->menu()) button = b;
    QVERIFY(button);
    const QList<QAction*> groupActions = button->menu()->actions();
    const auto& groups = presetcatalog::groups();
    QCOMPARE(groupActions.size(), qsizetype(groups.size()));
    QStringList titles;
    std::size_t listed = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        QMenu* sub = groupActions[qsizetype(g)]->menu();
        QVERIFY(sub);
        QCOMPARE(sub->title(), groups[g].title);
        titles << sub->title();
        const QList<QAction*> actions = sub->actions();
        QCOMPARE(actions.size(), qsizetype(groups[g].entries.size()));
        for (qsizetype i = 0; i < actions.size(); ++i) {
            const presetcatalog::Entry& e = groups[g].entries[std::size_t(i)];
            const convlab::PresetInfo* info = presetcatalog::findPreset(e.code);
            QVERIFY2(info, qPrintable(e.code));
            QCOMPARE(actions[i]->objectName(), "preset-" + e.code); // the code name stays the CLI's
            QCOMPARE(actions[i]->text(), info->params.empty() ? e.name : e.name + QStringLiteral("…"));
            QCOMPARE(actions[i]->toolTip(), e.description);
            QVERIFY2(!e.description.isEmpty() && e.name != e.code, qPrintable(e.code)); // in the table
            ++listed;
        }
    }
    // The groups people look for, and every core preset exactly once.
    QCOMPARE(titles, QStringList({"Basic", "Blur", "Sharpen", "Edges", "Emboss", "Designed"}));
    QCOMPARE(listed, convlab::presetList().size());
    QStringList codes;
    for (const auto& g : groups)
        for (const auto& e : g.entries) codes << e.code;
    codes.removeDuplicates();
    QCOMPARE(std::size_t(codes.size()), convlab::presetList().size());
}

void TestKernelGrid::parameterlessPresetAppliesAtOnce()
{
    doc_->setKernel(binomial3(), "start");
    doc_->undoStack()->clear();
    // Any dialog that opens is noted and closed, so that a regression fails instead of hanging.
    bool dialogOpened = false;
    QTimer watch;
    watch.setInterval(0);
    connect(&watch, &QTimer::timeout, this, [&] {
        if (QWidget* modal = QApplication::activeModalWidget()) {
            dialogOpened = true;
            modal->close();
        }
    });
    watch.start();
    QAction* sobel = editor_->findChild<QAction*>("preset-sobel-y");
    QVERIFY(sobel);
    sobel->trigger();
    watch.stop();
    QVERIFY(!dialogOpened);
    QCOMPARE(doc_->kernel().values, convlab::makePreset("sobel-y").values);
    QCOMPARE(doc_->undoStack()->count(), 1);
}

void TestKernelGrid::presetDialogUsesIntegerBoxes()
{
    const convlab::PresetInfo* gaussian = presetcatalog::findPreset("gaussian");
    QVERIFY(gaussian);
    PresetDialog dialog(*gaussian);
    auto* size = dialog.findChild<QSpinBox*>("size");
    QVERIFY(size);                                           // a side: an integer box
    QVERIFY(!dialog.findChild<QDoubleSpinBox*>("size"));
    QVERIFY(dialog.findChild<QDoubleSpinBox*>("sigma")); // a real number stays one
    QCOMPARE(size->value(), 0);
    QCOMPARE(size->specialValueText(), QStringLiteral("auto"));
    QCOMPARE(size->text(), QStringLiteral("auto")); // what the box shows for 0
    QCOMPARE(dialog.parameterText(), QStringLiteral("sigma=1,size=0"));
    size->setValue(7);
    QCOMPARE(size->text(), QStringLiteral("7"));
    dialog.accept();
    QCOMPARE(dialog.kernel().width, 7);
    // Whole numbers that cannot be automatic show no "auto"; choices stay combo boxes.
    const convlab::PresetInfo* lowpass = presetcatalog::findPreset("lowpass");
    QVERIFY(lowpass);
    PresetDialog design(*lowpass);
    auto* side = design.findChild<QSpinBox*>("size");
    QVERIFY(side);
    QVERIFY(side->specialValueText().isEmpty());
    QCOMPARE(side->minimum(), 3);
    QVERIFY(design.findChild<QDoubleSpinBox*>("cutoff"));
    // Every preset's whole parameters get integer boxes, the others not.
    for (const convlab::PresetInfo& p : convlab::presetList()) {
        PresetDialog d(p);
        for (const convlab::PresetParam& param : p.params) {
            const QString name = QString::fromStdString(param.name);
            if (!param.choices.empty()) continue;
            QCOMPARE(d.findChild<QSpinBox*>(name) != nullptr, param.whole);
            QCOMPARE(d.findChild<QDoubleSpinBox*>(name) != nullptr, !param.whole);
        }
    }
}

QTEST_MAIN(TestKernelGrid)
#include "test_kernelgrid.moc"
