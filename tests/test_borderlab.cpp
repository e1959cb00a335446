// SPDX-License-Identifier: GPL-3.0-or-later
// The border-mode lab: its results (one per border mode of convlab/modes.h) against the engine,
// the difference counts and bands against an independent count, synchronised views,
// recomputation on new parameters, the preview of large sources, and computing only while the
// lab is on screen; the captions' largest differences, the difference maps' shared scale, the
// band's outline, the window's size and mapping. Also the lab's views and the mode and method combos of the Controls and
// Difference panels against the tables of modes.h.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QRegularExpression>
#include <QScreen>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "tools/borderlab.h"
#include "panels/controlspanel.h"
#include "panels/differencepanel.h"
#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/modes.h"
#include "view/imageview.h"
#include "testutil.h"

using convlab::BorderMode;
using convlab::Image;

namespace {

constexpr int kWaitMs = 30000;

convlab::ConvolveParams labParams(convlab::Kernel k)
{
    convlab::ConvolveParams p;
    p.kernel = std::move(k);
    p.border = {BorderMode::Wrap, 7.0f}; // the lab's constant view takes this value
    p.semantics = convlab::Semantics::Convolution;
    p.scale = 0.5;
    p.offset = 3.0;
    return p;
}

// The engine's result for one mode, as the lab must show it.
Image expected(const Image& src, convlab::ConvolveParams p, BorderMode mode)
{
    p.border.mode = mode;
    p.method = convlab::Method::Direct;
    return convlab::convolve(src, p);
}

// Pixels where any channel differs, counted here independently of the lab.
qint64 countDiffering(const Image& a, const Image& b)
{
    qint64 n = 0;
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x)
            for (int c = 0; c < a.channels; ++c)
                if (a.at(c, y, x) != b.at(c, y, x)) {
                    ++n;
                    break;
                }
    return n;
}

// Every differing pixel lies in the reported band.
bool bandHoldsDifferences(const Image& a, const Image& b, const BorderDifference& d)
{
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x)
            for (int c = 0; c < a.channels; ++c)
                if (a.at(c, y, x) != b.at(c, y, x)) {
                    const bool inX = x < d.bandX || x >= a.width - d.bandX;
                    const bool inY = y < d.bandY || y >= a.height - d.bandY;
                    if (!inX && !inY)
                        return false;
                }
    return true;
}

// The largest |a - b| over every sample, computed here independently of the lab.
double largestDifference(const Image& a, const Image& b)
{
    double m = 0.0;
    for (std::size_t i = 0; i < a.data.size(); ++i)
        m = std::max(m, std::fabs(double(a.data[i]) - double(b.data[i])));
    return m;
}

// The number a caption prints after "max |d|"; NaN when there is none.
double printedMax(const QString& caption)
{
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("max \\|d\\| ([-+0-9.e]+)")).match(caption);
    return m.hasMatch() ? m.captured(1).toDouble() : std::numeric_limits<double>::quiet_NaN();
}

bool waitIdle(const BorderLabWindow& lab)
{
    return QTest::qWaitFor([&] { return !lab.busy(); }, kWaitMs);
}

// The lab computes only while on screen.
bool showLab(BorderLabWindow& lab)
{
    lab.resize(900, 600);
    lab.show();
    return QTest::qWaitForWindowExposed(&lab);
}

// Checks every result and every comparison of the lab against the engine and a CPU count.
void checkLab(const BorderLabWindow& lab, const Image& src, const convlab::ConvolveParams& p)
{
    const convlab::Kernel k = convlab::correlationKernel(p.kernel, p.semantics);
    const int reachX = std::max(k.ax(), k.width - 1 - k.ax());
    const int reachY = std::max(k.ay(), k.height - 1 - k.ay());
    const Image ref = expected(src, p, lab.referenceMode());
    for (BorderMode mode : BorderLabWindow::kModes) {
        const auto got = lab.result(mode);
        QVERIFY(got);
        const Image want = expected(src, p, mode);
        QVERIFY2(got->sameShape(want) && got->data == want.data,
                 qPrintable(QString::fromStdString(convlab::borderName(mode))));
        const BorderDifference d = lab.difference(mode);
        const QString what = QStringLiteral("%1 vs %2: %3 differ, band %4 x %5")
                                 .arg(QString::fromStdString(convlab::borderName(mode)),
                                      QString::fromStdString(convlab::borderName(lab.referenceMode())))
                                 .arg(d.differing).arg(d.bandX).arg(d.bandY);
        QVERIFY2(d.differing == countDiffering(want, ref), qPrintable(what));
        QVERIFY2(bandHoldsDifferences(want, ref, d), qPrintable(what));
        QVERIFY2(d.bandX <= reachX && d.bandY <= reachY, qPrintable(what));
        if (mode == lab.referenceMode())
            QVERIFY2(d.differing == 0 && d.bandX == 0 && d.bandY == 0, qPrintable(what));
    }
}

