// SPDX-License-Identifier: GPL-3.0-or-later
// The image view, drawn for real (run under Xvfb with Mesa): the pixels it shows for each
// mapping and view mode, sampling, geometry and mouse interaction, and the PBO producer path.
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <tuple>

#include "panels/analysispanel.h"
#include "view/colorbar.h"
#include "convlab/border.h"
#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/image.h"
#include "convlab/modes.h"
#include "view/imageview.h"

using convlab::Image;
using convlab::SampleDepth;

namespace {

constexpr int kImageW = 64, kImageH = 48;  // test image
constexpr int kViewW = 128, kViewH = 96;   // widget: the image fits twice each way

Image makeImage(int channels, SampleDepth depth, const std::function<float(int c, int x, int y)>& f,
                int w = kImageW, int h = kImageH)
{
    Image im(w, h, channels, depth);
    for (int c = 0; c < channels; ++c)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                im.at(c, y, x) = f(c, x, y);
    return im;
}

// A view of kViewW x kViewH on screen, `result` set before it is shown.
std::unique_ptr<ImageView> shownView(const Image& result, ImageView::Mapping m = ImageView::Mapping::Clamp)
{
    auto v = std::make_unique<ImageView>();
    v->setResult(result);
    v->setMapping(m);
    v->resize(kViewW, kViewH);
    v->show();
    if (!QTest::qWaitForWindowExposed(v.get()))
        return nullptr;
    v->actualSize();
    return v;
}

QPointF imageToWidget(const ImageView& v, QPointF p)
{
    const QPointF origin = -v.widgetToImage(QPointF(0, 0)) * v.zoom();
    return p * v.zoom() + origin;
}

QRgb pixelAtWidget(const QImage& frame, const ImageView& v, QPointF w)
{
    const double r = v.devicePixelRatioF();
    return frame.pixel(int(std::floor(w.x() * r)), int(std::floor(w.y() * r)));
}

// The displayed colour at the centre of image pixel (x, y).
QRgb pixelAtImage(const QImage& frame, const ImageView& v, int x, int y)
{
    return pixelAtWidget(frame, v, imageToWidget(v, QPointF(x + 0.5, y + 0.5)));
}

bool near(QRgb c, int r, int g, int b, int tol)
{
    return std::abs(qRed(c) - r) <= tol && std::abs(qGreen(c) - g) <= tol && std::abs(qBlue(c) - b) <= tol;
}

QString rgb(QRgb c)
{
    return QStringLiteral("(%1,%2,%3)").arg(qRed(c)).arg(qGreen(c)).arg(qBlue(c));
}

#define EXPECT_RGB(c, r, g, b, tol)                                                                 \
    QVERIFY2(near((c), (r), (g), (b), (tol)),                                                       \
             qPrintable(QStringLiteral("got %1, want (%2,%3,%4)").arg(rgb(c)).arg(r).arg(g).arg(b)))

void sendMouse(QWidget* w, QEvent::Type type, QPointF pos, Qt::MouseButton button, Qt::MouseButtons buttons)
{
    QMouseEvent e(type, pos, w->mapToGlobal(pos), button, buttons, Qt::NoModifier);
    QCoreApplication::sendEvent(w, &e);
}

void sendWheel(QWidget* w, QPointF pos, int angle)
{
    QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, angle), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(w, &e);
}

bool samePoint(QPointF a, QPointF b)
{
    return std::abs(a.x() - b.x()) < 1e-9 && std::abs(a.y() - b.y()) < 1e-9;
}

// Four vertical bands of 16 columns with the given values.
Image bands(SampleDepth depth, float a, float b, float c, float d)
{
    return makeImage(1, depth, [=](int, int x, int) { return x < 16 ? a : x < 32 ? b : x < 48 ? c : d; });
}

} // namespace

class TestImageView : public QObject {
    Q_OBJECT

private slots:
    void clampMapping();
    void absMapping();
    void normalizeMapping();
    void offsetMapping();
    void divergingMapping();
    void rgbChannelOrder();
    void alphaOverCheckerboard();
    void viewModes();
    void nearestSamplingWhenZoomedIn();
    void linearSamplingWhenZoomedOut();
    void fitAndActualSize();
    void widgetToImageMatchesDisplayAfterZoomAndPan();
    void wheelZoomKeepsPointUnderCursor();
    void splitDividerDrags();
    void hoverAndClickSignals();
    void resultBufferPath();
    void resultBufferRejectsWrongShape();
    void hostColoursMatchTheShader();
    void readout();
    void survivesReparenting();
    void paddingPreviewFollowsBorderRule_data();
    void paddingPreviewFollowsBorderRule();
    void paddingPreviewInEveryViewMode();
    void fitIncludesPaddingMargin();
    void paddingPreviewRejectsBadInput();
    void bandOverlay();
    void viewTransformSignalsAndSetter();
    void zoomSignalledOnFitAndResize();
    void largeImagesDrawReduced_data();
    void largeImagesDrawReduced();
    void largeResultThroughBufferDrawsReduced();
    void largeImagesAtTheDriverLimit();
    void zoomedOutViewUploadsWhatTheScreenShows();
    void floatOriginalsMapByTheirValues();
    void colorBarOnlyForFalseColour();
    void colorBarMatchesTheShader();
    void absoluteDifferenceScaleShowsNoiseAsNoise();
    void colourMapsLeaveTheOriginalAlone();
    void responseImageHasColorBar();
    void cleanup();
};

void TestImageView::clampMapping()
{
    auto v = shownView(bands(SampleDepth::U8, 300, -20, 100, 255));
    QVERIFY(v);
    const QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 5, 10), 255, 255, 255, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 20, 10), 0, 0, 0, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 40, 10), 100, 100, 100, 1);
    // 16-bit values are scaled by 65535, float by 1.
    v->setResult(bands(SampleDepth::U16, 65535, 0, 32768, 70000));
    const QImage f16 = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f16, *v, 5, 10), 255, 255, 255, 0);
    EXPECT_RGB(pixelAtImage(f16, *v, 40, 10), 128, 128, 128, 1);
    EXPECT_RGB(pixelAtImage(f16, *v, 60, 10), 255, 255, 255, 0);
    v->setResult(bands(SampleDepth::F32, 0.5f, 2.0f, -1.0f, 0.25f));
    const QImage ff = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(ff, *v, 5, 10), 128, 128, 128, 1);
    EXPECT_RGB(pixelAtImage(ff, *v, 20, 10), 255, 255, 255, 0);
    EXPECT_RGB(pixelAtImage(ff, *v, 40, 10), 0, 0, 0, 0);
    // Outside the image: the dark grey background.
    const QRgb bg = pixelAtWidget(ff, *v, QPointF(5, 5));
    QVERIFY2(qRed(bg) > 20 && qRed(bg) < 80 && qRed(bg) == qBlue(bg), qPrintable(rgb(bg)));
}

void TestImageView::absMapping()
{
    auto v = shownView(bands(SampleDepth::U8, -100, 100, 0, -300), ImageView::Mapping::Abs);
    QVERIFY(v);
    QCOMPARE(v->mapping(), ImageView::Mapping::Abs);
    QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 5, 10), 100, 100, 100, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 20, 10), 100, 100, 100, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 40, 10), 0, 0, 0, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 60, 10), 255, 255, 255, 0);
    v->setMapping(ImageView::Mapping::Clamp);
    f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 5, 10), 0, 0, 0, 0);
}

void TestImageView::normalizeMapping()
{
    // Values from -30 to 50 in steps: the minimum shows black, the maximum white, 10 mid-grey.
    auto v = shownView(bands(SampleDepth::U8, -30, 50, 10, 0), ImageView::Mapping::Normalize);
    QVERIFY(v);
    const QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 5, 10), 0, 0, 0, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 20, 10), 255, 255, 255, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 40, 10), 128, 128, 128, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 60, 10), 96, 96, 96, 1);
}

void TestImageView::offsetMapping()
{
    auto v = shownView(bands(SampleDepth::U8, 0, -127.5f, 127.5f, -255), ImageView::Mapping::Offset);
    QVERIFY(v);
    const QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 5, 10), 128, 128, 128, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 20, 10), 0, 0, 0, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 40, 10), 255, 255, 255, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 60, 10), 0, 0, 0, 0);
}

void TestImageView::divergingMapping()
{
    auto v = shownView(bands(SampleDepth::F32, -2, 0, 2, 0.5f), ImageView::Mapping::Diverging);
    QVERIFY(v);
    const QImage f = v->grabFramebuffer();
    const QRgb neg = pixelAtImage(f, *v, 5, 10);
    const QRgb zero = pixelAtImage(f, *v, 20, 10);
    const QRgb pos = pixelAtImage(f, *v, 40, 10);
    const QRgb weak = pixelAtImage(f, *v, 60, 10);
    QVERIFY2(qBlue(neg) > qRed(neg) + 60, qPrintable(rgb(neg)));
    QVERIFY2(qRed(pos) > qBlue(pos) + 60, qPrintable(rgb(pos)));
    QVERIFY2(qRed(zero) > 245 && qGreen(zero) > 245 && qBlue(zero) > 245, qPrintable(rgb(zero)));
    // A quarter of max |v|: reddish, but much lighter than the maximum.
    QVERIFY2(qRed(weak) > qBlue(weak) && qGreen(weak) > qGreen(pos) + 100, qPrintable(rgb(weak)));
}

void TestImageView::rgbChannelOrder()
{
    // Bands of pure red, green, blue and white, each written to its own plane.
    auto v = shownView(makeImage(3, SampleDepth::U8, [](int c, int x, int) {
        const int band = x / 16;
        return band == 3 || band == c ? 255.0f : 0.0f;
    }));
    QVERIFY(v);
    const QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 5, 10), 255, 0, 0, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 20, 10), 0, 255, 0, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 40, 10), 0, 0, 255, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 60, 10), 255, 255, 255, 0);
}

