// SPDX-License-Identifier: GPL-3.0-or-later
// Image statistics and block reductions (convlab/imagestats.h) against independent per-pixel
// models: whole images, every channel, sizes from 1x1 to odd and prime, factors that do not
// divide the size, non-finite values.
#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>

#include "convlab/error.h"
#include "convlab/imagestats.h"
#include "testutil.h"

using namespace convlab;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// The mean of output pixel (ox, oy) of an fx x fy reduction, block clipped to the image.
double blockMean(const Image& im, int c, int ox, int oy, int fx, int fy)
{
    double sum = 0.0;
    int n = 0;
    for (int y = oy * fy; y < std::min((oy + 1) * fy, im.height); ++y)
        for (int x = ox * fx; x < std::min((ox + 1) * fx, im.width); ++x, ++n) sum += im.at(c, y, x);
    return sum / n;
}

// Largest |got - model| / max(1, |model|) over every pixel and channel; QFAIL on a shape mismatch.
double worstBlockError(const Image& got, const Image& in, int fx, int fy)
{
    double worst = 0.0;
    for (int c = 0; c < in.channels; ++c)
        for (int y = 0; y < got.height; ++y)
            for (int x = 0; x < got.width; ++x) {
                const double want = blockMean(in, c, x, y, fx, fy);
                worst = std::max(worst, std::fabs(got.at(c, y, x) - want) / std::max(1.0, std::fabs(want)));
            }
    return worst;
}

