// SPDX-License-Identifier: GPL-3.0-or-later
// Image statistics and block reductions (convlab/imagestats.h) against independent per-pixel
// models: whole images, every channel, sizes from 1x1 to odd and prime, factors that do not
// divide the size, non-finite values.
#include <QtTest>

#include <cmath>
#include <cstdint>
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
    // The diverging map's limit: a quantile of |v|, robust to a few outliers.
    void robustLimitIgnoresAFewOutliers();
    // ---- the display range ----

    // What a float image's values say its range is; integer depths keep theirs.
    void displayRangeFromTheValues()
    {
        QCOMPARE(displayRange(SampleDepth::F32, 0.0), 1.0);
        QCOMPARE(displayRange(SampleDepth::F32, 1.0), 1.0);
        QCOMPARE(displayRange(SampleDepth::F32, std::nan("")), 1.0); // no finite value
        QCOMPARE(displayRange(SampleDepth::F32, 1.5), 255.0);
        QCOMPARE(displayRange(SampleDepth::F32, 255.0), 255.0);
        QCOMPARE(displayRange(SampleDepth::F32, 255.5), 65535.0);
        QCOMPARE(displayRange(SampleDepth::F32, 65535.0), 65535.0);
        QCOMPARE(displayRange(SampleDepth::F32, 1e6), 1e6);
        QCOMPARE(displayRange(SampleDepth::U8, 1e6), 255.0);
        QCOMPARE(displayRange(SampleDepth::U16, 3.0), 65535.0);
    }

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

    // Into an output of the right shape: its memory is reused and the values are reduceByBlocks'
    // own; another shape reshapes it; the input itself is refused.
    void blocksIntoReuseTheOutput()
    {
        const Image a = test::randomImage(37, 23, 3, 5, true), b = test::randomImage(37, 23, 3, 6, true);
        Image out;
        reduceByBlocksInto(a, 4, 4, out);
        QCOMPARE(out.data, reduceByBlocks(a, 4, 4).data);
        const float* memory = out.data.data();
        reduceByBlocksInto(b, 4, 4, out);
        QCOMPARE(out.data.data(), memory);
        QCOMPARE(out.data, reduceByBlocks(b, 4, 4).data);
        reduceByBlocksInto(b, 2, 3, out);
        QCOMPARE(out.width, 19);
        QCOMPARE(out.height, 8);
        QCOMPARE(out.data, reduceByBlocks(b, 2, 3).data);
        Image self = a;
        QVERIFY_THROWS_EXCEPTION(Error, reduceByBlocksInto(self, 2, 2, self));
        // Threads share the rows: the same values for any count, each factor's loop included.
        const Image big = test::randomImage(1283, 517, 3, 8);
        for (int f : {2, 3, 4, 8, 16}) {
            Image one, all, three;
            reduceByBlocksInto(big, f, f, one, 1);
            reduceByBlocksInto(big, f, f, all, 0);
            reduceByBlocksInto(big, f, f, three, 3);
            QCOMPARE(all.data, one.data);
            QCOMPARE(three.data, one.data);
        }
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

    // ---- histograms ----

    // Every sample lands in exactly one place: a bin, below or above the range, or one of the
    // non-finite counts; so each channel's counts add up to its pixel count.
    void histogramCountsAddUp_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("channels");
        QTest::addColumn<bool>("integers");
        QTest::newRow("1x1x1") << 1 << 1 << 1 << false;
        QTest::newRow("17x13x3 float") << 17 << 13 << 3 << false;
        QTest::newRow("31x7x4 integers") << 31 << 7 << 4 << true;
        QTest::newRow("257x3x2") << 257 << 3 << 2 << false;
    }
    void histogramCountsAddUp()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, channels);
        QFETCH(bool, integers);
        Image im = test::randomImage(w, h, channels, 7, integers);
        if (im.data.size() > 4) {
            im.data[1] = kNaN;
            im.data[im.data.size() / 2] = kInf;
            im.data.back() = -kInf;
        }
        const std::uint64_t pixels = std::uint64_t(w) * h;
        for (const Histogram& hist : {imageHistogram(im, 256), imageHistogram(im, 10, 90.0, 110.0)}) {
            QCOMPARE(int(hist.channels.size()), channels);
            std::uint64_t nonFinite = 0;
            for (const ChannelHistogram& ch : hist.channels) {
                QCOMPARE(int(ch.counts.size()), hist.bins);
                QCOMPARE(ch.total(), pixels);
                QCOMPARE(ch.finite + ch.nonFinite(), pixels);
                nonFinite += ch.nonFinite();
            }
            QCOMPARE(nonFinite, std::uint64_t(im.data.size() > 4 ? 3 : 0));
        }
        // The automatic range leaves nothing outside it.
        for (const ChannelHistogram& ch : imageHistogram(im, 256).channels) QCOMPARE(ch.below + ch.above, 0u);
    }

    // An 8-bit ramp: one bin per level, one count each; a channel of two levels.
    void histogramOfKnownImages()
    {
        Image im(16, 16, 2, SampleDepth::U8);
        for (int i = 0; i < 256; ++i) {
            im.data[i] = float(i);                   // plane 0: 0..255 once each
            im.data[256 + i] = i < 100 ? 7.0f : 9.0f; // plane 1: 100 sevens, 156 nines
        }
        const Histogram h = imageHistogram(im, 256);
        QCOMPARE(h.bins, 256);
        QCOMPARE(h.lo, -0.5);
        QCOMPARE(h.hi, 255.5);
        QCOMPARE(h.binCentre(200), 200.0);
        QCOMPARE(h.channels[0].counts, std::vector<std::uint64_t>(256, 1));
        std::vector<std::uint64_t> second(256, 0);
        second[7] = 100;
        second[9] = 156;
        QCOMPARE(h.channels[1].counts, second);
        QCOMPARE(h.channels[0].min, 0.0f);
        QCOMPARE(h.channels[0].max, 255.0f);
        QCOMPARE(h.channels[1].min, 7.0f);
        QCOMPARE(h.channels[1].max, 9.0f);

        // Fewer bins than levels: equal bins from the smallest to the largest value.
        const Histogram coarse = imageHistogram(im, 4);
        QCOMPARE(coarse.lo, 0.0);
        QCOMPARE(coarse.hi, 255.0);
        QCOMPARE(coarse.channels[0].counts, (std::vector<std::uint64_t>{64, 64, 64, 64}));
        QCOMPARE(coarse.channels[1].counts, (std::vector<std::uint64_t>{256, 0, 0, 0}));

        // An explicit range: bins are half-open but the last holds hi; outside is counted apart.
        Image small(7, 1, 1);
        small.data = {-1.0f, 0.0f, 1.0f, 1.999f, 2.0f, 4.0f, 4.5f};
        const Histogram e = imageHistogram(small, 4, 0.0, 4.0);
        QCOMPARE(e.channels[0].counts, (std::vector<std::uint64_t>{1, 2, 1, 1}));
        QCOMPARE(e.channels[0].below, 1u);
        QCOMPARE(e.channels[0].above, 1u);
        // Float values that are not whole: maxBins bins over their span.
        small.data = {0.25f, 0.5f, 0.75f, 1.0f, 1.0f, 0.25f, 0.3f};
        const Histogram f = imageHistogram(small, 3);
        QCOMPARE(f.lo, 0.25);
        QCOMPARE(f.hi, 1.0);
        QCOMPARE(f.channels[0].counts, (std::vector<std::uint64_t>{3, 1, 3}));
    }

    void histogramCountsNonFiniteValuesApart()
    {
        Image im(3, 2, 2);
        im.data = {kNaN, kInf, -kInf, kNaN, 5.0f, 6.0f, /* plane 1 */ 1.0f, 2.0f, 3.0f, 4.0f, kInf, kInf};
        const Histogram h = imageHistogram(im, 256);
        const ChannelHistogram& a = h.channels[0];
        QCOMPARE(a.nan, 2u);
        QCOMPARE(a.posInf, 1u);
        QCOMPARE(a.negInf, 1u);
        QCOMPARE(a.finite, 2u);
        QCOMPARE(a.min, 5.0f);
        QCOMPARE(a.max, 6.0f);
        QCOMPARE(h.channels[1].posInf, 2u);
        QCOMPARE(h.channels[1].nan, 0u);
        QCOMPARE(h.lo, 0.5); // whole numbers 1..6 over both channels
        QCOMPARE(h.bins, 6);
        std::uint64_t binned = 0;
        for (std::uint64_t c : a.counts) binned += c;
        QCOMPARE(binned, 2u);
        // No finite value at all: the range 0..1, every sample counted as non-finite.
        Image none(2, 1, 1);
        none.data = {kNaN, -kInf};
        const Histogram n = imageHistogram(none, 8);
        QCOMPARE(n.lo, 0.0);
        QCOMPARE(n.hi, 1.0);
        QCOMPARE(n.channels[0].finite, 0u);
        QCOMPARE(n.channels[0].total(), 2u);
        // One finite value: one bin around it.
        none.data = {0.3f, kNaN};
        const Histogram one = imageHistogram(none, 8);
        QCOMPARE(one.bins, 1);
        QCOMPARE(one.channels[0].counts[0], 1u);
    }

    void histogramRejectsBadArguments()
    {
        const Image im = test::randomImage(4, 4, 1, 3);
        QVERIFY(errorOf([&] { imageHistogram(im, 0); }).contains("0 bins is outside 1..65536"));
        QVERIFY(errorOf([&] { imageHistogram(im, 4, 2.0, 2.0); }).contains("is not an interval"));
        QVERIFY(errorOf([&] { imageHistogram(im, 4, 0.0, double(kInf)); }).contains("is not an interval"));
        QVERIFY(errorOf([&] { imageHistogram(Image(), 4); }).contains("histogram: the image is empty"));
        std::atomic<bool> cancel{true};
        QVERIFY_THROWS_EXCEPTION(Cancelled, imageHistogram(im, 4, &cancel));
    }
};