void TestImageView::alphaOverCheckerboard()
{
    // Grey+alpha: left half transparent (checkerboard shows through), right half opaque.
    auto v = shownView(makeImage(2, SampleDepth::U8, [](int c, int x, int) {
        return c == 0 ? 200.0f : x < 32 ? 0.0f : 255.0f;
    }));
    QVERIFY(v);
    QImage f = v->grabFramebuffer();
    const QRgb a = pixelAtImage(f, *v, 4, 4);
    const QRgb b = pixelAtImage(f, *v, 12, 4); // 8 widget px further: the other checker cell
    QVERIFY2(qRed(a) != qRed(b) && qRed(a) == qBlue(a) && qRed(b) == qBlue(b), qPrintable(rgb(a) + rgb(b)));
    QVERIFY(qRed(a) != 200 && qRed(b) != 200);
    EXPECT_RGB(pixelAtImage(f, *v, 40, 4), 200, 200, 200, 1);

    // RGBA: opaque red, and blue at half alpha blended over the checkerboard.
    v->setResult(makeImage(4, SampleDepth::U8, [](int c, int x, int) {
        if (x < 32)
            return c == 0 || c == 3 ? 255.0f : 0.0f;
        return c == 2 ? 255.0f : c == 3 ? 127.5f : 0.0f;
    }));
    f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 4, 4), 255, 0, 0, 0);
    const QRgb half = pixelAtImage(f, *v, 40, 4);
    QVERIFY2(qBlue(half) > qRed(half) + 100 && qRed(half) > 30, qPrintable(rgb(half)));
    QCOMPARE(qRed(half), qGreen(half));
}

void TestImageView::viewModes()
{
    auto v = shownView(makeImage(1, SampleDepth::U8, [](int, int, int) { return 200.0f; }));
    QVERIFY(v);
    v->setSource(makeImage(1, SampleDepth::U8, [](int, int, int) { return 50.0f; }));
    QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 10, 10), 200, 200, 200, 1);

    v->setViewMode(ImageView::ViewMode::Original);
    QCOMPARE(v->viewMode(), ImageView::ViewMode::Original);
    f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 10, 10), 50, 50, 50, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 60, 10), 50, 50, 50, 1);

    // Split at the middle of the widget: original left, result right, a light divider between.
    v->setViewMode(ImageView::ViewMode::Split);
    v->setSplitPosition(0.5);
    f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtWidget(f, *v, QPointF(40, 40)), 50, 50, 50, 1);
    EXPECT_RGB(pixelAtWidget(f, *v, QPointF(62, 40)), 50, 50, 50, 1);
    EXPECT_RGB(pixelAtWidget(f, *v, QPointF(66, 40)), 200, 200, 200, 1);
    EXPECT_RGB(pixelAtWidget(f, *v, QPointF(90, 40)), 200, 200, 200, 1);
    const QRgb line = pixelAtWidget(f, *v, QPointF(64.5, 40));
    QVERIFY2(qRed(line) > 220, qPrintable(rgb(line)));
    // The divider runs the full height, outside the image too.
    QVERIFY2(qRed(pixelAtWidget(f, *v, QPointF(64.5, 5))) > 220, "divider outside the image");

    // Difference, relative scale: |d| / max|d| as black -> red -> yellow -> white.
    v->setDifference(bands(SampleDepth::F32, 0, -4, 2, 4.0f / 3.0f));
    v->setDifferenceScale(ImageView::DifferenceScale::Relative);
    v->setViewMode(ImageView::ViewMode::Difference);
    f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 5, 10), 0, 0, 0, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 20, 10), 255, 255, 255, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 40, 10), 255, 128, 0, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 60, 10), 255, 0, 0, 1);
}

void TestImageView::nearestSamplingWhenZoomedIn()
{
    // A 1-px checkerboard at zoom 4: every widget pixel is exactly black or white, in 4x4 blocks.
    auto v = shownView(makeImage(1, SampleDepth::U8, [](int, int x, int y) { return (x + y) % 2 ? 255.0f : 0.0f; }));
    QVERIFY(v);
    v->setZoom(4.0);
    QCOMPARE(v->zoom(), 4.0);
    const QImage f = v->grabFramebuffer();
    const QPointF corner = imageToWidget(*v, QPointF(20, 20));
    QCOMPARE(corner, QPointF(std::round(corner.x()), std::round(corner.y())));
    for (int wy = 0; wy < kViewH; ++wy) {
        for (int wx = 0; wx < kViewW; ++wx) {
            const QPointF p = v->widgetToImage(QPointF(wx + 0.5, wy + 0.5));
            const int x = int(std::floor(p.x())), y = int(std::floor(p.y()));
            const int want = (x + y) % 2 ? 255 : 0;
            const QRgb got = pixelAtWidget(f, *v, QPointF(wx, wy));
            QVERIFY2(near(got, want, want, want, 0),
                     qPrintable(QStringLiteral("widget (%1,%2) image (%3,%4): %5").arg(wx).arg(wy).arg(x).arg(y).arg(rgb(got))));
            // 4x4 blocks: the pixel to the left shows the same image pixel unless a block starts here.
            const int blockX = int(std::lround(corner.x())) - wx;
            if (wx > 0 && blockX % 4 != 0)
                QCOMPARE(pixelAtWidget(f, *v, QPointF(wx - 1, wy)), got);
        }
    }
}

void TestImageView::linearSamplingWhenZoomedOut()
{
    // At zoom 1/2 each display pixel falls between four checkerboard texels: linear filtering
    // gives mid-grey where nearest sampling would alias to black or white.
    auto v = shownView(makeImage(1, SampleDepth::U8, [](int, int x, int y) { return (x + y) % 2 ? 255.0f : 0.0f; }));
    QVERIFY(v);
    v->setZoom(0.5);
    const QImage f = v->grabFramebuffer();
    for (int y = 4; y < kImageH - 4; y += 6)
        for (int x = 4; x < kImageW - 4; x += 6)
            EXPECT_RGB(pixelAtWidget(f, *v, imageToWidget(*v, QPointF(x + 1, y + 1))), 128, 128, 128, 2);
}

void TestImageView::fitAndActualSize()
{
    // An image set before the view is shown is fitted to the window.
    ImageView v;
    QSignalSpy zoomSpy(&v, &ImageView::zoomChanged);
    v.setResult(bands(SampleDepth::U8, 0, 1, 2, 3));
    v.resize(kViewW, kViewH);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QCOMPARE(v.zoom(), 2.0);
    QVERIFY(samePoint(v.widgetToImage(QPointF(0, 0)), QPointF(0, 0)));
    QVERIFY(samePoint(v.widgetToImage(QPointF(kViewW, kViewH)), QPointF(kImageW, kImageH)));

    v.actualSize();
    QCOMPARE(v.zoom(), 1.0);
    QVERIFY(samePoint(v.widgetToImage(QPointF(32, 24)), QPointF(0, 0)));
    QCOMPARE(zoomSpy.last().at(0).toDouble(), 1.0);

    v.fitToWindow();
    QCOMPARE(v.zoom(), 2.0);
    QCOMPARE(zoomSpy.last().at(0).toDouble(), 2.0);
    // Fitting follows the window size.
    v.resize(kViewW / 2, kViewH);
    QTRY_COMPARE(v.zoom(), 1.0);
}

void TestImageView::widgetToImageMatchesDisplayAfterZoomAndPan()
{
    // Each pixel encodes its coordinates: red = 4x, green = 5y.
    auto v = shownView(makeImage(3, SampleDepth::U8, [](int c, int x, int y) {
        return c == 0 ? 4.0f * x : c == 1 ? 5.0f * y : 0.0f;
    }));
    QVERIFY(v);
    QSignalSpy clicks(v.get(), &ImageView::pixelClicked);
    v->setZoom(3.0, QPointF(40, 30));
    QCOMPARE(v->zoom(), 3.0);
    const QPointF before = v->widgetToImage(QPointF(50, 50));
    sendMouse(v.get(), QEvent::MouseButtonPress, QPointF(60, 60), Qt::LeftButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseMove, QPointF(70, 67), Qt::NoButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseMove, QPointF(80, 73), Qt::NoButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseButtonRelease, QPointF(80, 73), Qt::LeftButton, Qt::NoButton);
    QVERIFY(samePoint(v->widgetToImage(QPointF(70, 63)), before));
    QCOMPARE(clicks.count(), 0);
    QCOMPARE(v->zoom(), 3.0);
    QVERIFY(samePoint(v->widgetToImage(QPointF(53, 59)) - v->widgetToImage(QPointF(50, 50)), QPointF(1, 3)));

    const QImage f = v->grabFramebuffer();
    int checked = 0;
    for (int wy = 1; wy < kViewH; wy += 7) {
        for (int wx = 1; wx < kViewW; wx += 5) {
            const QPointF p = v->widgetToImage(QPointF(wx + 0.5, wy + 0.5));
            const int x = int(std::floor(p.x())), y = int(std::floor(p.y()));
            if (x < 0 || y < 0 || x >= kImageW || y >= kImageH)
                continue;
            EXPECT_RGB(pixelAtWidget(f, *v, QPointF(wx, wy)), 4 * x, 5 * y, 0, 1);
            ++checked;
        }
    }
    QVERIFY(checked > 100);
}

