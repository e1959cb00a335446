// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's pieces that need neither a widget nor GL: the camera's fitting, anchoring,
// reductions, regions, pixel picking and press state, and the scene's checked setters (bad
// input throws and leaves the scene as it was) and what is on screen.
#include <QtTest>

#include <cmath>
#include <limits>
#include <memory>

#include "convlab/error.h"
#include "view/imageslot.h"
#include "view/viewcamera.h"
#include "view/viewscene.h"

namespace {

ImageSlot slotOf(int w, int h)
{
    ImageSlot s;
    s.width = w;
    s.height = h;
    s.channels = 1;
    return s;
}

} // namespace

class TestViewParts : public QObject {
    Q_OBJECT
private slots:
    void fittingCentresTheImageAndItsMargin();
    void fittingClampsTinyAndHugeImages();
    void withoutFittingOrCentringTheTransformStays();
    void anchoredZoomKeepsThePointUnderTheAnchor();
    void zoomFactorIsAPowerOfTwoAtMostTheSide();
    void pixelAtRespectsEveryEdge();
    void regionCoversTheScreenInBlocksOrTheWholeImage();
    void pressBecomesAPanOnlyPastTheThreshold();
    void sceneRejectsBadInputAndKeepsItsState();
    void sceneSaysWhatIsOnScreen();
};

void TestViewParts::fittingCentresTheImageAndItsMargin()
{
    ViewCamera c;
    auto [zoom, origin] = c.laidOut(QSize(200, 100), 0, QSizeF(400, 400));
    QCOMPARE(zoom, 2.0);
    QCOMPARE(origin, QPointF(0, 100));
    // A margin of 10 on each side is fitted too: 220 wide in 400.
    std::tie(zoom, origin) = c.laidOut(QSize(200, 100), 10, QSizeF(400, 400));
    QCOMPARE(zoom, 400.0 / 220.0);
    QCOMPARE(origin.x(), std::round((400 - 200 * zoom) / 2.0));
    QVERIFY(origin.x() > 0); // the margin is left on screen at the left
}

void TestViewParts::fittingClampsTinyAndHugeImages()
{
    ViewCamera c;
    auto [zoom, origin] = c.laidOut(QSize(1, 1), 0, QSizeF(3, 5));
    QCOMPARE(zoom, 3.0);
    QCOMPARE(origin, QPointF(0, 1));
    std::tie(zoom, origin) = c.laidOut(QSize(1, 1), 0, QSizeF(4000, 4000));
    QCOMPARE(zoom, ViewCamera::kMaxZoom);
    std::tie(zoom, origin) = c.laidOut(QSize(100000, 10), 0, QSizeF(100, 100));
    QCOMPARE(zoom, ViewCamera::kMinZoom);
}

void TestViewParts::withoutFittingOrCentringTheTransformStays()
{
    ViewCamera c;
    c.assign(3.0, QPointF(-7, 11));
    c.setAutoFit(false);
    c.setCentred(false);
    const auto [zoom, origin] = c.laidOut(QSize(50, 50), 4, QSizeF(300, 200));
    QCOMPARE(zoom, 3.0);
    QCOMPARE(origin, QPointF(-7, 11));
    // Centred without fitting: the zoom stays, the origin centres.
    c.setCentred(true);
    const auto [z2, o2] = c.laidOut(QSize(50, 50), 0, QSizeF(300, 200));
    QCOMPARE(z2, 3.0);
    QCOMPARE(o2, QPointF(75, 25));
}

void TestViewParts::anchoredZoomKeepsThePointUnderTheAnchor()
{
    ViewCamera c;
    c.assign(1.5, QPointF(13, -4));
    const QPointF anchor(101, 37);
    const QPointF before = c.widgetToImage(anchor);
    const QPointF origin = c.anchoredOrigin(6.0, anchor);
    const ViewCamera::Change change = c.assign(6.0, origin);
    QVERIFY(change.zoomed && change.moved);
    const QPointF after = c.widgetToImage(anchor);
    QVERIFY(std::abs(after.x() - before.x()) < 1e-9 && std::abs(after.y() - before.y()) < 1e-9);
    QVERIFY(!c.assign(6.0, origin).moved); // the same transform again changes nothing
}