void TestImageStats::robustLimitIgnoresAFewOutliers()
{
    // 1000 values ±1..±1000 in one plane: 99.5% lie within ±995.
    Image image(1000, 1, 1);
    for (int i = 0; i < 1000; ++i) image.data[i] = float(i % 2 ? i + 1 : -(i + 1));
    const SymmetricLimit l = robustSymmetricLimit(image, 1, 0.995);
    QVERIFY2(std::fabs(l.limit - 995.0f) <= 1000.0f / (1 << 22), qPrintable(QString::number(l.limit, 'g', 9)));
    QCOMPARE(l.finite, std::uint64_t(1000));
    QCOMPARE(l.clipped, std::uint64_t(5));
    QVERIFY(std::fabs(l.clippedFraction() - 0.005) < 1e-12);
    // Quantile 1: the largest magnitude, nothing clipped.
    QCOMPARE(robustSymmetricLimit(image, 1, 1.0).limit, 1000.0f);
    QCOMPARE(robustSymmetricLimit(image, 1, 1.0).clipped, std::uint64_t(0));
    // Mostly zeros: the values that are not zero stay visible (the largest magnitude).
    Image sparse(100, 10, 1);
    sparse.data[17] = -3.0f;
    sparse.data[400] = 2.0f;
    QCOMPARE(robustSymmetricLimit(sparse, 1, 0.995).limit, 3.0f);
    // Non-finite values are not counted.
    image.data[0] = std::numeric_limits<float>::quiet_NaN();
    image.data[2] = std::numeric_limits<float>::infinity();
    QCOMPARE(robustSymmetricLimit(image, 1, 0.995).finite, std::uint64_t(998));
    QVERIFY_THROWS_EXCEPTION(convlab::Error, robustSymmetricLimit(image, 1, 0.0));
    QVERIFY_THROWS_EXCEPTION(convlab::Error, robustSymmetricLimit(image, 2, 0.5));
}

QTEST_APPLESS_MAIN(TestImageStats)
#include "test_imagestats.moc"