void TestImageView::wheelZoomKeepsPointUnderCursor()
{
    auto v = shownView(bands(SampleDepth::U8, 0, 1, 2, 3));
    QVERIFY(v);
    QSignalSpy zoomSpy(v.get(), &ImageView::zoomChanged);
    const QPointF cursor(50, 40);
    const QPointF under = v->widgetToImage(cursor);
    sendWheel(v.get(), cursor, 120);
    QCOMPARE(v->zoom(), 1.25);
    QCOMPARE(zoomSpy.count(), 1);
    QCOMPARE(zoomSpy.last().at(0).toDouble(), 1.25);
    QVERIFY(samePoint(v->widgetToImage(cursor), under));
    sendWheel(v.get(), cursor, -240);
    QVERIFY(std::abs(v->zoom() - 0.8) < 1e-12);
    QVERIFY(samePoint(v->widgetToImage(cursor), under));

    const QPointF elsewhere(100, 20);
    const QPointF underElsewhere = v->widgetToImage(elsewhere);
    sendWheel(v.get(), elsewhere, 120 * 60);
    QCOMPARE(v->zoom(), 128.0);
    QVERIFY(samePoint(v->widgetToImage(elsewhere), underElsewhere));
    sendWheel(v.get(), elsewhere, -120 * 80);
    QCOMPARE(v->zoom(), 1.0 / 64.0);
    const int emitted = zoomSpy.count();
    sendWheel(v.get(), elsewhere, -120);
    QCOMPARE(v->zoom(), 1.0 / 64.0);
    QCOMPARE(zoomSpy.count(), emitted);
}

void TestImageView::splitDividerDrags()
{
    auto v = shownView(bands(SampleDepth::U8, 0, 1, 2, 3));
    QVERIFY(v);
    v->setViewMode(ImageView::ViewMode::Split);
    v->setSplitPosition(0.5);
    QSignalSpy clicks(v.get(), &ImageView::pixelClicked);
    const QPointF before = v->widgetToImage(QPointF(10, 10));
    sendMouse(v.get(), QEvent::MouseButtonPress, QPointF(66, 50), Qt::LeftButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseMove, QPointF(96, 50), Qt::NoButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseButtonRelease, QPointF(96, 50), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(v->splitPosition(), 0.75);
    QVERIFY(samePoint(v->widgetToImage(QPointF(10, 10)), before)); // no pan
    QCOMPARE(clicks.count(), 0);
    v->setSplitPosition(3.0);
    QCOMPARE(v->splitPosition(), 1.0);

    // Away from the divider a drag pans.
    sendMouse(v.get(), QEvent::MouseButtonPress, QPointF(40, 50), Qt::LeftButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseMove, QPointF(60, 50), Qt::NoButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseButtonRelease, QPointF(60, 50), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(v->splitPosition(), 1.0);
    QVERIFY(samePoint(v->widgetToImage(QPointF(30, 10)), before));
}

void TestImageView::hoverAndClickSignals()
{
    auto v = shownView(bands(SampleDepth::U8, 0, 1, 2, 3)); // image at widget (32,24)..(96,72)
    QVERIFY(v);
    QSignalSpy hovered(v.get(), &ImageView::pixelHovered);
    QSignalSpy clicked(v.get(), &ImageView::pixelClicked);
    sendMouse(v.get(), QEvent::MouseMove, QPointF(37.5, 31.5), Qt::NoButton, Qt::NoButton);
    QCOMPARE(hovered.count(), 1);
    QCOMPARE(hovered.last().at(0).toInt(), 5);
    QCOMPARE(hovered.last().at(1).toInt(), 7);
    sendMouse(v.get(), QEvent::MouseMove, QPointF(10, 10), Qt::NoButton, Qt::NoButton);
    QCOMPARE(hovered.last().at(0).toInt(), -1);
    QCOMPARE(hovered.last().at(1).toInt(), -1);
    sendMouse(v.get(), QEvent::MouseMove, QPointF(95.5, 71.5), Qt::NoButton, Qt::NoButton);
    QCOMPARE(hovered.last().at(0).toInt(), 63);
    QCOMPARE(hovered.last().at(1).toInt(), 47);
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(v.get(), &leave);
    QCOMPARE(hovered.last().at(0).toInt(), -1);
    QCOMPARE(hovered.last().at(1).toInt(), -1);

    sendMouse(v.get(), QEvent::MouseButtonPress, QPointF(40.2, 30.7), Qt::LeftButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseMove, QPointF(41.2, 30.7), Qt::NoButton, Qt::LeftButton); // a jitter
    sendMouse(v.get(), QEvent::MouseButtonRelease, QPointF(41.2, 30.7), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.last().at(0).toInt(), 9);
    QCOMPARE(clicked.last().at(1).toInt(), 6);
    // A click outside the image reports nothing.
    sendMouse(v.get(), QEvent::MouseButtonPress, QPointF(5, 5), Qt::LeftButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseButtonRelease, QPointF(5, 5), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(clicked.count(), 1);
}

void TestImageView::resultBufferPath()
{
    ImageView hidden;
    QCOMPARE(hidden.resultBuffer(kImageW, kImageH, 1), 0u); // no GL context yet

    // A producer writes planar float32 into the PBO by id, as a CUDA kernel would.
    auto v = shownView(Image());
    QVERIFY(v);
    v->setSource(bands(SampleDepth::U8, 0, 0, 0, 0)); // 8-bit scale for the result
    v->actualSize();
    const unsigned int pbo = v->resultBuffer(kImageW, kImageH, 3);
    QVERIFY(pbo != 0);
    const Image planes = makeImage(3, SampleDepth::U8, [](int c, int x, int y) {
        return c == 0 ? 4.0f * x : c == 1 ? 5.0f * y : x >= 32 ? 200.0f : 0.0f;
    });
    v->makeCurrent();
    QOpenGLExtraFunctions* gl = QOpenGLContext::currentContext()->extraFunctions();
    gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
    gl->glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(planes.data.size() * sizeof(float)), planes.data.data());
    gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    v->doneCurrent();
    v->resultBufferWritten(kImageW, kImageH, 3);

    QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 0, 0), 0, 0, 0, 0);
    EXPECT_RGB(pixelAtImage(f, *v, 10, 3), 40, 15, 0, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 40, 20), 160, 100, 200, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 63, 47), 252, 235, 200, 1);
    QCOMPARE(v->resultValues(40, 20), QVector<float>({160.0f, 100.0f, 200.0f}));

    // Normalize needs statistics of GPU-written data: 0..252 over all colour channels.
    v->setMapping(ImageView::Mapping::Normalize);
    f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 63, 0), 255, 0, 202, 1); // blue 200 of 252

    // The CPU producer goes through the same buffer.
    v->setMapping(ImageView::Mapping::Clamp);
    v->setResult(bands(SampleDepth::U8, 10, 20, 30, 40));
    f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 40, 20), 30, 30, 30, 1);
    QCOMPARE(v->resultBuffer(kImageW, kImageH, 1), pbo);
    QVERIFY(v->lastDisplayMs() > 0.0);
}

// A result the view holds on the host is drawn from colours mapped on the CPU
// (view/displaymap.cpp), one written by a GPU producer from its values by the shader: the two
// mappings are twins. Every mapping, every channel choice, grey, grey+alpha, RGB and RGBA,
// values below, inside and above the range and NaN, drawn both ways, pixel by pixel.
void TestImageView::hostColoursMatchTheShader()
{
    auto v = shownView(Image());
    QVERIFY(v);
    v->setSource(makeImage(1, SampleDepth::U8, [](int, int, int) { return 0.0f; })); // 8-bit scale
    v->actualSize();
    using M = ImageView::Mapping;
    for (int channels = 1; channels <= 4; ++channels) {
        const Image values = makeImage(channels, SampleDepth::U8, [](int c, int x, int y) {
            if (x == 7 && y == 5) return std::nanf("");
            return -300.0f + 9.7f * x + 3.1f * y + 41.0f * c; // -300 .. 450
        });
        for (M m : {M::Clamp, M::Abs, M::Normalize, M::Offset, M::Diverging}) {
            for (int channel : {-1, 0, channels - 1}) {
                v->setMapping(m);
                v->setDisplayChannel(channel);
                v->setResult(values);
                const QImage host = v->grabFramebuffer();
                QVERIFY(v->resultDrawnFromColours());
                const unsigned int pbo = v->resultBuffer(kImageW, kImageH, channels);
                QVERIFY(pbo != 0);
                v->makeCurrent();
                QOpenGLExtraFunctions* gl = QOpenGLContext::currentContext()->extraFunctions();
                gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
                gl->glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(values.data.size() * sizeof(float)),
                                    values.data.data());
                gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
                v->doneCurrent();
                v->resultBufferWritten(kImageW, kImageH, channels);
                const QImage shader = v->grabFramebuffer();
                QVERIFY(!v->resultDrawnFromColours());
                int worst = 0, wx = 0, wy = 0;
                for (int y = 0; y < kImageH; ++y)
                    for (int x = 0; x < kImageW; ++x) {
                        if (x == 7 && y == 5) continue; // NaN: the shader's clamp() is not defined for it
                        const QRgb a = pixelAtImage(host, *v, x, y), b = pixelAtImage(shader, *v, x, y);
                        const int d = std::max({std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)),
                                                std::abs(qBlue(a) - qBlue(b))});
                        if (d > worst) std::tie(worst, wx, wy) = std::tuple(d, x, y);
                    }
                QVERIFY2(worst <= 1, qPrintable(QStringLiteral("%1 channels, mapping %2, channel %3: (%4, %5) differs "
                                                               "by %6: host %7, shader %8")
                                                    .arg(channels)
                                                    .arg(int(m))
                                                    .arg(channel)
                                                    .arg(wx)
                                                    .arg(wy)
                                                    .arg(worst)
                                                    .arg(rgb(pixelAtImage(host, *v, wx, wy)))
                                                    .arg(rgb(pixelAtImage(shader, *v, wx, wy)))));
            }
        }
    }
    v->setDisplayChannel(-1);
}

