// SPDX-License-Identifier: GPL-3.0-or-later
// View > Mark Clipped Pixels (view/clipmarks.h): the pixels marked are exactly those whose
// values an 8- or 16-bit file clamps (below 0, above 255 or 65535), counted and painted by
// one function, checked here against the values themselves; then in the window: the count
// in the caption, the tint in the picture, the result's half of Split only, off again.
// Run under Xvfb (xvfb-run -a).
#include <QAction>
#include <QLabel>
#include <QTest>

#include <cmath>
#include <limits>
#include <memory>

#include "convlab/error.h"
#include "convlab/kernel.h"
#include "kernel/kerneldocument.h"
#include "panels/controlspanel.h"
#include "testutil.h"
#include "uitestutil.h"
#include "view/clipmarks.h"
#include "view/imageview.h"
#include "window/mainwindow.h"
#include "workbench/workbenchdocument.h"
#include "workbench/rendercontroller.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 30000;

// Values spread over -120..375 with the range's ends, NaN and infinities among them.
Image spreadImage(int w, int h, int channels, std::uint32_t seed)
{
    Image img = test::randomImage(w, h, channels, seed, true);
    for (float& v : img.data) v = v * 1.94f - 120.0f;
    img.data[0] = 0.0f;
    img.data[1] = 255.0f;
    img.data[2] = std::numeric_limits<float>::quiet_NaN();
    img.data[3] = std::numeric_limits<float>::infinity();
    img.data[4] = -std::numeric_limits<float>::infinity();
    img.data[5] = 255.01f;
    img.data[6] = -0.001f;
    return img;
}

// By hand: whether pixel (x, y) has a value below 0 / above `top` in the counted channels.
std::pair<bool, bool> outside(const Image& img, int x, int y, float top, int first, int end)
{
    bool low = false, high = false;
    for (int c = first; c < end; ++c) {
        const float v = img.at(c, y, x);
        low = low || v < 0.0f;
        high = high || v > top;
    }
    return {low, high};
}

bool sameColour(QRgb a, const QColor& c)
{
    const QColor got = QColor::fromRgba(qUnpremultiply(a));
    return std::abs(got.red() - c.red()) <= 2 && std::abs(got.green() - c.green()) <= 2 &&
           std::abs(got.blue() - c.blue()) <= 2 && got.alpha() > 0;
}

QAction* findAction(QWidget* w, const QString& text)
{
    for (QAction* a : w->findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

} // namespace

class TestClipMarks : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { test::useTestSettings("test_clipmarks"); }
    void marksAreExactlyTheValuesOutsideTheRange_data();
    void marksAreExactlyTheValuesOutsideTheRange();
    void typesAndBadInput();
    void windowMarksCountsAndForgets();
};

void TestClipMarks::marksAreExactlyTheValuesOutsideTheRange_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("channels");
    QTest::addColumn<bool>("alpha");
    QTest::addColumn<int>("channel");
    QTest::newRow("grey 31x17") << 31 << 17 << 1 << false << -1;
    QTest::newRow("grey 1x9 strip") << 1 << 9 << 1 << false << -1;
    QTest::newRow("rgb any channel") << 13 << 11 << 3 << false << -1;
    QTest::newRow("rgb green alone") << 13 << 11 << 3 << false << 1;
    QTest::newRow("rgba: alpha never counted") << 9 << 7 << 4 << true << -1;
}

// Every marked pixel is outside the range, every pixel outside is marked, in the colour of its
// side, and the count is their number; for one channel it is the number of values outside.
void TestClipMarks::marksAreExactlyTheValuesOutsideTheRange()
{
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, channels);
    QFETCH(bool, alpha);
    QFETCH(int, channel);
    Image img = spreadImage(width, height, channels, 7);
    img.hasAlpha = alpha;
    if (alpha) img.plane(channels - 1)[8] = 900.0f; // an alpha far out: passed through, not counted
    const float top = 255.0f;
    QImage mask;
    const clipmarks::Count count = clipmarks::countClipped(img, top, channel, &mask);
    QCOMPARE(mask.size(), QSize(width, height));
    QCOMPARE(count.pixels, std::uint64_t(width) * height);
    const int first = channel >= 0 ? channel : 0;
    const int end = channel >= 0 ? channel + 1 : (alpha ? channels - 1 : channels);
    std::uint64_t below = 0, above = 0, values = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const auto [low, high] = outside(img, x, y, top, first, end);
            const QRgb m = mask.pixel(x, y);
            const QString where = QStringLiteral("(%1, %2)").arg(x).arg(y);
            if (high) {
                ++above;
                QVERIFY2(sameColour(m, clipmarks::aboveColour()), qPrintable(where));
            } else if (low) {
                ++below;
                QVERIFY2(sameColour(m, clipmarks::belowColour()), qPrintable(where));
            } else {
                QVERIFY2(qAlpha(m) == 0, qPrintable(where + " is in range but marked"));
            }
            for (int c = first; c < end; ++c) values += img.at(c, y, x) < 0.0f || img.at(c, y, x) > top;
        }
    QCOMPARE(count.below, below);
    QCOMPARE(count.above, above);
    QVERIFY(count.below > 0 && count.above > 0);
    if (end - first == 1) QCOMPARE(count.marked(), values); // one value a pixel: the values' count
    // Without a mask the same count.
    const clipmarks::Count again = clipmarks::countClipped(img, top, channel);
    QCOMPARE(again.marked(), count.marked());
}