// The first distance from the edge (1 = the pixel just outside) at which the rules of two modes
// read different samples, on either side, as their n = 4 examples of the table show; 0 when the
// examples agree at every distance they cover.
int firstDifferingDistance(BorderMode a, BorderMode b)
{
    const convlab::BorderModeInfo& ra = convlab::borderModeInfo(a);
    const convlab::BorderModeInfo& rb = convlab::borderModeInfo(b);
    constexpr int n = 4; // the example's row length
    for (int d = 1; d <= convlab::test::kExampleReach; ++d)
        if (convlab::test::exampleIndex(ra, -d) != convlab::test::exampleIndex(rb, -d) ||
            convlab::test::exampleIndex(ra, n - 1 + d) != convlab::test::exampleIndex(rb, n - 1 + d))
            return d;
    return 0;
}

// A kernel reaching `reach` columns out on one side: the columns next to that edge that differ
// between two modes first differing at distance d0 (a column dx from the edge, 1 at the edge,
// reads distances 1..reach - dx + 1).
int expectedBand(int reach, int d0) { return d0 == 0 ? 0 : std::max(0, reach - d0 + 1); }

void sendWheel(QWidget* w, QPointF pos, int angle)
{
    QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, angle), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(w, &e);
}

void sendMouse(QWidget* w, QEvent::Type type, QPointF pos, Qt::MouseButton button, Qt::MouseButtons buttons)
{
    QMouseEvent e(type, pos, w->mapToGlobal(pos), button, buttons, Qt::NoModifier);
    QCoreApplication::sendEvent(w, &e);
}

} // namespace

class TestBorderLab : public QObject {
    Q_OBJECT

private slots:
    void compareFindsDifferencesAndBand();
    void compareRejectsShapeMismatch();
    void resultsAndDifferencesMatchTheEngine();
    void referenceModeAndDifferenceMaps();
    void rowKernelHasNoVerticalBand();
    void setParamsRecomputes();
    void zoomAndPanAreSynchronised();
    void namesFollowTheTable();
    void oneViewPerTableRow();
    void combosListTheTables();
    void previewSizeKeepsWithinTheLimit();
    void areaDownscaleAveragesAreas();
    void largeSourceRunsOnPreview();
    void hiddenLabComputesNothing();
    void minimisedLabWaits();
    void newSourceReleasesResults();
    void sharedScaleRule();
    void outlineClearsTheBand();
    void widenedDifferenceKeepsThinBands();
    void windowSizeRule();
    void captionsPrintTheLargestDifference();
    void windowFitsTheScreen();
    void mappingIsPassedToEveryView();
};

void TestBorderLab::compareFindsDifferencesAndBand()
{
    Image a(20, 16, 2);
    Image b = a;
    QCOMPARE(compareBorderResults(a, b).differing, 0);
    QCOMPARE(compareBorderResults(a, b).bandX, 0);
    // One pixel, third column, middle row: 3 columns from the left edge, no rows needed.
    b.at(1, 8, 2) = 1.0f;
    Image diff;
    BorderDifference d = compareBorderResults(a, b, &diff);
    QCOMPARE(d.differing, 1);
    QCOMPARE(d.bandX, 3);
    QCOMPARE(d.bandY, 0);
    QCOMPARE(diff.at(1, 8, 2), -1.0f);
    QCOMPARE(diff.at(0, 8, 2), 0.0f);
    // And one in the second row from the bottom, in the middle: both bands are needed.
    b.at(0, 14, 10) = 2.0f;
    d = compareBorderResults(a, b);
    QCOMPARE(d.differing, 2);
    QCOMPARE(d.bandX, 3);
    QCOMPARE(d.bandY, 2);
    // Each channel counts once per pixel.
    b.at(1, 14, 10) = 2.0f;
    QCOMPARE(compareBorderResults(a, b).differing, 2);
    // A frame of every pixel within 2 of any edge in a 9x7 image.
    Image c(9, 7, 1), e(9, 7, 1);
    for (int y = 0; y < 7; ++y)
        for (int x = 0; x < 9; ++x)
            if (x < 2 || x >= 7 || y < 2 || y >= 5)
                e.at(0, y, x) = 1.0f;
    d = compareBorderResults(c, e);
    QCOMPARE(d.differing, 63 - 5 * 3);
    QCOMPARE(d.bandX, 2);
    QCOMPARE(d.bandY, 2);
}

void TestBorderLab::compareRejectsShapeMismatch()
{
    QVERIFY_THROWS_EXCEPTION(convlab::Error, compareBorderResults(Image(4, 4, 1), Image(4, 5, 1)));
    QVERIFY_THROWS_EXCEPTION(convlab::Error, compareBorderResults(Image(4, 4, 1), Image(4, 4, 3)));
}

void TestBorderLab::resultsAndDifferencesMatchTheEngine()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(41, 29, 3, 11));
    // Non-square with an off-centre anchor: reaches differ on each side.
    convlab::Kernel k = convlab::test::randomKernel(6, 3, convlab::test::KernelKind::Dense, 5);
    k.anchorX = 1;
    const auto p = labParams(k);
    BorderLabWindow lab(src, p);
    QSignalSpy updated(&lab, &BorderLabWindow::updated);
    QVERIFY(showLab(lab));
    QVERIFY(waitIdle(lab));
    QCOMPARE(updated.count(), 1);
    checkLab(lab, *src, p);
    // The kernel reaches 1 row up and down and 4 columns out on one side (1 on the other): a
    // mode differs from the reference in rows only where their rules differ at distance 1
    // (replicate and reflect agree there), in columns as far in as its first differing distance
    // allows.
    int compared = 0;
    for (const convlab::BorderModeInfo& row : convlab::borderModes()) {
        if (row.mode == lab.referenceMode()) continue;
        const int d0 = firstDifferingDistance(row.mode, lab.referenceMode());
        if (d0 == 0) {
            qInfo("%s: its example agrees with the reference's, no band to predict", row.name);
            continue;
        }
        const BorderDifference d = lab.difference(row.mode);
        const QString what = QStringLiteral("%1 (first differs at distance %2): band %3 x %4")
                                 .arg(row.name).arg(d0).arg(d.bandX).arg(d.bandY);
        QVERIFY2(d.differing > 0, qPrintable(what));
        QVERIFY2(d.bandY == expectedBand(1, d0), qPrintable(what));
        QVERIFY2(d.bandX == expectedBand(4, d0), qPrintable(what));
        ++compared;
    }
    QVERIFY(compared > 0);
}