void TestImageView::resultBufferRejectsWrongShape()
{
    auto v = shownView(bands(SampleDepth::U8, 0, 1, 2, 3));
    QVERIFY(v);
    QVERIFY(v->resultBuffer(8, 8, 1) != 0);
    QVERIFY_THROWS_EXCEPTION(convlab::Error, v->resultBufferWritten(8, 8, 3));
    QVERIFY_THROWS_EXCEPTION(convlab::Error, v->resultBuffer(8, 8, 5));
    QVERIFY_THROWS_EXCEPTION(convlab::Error, v->resultBuffer(0, 8, 1));
    Image broken(4, 4, 1);
    broken.data.resize(3);
    QVERIFY_THROWS_EXCEPTION(convlab::Error, v->setResult(broken));
}

void TestImageView::readout()
{
    ImageView v; // the readout works before the view is ever shown
    v.setResult(makeImage(3, SampleDepth::F32, [](int c, int x, int y) { return c * 1000.0f + y * 100.0f + x; }));
    v.setSource(makeImage(1, SampleDepth::U8, [](int, int x, int y) { return float(x + y); }));
    QCOMPARE(v.resultValues(7, 3), QVector<float>({307.0f, 1307.0f, 2307.0f}));
    QCOMPARE(v.resultValues(63, 47), QVector<float>({4763.0f, 5763.0f, 6763.0f}));
    QCOMPARE(v.sourceValues(10, 20), QVector<float>({30.0f}));
    QVERIFY(v.resultValues(64, 0).isEmpty());
    QVERIFY(v.resultValues(-1, 0).isEmpty());
    QVERIFY(v.sourceValues(0, 48).isEmpty());
    v.setResult(Image());
    QVERIFY(v.resultValues(7, 3).isEmpty());
}

void TestImageView::survivesReparenting()
{
    // Moving the view to another window destroys its GL context; a GPU-written result is kept.
    auto v = shownView(Image());
    QVERIFY(v);
    v->setSource(bands(SampleDepth::U8, 0, 0, 0, 0));
    const unsigned int pbo = v->resultBuffer(kImageW, kImageH, 1);
    QVERIFY(pbo != 0);
    const Image values = bands(SampleDepth::U8, 60, 120, 180, 240);
    v->makeCurrent();
    QOpenGLExtraFunctions* gl = QOpenGLContext::currentContext()->extraFunctions();
    gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
    gl->glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(values.data.size() * sizeof(float)), values.data.data());
    gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    v->doneCurrent();
    v->resultBufferWritten(kImageW, kImageH, 1);
    QCOMPARE(pixelAtImage(v->grabFramebuffer(), *v, 20, 5), qRgb(120, 120, 120));

    QWidget window;
    window.resize(kViewW, kViewH);
    v->setParent(&window);
    v->setGeometry(0, 0, kViewW, kViewH);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    v->show();
    const QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, 5, 5), 60, 60, 60, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 50, 40), 240, 240, 240, 1);
    QCOMPARE(v->resultValues(20, 5), QVector<float>({120.0f}));
    v->setParent(nullptr); // the window is destroyed first
}

namespace {

// Each pixel of the padding test images has its own colour.
Image paddingSource(int w, int h)
{
    return makeImage(3, SampleDepth::U8, [](int c, int x, int y) {
        return c == 0 ? 10.0f + 17.0f * x : c == 1 ? 20.0f + 23.0f * y : float((7 * x + 11 * y) % 250);
    }, w, h);
}

// What the padding preview must show at margin pixel (x, y): the source extended by
// convlab::borderIndex, mapped by Clamp (8-bit), blended 30% towards blue.
QRgb expectedPadding(const Image& src, const convlab::Border& border, int x, int y)
{
    const int ix = convlab::borderIndex(x, src.width, border.mode);
    const int iy = convlab::borderIndex(y, src.height, border.mode);
    int rgbOut[3];
    for (int c = 0; c < 3; ++c) {
        const float v = ix < 0 || iy < 0 ? border.value : src.at(c, iy, ix);
        const double mapped = std::clamp(v / 255.0, 0.0, 1.0);
        rgbOut[c] = int(std::lround(255.0 * (0.7 * mapped + (c == 2 ? 0.3 : 0.0))));
    }
    return qRgb(rgbOut[0], rgbOut[1], rgbOut[2]);
}

constexpr QRgb kOutlineColour = qRgb(255, 217, 0);
constexpr QRgb kBandColour = qRgb(0, 230, 255);

// How far (x, y) lies outside a w x h image, in whole pixels (0 inside).
int outsideBy(int x, int y, int w, int h)
{
    return std::max({-x, x - (w - 1), -y, y - (h - 1), 0});
}

} // namespace

void TestImageView::paddingPreviewFollowsBorderRule_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<float>("value");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    // Every mode of the table (GLSL's borderIndex in shaders/image.frag must follow each one);
    // a mode's value in range, and once above it (clamped by the 8-bit mapping).
    for (const auto& [w, h] : {std::pair{13, 9}, std::pair{1, 7}, std::pair{2, 1}}) {
        for (const convlab::BorderModeInfo& mode : convlab::borderModes())
            QTest::addRow("%s %dx%d", mode.name, w, h) << int(mode.mode) << (mode.takesValue ? 77.0f : 0.0f) << w << h;
    }
    for (const convlab::BorderModeInfo& mode : convlab::borderModes())
        if (mode.takesValue) QTest::addRow("%s above range 13x9", mode.name) << int(mode.mode) << 300.0f << 13 << 9;
}

void TestImageView::paddingPreviewFollowsBorderRule()
{
    QFETCH(int, mode);
    QFETCH(float, value);
    QFETCH(int, width);
    QFETCH(int, height);
    const convlab::Border border{static_cast<convlab::BorderMode>(mode), value};
    const Image src = paddingSource(width, height);
    constexpr int margin = 6; // more than the 1- and 2-pixel extents: the rules repeat
    auto v = shownView(Image());
    QVERIFY(v);
    v->setSource(src);
    v->setViewMode(ImageView::ViewMode::Original);
    v->setBorderForPreview(border);
    v->setPaddingPreview(true, margin);
    QVERIFY(v->paddingPreview());
    QCOMPARE(v->paddingMargin(), margin);

    // 1:1: every margin pixel but the ring next to the image, which carries the outline.
    v->actualSize();
    QImage f = v->grabFramebuffer();
    int checked = 0;
    for (int y = -margin; y < height + margin; ++y) {
        for (int x = -margin; x < width + margin; ++x) {
            const int out = outsideBy(x, y, width, height);
            const QRgb got = pixelAtImage(f, *v, x, y);
            const QString where = QStringLiteral("at (%1,%2): %3").arg(x).arg(y).arg(rgb(got));
            if (out == 0) {
                EXPECT_RGB(got, int(src.at(0, y, x)), int(src.at(1, y, x)), int(src.at(2, y, x)), 1);
            } else if (out == 1) {
                QVERIFY2(got == kOutlineColour, qPrintable("outline " + where));
            } else {
                const QRgb want = expectedPadding(src, border, x, y);
                QVERIFY2(near(got, qRed(want), qGreen(want), qBlue(want), 1),
                         qPrintable(where + " want " + rgb(want)));
                ++checked;
            }
        }
    }
    QCOMPARE(checked, (width + 2 * margin) * (height + 2 * margin) - (width + 2) * (height + 2));
    // Beyond the margin: the background again.
    const QRgb beyond = pixelAtImage(f, *v, -margin - 1, 0);
    QVERIFY2(qRed(beyond) == qBlue(beyond) && qRed(beyond) < 80, qPrintable(rgb(beyond)));

    // Zoomed in, the outline is one pixel of four and the ring shows the rule as well.
    v->setZoom(4.0);
    f = v->grabFramebuffer();
    for (int y = -margin; y < height + margin; ++y) {
        for (int x = -margin; x < width + margin; ++x) {
            if (outsideBy(x, y, width, height) == 0)
                continue;
            const QRgb want = expectedPadding(src, border, x, y);
            EXPECT_RGB(pixelAtImage(f, *v, x, y), qRed(want), qGreen(want), qBlue(want), 1);
        }
    }
    const QPointF corner = imageToWidget(*v, QPointF(0, 0));
    QCOMPARE(pixelAtWidget(f, *v, corner + QPointF(-0.5, 2.5)), kOutlineColour);
    QCOMPARE(pixelAtWidget(f, *v, corner + QPointF(2.5, -0.5)), kOutlineColour);
    QCOMPARE(pixelAtWidget(f, *v, corner + QPointF(-0.5, -0.5)), kOutlineColour);
    QVERIFY(pixelAtWidget(f, *v, corner + QPointF(-1.5, 2.5)) != kOutlineColour);

    // Off: the margin is background and no outline is drawn.
    v->setPaddingPreview(false, 0);
    f = v->grabFramebuffer();
    const QRgb off = pixelAtImage(f, *v, -1, 0);
    QVERIFY2(qRed(off) == qBlue(off) && qRed(off) < 80, qPrintable(rgb(off)));
}