void TestViewParts::zoomFactorIsAPowerOfTwoAtMostTheSide()
{
    ViewCamera c;
    const ImageSlot big = slotOf(4000, 3000), thin = slotOf(3, 3000);
    c.setFrame(1.0, QSizeF(800, 600));
    c.assign(0.51, QPointF());
    QCOMPARE(c.zoomFactor(), 1); // more than half size: full resolution
    c.assign(0.5, QPointF());
    QCOMPARE(c.zoomFactor(), 2); // two image pixels a device pixel exactly
    c.assign(0.34, QPointF());
    QCOMPARE(c.zoomFactor(), 2);
    c.assign(0.17, QPointF());
    QCOMPARE(c.zoomFactor(), 4);
    c.setFrame(2.0, QSizeF(800, 600)); // a device pixel ratio of 2 shows twice the texels
    QCOMPARE(c.zoomFactor(), 2);
    c.setFrame(1.0, QSizeF(800, 600));
    c.assign(ViewCamera::kMinZoom, QPointF());
    QCOMPARE(c.zoomFactor(), 64);
    QCOMPARE(c.zoomFactors(big), std::make_pair(64, 64));
    QCOMPARE(c.zoomFactors(thin), std::make_pair(3, 64)); // never more than the side
}

void TestViewParts::pixelAtRespectsEveryEdge()
{
    ViewCamera c;
    c.assign(2.0, QPointF(10, 20));
    const QSize image(5, 3);
    QCOMPARE(c.pixelAt(QPointF(10, 20), image), QPoint(0, 0));
    QCOMPARE(c.pixelAt(QPointF(9.99, 20), image), QPoint(-1, -1));
    QCOMPARE(c.pixelAt(QPointF(19.99, 25.99), image), QPoint(4, 2));
    QCOMPARE(c.pixelAt(QPointF(20, 25), image), QPoint(-1, -1)); // one past the right edge
    QCOMPARE(c.pixelAt(QPointF(12, 26), image), QPoint(-1, -1)); // one past the bottom edge
    QCOMPARE(c.pixelAt(QPointF(12, 22), QSize()), QPoint(-1, -1)); // no image
}

void TestViewParts::regionCoversTheScreenInBlocksOrTheWholeImage()
{
    ViewCamera c;
    ImageSlot s = slotOf(2000, 1200);
    c.setFrame(1.0, QSizeF(200, 100));
    c.assign(8.0, QPointF(-8000, -4000)); // image pixels 1000..1025 x 500..512.5 on screen
    const displaymap::Region r = c.regionFor(s, false);
    QCOMPARE(r.x % 64, 0);
    QCOMPARE(r.y % 64, 0);
    QVERIFY(r.x <= 1000 - 64 && r.x + r.width >= 1025 + 64);
    QVERIFY(r.y <= 500 - 64 && r.y + r.height >= 513 + 64);
    QVERIFY(r.x + r.width <= s.width && r.y + r.height <= s.height);
    QCOMPARE(c.regionFor(s, true), (displaymap::Region{0, 0, 2000, 1200})); // padding reads anywhere
    s.factorX = 2; // a reduced texture holds the whole image
    QCOMPARE(c.regionFor(s, false), (displaymap::Region{0, 0, 2000, 1200}));
    // A region held that the screen has left is stale; the one it asks for is not.
    s.factorX = 1;
    s.premapped = s.hostValid = true;
    s.region = r;
    QVERIFY(!c.regionStale(s, false));
    c.assign(8.0, QPointF(0, 0)); // the top-left corner now
    QVERIFY(c.regionStale(s, false));
}