void TestBorderLab::referenceModeAndDifferenceMaps()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(30, 22, 1, 3));
    const auto p = labParams(convlab::test::randomKernel(5, 5, convlab::test::KernelKind::Dense, 9));
    BorderLabWindow lab(src, p);
    QVERIFY(showLab(lab));
    QVERIFY(waitIdle(lab));
    QCOMPARE(lab.referenceMode(), BorderMode::Reflect);
    lab.setShowDifferences(true);
    QVERIFY(lab.showDifferences());
    for (BorderMode mode : BorderLabWindow::kModes)
        QCOMPARE(lab.view(mode)->viewMode(),
                 mode == BorderMode::Reflect ? ImageView::ViewMode::Result : ImageView::ViewMode::Difference);

    QSignalSpy updated(&lab, &BorderLabWindow::updated);
    lab.setReferenceMode(BorderMode::Wrap);
    QVERIFY(lab.busy());
    QVERIFY(waitIdle(lab));
    QCOMPARE(updated.count(), 1);
    QCOMPARE(lab.referenceMode(), BorderMode::Wrap);
    checkLab(lab, *src, p);
    QCOMPARE(lab.view(BorderMode::Wrap)->viewMode(), ImageView::ViewMode::Result);
    QCOMPARE(lab.view(BorderMode::Reflect)->viewMode(), ImageView::ViewMode::Difference);
    lab.setShowDifferences(false);
    for (BorderMode mode : BorderLabWindow::kModes)
        QCOMPARE(lab.view(mode)->viewMode(), ImageView::ViewMode::Result);
}

void TestBorderLab::rowKernelHasNoVerticalBand()
{
    // A 9x1 kernel reads nothing above or below: differences lie only along the left/right edges.
    auto src = std::make_shared<const Image>(convlab::test::randomImage(33, 12, 1, 21));
    const auto p = labParams(convlab::test::randomKernel(9, 1, convlab::test::KernelKind::Dense, 4));
    BorderLabWindow lab(src, p);
    QVERIFY(showLab(lab));
    QVERIFY(waitIdle(lab));
    checkLab(lab, *src, p);
    int compared = 0;
    for (const convlab::BorderModeInfo& row : convlab::borderModes()) {
        if (row.mode == lab.referenceMode()) continue;
        const BorderDifference d = lab.difference(row.mode);
        QCOMPARE(d.bandY, 0);
        const int d0 = firstDifferingDistance(row.mode, lab.referenceMode());
        if (d0 == 0) {
            qInfo("%s: its example agrees with the reference's, no band to predict", row.name);
            continue;
        }
        QVERIFY2(d.differing > 0, row.name);
        QVERIFY2(d.bandX == expectedBand(4, d0), qPrintable(QStringLiteral("%1: band %2").arg(row.name).arg(d.bandX)));
        ++compared;
    }
    QVERIFY(compared > 0);
}

void TestBorderLab::setParamsRecomputes()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(25, 19, 3, 8));
    auto p = labParams(convlab::test::randomKernel(7, 7, convlab::test::KernelKind::Dense, 2));
    BorderLabWindow lab(src, p);
    QVERIFY(showLab(lab));
    QVERIFY(waitIdle(lab));
    QVERIFY(lab.difference(BorderMode::Replicate).differing > 0);

    // A 3x3 box: reflect and replicate both repeat the edge pixel at distance 1, so they agree.
    p.kernel = convlab::Kernel(3, 3, std::vector<float>(9, 1.0f / 9.0f));
    p.semantics = convlab::Semantics::Correlation;
    p.border.value = -40.0f;
    QSignalSpy updated(&lab, &BorderLabWindow::updated);
    lab.setParams(p);
    QVERIFY(lab.busy());
    QVERIFY(!lab.result(BorderMode::Mirror));
    QVERIFY(waitIdle(lab));
    QCOMPARE(updated.count(), 1);
    checkLab(lab, *src, p);
    // Reaching 1 pixel out, a mode differs from the reference exactly where their rules read
    // different samples at distance 1 (replicate and reflect agree there), in a band of 1.
    for (const convlab::BorderModeInfo& row : convlab::borderModes()) {
        const int band = firstDifferingDistance(row.mode, lab.referenceMode()) == 1 ? 1 : 0;
        const BorderDifference d = lab.difference(row.mode);
        QVERIFY2((d.differing > 0) == (band == 1), row.name);
        QVERIFY2(d.bandX == band && d.bandY == band, row.name);
    }
    // The constant view uses the new value.
    QCOMPARE(lab.result(BorderMode::Constant)->data, expected(*src, p, BorderMode::Constant).data);

    // Bad parameters fail in the background and leave the lab busy, not crashed.
    p.kernel = convlab::Kernel(2, 2, {1.0f, 2.0f, 3.0f});
    lab.setParams(p);
    QTest::qWait(200);
    QVERIFY(lab.busy());
}