void TestImageView::paddingPreviewInEveryViewMode()
{
    // The margin always shows the source extended (what the kernel reads), also beside the
    // result and the difference map; the image itself is what the mode shows.
    const Image src = paddingSource(13, 9);
    const convlab::Border border{convlab::BorderMode::Wrap, 0.0f};
    auto v = shownView(makeImage(1, SampleDepth::U8, [](int, int, int) { return 90.0f; }, 13, 9));
    QVERIFY(v);
    v->setSource(src);
    v->setDifference(makeImage(1, SampleDepth::F32, [](int, int, int) { return 1.0f; }, 13, 9));
    v->setDifferenceScale(ImageView::DifferenceScale::Relative);
    v->setBorderForPreview(border);
    v->setPaddingPreview(true, 4);
    v->actualSize();
    const QRgb want = expectedPadding(src, border, -3, 5);
    for (auto mode : {ImageView::ViewMode::Result, ImageView::ViewMode::Original, ImageView::ViewMode::Difference}) {
        v->setViewMode(mode);
        const QImage f = v->grabFramebuffer();
        EXPECT_RGB(pixelAtImage(f, *v, -3, 5), qRed(want), qGreen(want), qBlue(want), 1);
        EXPECT_RGB(pixelAtImage(f, *v, 15, 5), qRed(expectedPadding(src, border, 15, 5)),
                   qGreen(expectedPadding(src, border, 15, 5)), qBlue(expectedPadding(src, border, 15, 5)), 1);
        const QRgb inside = pixelAtImage(f, *v, 4, 4);
        if (mode == ImageView::ViewMode::Result)
            EXPECT_RGB(inside, 90, 90, 90, 1);
        else if (mode == ImageView::ViewMode::Original)
            EXPECT_RGB(inside, int(src.at(0, 4, 4)), int(src.at(1, 4, 4)), int(src.at(2, 4, 4)), 1);
        else
            EXPECT_RGB(inside, 255, 255, 255, 0);
    }
}

void TestImageView::fitIncludesPaddingMargin()
{
    ImageView v;
    v.setResult(bands(SampleDepth::U8, 0, 1, 2, 3));
    v.resize(kViewW, kViewH);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QCOMPARE(v.zoom(), 2.0);
    const QPointF centre = v.widgetToImage(QPointF(kViewW / 2.0, kViewH / 2.0));
    v.setPaddingPreview(true, 16); // 96 x 80 with the margin: 1.2 fits
    QCOMPARE(v.zoom(), 1.2);
    const QPointF topLeft = imageToWidget(v, QPointF(-16, -16));
    const QPointF bottomRight = imageToWidget(v, QPointF(kImageW + 16, kImageH + 16));
    QVERIFY2(topLeft.x() >= -1 && topLeft.y() >= -1 && bottomRight.x() <= kViewW + 1 && bottomRight.y() <= kViewH + 1,
             qPrintable(QStringLiteral("margin at (%1,%2)-(%3,%4)")
                            .arg(topLeft.x()).arg(topLeft.y()).arg(bottomRight.x()).arg(bottomRight.y())));
    QVERIFY((v.widgetToImage(QPointF(kViewW / 2.0, kViewH / 2.0)) - centre).manhattanLength() < 1.0);
    // A zoomed view keeps its zoom; fitting again includes the margin.
    v.actualSize();
    QCOMPARE(v.zoom(), 1.0);
    v.fitToWindow();
    QCOMPARE(v.zoom(), 1.2);
    v.setPaddingPreview(false, 16);
    QCOMPARE(v.zoom(), 2.0);
}

void TestImageView::paddingPreviewRejectsBadInput()
{
    ImageView v;
    QVERIFY_THROWS_EXCEPTION(convlab::Error, v.setPaddingPreview(true, 0));
    QVERIFY_THROWS_EXCEPTION(convlab::Error, v.setPaddingPreview(true, ImageView::kMaxPaddingMargin + 1));
    QVERIFY(!v.paddingPreview());
    v.setPaddingPreview(true, ImageView::kMaxPaddingMargin);
    QVERIFY(v.paddingPreview());
    QVERIFY_THROWS_EXCEPTION(convlab::Error,
                             v.setBorderForPreview({convlab::BorderMode::Constant, std::nanf("")}));
    QVERIFY_THROWS_EXCEPTION(convlab::Error, v.setBandOverlay(1, -1, 1, 1));
}

void TestImageView::bandOverlay()
{
    auto v = shownView(bands(SampleDepth::U8, 100, 100, 100, 100));
    QVERIFY(v);
    v->setBandOverlay(3, 2, 5, 4); // inner edge: columns 3..58, rows 2..43
    QImage f = v->grabFramebuffer();
    // The line runs on the band's side of the inner edge, inside the image only.
    for (int y = 1; y <= 44; ++y) {
        QCOMPARE(pixelAtImage(f, *v, 2, y), kBandColour);
        QCOMPARE(pixelAtImage(f, *v, 59, y), kBandColour);
    }
    for (int x = 2; x <= 59; ++x) {
        QCOMPARE(pixelAtImage(f, *v, x, 1), kBandColour);
        QCOMPARE(pixelAtImage(f, *v, x, 44), kBandColour);
    }
    EXPECT_RGB(pixelAtImage(f, *v, 3, 2), 100, 100, 100, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 1, 10), 100, 100, 100, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 58, 43), 100, 100, 100, 1);
    EXPECT_RGB(pixelAtImage(f, *v, 30, 45), 100, 100, 100, 1);
    // A band of rows only (a 1-row kernel): just the two horizontal lines.
    v->setBandOverlay(0, 4, 0, 4);
    f = v->grabFramebuffer();
    QCOMPARE(pixelAtImage(f, *v, 0, 3), kBandColour);
    QCOMPARE(pixelAtImage(f, *v, 63, 44), kBandColour);
    EXPECT_RGB(pixelAtImage(f, *v, 0, 20), 100, 100, 100, 1);
    // None.
    v->setBandOverlay(0, 0, 0, 0);
    f = v->grabFramebuffer();
    for (int x = 0; x < kImageW; ++x) {
        EXPECT_RGB(pixelAtImage(f, *v, x, 0), 100, 100, 100, 1);
        EXPECT_RGB(pixelAtImage(f, *v, x, kImageH - 1), 100, 100, 100, 1);
    }
}

void TestImageView::viewTransformSignalsAndSetter()
{
    auto v = shownView(bands(SampleDepth::U8, 0, 1, 2, 3));
    QVERIFY(v);
    QSignalSpy changed(v.get(), &ImageView::viewChanged);
    QSignalSpy zoomed(v.get(), &ImageView::zoomChanged);
    sendWheel(v.get(), QPointF(50, 40), 120);
    QVERIFY(changed.count() >= 1);
    QCOMPARE(changed.last().at(0).toDouble(), v->zoom());
    QCOMPARE(changed.last().at(1).toPointF(), v->origin());
    // A pan reports the new origin at the same zoom.
    sendMouse(v.get(), QEvent::MouseButtonPress, QPointF(60, 60), Qt::LeftButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseMove, QPointF(75, 52), Qt::NoButton, Qt::LeftButton);
    sendMouse(v.get(), QEvent::MouseButtonRelease, QPointF(75, 52), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(changed.last().at(0).toDouble(), 1.25);
    QCOMPARE(changed.last().at(1).toPointF(), v->origin());

    // The setter places the image exactly there, says so once, and stays put on resize.
    const int before = changed.count();
    v->setViewTransform(3.0, QPointF(-7, 11));
    QCOMPARE(v->zoom(), 3.0);
    QCOMPARE(v->origin(), QPointF(-7, 11));
    QVERIFY(samePoint(v->widgetToImage(QPointF(-7, 11)), QPointF(0, 0)));
    QCOMPARE(changed.count(), before + 1);
    QCOMPARE(zoomed.last().at(0).toDouble(), 3.0);
    v->setViewTransform(3.0, QPointF(-7, 11));
    QCOMPARE(changed.count(), before + 1);
    v->resize(kViewW + 10, kViewH);
    QTRY_COMPARE(v->width(), kViewW + 10);
    QCOMPARE(v->origin(), QPointF(-7, 11));
    const QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtWidget(f, *v, QPointF(-7 + 3 * 20.5, 11 + 3 * 5.5)), 1, 1, 1, 0);
}

void TestImageView::zoomSignalledOnFitAndResize()
{
    auto v = shownView(bands(SampleDepth::U8, 0, 1, 2, 3)); // at 1:1
    QVERIFY(v);
    QSignalSpy zoomed(v.get(), &ImageView::zoomChanged);
    v->fitToWindow();
    QCOMPARE(zoomed.count(), 1);
    QCOMPARE(zoomed.last().at(0).toDouble(), 2.0);
    // Fitting again changes nothing but still says the zoom (a status bar may show it).
    v->fitToWindow();
    QCOMPARE(zoomed.count(), 2);
    QCOMPARE(zoomed.last().at(0).toDouble(), 2.0);
    // A fitted view follows a resize and says so.
    v->resize(kViewW * 2, kViewH * 2);
    QTRY_COMPARE(v->zoom(), 4.0);
    QCOMPARE(zoomed.last().at(0).toDouble(), 4.0);
    v->actualSize();
    QCOMPARE(zoomed.last().at(0).toDouble(), 1.0);
    const int before = zoomed.count();
    v->actualSize();
    QCOMPARE(zoomed.count(), before + 1);
}

namespace {

constexpr int kLongSide = 20000, kShortSide = 600;

// A grey ramp along the long axis: `from` at its start to `to` at its end (8-bit scale).
Image longRamp(int w, int h, float from, float to)
{
    const bool wide = w >= h;
    const int n = wide ? w : h;
    return makeImage(1, SampleDepth::U8, [=](int, int x, int y) {
        return from + (to - from) * float(wide ? x : y) / float(n - 1);
    }, w, h);
}

// The value the ramp shows at fraction t of the long axis.
int rampAt(float from, float to, double t)
{
    return int(std::lround(from + (to - from) * t));
}

// Checks that the view draws a long ramp (from -> to) along the image's long axis: nine
// points along the middle of the short axis show the ramp's value there.
bool showsRamp(const QImage& f, const ImageView& v, int w, int h, float from, float to, QString* why)
{
    const bool wide = w >= h;
    int previous = -1000;
    for (int i = 1; i <= 9; ++i) {
        const double t = i / 10.0;
        const QPointF p = wide ? QPointF(t * w, h / 2.0) : QPointF(w / 2.0, t * h);
        const QRgb got = pixelAtWidget(f, v, imageToWidget(v, p));
        const int want = rampAt(from, to, t);
        if (!near(got, want, want, want, 3)) {
            *why = QStringLiteral("at %1 of the ramp: %2, want %3").arg(t).arg(rgb(got)).arg(want);
            return false;
        }
        if (qRed(got) == previous) {
            *why = QStringLiteral("the same grey %1 twice: not a ramp").arg(previous);
            return false;
        }
        previous = qRed(got);
    }
    return true;
}

#define EXPECT_RAMP(f, v, w, h, from, to)                                                          \
    do {                                                                                           \
        QString why;                                                                               \
        QVERIFY2(showsRamp((f), (v), (w), (h), (from), (to), &why), qPrintable(why));              \
    } while (false)

QWidget* noticeLabel(const ImageView& v)
{
    return v.findChild<QWidget*>(QStringLiteral("notice"));
}

} // namespace