void TestClipMarks::typesAndBadInput()
{
    QCOMPARE(clipmarks::fileTop(SampleDepth::U8), 255.0f);
    QCOMPARE(clipmarks::fileTop(SampleDepth::U16), 65535.0f);
    QCOMPARE(clipmarks::fileTop(SampleDepth::F32), 0.0f);
    // A 16-bit top: 300 is in range there, -1 is not.
    Image img(2, 1, 1);
    img.data = {300.0f, -1.0f};
    const clipmarks::Count c = clipmarks::countClipped(img, 65535.0f, -1);
    QCOMPARE(c.above, std::uint64_t(0));
    QCOMPARE(c.below, std::uint64_t(1));
    QVERIFY(clipmarks::captionNote(c, 65535.0f).contains("1 px below 0"));
    QVERIFY(clipmarks::captionNote(clipmarks::Count{0, 0, 4}, 255.0f).contains("no pixel"));
    bool threw = false;
    try {
        clipmarks::countClipped(img, 255.0f, 1);
    } catch (const Error& e) {
        threw = QString::fromUtf8(e.what()).contains("channel 1");
    }
    QVERIFY(threw);
}

// In the window: an 8-bit source sharpened overshoots both ends; the marks count the result's
// pixels outside 0..255, the caption says how many, the picture shows them, off forgets them.
void TestClipMarks::windowMarksCountsAndForgets()
{
    MainWindow w(false);
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.controls()->setMethod(Method::Reference);
    Image src = test::randomImage(24, 16, 1, 3, true);
    src.depth = SampleDepth::U8;
    RenderController* render = w.renderController();
    QVERIFY(test::renderAfter(render, [&] { w.setSourceImage(src, "8-bit"); }, kWaitMs));
    QVERIFY(test::renderAfter(
        render, [&] { w.kernelDocument()->setKernel(Kernel(3, 3, {0, -1, 0, -1, 5, -1, 0, -1, 0}), "sharpen"); },
        kWaitMs));
    ImageView* view = w.imageView();
    w.workbench()->setViewMode(display::Mode::Result); // (a positive-sum kernel: clamped, in greys)
    auto* marks = view->findChild<ClipMarks*>();
    QVERIFY(marks);
    QAction* toggle = findAction(&w, QStringLiteral("Mark &Clipped Pixels"));
    QVERIFY(toggle);
    QVERIFY(!toggle->isChecked());
    QVERIFY(!view->mappingCaption().contains("marked"));
    toggle->setChecked(true);
    QVERIFY(marks->enabled());
    const Image& result = *render->result();
    std::uint64_t below = 0, above = 0;
    QPoint anAbove(-1, -1);
    for (int y = 0; y < result.height; ++y)
        for (int x = 0; x < result.width; ++x) {
            const float v = result.at(0, y, x);
            below += v < 0.0f;
            above += v > 255.0f;
            if (v > 255.0f && anAbove.x() < 0) anAbove = QPoint(x, y);
        }
    QVERIFY(below > 0 && above > 0);
    QCOMPARE(marks->count().below, below);
    QCOMPARE(marks->count().above, above);
    const QString caption = view->mappingCaption();
    QVERIFY2(caption.contains(QStringLiteral("%1 px below 0").arg(below)) &&
                 caption.contains(QStringLiteral("%1 px above 255").arg(above)),
             qPrintable(caption));
    // The picture: the pixel's middle in the magenta of the marks.
    view->setZoom(16.0);
    QTest::qWait(100);
    const QPointF centre = view->origin() + (QPointF(anAbove) + QPointF(0.5, 0.5)) * view->zoom();
    QImage frame = view->grabFramebuffer();
    const qreal dpr = frame.devicePixelRatio();
    QColor seen = frame.pixelColor((centre * dpr).toPoint());
    QVERIFY2(seen.red() > 180 && seen.green() < 90 && seen.blue() > 150,
             qPrintable(seen.name()));
    // The original shows no marks.
    w.workbench()->setViewMode(display::Mode::Original);
    frame = view->grabFramebuffer();
    seen = frame.pixelColor((centre * dpr).toPoint());
    QCOMPARE(seen.red(), seen.blue()); // a grey picture
    // Off: no count, no note.
    toggle->setChecked(false);
    w.workbench()->setViewMode(display::Mode::Result);
    QCOMPARE(marks->count().marked(), std::uint64_t(0));
    QVERIFY(!view->mappingCaption().contains("marked"));
    // A float source: nothing clips, and the caption says so rather than counting.
    Image floatSrc = test::randomImage(8, 8, 1, 4);
    QVERIFY(test::renderAfter(render, [&] { w.setSourceImage(floatSrc, "float"); }, kWaitMs));
    toggle->setChecked(true);
    QCOMPARE(marks->count().marked(), std::uint64_t(0));
    QVERIFY(marks->note().contains("float"));
}

QTEST_MAIN(TestClipMarks)
#include "test_clipmarks.moc"