void TestBorderLab::zoomAndPanAreSynchronised()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(64, 48, 1, 1));
    BorderLabWindow lab(src, labParams(convlab::test::randomKernel(3, 3, convlab::test::KernelKind::Dense, 1)));
    lab.resize(900, 600);
    lab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&lab));
    QVERIFY(waitIdle(lab));
    auto sameAsAll = [&](ImageView* leader) {
        for (BorderMode mode : BorderLabWindow::kModes) {
            ImageView* v = lab.view(mode);
            if (v->zoom() != leader->zoom() || v->origin() != leader->origin())
                return false;
        }
        return true;
    };
    ImageView* wrap = lab.view(BorderMode::Wrap);
    ImageView* mirror = lab.view(BorderMode::Mirror);
    wrap->setZoom(3.0, QPointF(20, 20));
    QCOMPARE(mirror->zoom(), 3.0);
    QVERIFY(sameAsAll(wrap));

    sendWheel(mirror, QPointF(40, 30), 240);
    QCOMPARE(wrap->zoom(), 3.0 * 1.25 * 1.25);
    QVERIFY(sameAsAll(mirror));

    const QPointF before = lab.view(BorderMode::Constant)->origin();
    sendMouse(mirror, QEvent::MouseButtonPress, QPointF(60, 60), Qt::LeftButton, Qt::LeftButton);
    sendMouse(mirror, QEvent::MouseMove, QPointF(90, 40), Qt::NoButton, Qt::LeftButton);
    sendMouse(mirror, QEvent::MouseButtonRelease, QPointF(90, 40), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(lab.view(BorderMode::Constant)->origin(), before + QPointF(30, -20));
    QVERIFY(sameAsAll(mirror));

    // 1:1 everywhere, then fitting everywhere.
    lab.view(BorderMode::Reflect)->actualSize();
    QVERIFY(sameAsAll(lab.view(BorderMode::Reflect)));
    QCOMPARE(wrap->zoom(), 1.0);
}

void TestBorderLab::namesFollowTheTable()
{
    QVERIFY(BorderLabWindow::otherNames(BorderMode::Mirror).contains(QStringLiteral("OpenCV BORDER_REFLECT_101")));
    QVERIFY(BorderLabWindow::otherNames(BorderMode::Mirror).contains(QStringLiteral("scipy mirror")));
    QVERIFY(BorderLabWindow::otherNames(BorderMode::Reflect).contains(QStringLiteral("MATLAB symmetric")));
    QVERIFY(BorderLabWindow::otherNames(BorderMode::Wrap).contains(QStringLiteral("GIMP Loop")));
    QVERIFY(BorderLabWindow::otherNames(BorderMode::Replicate).contains(QStringLiteral("G'MIC 1 Neumann")));
    QVERIFY(BorderLabWindow::otherNames(BorderMode::Constant).contains(QStringLiteral("scipy constant (cval)")));
}

// The lab has a view, a title and a line of names per row of convlab::borderModes(), in its
// order, and its reference combo lists the same modes.
void TestBorderLab::oneViewPerTableRow()
{
    QCOMPARE(std::size_t(BorderLabWindow::kModeCount), convlab::borderModes().size());
    QVERIFY(BorderLabWindow::kModes == convlab::borderModeList());
    auto src = std::make_shared<const Image>(convlab::test::randomImage(32, 24, 1, 3));
    BorderLabWindow lab(src, labParams(convlab::Kernel(3, 1, {1.0f, 2.0f, 1.0f})));
    QCOMPARE(lab.findChildren<ImageView*>().size(), qsizetype(convlab::kBorderModeCount));
    QSet<ImageView*> views;
    QStringList labels;
    for (const QLabel* l : lab.findChildren<QLabel*>()) labels << l->text();
    QStringList names;
    for (const convlab::BorderModeInfo& row : convlab::borderModes()) {
        views.insert(lab.view(row.mode));
        QVERIFY2(labels.contains(BorderLabWindow::otherNames(row.mode)), row.name);
        QVERIFY(BorderLabWindow::otherNames(row.mode).startsWith(QStringLiteral("OpenCV ")));
        names << QString::fromUtf8(row.name);
    }
    QCOMPARE(views.size(), qsizetype(convlab::kBorderModeCount));
    QVERIFY(!views.contains(nullptr));
    int referenceCombos = 0;
    for (const QComboBox* c : lab.findChildren<QComboBox*>()) {
        QStringList items;
        for (int i = 0; i < c->count(); ++i) items << c->itemText(i);
        referenceCombos += items == names;
    }
    QCOMPARE(referenceCombos, 1);
    QCOMPARE(lab.referenceMode(), convlab::Border{}.mode);

    // Every view gets its result; look at the grid (the note in the cell after the last view).
    QVERIFY(showLab(lab));
    QVERIFY(waitIdle(lab));
    for (const convlab::BorderModeInfo& row : convlab::borderModes()) QVERIFY2(lab.result(row.mode), row.name);
    QVERIFY(lab.grab().save(QStringLiteral("/tmp/modes_borderlab.png")));
}