void TestImageView::cleanup()
{
    ImageView::setMaxTextureSizeForTesting(0);
}

void TestImageView::largeImagesDrawReduced_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addRow("20000x600") << kLongSide << kShortSide;
    QTest::addRow("600x20000") << kShortSide << kLongSide;
}

void TestImageView::largeImagesDrawReduced()
{
    // A limit of 4096 px: 20000 px sides are reduced by 5 on any driver.
    QFETCH(int, width);
    QFETCH(int, height);
    ImageView::setMaxTextureSizeForTesting(4096);
    const bool wide = width > height;
    ImageView v;
    v.setSource(longRamp(width, height, 20, 220));
    v.setResult(longRamp(width, height, 250, 10));
    v.resize(400, 300);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QCOMPARE(v.maxTextureSize(), 4096);

    QImage f = v.grabFramebuffer();
    EXPECT_RAMP(f, v, width, height, 250, 10);
    const QPair<int, int> factor = wide ? qMakePair(5, 1) : qMakePair(1, 5);
    QCOMPARE(v.resultDisplayFactor(), factor);
    // The view says so in words over the picture.
    QVERIFY2(v.notice().contains("result") && v.notice().contains("4000") && v.notice().contains("4096"),
             qPrintable(v.notice()));
    QTRY_VERIFY(noticeLabel(v) && noticeLabel(v)->isVisible());
    v.grab().save(QStringLiteral("/tmp/imageview_large_%1x%2.png").arg(width).arg(height));

    v.setViewMode(ImageView::ViewMode::Original);
    f = v.grabFramebuffer();
    EXPECT_RAMP(f, v, width, height, 20, 220);
    QCOMPARE(v.sourceDisplayFactor(), factor);
    QVERIFY2(v.notice().contains("original") && !v.notice().contains("result"), qPrintable(v.notice()));

    // Split: the original on the left of the divider, the result on its right.
    v.setViewMode(ImageView::ViewMode::Split);
    v.setSplitPosition(0.5);
    f = v.grabFramebuffer();
    const QPointF left(v.width() / 2.0 - 3, v.height() / 2.0), right(v.width() / 2.0 + 3, v.height() / 2.0);
    if (wide) {
        const double tl = v.widgetToImage(left).x() / width, tr = v.widgetToImage(right).x() / width;
        EXPECT_RGB(pixelAtWidget(f, v, left), rampAt(20, 220, tl), rampAt(20, 220, tl), rampAt(20, 220, tl), 3);
        EXPECT_RGB(pixelAtWidget(f, v, right), rampAt(250, 10, tr), rampAt(250, 10, tr), rampAt(250, 10, tr), 3);
    } else {
        // The tall image is a narrow column in the middle: compare the two halves of one row.
        const double ty = v.widgetToImage(left).y() / height;
        const QPointF centre = imageToWidget(v, QPointF(width / 2.0, ty * height));
        EXPECT_RGB(pixelAtWidget(f, v, centre - QPointF(2, 0)), rampAt(20, 220, ty), rampAt(20, 220, ty),
                   rampAt(20, 220, ty), 3);
        EXPECT_RGB(pixelAtWidget(f, v, centre + QPointF(2, 0)), rampAt(250, 10, ty), rampAt(250, 10, ty),
                   rampAt(250, 10, ty), 3);
    }

    // Difference: |d| rises along the long axis, relative scale: a heat ramp.
    v.setDifference(makeImage(1, SampleDepth::F32, [=](int, int x, int y) {
        return float(wide ? x : y) / float(kLongSide - 1);
    }, width, height));
    v.setDifferenceScale(ImageView::DifferenceScale::Relative);
    v.setViewMode(ImageView::ViewMode::Difference);
    f = v.grabFramebuffer();
    QCOMPARE(v.differenceDisplayFactor(), factor);
    for (int i = 1; i <= 9; ++i) {
        const double t = i / 10.0;
        const QPointF p = wide ? QPointF(t * width, height / 2.0) : QPointF(width / 2.0, t * height);
        const QColor want = colormap::heat(t);
        EXPECT_RGB(pixelAtWidget(f, v, imageToWidget(v, p)), want.red(), want.green(), want.blue(), 3);
    }

    // Padding preview at 1:1 near the start: the margin replicates the original's first pixels.
    v.setViewMode(ImageView::ViewMode::Original);
    v.setBorderForPreview({convlab::BorderMode::Replicate, 0.0f});
    v.setPaddingPreview(true, 16);
    v.setViewTransform(1.0, QPointF(40, 40));
    f = v.grabFramebuffer();
    const double edge = 20 + 200.0 * 2 / (kLongSide - 1); // the mean of the first block of 5
    const int grey = int(std::lround(0.7 * edge)), blue = int(std::lround(0.7 * edge + 0.3 * 255));
    EXPECT_RGB(pixelAtImage(f, v, -8, 8), grey, grey, blue, 2);
    EXPECT_RGB(pixelAtImage(f, v, 8, -8), grey, grey, blue, 2);
    EXPECT_RGB(pixelAtImage(f, v, 3, 3), 20, 20, 20, 1);
    // The readout keeps the full resolution.
    const int along = 12345;
    const QVector<float> value = wide ? v.resultValues(along, 7) : v.resultValues(7, along);
    QCOMPARE(value.size(), 1);
    QCOMPARE(value[0], 250.0f + (10.0f - 250.0f) * float(along) / float(kLongSide - 1));
}

void TestImageView::largeResultThroughBufferDrawsReduced()
{
    // A GPU producer writing a result over the limit still gets a buffer; the view reads it
    // back once and draws it reduced.
    ImageView::setMaxTextureSizeForTesting(4096);
    ImageView v;
    v.setSource(longRamp(kLongSide, kShortSide, 0, 0));
    v.resize(400, 300);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    const unsigned int pbo = v.resultBuffer(kLongSide, kShortSide, 1);
    QVERIFY(pbo != 0);
    const Image values = longRamp(kLongSide, kShortSide, 30, 230);
    v.makeCurrent();
    QOpenGLExtraFunctions* gl = QOpenGLContext::currentContext()->extraFunctions();
    gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
    gl->glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(values.data.size() * sizeof(float)), values.data.data());
    gl->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    v.doneCurrent();
    v.resultBufferWritten(kLongSide, kShortSide, 1);
    const QImage f = v.grabFramebuffer();
    EXPECT_RAMP(f, v, kLongSide, kShortSide, 30, 230);
    QCOMPARE(v.resultDisplayFactor(), qMakePair(5, 1));
    QVERIFY(!v.notice().isEmpty());
    QCOMPARE(v.resultValues(19999, 599), QVector<float>({230.0f}));
    // Back within the limit, the same buffer carries the next result.
    QCOMPARE(v.resultBuffer(kImageW, kImageH, 1) != 0, true);
    v.setResult(bands(SampleDepth::U8, 10, 20, 30, 40));
    QVERIFY(v.notice().isEmpty()); // not the previous image's notice
    v.grabFramebuffer();
    QVERIFY(v.notice().isEmpty());
    QTRY_VERIFY(!noticeLabel(v)->isVisible());
    QCOMPARE(v.resultDisplayFactor(), qMakePair(1, 1));
}