QString errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestImageStats : public QObject {
    Q_OBJECT
private slots:
    // ---- imageStats ----

    void statsOverChosenChannels()
    {
        Image im(3, 2, 3);
        for (int c = 0; c < 3; ++c)
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 3; ++x) im.at(c, y, x) = float(10 * c + 3 * y + x) - 4.0f; // -4 .. 21
        const ImageStats all = imageStats(im, 3);
        QCOMPARE(all.lo, -4.0f);
        QCOMPARE(all.hi, 21.0f);
        QCOMPARE(all.maxAbs, 21.0f);
        // Planes past `channels` are not looked at (the view leaves alpha out of the range).
        const ImageStats first = imageStats(im, 1);
        QCOMPARE(first.lo, -4.0f);
        QCOMPARE(first.hi, 1.0f);
        QCOMPARE(first.maxAbs, 4.0f); // |lo| is the larger magnitude
        const ImageStats none = imageStats(im, 0);
        QCOMPARE(none.lo, 0.0f);
        QCOMPARE(none.hi, 0.0f);
        QCOMPARE(none.maxAbs, 0.0f);
    }

    void statsOfOnePixel()
    {
        Image im(1, 1, 1);
        im.at(0, 0, 0) = -2.5f;
        const ImageStats s = imageStats(im, 1);
        QCOMPARE(s.lo, -2.5f);
        QCOMPARE(s.hi, -2.5f);
        QCOMPARE(s.maxAbs, 2.5f);
    }

    void statsIgnoreNonFiniteValues()
    {
        Image im = test::randomImage(17, 13, 2, 5);
        float lo = kInf, hi = -kInf;
        for (float v : im.data) lo = std::min(lo, v), hi = std::max(hi, v);
        im.at(0, 0, 0) = kNaN;
        im.at(0, 6, 8) = kInf;
        im.at(1, 12, 16) = -kInf;
        // The values overwritten may have been the extremes: take the expected range again.
        lo = kInf, hi = -kInf;
        for (float v : im.data)
            if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
        const ImageStats s = imageStats(im, 2);
        QCOMPARE(s.lo, lo);
        QCOMPARE(s.hi, hi);
        QCOMPARE(s.maxAbs, std::max(std::fabs(lo), std::fabs(hi)));
        QVERIFY(std::isfinite(s.lo) && std::isfinite(s.hi));
    }

    void statsOfNoFiniteValueAreZero()
    {
        Image im(4, 3, 1);
        for (std::size_t i = 0; i < im.data.size(); ++i) im.data[i] = i % 3 == 0 ? kNaN : (i % 3 == 1 ? kInf : -kInf);
        const ImageStats s = imageStats(im, 1);
        QCOMPARE(s.lo, 0.0f);
        QCOMPARE(s.hi, 0.0f);
        QCOMPARE(s.maxAbs, 0.0f);
    }

    void statsRejectChannelCounts()
    {
        const Image im(2, 2, 3);
        QVERIFY(errorOf([&] { imageStats(im, 4); }).contains("4 channels asked of an image with 3"));
        QVERIFY(!errorOf([&] { imageStats(im, -1); }).isEmpty());
    }

    // ---- reduceByBlocks ----

    void blocksMatchPerPixelMeans_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("fx");
        QTest::addColumn<int>("fy");
        QTest::newRow("1x1 by 1") << 1 << 1 << 1 << 1 << 1;
        QTest::newRow("1x1 by 3x2") << 1 << 1 << 3 << 3 << 2;
        QTest::newRow("identity 7x5") << 7 << 5 << 3 << 1 << 1;
        QTest::newRow("divides 8x6 by 2") << 8 << 6 << 1 << 2 << 2;
        QTest::newRow("odd 7x5 by 2") << 7 << 5 << 3 << 2 << 2;
        QTest::newRow("prime 13x11 by 3x4") << 13 << 11 << 4 << 3 << 4;
        QTest::newRow("row 1x29 by 1x5") << 1 << 29 << 1 << 1 << 5;
        QTest::newRow("column 31x1 by 6x1") << 31 << 1 << 2 << 6 << 1;
        QTest::newRow("factor beyond size") << 5 << 3 << 3 << 8 << 9;
        QTest::newRow("large 257x129 by 16x7") << 257 << 129 << 3 << 16 << 7;
    }
    void blocksMatchPerPixelMeans()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, channels);
        QFETCH(int, fx);
        QFETCH(int, fy);
        const Image in = test::randomImage(w, h, channels, 11u * w + h);
        const Image out = reduceByBlocks(in, fx, fy);
        QCOMPARE(out.width, (w + fx - 1) / fx);
        QCOMPARE(out.height, (h + fy - 1) / fy);
        QCOMPARE(out.channels, channels);
        QCOMPARE(out.data.size(), out.planeSize() * std::size_t(channels));
        QVERIFY2(worstBlockError(out, in, fx, fy) < 1e-6, qPrintable(QString::number(worstBlockError(out, in, fx, fy))));
    }

    void partialBlocksAverageOnlyTheirPixels()
    {
        // 5 columns by 2: blocks {0,1}, {2,3} and the partial {4}; the last keeps its own value
        // instead of being diluted by pixels that are not there.
        Image in(5, 1, 1);
        for (int x = 0; x < 5; ++x) in.at(0, 0, x) = float(x * x); // 0 1 4 9 16
        const Image out = reduceByBlocks(in, 2, 1);
        QCOMPARE(out.width, 3);
        QCOMPARE(out.at(0, 0, 0), 0.5f);
        QCOMPARE(out.at(0, 0, 1), 6.5f);
        QCOMPARE(out.at(0, 0, 2), 16.0f);
    }

    void blocksKeepDepthAndAlpha()
    {
        Image in = test::randomImage(9, 7, 4, 3, true);
        in.depth = SampleDepth::U8;
        in.hasAlpha = true;
        const Image out = reduceByBlocks(in, 2, 3);
        QCOMPARE(out.depth, SampleDepth::U8);
        QVERIFY(out.hasAlpha);
        // A constant plane stays that constant everywhere, partial blocks included.
        for (float& v : in.data) v = 42.0f;
        const Image flat = reduceByBlocks(in, 4, 4);
        for (float v : flat.data) QCOMPARE(v, 42.0f);
    }

    void nonFiniteValueStaysInItsBlock()
    {
        Image in = test::randomImage(7, 7, 2, 9);
        in.at(1, 4, 5) = kNaN; // block (2, 1) of plane 1 under 3x3
        in.at(0, 0, 0) = kInf; // block (0, 0) of plane 0
        const Image out = reduceByBlocks(in, 3, 3);
        for (int c = 0; c < 2; ++c)
            for (int y = 0; y < out.height; ++y)
                for (int x = 0; x < out.width; ++x) {
                    const bool damaged = (c == 1 && x == 1 && y == 1) || (c == 0 && x == 0 && y == 0);
                    QVERIFY2(std::isfinite(out.at(c, y, x)) != damaged,
                             qPrintable(QStringLiteral("plane %1 at %2,%3").arg(c).arg(x).arg(y)));
                }
        QVERIFY(std::isnan(out.at(1, 1, 1)));
        QCOMPARE(out.at(0, 0, 0), kInf);
    }

    void blocksRejectBadArguments()
    {
        const Image in(4, 4, 1);
        QVERIFY(errorOf([&] { reduceByBlocks(in, 0, 2); }).contains("factors 0x2"));
        QVERIFY(errorOf([&] { reduceByBlocks(in, 2, -1); }).contains("factors 2x-1"));
        QVERIFY(errorOf([&] { reduceByBlocks(Image(), 2, 2); }).contains("empty"));
    }

    // ---- downscaleByArea ----

    void downscaleFitsTheLimitWithTheSmallestFactor_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("maxPixels");
        QTest::addColumn<int>("factor"); // expected
        QTest::newRow("fits") << 30 << 20 << 600 << 1;
        QTest::newRow("1x1") << 1 << 1 << 1 << 1;
        QTest::newRow("exact halves") << 40 << 30 << 300 << 2;
        QTest::newRow("odd, partial blocks count") << 41 << 31 << 336 << 2;  // 21 x 16 = 336
        QTest::newRow("odd, one pixel over") << 41 << 31 << 335 << 3;        // 14 x 11 = 154
        QTest::newRow("prime to one pixel") << 97 << 89 << 1 << 97;
        QTest::newRow("thin row") << 1 << 1000 << 10 << 100;
        QTest::newRow("10x10 to 9") << 10 << 10 << 9 << 4; // 3 leaves 4x4 = 16, 4 leaves 3x3 = 9
    }
    void downscaleFitsTheLimitWithTheSmallestFactor()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, maxPixels);
        QFETCH(int, factor);
        const Image in = test::randomImage(w, h, 3, 21u * w + h);
        const Image out = downscaleByArea(in, maxPixels);
        QVERIFY(out.planeSize() <= std::size_t(maxPixels));
        QCOMPARE(out.width, (w + factor - 1) / factor);
        QCOMPARE(out.height, (h + factor - 1) / factor);
        QVERIFY2(worstBlockError(out, in, factor, factor) < 1e-6, "not the block means of the expected factor");
        if (factor > 1) { // one less would not have fitted
            const long long smaller = (w + factor - 2LL) / (factor - 1) * ((h + factor - 2LL) / (factor - 1));
            QVERIFY(smaller > maxPixels);
        } else {
            QVERIFY(out.data == in.data);
        }
    }

    void downscaleRejectsBadArguments()
    {
        QVERIFY(errorOf([] { downscaleByArea(Image(3, 3, 1), 0); }).contains("0 pixels"));
        QVERIFY(errorOf([] { downscaleByArea(Image(), 100); }).contains("empty"));
    }
};

QTEST_APPLESS_MAIN(TestImageStats)
#include "test_imagestats.moc"