namespace {

// Whether `combo` lists exactly the method table: names, Method as data, descriptions as tips.
bool listsTheMethods(const QComboBox* combo)
{
    const auto rows = convlab::methods();
    if (combo->count() != int(rows.size())) return false;
    for (int i = 0; i < combo->count(); ++i)
        if (combo->itemText(i) != QString::fromUtf8(rows[i].name) || combo->itemData(i).toInt() != int(rows[i].method) ||
            combo->itemData(i, Qt::ToolTipRole).toString() != QString::fromUtf8(rows[i].description))
            return false;
    return true;
}

} // namespace

void TestBorderLab::combosListTheTables()
{
    ControlsPanel controls;
    const QComboBox* border = controls.borderCombo();
    const auto modes = convlab::borderModes();
    QCOMPARE(border->count(), int(modes.size()));
    for (int i = 0; i < border->count(); ++i) {
        QCOMPARE(border->itemText(i), QString::fromUtf8(modes[i].name));
        QCOMPARE(border->itemData(i).toInt(), int(modes[i].mode));
        // Choosing it shows its rule and names, and enables the value only where it takes one.
        controls.setBorder({modes[i].mode, 0.0f});
        QCOMPARE(controls.border().mode, modes[i].mode);
        const QString info = ControlsPanel::borderAliases(modes[i].mode);
        QVERIFY(info.startsWith(QString::fromUtf8(modes[i].rule)));
        QVERIFY(info.contains(BorderLabWindow::otherNames(modes[i].mode)));
        bool shown = false;
        for (const QLabel* l : controls.findChildren<QLabel*>()) shown |= l->text() == info;
        QVERIFY2(shown, modes[i].name);
        bool valueEnabled = false;
        for (const QDoubleSpinBox* box : controls.findChildren<QDoubleSpinBox*>()) valueEnabled |= box->isEnabled();
        QCOMPARE(valueEnabled, modes[i].takesValue);
    }
    QVERIFY(listsTheMethods(controls.methodCombo()));
    for (const convlab::MethodInfo& m : convlab::methods()) {
        controls.setMethod(m.method);
        QCOMPARE(controls.method(), m.method);
    }

    // The Difference panel's path B combo is the same list.
    DifferencePanel difference;
    int methodCombos = 0;
    for (const QComboBox* c : difference.findChildren<QComboBox*>()) methodCombos += listsTheMethods(c);
    QCOMPARE(methodCombos, 1);

    // Look at the controls as they sit in their dock.
    controls.setBorder({convlab::BorderMode::Mirror, 0.0f});
    controls.resize(300, 280);
    controls.show();
    QVERIFY(QTest::qWaitForWindowExposed(&controls));
    QVERIFY(controls.grab().save(QStringLiteral("/tmp/modes_controls.png")));
}

void TestBorderLab::previewSizeKeepsWithinTheLimit()
{
    constexpr qint64 limit = BorderLabWindow::kPreviewMaxPixels;
    QCOMPARE(borderLabPreviewSize(4000, 3000, limit), QSize(1154, 866));
    QCOMPARE(borderLabPreviewSize(1000, 1000, limit), QSize(1000, 1000)); // fits: unchanged
    QCOMPARE(borderLabPreviewSize(64, 48, limit), QSize(64, 48));
    for (const QSize s : {QSize(12000, 9000), QSize(3000, 2000), QSize(100000, 11), QSize(1001, 1000)}) {
        const QSize p = borderLabPreviewSize(s.width(), s.height(), limit);
        QVERIFY(qint64(p.width()) * p.height() <= limit);
        QVERIFY(p.width() >= 1 && p.height() >= 1);
        QVERIFY(std::abs(double(p.width()) / p.height() - double(s.width()) / s.height()) <
                0.01 * double(s.width()) / s.height() + 1.0 / p.height() * double(s.width()) / s.height());
    }
}

void TestBorderLab::areaDownscaleAveragesAreas()
{
    // 4x2 -> 2x1: each output pixel the mean of a 2x2 block.
    Image in(4, 2, 1);
    const float values[8] = {1, 3, 5, 7, 9, 11, 13, 15};
    std::copy(values, values + 8, in.data.begin());
    Image out = areaDownscale(in, 2, 1);
    QCOMPARE(out.width, 2);
    QCOMPARE(out.height, 1);
    QCOMPARE(out.at(0, 0, 0), (1 + 3 + 9 + 11) / 4.0f);
    QCOMPARE(out.at(0, 0, 1), (5 + 7 + 13 + 15) / 4.0f);
    // 3 -> 2: the middle pixel is split between both outputs.
    Image row(3, 1, 2);
    row.at(0, 0, 0) = 3;
    row.at(0, 0, 1) = 6;
    row.at(0, 0, 2) = 9;
    row.at(1, 0, 1) = 1;
    out = areaDownscale(row, 2, 1);
    QCOMPARE(out.channels, 2);
    QCOMPARE(out.at(0, 0, 0), (3 + 0.5f * 6) / 1.5f);
    QCOMPARE(out.at(0, 0, 1), (0.5f * 6 + 9) / 1.5f);
    QCOMPARE(out.at(1, 0, 0), (0.5f * 1) / 1.5f);
    // The mean is kept.
    const Image big = convlab::test::randomImage(301, 207, 3, 5);
    const Image small = areaDownscale(big, 97, 61);
    for (int c = 0; c < 3; ++c) {
        double a = 0, b = 0;
        for (std::size_t i = 0; i < big.planeSize(); ++i) a += big.plane(c)[i];
        for (std::size_t i = 0; i < small.planeSize(); ++i) b += small.plane(c)[i];
        QVERIFY(std::fabs(a / big.planeSize() - b / small.planeSize()) < 1e-3 * std::fabs(a / big.planeSize()));
    }
    std::atomic<bool> cancel{true};
    QVERIFY_THROWS_EXCEPTION(convlab::Cancelled, areaDownscale(big, 97, 61, &cancel));
    QVERIFY_THROWS_EXCEPTION(convlab::Error, areaDownscale(big, 302, 61));
}