void TestImageView::zoomedOutViewUploadsWhatTheScreenShows()
{
    // A 2000x1200 image fitted into 400x300 is drawn at 0.2: its texture holds a quarter of the
    // pixels per side (the mean of each 4x4 block), with no notice, since nothing is lost that
    // the screen could show. The readout and the pixel grid read the full image at every zoom,
    // and zooming in uploads the full resolution again.
    const int w = 2000, h = 1200;
    const Image result = longRamp(w, h, 250, 10);
    ImageView v;
    v.setSource(longRamp(w, h, 20, 220));
    v.setResult(result);
    v.resize(400, 300);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QImage f = v.grabFramebuffer();
    const double dpr = v.devicePixelRatioF();
    int expected = 1;
    while (v.zoom() * dpr * 2 * expected <= 1.0) expected *= 2;
    QVERIFY(expected >= 2);
    QCOMPARE(v.resultDisplayFactor(), qMakePair(expected, expected));
    QVERIFY2(v.notice().isEmpty(), qPrintable(v.notice()));
    EXPECT_RAMP(f, v, w, h, 250, 10);
    auto readsFullImage = [&] {
        for (const auto& [x, y] : {std::pair{0, 0}, std::pair{1, 0}, std::pair{1001, 599}, std::pair{w - 1, h - 1}})
            if (v.resultValues(x, y) != QVector<float>({result.at(0, y, x)})) return false;
        return true;
    };
    QVERIFY(readsFullImage());
    v.setViewMode(ImageView::ViewMode::Original);
    v.grabFramebuffer();
    QCOMPARE(v.sourceDisplayFactor(), qMakePair(expected, expected));
    v.setViewMode(ImageView::ViewMode::Result);

    v.actualSize(); // 1:1
    f = v.grabFramebuffer();
    QCOMPARE(v.resultDisplayFactor(), qMakePair(1, 1));
    QVERIFY(readsFullImage());
    v.setZoom(8.0);
    v.centreOnPixel(1001, 599);
    f = v.grabFramebuffer();
    QCOMPARE(v.resultDisplayFactor(), qMakePair(1, 1));
    // The pixel under the centre is drawn as its own value at 8x (the ramp's grey there).
    const QPoint centre(v.width() / 2, v.height() / 2);
    const QPoint pixel = v.widgetToImage(QPointF(centre)).toPoint();
    const int grey = int(std::lround(result.at(0, 0, std::clamp(pixel.x(), 0, w - 1))));
    QVERIFY2(std::abs(qRed(pixelAtWidget(f, v, QPointF(centre))) - grey) <= 2,
             qPrintable(QStringLiteral("%1 vs %2").arg(qRed(pixelAtWidget(f, v, QPointF(centre)))).arg(grey)));
    QVERIFY(readsFullImage());
    // At 8x the texture holds the pixels on screen and about half a screen around them, not the
    // whole image; a pan far away uploads the region it then shows, drawn from its own values.
    const auto visible = [&] {
        return QRectF(v.widgetToImage(QPointF(0, 0)), v.widgetToImage(QPointF(v.width(), v.height())))
            .intersected(QRectF(0, 0, w, h));
    };
    QRect region = v.resultUploadedRegion();
    // (The region of 1:1 still holds what 8x shows: zooming in keeps it.)
    QVERIFY2(region.width() * region.height() < w * h / 2,
             qPrintable(QStringLiteral("%1x%2").arg(region.width()).arg(region.height())));
    QVERIFY(QRectF(region).contains(visible()));
    v.centreOnPixel(1990, 20);
    f = v.grabFramebuffer();
    region = v.resultUploadedRegion();
    QVERIFY(QRectF(region).contains(visible()));
    QCOMPARE(region.right(), w - 1);
    QCOMPARE(region.top(), 0);
    for (const QPointF at : {QPointF(centre), QPointF(3, 3), QPointF(v.width() - 3, v.height() - 3)}) {
        const QPoint px = v.widgetToImage(at).toPoint();
        if (px.x() < 0 || px.y() < 0 || px.x() >= w || px.y() >= h) continue;
        const int want = int(std::lround(result.at(0, px.y(), px.x())));
        QVERIFY2(std::abs(qRed(pixelAtWidget(f, v, at)) - want) <= 2,
                 qPrintable(QStringLiteral("(%1, %2): %3 vs %4").arg(px.x()).arg(px.y()).arg(qRed(pixelAtWidget(f, v, at))).arg(want)));
    }
    v.setPaddingPreview(true, 8); // the preview reads any pixel (wrap: the far side): all of them
    v.grabFramebuffer();
    QCOMPARE(v.resultUploadedRegion(), QRect(0, 0, w, h));
    v.setPaddingPreview(false, 8);
    v.centreOnPixel(1001, 599);
    v.grab().save(QStringLiteral("/tmp/imageview_zoom8.png"));
    v.setZoom(2 * ImageView::kGridValuesZoom); // the grid with its values, read from the full image
    v.grabFramebuffer();
    QVERIFY(v.pixelGridShown());
    QCOMPARE(v.resultDisplayFactor(), qMakePair(1, 1));
    v.fitToWindow();
    f = v.grabFramebuffer();
    QCOMPARE(v.resultDisplayFactor(), qMakePair(expected, expected));
    EXPECT_RAMP(f, v, w, h, 250, 10);
    v.grab().save(QStringLiteral("/tmp/imageview_fit.png"));
}

void TestImageView::floatOriginalsMapByTheirValues()
{
    // A float original whose values are 0..255 (a .npy of a photo) is drawn as 8-bit values, not
    // white; its result maps by the same range, and so does the difference's scale. Off, the
    // nominal 0..1 of float images comes back; 8-bit originals never change.
    ImageView v;
    v.setSource(bands(SampleDepth::F32, 0, 50, 100, 200));
    v.setResult(bands(SampleDepth::F32, 25, 75, 150, 255));
    v.resize(kViewW, kViewH);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.actualSize();
    QCOMPARE(v.displayRange(), 255.0);
    QImage f = v.grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, v, 5, 10), 25, 25, 25, 1);
    EXPECT_RGB(pixelAtImage(f, v, 40, 10), 150, 150, 150, 1);
    v.setViewMode(ImageView::ViewMode::Original);
    f = v.grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, v, 20, 10), 50, 50, 50, 1);
    v.setViewMode(ImageView::ViewMode::Result);
    v.setFloatRangeByValues(false);
    QCOMPARE(v.displayRange(), 1.0);
    f = v.grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, v, 5, 10), 255, 255, 255, 0);
    v.setFloatRangeByValues(true);
    v.setSource(bands(SampleDepth::F32, 0, 0.25f, 0.5f, 1.0f)); // values of 0..1: the nominal range
    QCOMPARE(v.displayRange(), 1.0);
    v.setSource(bands(SampleDepth::F32, 0, 1000, 4000, 60000)); // 16-bit values as floats
    QCOMPARE(v.displayRange(), 65535.0);
    v.setSource(bands(SampleDepth::F32, -5, 0, 7e5f, 1e6f)); // beyond: its own largest value
    QCOMPARE(v.displayRange(), 1e6);
    v.setSource(bands(SampleDepth::U8, 0, 50, 100, 200));
    v.setResult(bands(SampleDepth::U8, 25, 75, 150, 255));
    QCOMPARE(v.displayRange(), 255.0);
}

void TestImageView::largeImagesAtTheDriverLimit()
{
    // The driver's own limit (no override): 20000 px sides draw either way.
    for (const auto& [w, h] : {std::pair{kLongSide, kShortSide}, std::pair{kShortSide, kLongSide}}) {
        ImageView v;
        v.setSource(longRamp(w, h, 5, 245));
        v.setResult(longRamp(w, h, 200, 40));
        v.resize(400, 300);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QImage f = v.grabFramebuffer();
        const int limit = v.maxTextureSize();
        qInfo("GL_MAX_TEXTURE_SIZE here: %d", limit);
        QVERIFY(limit >= 1024);
        EXPECT_RAMP(f, v, w, h, 200, 40);
        const int reduced = (std::max(w, h) + limit - 1) / limit;
        const QPair<int, int> factor = v.resultDisplayFactor();
        // At least the limit's reduction (the zoom may reduce further on a driver that allows
        // the whole side: zoomedOutViewUploadsWhatTheScreenShows).
        QVERIFY(std::max(factor.first, factor.second) >= reduced);
        QCOMPARE(v.notice().isEmpty(), reduced == 1);
        v.setViewMode(ImageView::ViewMode::Original);
        f = v.grabFramebuffer();
        EXPECT_RAMP(f, v, w, h, 5, 245);
    }
}

void TestImageView::colorBarOnlyForFalseColour()
{
    auto v = shownView(bands(SampleDepth::F32, -2, 0, 2, 0.5f));
    QVERIFY(v);
    v->setSource(bands(SampleDepth::U8, 10, 20, 30, 40));
    v->setDifference(bands(SampleDepth::F32, 0, 1, -3, 2));
    auto* bar = v->findChild<ColorBar*>();
    QVERIFY(bar);
    for (auto m : {ImageView::Mapping::Clamp, ImageView::Mapping::Abs, ImageView::Mapping::Normalize,
                   ImageView::Mapping::Offset}) {
        v->setMapping(m);
        QVERIFY(!v->colorBarVisible());
        QVERIFY(!bar->isVisible());
    }
    v->setMapping(ImageView::Mapping::Diverging);
    QVERIFY(v->colorBarVisible());
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->map(), ColorBar::Map::Diverging);
    QCOMPARE(v->colorBarRange(), qMakePair(-2.0, 2.0));
    QCOMPARE(bar->tickLabels(), QStringList({"2", "0", QStringLiteral("\u22122")}));
    // On the view's right edge, within it.
    QVERIFY(bar->geometry().right() < v->width() && bar->geometry().left() > v->width() / 2);
    v->setViewMode(ImageView::ViewMode::Original); // no false colour on screen
    QVERIFY(!v->colorBarVisible());
    v->setViewMode(ImageView::ViewMode::Split);
    QVERIFY(v->colorBarVisible());
    // The difference heat map: 0 .. the scale in use (1% of the 8-bit range by default).
    v->setViewMode(ImageView::ViewMode::Difference);
    QVERIFY(v->colorBarVisible());
    QCOMPARE(bar->map(), ColorBar::Map::Heat);
    QCOMPARE(v->colorBarRange().first, 0.0);
    QVERIFY(std::abs(v->colorBarRange().second - 2.55) < 1e-9);
    v->setDifferenceScale(ImageView::DifferenceScale::Relative);
    QCOMPARE(v->colorBarRange(), qMakePair(0.0, 3.0));
    v->setMapping(ImageView::Mapping::Clamp);
    QVERIFY(v->colorBarVisible());
    v->setViewMode(ImageView::ViewMode::Result);
    QVERIFY(!v->colorBarVisible());
    QVERIFY(!bar->isVisible());

    // A realistic size, to look at.
    v->resize(480, 360);
    v->setMapping(ImageView::Mapping::Diverging);
    v->fitToWindow();
    QTRY_COMPARE(v->width(), 480);
    v->grab().save("/tmp/imageview_diverging_bar.png");
    v->setViewMode(ImageView::ViewMode::Difference);
    v->grab().save("/tmp/imageview_difference_bar.png");
    // The size of a border-lab view: the bar still fits, with its three labels.
    v->resize(200, 150);
    QTRY_COMPARE(v->width(), 200);
    QVERIFY(bar->geometry().bottom() < v->height() && bar->height() >= bar->minimumSizeHint().height());
    v->grab().save("/tmp/imageview_difference_bar_small.png");
}