void TestViewParts::pressBecomesAPanOnlyPastTheThreshold()
{
    ViewCamera c;
    c.assign(1.0, QPointF(5, 5));
    c.press(QPointF(100, 100), false);
    QCOMPARE(c.drag(), ViewCamera::Drag::Pending);
    QVERIFY(!c.startPanIfMoved(QPointF(102, 101), 4));
    QCOMPARE(c.drag(), ViewCamera::Drag::Pending);
    QVERIFY(c.startPanIfMoved(QPointF(103, 101), 4));
    QCOMPARE(c.drag(), ViewCamera::Drag::Pan);
    QCOMPARE(c.pannedOrigin(QPointF(90, 130)), QPointF(-5, 35));
    c.release();
    QCOMPARE(c.drag(), ViewCamera::Drag::None);
    c.press(QPointF(50, 0), true);
    QCOMPARE(c.drag(), ViewCamera::Drag::Divider);
}

void TestViewParts::sceneRejectsBadInputAndKeepsItsState()
{
    ViewScene s;
    QVERIFY(s.setPadding(true, 5));
    QVERIFY(!s.setPadding(true, 5)); // nothing changes
    QVERIFY_THROWS_EXCEPTION(convlab::Error, s.setPadding(true, 0));
    QVERIFY_THROWS_EXCEPTION(convlab::Error, s.setPadding(true, ViewScene::kMaxPaddingMargin + 1));
    QVERIFY(s.padding);
    QCOMPARE(s.padMargin, 5);
    QVERIFY(s.setPadding(true, ViewScene::kMaxPaddingMargin));
    QVERIFY(s.setPadding(false, 0)); // off takes any margin and keeps the last
    QCOMPARE(s.padMargin, ViewScene::kMaxPaddingMargin);

    s.setBand(1, 2, 3, 4);
    QVERIFY_THROWS_EXCEPTION(convlab::Error, s.setBand(0, 0, -1, 0));
    QCOMPARE(s.band[2], 3);

    convlab::Border b{convlab::BorderMode::Constant, 0.25f};
    QVERIFY(s.setBorder(b));
    QVERIFY(!s.setBorder(b));
    b.value = std::numeric_limits<float>::quiet_NaN();
    QVERIFY_THROWS_EXCEPTION(convlab::Error, s.setBorder(b));
    QCOMPARE(s.padBorder.value, 0.25f);

    s.setDifferenceScale(display::DifferenceScale::Relative, 2.0);
    QVERIFY_THROWS_EXCEPTION(convlab::Error, s.setDifferenceScale(display::DifferenceScale::Absolute, -1.0));
    QVERIFY_THROWS_EXCEPTION(convlab::Error,
                             s.setDifferenceScale(display::DifferenceScale::Absolute, std::nan("")));
    QCOMPARE(s.diffScale, display::DifferenceScale::Relative);
    QCOMPARE(s.diffAbsoluteMax, 2.0);
}

void TestViewParts::sceneSaysWhatIsOnScreen()
{
    ViewScene s;
    s.viewMode = display::Mode::Difference;
    QVERIFY(s.diffOnScreen() && !s.resultOnScreen() && !s.sourceOnScreen());
    s.originalHeld = true; // Space held: the original, whatever the mode
    QCOMPARE(s.shownMode(), display::Mode::Original);
    QVERIFY(s.sourceOnScreen() && !s.diffOnScreen());
    s.originalHeld = false;
    s.viewMode = display::Mode::Result;
    QVERIFY(!s.sourceOnScreen());
    s.padding = true; // the margin shows the original
    QVERIFY(s.sourceOnScreen() && s.resultOnScreen());

    // The geometry follows the result, else the source, else the difference.
    auto image = [](int w, int h) { return std::make_shared<const convlab::Image>(w, h, 1); };
    s.diff.assign(image(7, 7), true);
    QCOMPARE(s.reference().width, 7);
    s.assignSource(image(5, 3));
    QCOMPARE(s.reference().width, 5);
    s.result.assign(image(2, 9), false);
    QCOMPARE(s.reference().height, 9);
    QVERIFY(s.mappingCaption().size() > 0); // a result on screen is described
    s.viewMode = display::Mode::Original;
    QVERIFY(s.mappingCaption().isEmpty());
}

QTEST_GUILESS_MAIN(TestViewParts)
#include "test_viewparts.moc"