void TestBorderLab::largeSourceRunsOnPreview()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(3000, 2000, 3, 17));
    const auto p = labParams(convlab::test::randomKernel(5, 5, convlab::test::KernelKind::Dense, 3));
    BorderLabWindow lab(src, p);
    QCOMPARE(lab.requestCount(), 0); // nothing before it shows
    // The event loop keeps running while the preview is prepared: it is made on a worker thread.
    int ticks = 0;
    QTimer timer;
    timer.setInterval(0);
    connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start();
    lab.resize(900, 600);
    lab.show();
    QVERIFY(lab.preparingPreview());
    QVERIFY(!lab.input());
    const int ticksAtShow = ticks;
    QVERIFY(QTest::qWaitFor([&] { return !lab.preparingPreview(); }, kWaitMs));
    QVERIFY(ticks > ticksAtShow);
    timer.stop();
    QVERIFY(waitIdle(lab));

    const auto input = lab.input();
    QVERIFY(input);
    QVERIFY(qint64(input->width) * input->height <= BorderLabWindow::kPreviewMaxPixels);
    QCOMPARE(QSize(input->width, input->height), borderLabPreviewSize(3000, 2000, BorderLabWindow::kPreviewMaxPixels));
    QCOMPARE(input->channels, 3);
    for (BorderMode mode : BorderLabWindow::kModes) {
        const auto r = lab.result(mode);
        QVERIFY(r);
        QCOMPARE(QSize(r->width, r->height), QSize(input->width, input->height));
    }
    // The results are the engine's on the preview, and the note says where they come from.
    checkLab(lab, *input, p);
    const QString note = lab.noteText();
    QVERIFY2(note.contains(QStringLiteral("preview of the 3000\u00d72000 image")), qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("%1\u00d7%2 preview").arg(input->width).arg(input->height)), qPrintable(note));
    // A look at the top-left corner of the difference maps.
    QVERIFY(QTest::qWaitForWindowExposed(&lab));
    lab.setShowDifferences(true);
    lab.view(BorderMode::Reflect)->setViewTransform(12.0, QPointF(12, 12));
    QTest::qWait(200);
    lab.grab().save("/tmp/borderlab-preview.png");
}

void TestBorderLab::hiddenLabComputesNothing()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(40, 30, 1, 5));
    auto p = labParams(convlab::test::randomKernel(5, 5, convlab::test::KernelKind::Dense, 6));
    BorderLabWindow lab(src, p);
    QTest::qWait(50);
    QCOMPARE(lab.requestCount(), 0);
    QVERIFY(showLab(lab));
    QVERIFY(waitIdle(lab));
    QCOMPARE(lab.requestCount(), BorderLabWindow::kModeCount);

    // Hidden: everything is released and new parameters start nothing.
    lab.hide();
    for (BorderMode mode : BorderLabWindow::kModes) {
        QVERIFY(!lab.result(mode));
        QVERIFY(lab.view(mode)->resultValues(0, 0).isEmpty());
    }
    QVERIFY(!lab.input());
    p.kernel = convlab::test::randomKernel(3, 3, convlab::test::KernelKind::Dense, 7);
    lab.setParams(p);
    p.border.value = -2.0f;
    lab.setParams(p);
    QTest::qWait(100);
    QCOMPARE(lab.requestCount(), BorderLabWindow::kModeCount);
    QVERIFY(!lab.result(BorderMode::Wrap));

    // Shown again: the latest parameters are computed, once.
    QSignalSpy updated(&lab, &BorderLabWindow::updated);
    lab.show();
    QCOMPARE(lab.requestCount(), 2 * BorderLabWindow::kModeCount);
    QVERIFY(waitIdle(lab));
    QCOMPARE(updated.count(), 1);
    checkLab(lab, *src, p);
}