void TestImageView::colorBarMatchesTheShader()
{
    // The bar's strip shows the map function at each row's fraction ...
    ColorBar bar;
    bar.resize(bar.sizeHint().width(), 200);
    for (auto map : {ColorBar::Map::Heat, ColorBar::Map::Diverging, ColorBar::Map::Viridis}) {
        bar.setScale(map, map == ColorBar::Map::Diverging ? -1.0 : 0.0, 1.0);
        const QImage img = bar.grab().toImage();
        const QRect strip = bar.stripRect();
        const double dpr = img.devicePixelRatio();
        for (int y = strip.top(); y <= strip.bottom(); ++y) {
            const double t = bar.fractionAtRow(y);
            const QColor want = map == ColorBar::Map::Heat        ? colormap::heat(t)
                                : map == ColorBar::Map::Diverging ? colormap::diverging(2 * t - 1)
                                                                  : colormap::viridis(t);
            const QRgb got = img.pixel(int((strip.center().x() + 0.5) * dpr), int((y + 0.5) * dpr));
            EXPECT_RGB(got, want.red(), want.green(), want.blue(), 2);
        }
        QCOMPARE(bar.fractionAtRow(strip.bottom()) < 0.01 && bar.fractionAtRow(strip.top()) > 0.99, true);
    }

    // ... and the same functions are what the shader draws: a heat ramp (relative difference
    // scale, max |d| = 1) and a diverging ramp over -1 .. 1.
    auto v = shownView(makeImage(1, SampleDepth::F32, [](int, int x, int) { return (x - 31.5f) / 31.5f; }));
    QVERIFY(v);
    v->setDifference(makeImage(1, SampleDepth::F32, [](int, int x, int) { return x / 63.0f; }));
    v->setDifferenceScale(ImageView::DifferenceScale::Relative);
    v->setViewMode(ImageView::ViewMode::Difference);
    QImage f = v->grabFramebuffer();
    for (int x = 0; x < kImageW; ++x) {
        const QColor want = colormap::heat(x / 63.0);
        EXPECT_RGB(pixelAtImage(f, *v, x, 5), want.red(), want.green(), want.blue(), 2);
    }
    v->setViewMode(ImageView::ViewMode::Result);
    v->setMapping(ImageView::Mapping::Diverging);
    f = v->grabFramebuffer();
    for (int x = 0; x < kImageW; ++x) {
        const QColor want = colormap::diverging((x - 31.5) / 31.5);
        EXPECT_RGB(pixelAtImage(f, *v, x, 5), want.red(), want.green(), want.blue(), 2);
    }
}

void TestImageView::absoluteDifferenceScaleShowsNoiseAsNoise()
{
    // Float rounding noise of up to 3e-4 on a 0..1 image.
    const Image source = makeImage(1, SampleDepth::F32, [](int, int x, int) { return x / 63.0f; });
    const Image noise = makeImage(1, SampleDepth::F32, [](int, int x, int y) {
        return float((x * 7 + y * 13) % 5 - 2) * 1.5e-4f;
    });
    auto v = shownView(source);
    QVERIFY(v);
    v->setSource(source);
    v->setDifference(noise);
    v->setViewMode(ImageView::ViewMode::Difference);
    QCOMPARE(v->differenceScale(), ImageView::DifferenceScale::Absolute);
    QCOMPARE(v->differenceAbsoluteMax(), 0.0);
    QVERIFY(std::abs(v->differenceScaleInUse() - 0.01) < 1e-12); // 1% of the float range
    QCOMPARE(v->colorBarRange(), qMakePair(0.0, v->differenceScaleInUse()));

    auto brightest = [&] {
        const QImage f = v->grabFramebuffer();
        QRgb top = qRgb(0, 0, 0);
        for (int y = 0; y < kImageH; ++y)
            for (int x = 0; x < kImageW; ++x)
                if (qRed(pixelAtImage(f, *v, x, y)) + qGreen(pixelAtImage(f, *v, x, y)) > qRed(top) + qGreen(top))
                    top = pixelAtImage(f, *v, x, y);
        return top;
    };
    QRgb top = brightest();
    QVERIFY2(qRed(top) <= 25 && qGreen(top) == 0 && qBlue(top) == 0, qPrintable(rgb(top))); // near black
    // A fixed scale under which the largest difference would not reach one of 255 steps is not
    // used: the largest difference sets the scale, so the noise is never drawn all black.
    v->setDifferenceScale(ImageView::DifferenceScale::Absolute, 1.0); // the whole source range
    top = brightest();
    EXPECT_RGB(top, 255, 255, 255, 0);
    QVERIFY(std::abs(v->colorBarRange().second - 3e-4) < 1e-8);
    QCOMPARE(v->differenceAbsoluteMax(), 1.0);
    QCOMPARE(v->differenceFixedScale(), 1.0);
    QVERIFY2(v->differenceScaleNote().contains("scale set by the largest difference"),
             qPrintable(v->differenceScaleNote()));
    // One that it reaches is used as set.
    v->setDifferenceScale(ImageView::DifferenceScale::Absolute, 0.05);
    QCOMPARE(v->colorBarRange(), qMakePair(0.0, 0.05));
    top = brightest();
    QVERIFY2(qRed(top) > 0 && qRed(top) < 255 && qGreen(top) == 0, qPrintable(rgb(top)));
    // Relative: the same noise fills the whole scale.
    v->setDifferenceScale(ImageView::DifferenceScale::Relative);
    top = brightest();
    EXPECT_RGB(top, 255, 255, 255, 0);
    QVERIFY(std::abs(v->colorBarRange().second - 3e-4) < 1e-8);
    // The automatic scale follows the source's nominal range.
    v->setDifferenceScale(ImageView::DifferenceScale::Absolute);
    v->setSource(bands(SampleDepth::U16, 0, 0, 0, 0));
    QVERIFY(std::abs(v->differenceFixedScale() - 655.35) < 1e-9);
    // 3e-4 is far below a step of 655.35: in use, the largest difference.
    QVERIFY(std::abs(v->differenceScaleInUse() - 3e-4) < 1e-8);
    QVERIFY(std::abs(v->colorBarRange().second - 3e-4) < 1e-8);
    QVERIFY_THROWS_EXCEPTION(convlab::Error, v->setDifferenceScale(ImageView::DifferenceScale::Absolute, -1.0));
    QVERIFY_THROWS_EXCEPTION(convlab::Error,
                             v->setDifferenceScale(ImageView::DifferenceScale::Absolute, std::nan("")));
}

void TestImageView::colourMapsLeaveTheOriginalAlone()
{
    auto v = shownView(bands(SampleDepth::F32, -2, 0, 2, 0.5f), ImageView::Mapping::Diverging);
    QVERIFY(v);
    v->setSource(makeImage(3, SampleDepth::U8, [](int c, int, int) { return 60.0f + 50.0f * c; }));
    v->setViewMode(ImageView::ViewMode::Split);
    v->setSplitPosition(0.5);
    QImage f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtWidget(f, *v, QPointF(40, 40)), 60, 110, 160, 1); // the original's own colour
    const QRgb result = pixelAtWidget(f, *v, QPointF(90, 40)); // band 3: +0.5 of max 2, reddish
    QVERIFY2(qRed(result) > qBlue(result) + 20, qPrintable(rgb(result)));
    for (auto m : {ImageView::Mapping::Diverging, ImageView::Mapping::Normalize, ImageView::Mapping::Offset,
                   ImageView::Mapping::Abs}) {
        v->setMapping(m);
        v->setViewMode(ImageView::ViewMode::Original);
        f = v->grabFramebuffer();
        EXPECT_RGB(pixelAtImage(f, *v, 10, 10), 60, 110, 160, 1);
        EXPECT_RGB(pixelAtImage(f, *v, 60, 40), 60, 110, 160, 1);
    }
    // Nor does the padding preview recolour the original it extends.
    v->setMapping(ImageView::Mapping::Diverging);
    v->setBorderForPreview({convlab::BorderMode::Replicate, 0.0f});
    v->setPaddingPreview(true, 8);
    v->actualSize();
    f = v->grabFramebuffer();
    EXPECT_RGB(pixelAtImage(f, *v, -4, 10), 42, 77, 189, 1);
}

void TestImageView::responseImageHasColorBar()
{
    AnalysisPanel panel;
    panel.resize(420, 760);
    panel.setVisible(true); // AnalysisPanel::show(...) is its own
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy updated(&panel, &AnalysisPanel::updated);
    // A 3x3 binomial blur: |H| peaks at 1 (DC).
    convlab::Kernel k(3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1});
    for (float& x : k.values)
        x /= 16.0f;
    panel.setKernel(k);
    QVERIFY(updated.wait(10000));
    auto* bar = panel.findChild<ColorBar*>(QStringLiteral("responseColorBar"));
    QVERIFY(bar);
    QTRY_VERIFY(bar->isVisible());
    QCOMPARE(bar->map(), ColorBar::Map::Viridis);
    QCOMPARE(bar->low(), 0.0);
    QVERIFY(std::abs(bar->high() - 1.0) < 1e-6);
    // The bar's top colour is what the peak is drawn in.
    const int c = AnalysisPanel::kResponseSize / 2, r = AnalysisPanel::kResponseSize - 1 - c;
    QCOMPARE(panel.responseImage().pixel(c, r), colormap::viridis(1.0).rgb());
    panel.grab().save("/tmp/imageview_response_linear.png");
    panel.setLogScale(true);
    QVERIFY(std::abs(bar->high()) < 1e-6);
    QVERIFY(std::abs(bar->low() + 80.0) < 1e-6);
    QVERIFY2(bar->tickLabels().first().endsWith("dB"), qPrintable(bar->tickLabels().join('|')));
    QCOMPARE(bar->tickLabels().last(), QStringLiteral("\u221280"));
    panel.grab().save("/tmp/imageview_response_db.png");
}

QTEST_MAIN(TestImageView)
#include "test_imageview.moc"