void TestBorderLab::minimisedLabWaits()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(36, 28, 3, 9));
    auto p = labParams(convlab::test::randomKernel(3, 5, convlab::test::KernelKind::Dense, 8));
    BorderLabWindow lab(src, p);
    QVERIFY(showLab(lab));
    QVERIFY(waitIdle(lab));
    const int requests = lab.requestCount();
    lab.setWindowState(Qt::WindowMinimized);
    QVERIFY(lab.isMinimized());
    QVERIFY(!lab.onScreen());
    p.offset = -9.0;
    lab.setParams(p);
    QTest::qWait(100);
    QCOMPARE(lab.requestCount(), requests);
    lab.setWindowState(Qt::WindowNoState);
    QVERIFY(QTest::qWaitFor([&] { return lab.onScreen(); }, kWaitMs));
    QCOMPARE(lab.requestCount(), requests + BorderLabWindow::kModeCount);
    QVERIFY(waitIdle(lab));
    checkLab(lab, *src, p);
    // Restored with nothing new: nothing is recomputed.
    lab.setWindowState(Qt::WindowMinimized);
    lab.setWindowState(Qt::WindowNoState);
    QTest::qWait(50);
    QCOMPARE(lab.requestCount(), requests + BorderLabWindow::kModeCount);
    QVERIFY(!lab.busy());
}

void TestBorderLab::newSourceReleasesResults()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(30, 20, 1, 2));
    const auto p = labParams(convlab::test::randomKernel(3, 3, convlab::test::KernelKind::Dense, 4));
    BorderLabWindow lab(src, p);
    QVERIFY(showLab(lab));
    QVERIFY(waitIdle(lab));
    std::weak_ptr<const Image> oldResult = lab.result(BorderMode::Reflect);
    QVERIFY(!oldResult.expired());
    auto next = std::make_shared<const Image>(convlab::test::randomImage(26, 24, 3, 3));
    lab.setSource(next);
    QVERIFY(!lab.result(BorderMode::Reflect));
    QVERIFY(waitIdle(lab));
    QVERIFY(oldResult.expired()); // nothing holds the old result any more
    checkLab(lab, *next, p);
    QCOMPARE(lab.input(), next); // small: full resolution
    // The same image again changes nothing.
    const int requests = lab.requestCount();
    lab.setSource(next);
    QVERIFY(!lab.busy());
    QCOMPARE(lab.requestCount(), requests);
    QCOMPARE(lab.input(), next);

    // Hidden, the lab does not keep a replaced source alive.
    lab.hide();
    std::weak_ptr<const Image> weak = next;
    next.reset();
    QVERIFY(weak.expired());
}

void TestBorderLab::sharedScaleRule()
{
    // The largest max |d| of any panel, so that it is drawn white and none saturates.
    QCOMPARE(borderLabSharedScale({0.0, 3.5, 200.25, 12.0}), 200.25);
    QCOMPARE(borderLabSharedScale({0.0, 0.0, 0.0}), 0.0); // nothing differs
    QCOMPARE(borderLabSharedScale({}), 0.0);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    QCOMPARE(borderLabSharedScale({nan, 4.0, inf}), 4.0); // only finite figures set the scale
    QCOMPARE(borderLabSharedScale({-9.0, 4.0}), 9.0);
}

void TestBorderLab::outlineClearsTheBand()
{
    QCOMPARE(borderLabOutlineWidth(0, 0.3), 0); // no band, no outline
    for (double zoom : {0.05, 0.3, 0.37, 0.5, 1.0, 1.5, 4.0, 32.0}) {
        const int r = borderLabWideningRadius(zoom);
        // Below 1:1 a band one pixel wide, widened, spans at least a screen pixel; from 1:1 up
        // nothing is widened.
        QVERIFY2(zoom >= 1.0 ? r == 0 : (1 + r) * zoom >= 1.0, qPrintable(QString("zoom %1: %2").arg(zoom).arg(r)));
        // The view draws one screen pixel on the band's side of the width it gets: that pixel
        // must lie beyond the band as drawn (widened), however far out, and not much further.
        for (int band : {1, 2, 7, 40}) {
            const int w = borderLabOutlineWidth(band, zoom);
            const QString what = QString("band %1 zoom %2: %3").arg(band).arg(zoom).arg(w);
            QVERIFY2(w - 1.0 / zoom >= band + r - 1e-9, qPrintable(what));
            QVERIFY2(w - band - r <= std::ceil(1.0 / zoom), qPrintable(what));
        }
    }
    QCOMPARE(borderLabOutlineWidth(7, 0.3), 15); // 7 + 4 widened + 4 for the line
    QCOMPARE(borderLabOutlineWidth(7, 4.0), 8);
}

void TestBorderLab::widenedDifferenceKeepsThinBands()
{
    Image d(6, 5, 2);
    d.at(0, 2, 0) = -3.0f; // a one-pixel difference at the left edge
    d.at(0, 4, 5) = 5.0f;  // and one in the bottom-right corner
    d.at(1, 0, 3) = 2.0f;  // the other channel keeps its own
    const Image plain = borderLabWidenedDifference(d, 0);
    QCOMPARE(plain.at(0, 2, 0), 3.0f); // |d|
    QCOMPARE(plain.at(0, 2, 1), 0.0f);
    const Image wide = borderLabWidenedDifference(d, 1);
    QVERIFY(wide.sameShape(d));
    for (int y = 0; y < d.height; ++y)
        for (int x = 0; x < d.width; ++x)
            for (int c = 0; c < d.channels; ++c) {
                // The largest |d| of the channel within one pixel, computed here directly.
                float want = 0.0f;
                for (int v = std::max(0, y - 1); v <= std::min(d.height - 1, y + 1); ++v)
                    for (int u = std::max(0, x - 1); u <= std::min(d.width - 1, x + 1); ++u)
                        want = std::max(want, std::fabs(d.at(c, v, u)));
                QCOMPARE(wide.at(c, y, x), want);
            }
    QCOMPARE(wide.at(0, 1, 1), 3.0f); // the edge pixel now two pixels wide
    QCOMPARE(wide.at(0, 2, 2), 0.0f);
    QCOMPARE(wide.at(0, 3, 4), 5.0f);
    QCOMPARE(wide.at(0, 0, 3), 0.0f); // channel 1's difference stays in channel 1
}

void TestBorderLab::windowSizeRule()
{
    const QSize screen(1024, 600);
    const QSize fitted = borderLabWindowSize(QSize(1200, 760), screen);
    QVERIFY(fitted.width() < screen.width() && fitted.height() < screen.height());
    QVERIFY(fitted.width() > 900 && fitted.height() > 500); // no smaller than it must be
    QCOMPARE(borderLabWindowSize(QSize(800, 500), QSize(1920, 1080)), QSize(800, 500));
}

void TestBorderLab::captionsPrintTheLargestDifference()
{
    // A ramp dark on the left, bright on the right: wrap brings the bright side next to the
    // dark one, constant (7) a dark value next to the bright one.
    Image ramp(40, 24, 1);
    for (int y = 0; y < ramp.height; ++y)
        for (int x = 0; x < ramp.width; ++x) ramp.at(0, y, x) = float(x * 6 + y % 3);
    auto src = std::make_shared<const Image>(ramp);
    const auto p = labParams(convlab::test::randomKernel(5, 5, convlab::test::KernelKind::Dense, 3));
    BorderLabWindow lab(src, p);
    QVERIFY(showLab(lab));
    QVERIFY(waitIdle(lab));
    lab.setShowDifferences(true);
    const Image ref = expected(*src, p, lab.referenceMode());
    double largest = 0.0;
    for (BorderMode mode : BorderLabWindow::kModes) {
        const QString caption = lab.caption(mode);
        const QString name = QString::fromStdString(convlab::borderName(mode));
        if (mode == lab.referenceMode()) {
            QVERIFY2(caption.contains("reference"), qPrintable(caption));
            continue;
        }
        const double want = largestDifference(expected(*src, p, mode), ref);
        const double printed = printedMax(caption);
        QVERIFY2(std::fabs(printed - want) <= 1e-5 * std::max(1.0, want),
                 qPrintable(QString("%1: printed %2, computed %3 (%4)").arg(name).arg(printed).arg(want).arg(caption)));
        // The lab subtracts in float, this count in double: equal to float rounding.
        QVERIFY(std::fabs(lab.maxDifference(mode) - want) <= 1e-6 * std::max(1.0, want));
        largest = std::max(largest, want);
    }
    // Constant and wrap differ from the reference by different amounts, and say so.
    const double constant = printedMax(lab.caption(BorderMode::Constant)), wrap = printedMax(lab.caption(BorderMode::Wrap));
    QVERIFY2(constant > 0 && wrap > 0 && constant != wrap, qPrintable(QString("%1 vs %2").arg(constant).arg(wrap)));
    // One scale for every map, the largest difference of all, and said on screen.
    double printedLargest = 0.0;
    for (BorderMode mode : BorderLabWindow::kModes)
        printedLargest = std::max(printedLargest, lab.maxDifference(mode));
    QVERIFY(std::fabs(lab.differenceScale() - largest) <= 1e-6 * largest);
    QCOMPARE(lab.differenceScale(), printedLargest);
    for (BorderMode mode : BorderLabWindow::kModes)
        QCOMPARE(lab.view(mode)->differenceScaleInUse(), lab.differenceScale());
    const QLabel* scale = lab.findChild<QLabel*>("differenceScale");
    QVERIFY(scale && scale->isVisible());
    QCOMPARE(scale->text(), lab.scaleText());
    QVERIFY2(scale->text().contains(QString::number(lab.differenceScale(), 'g', 6)), qPrintable(scale->text()));
}

void TestBorderLab::windowFitsTheScreen()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(20, 16, 1, 5));
    BorderLabWindow lab(src, labParams(convlab::test::randomKernel(3, 3, convlab::test::KernelKind::Dense, 2)));
    lab.resize(8000, 6000);
    lab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&lab));
    const QRect available = lab.screen()->availableGeometry();
    QVERIFY2(lab.width() <= available.width() && lab.height() <= available.height(),
             qPrintable(QString("%1x%2 on %3x%4").arg(lab.width()).arg(lab.height()).arg(available.width()).arg(available.height())));
    QVERIFY(available.contains(lab.geometry()));
}

void TestBorderLab::mappingIsPassedToEveryView()
{
    auto src = std::make_shared<const Image>(convlab::test::randomImage(20, 16, 1, 5));
    BorderLabWindow lab(src, labParams(convlab::test::randomKernel(3, 3, convlab::test::KernelKind::Dense, 2)));
    QCOMPARE(lab.mapping(), display::Mapping::Clamp);
    lab.setMapping(display::Mapping::Diverging);
    QCOMPARE(lab.mapping(), display::Mapping::Diverging);
    for (BorderMode mode : BorderLabWindow::kModes)
        QCOMPARE(lab.view(mode)->mapping(), display::Mapping::Diverging);
}

QTEST_MAIN(TestBorderLab)
#include "test_borderlab.moc"
