// SPDX-License-Identifier: GPL-3.0-or-later
// Reliability of values (docs/semantics.md, Non-finite values): every method makes exactly the
// reference's outputs non-finite, of the same kind, and the rest within its tolerance; values
// near the float limit do not overflow in one method only; comparisons count non-finite values
// instead of folding them into the statistics; the separable method's working memory is bounded.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/modes.h"
#include "methods/methods.h"
#include "methods/separable.h"
#include "testutil.h"
#include "engine/threadpool.h"

using namespace convlab;
using namespace convlab::test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// 0 finite, 1 NaN, 2 +inf, 3 -inf.
int kindOf(float v)
{
    if (std::isfinite(v)) return 0;
    if (std::isnan(v)) return 1;
    return v > 0 ? 2 : 3;
}
const char* kindName(int k) { return k == 0 ? "finite" : k == 1 ? "NaN" : k == 2 ? "+inf" : "-inf"; }

// Empty when `got` has the reference's non-finite values exactly (same positions, same kinds)
// and its finite values within tol * max(|scale| sum|K| M, 1e-3), M the largest finite |input|
// (at least 0.5); otherwise where and how it differs.
QString agreement(const Image& got, const Image& want, const Image& in, const ConvolveParams& p, double tol)
{
    if (!got.sameShape(want)) return QStringLiteral("shape differs");
    double maxIn = 0.5;
    for (float v : in.data)
        if (std::isfinite(v)) maxIn = std::max(maxIn, double(std::fabs(v)));
    const double bound = tol * std::max(std::fabs(p.scale) * p.kernel.absSum() * maxIn, 1e-3);
    for (int c = 0; c < got.channels; ++c)
        for (int y = 0; y < got.height; ++y)
            for (int x = 0; x < got.width; ++x) {
                const float g = got.at(c, y, x), r = want.at(c, y, x);
                if (kindOf(g) != kindOf(r))
                    return QStringLiteral("(%1,%2,%3): %4 where the reference has %5 (%6 vs %7)")
                        .arg(x).arg(y).arg(c).arg(kindName(kindOf(g)), kindName(kindOf(r))).arg(g).arg(r);
                if (kindOf(g) == 0 && !(std::fabs(double(g) - double(r)) <= bound))
                    return QStringLiteral("(%1,%2,%3): %4 vs reference %5, bound %6").arg(x).arg(y).arg(c).arg(g).arg(r).arg(bound);
            }
    return {};
}

long long countNonFinite(const Image& img)
{
    long long n = 0;
    for (float v : img.data) n += !std::isfinite(v);
    return n;
}

// Non-finite samples of every kind at the corners, on every edge and inside, in every channel.
Image imageWithNonFinite(int w, int h, int channels, std::uint32_t seed)
{
    Image img = randomImage(w, h, channels, seed);
    const float kinds[] = {kNaN, kInf, -kInf};
    const int spots[][2] = {{0, 0},         {w - 1, 0},     {0, h - 1},    {w - 1, h - 1}, {w / 2, 0},
                            {0, h / 2},     {w - 1, h / 3}, {w / 3, h - 1}, {w / 2, h / 2}, {w / 4, h / 3}};
    int i = 0;
    for (int c = 0; c < channels; ++c)
        for (const auto& s : spots) img.at(c, s[1], s[0]) = kinds[(i++ + c) % 3];
    return img;
}

// The kernels whose taps make every kind of term: zero taps (0 x inf = NaN), both signs, a
// rank-1 kernel with a zero column, one of mixed signs, a rank-2 one whose pass pairs would add
// +inf and -inf, an all-zero one (rank 0), and a 1x1.
std::vector<std::pair<const char*, Kernel>> kernels()
{
    Kernel dense = randomKernel(5, 7, KernelKind::Dense, 7);
    dense.values[3] = 0.0f;
    dense.values[17] = 0.0f;
    return {{"dense 5x7 with zero taps", dense},
            {"sobel", parseKernelText("1 0 -1; 2 0 -2; 1 0 -1")},
            {"rank1 4x3", randomKernel(4, 3, KernelKind::Rank1, 2)},
            {"rank2 3x3", randomKernel(3, 3, KernelKind::Rank2, 1)},
            {"zero 3x3", Kernel(3, 3, std::vector<float>(9, 0.0f))},
            {"1x1", Kernel(1, 1, {-2.0f})}};
}

// Runs `p` with every method on the CPU and checks each against the reference; `label` names
// the case.
void checkEveryMethod(const Image& in, ConvolveParams p, const QString& label)
{
    p.device = Device::Cpu; // the CUDA methods are held to this rule apart (docs/semantics.md)
    p.method = Method::Reference;
    const Image want = convolve(in, p);
    QVERIFY2(countNonFinite(want) > 0 || countNonFinite(in) == 0, qPrintable(label));
    for (const MethodInfo& m : methods()) {
        if (m.method == Method::Reference) continue;
        p.method = m.method;
        RunReport report;
        const Image got = convolve(in, p, &report);
        const QString why = agreement(got, want, in, p, toleranceOf(methodInfo(report.method).accuracy));
        QVERIFY2(why.isEmpty(), qPrintable(label + " " + m.name + " (ran " + methodName(report.method).c_str() +
                                           "): " + why));
    }
}

} // namespace

class TestNonFinite : public QObject {
    Q_OBJECT
private slots:
    // Small images on several threads: every run takes the threads it asks for.
    void initTestCase() { detail::setThreadsAsAskedForTests(true); }

    // Every method, every border mode, kernels of every kind of tap, both semantics, and a
    // negative scale with an offset (which turn +inf into -inf).
    void sameNonFiniteOutputsAsReference_data()
    {
        QTest::addColumn<int>("kernelIndex");
        QTest::addColumn<int>("mode");
        const auto ks = kernels();
        for (int i = 0; i < int(ks.size()); ++i)
            for (const BorderModeInfo& mode : borderModes())
                QTest::addRow("%s %s", ks[i].first, mode.name) << i << int(mode.mode);
    }
    void sameNonFiniteOutputsAsReference()
    {
        QFETCH(int, kernelIndex);
        QFETCH(int, mode);
        const Image in = imageWithNonFinite(37, 29, 2, 5);
        ConvolveParams p;
        p.kernel = kernels()[kernelIndex].second;
        p.border = {BorderMode(mode), 2.5f};
        p.threads = 3;
        for (Semantics s : {Semantics::Convolution, Semantics::Correlation}) {
            p.semantics = s;
            p.scale = 1.0;
            p.offset = 0.0;
            checkEveryMethod(in, p, QStringLiteral("semantics %1").arg(int(s)));
            p.scale = -0.75;
            p.offset = 3.0;
            checkEveryMethod(in, p, QStringLiteral("scale -0.75 offset 3, semantics %1").arg(int(s)));
            if (QTest::currentTestFailed()) return;
        }
    }

    // A kernel larger than the image: the border rule repeats each non-finite sample many times.
    void kernelLargerThanImage()
    {
        Image in = randomImage(5, 4, 1, 9);
        in.at(0, 1, 4) = kInf;
        in.at(0, 3, 0) = kNaN;
        for (const BorderModeInfo& mode : borderModes()) {
            ConvolveParams p;
            p.kernel = randomKernel(9, 7, KernelKind::Dense, 3);
            p.border = {mode.mode, -1.0f};
            checkEveryMethod(in, p, QString::fromLatin1(mode.name));
            if (QTest::currentTestFailed()) return;
        }
    }

    // The FFT over several overlap-save tiles, with non-finite samples on and near the seams.
    void fftTilesKeepNonFiniteLocal()
    {
        const int w = 1100, h = 40;
        const Kernel k = randomKernel(9, 9, KernelKind::Dense, 11);
        const detail::FftTiling t = detail::fftTiling(w, h, k.width, k.height);
        QVERIFY(t.tilesX > 1);
        Image in = randomImage(w, h, 1, 4);
        for (int x : {t.outW - 1, t.outW, t.outW + 3, 2 * t.outW - 2, w - 1}) in.at(0, 20, x) = x % 2 ? kInf : kNaN;
        in.at(0, 0, t.outW + 1) = -kInf;
        for (const BorderModeInfo& mode : borderModes()) {
            ConvolveParams p;
            p.kernel = k;
            p.border = {mode.mode, 1.0f};
            p.device = Device::Cpu;
            p.method = Method::Reference;
            const Image want = convolve(in, p);
            p.method = Method::Fft;
            const Image got = convolve(in, p);
            const QString why = agreement(got, want, in, p, toleranceOf(Accuracy::Fft));
            QVERIFY2(why.isEmpty(), qPrintable(QString::fromLatin1(mode.name) + ": " + why));
        }
    }

    // One NaN in a 600x600 image: a 7x7 kernel makes exactly 49 NaN outputs, whichever method,
    // including auto when it picks the FFT for a larger kernel.
    void oneNanStaysLocal()
    {
        Image in = randomImage(600, 600, 1, 2);
        in.at(0, 300, 300) = kNaN;
        ConvolveParams p;
        p.kernel = randomKernel(7, 7, KernelKind::Dense, 5);
        p.device = Device::Cpu;
        for (const MethodInfo& m : methods()) {
            p.method = m.method;
            const Image out = convolve(in, p);
            QCOMPARE(countNonFinite(out), 49LL);
        }
        p.kernel = randomKernel(101, 101, KernelKind::Dense, 6);
        p.method = Method::Auto;
        RunReport report;
        const Image out = convolve(in, p, &report);
        QVERIFY2(report.method == Method::Fft, qPrintable(QString::fromStdString("auto ran " + methodName(report.method) + ": " + report.reason)));
        QCOMPARE(countNonFinite(out), 101LL * 101);
    }

    // Values near the float limit: where the sum stays in range every method gives a finite
    // result within its tolerance; where it does not, every method gives the reference's +inf.
    void valuesNearTheFloatLimit()
    {
        Image in = randomImage(300, 200, 1, 8);
        for (int y = 50; y < 90; ++y)
            for (int x = 100; x < 180; ++x) in.at(0, y, x) = (x + y) % 3 ? 3e38f : -2.5e38f;
        in.at(0, 150, 150) = 3.3e38f;
        for (const BorderModeInfo& mode : borderModes()) {
            ConvolveParams p;
            // An average, never beyond the largest input.
            p.kernel = Kernel(7, 7, std::vector<float>(49, 1.0f / 49));
            p.border = {mode.mode, 0.0f};
            checkEveryMethod(in, p, QStringLiteral("box average, %1").arg(mode.name));
            if (QTest::currentTestFailed()) return;
            // The same average as a box of ones with normalize: direct and separable add the
            // taps in float before the scale, so their sums overflow; those outputs are written
            // again from the reference's double sum.
            p.kernel = Kernel(7, 7, std::vector<float>(49, 1.0f));
            p.normalize = true;
            checkEveryMethod(in, p, QStringLiteral("normalized box of ones, %1").arg(mode.name));
            if (QTest::currentTestFailed()) return;
        }
        // Partial sums beyond the range whose whole is not: 3e38 + 3e38 - 3e38 over a row of
        // 3e38, in float an infinity, in double 3e38. With a second pass pair (rank 2) too.
        Image row = randomImage(64, 9, 1, 31);
        for (int x = 0; x < 64; ++x) row.at(0, 4, x) = 3e38f;
        for (const char* text : {"1 1 -1", "1 1 -1; 0 0 0; 0 1 0"}) {
            ConvolveParams p;
            p.kernel = parseKernelText(text);
            checkEveryMethod(row, p, QStringLiteral("partial sums of %1").arg(text));
            if (QTest::currentTestFailed()) return;
            p.method = Method::Reference;
            p.device = Device::Cpu;
            QCOMPARE(countNonFinite(convolve(row, p)), 0LL);
        }
        // Two large values under a 3x3 of ones overflow in every method alike.
        Image big = randomImage(40, 30, 1, 3);
        for (int x = 10; x < 20; ++x) big.at(0, 15, x) = 3e38f;
        ConvolveParams p;
        p.kernel = Kernel(3, 3, std::vector<float>(9, 1.0f));
        p.device = Device::Cpu;
        p.method = Method::Reference;
        const Image want = convolve(big, p);
        QVERIFY(countNonFinite(want) > 0);
        checkEveryMethod(big, p, QStringLiteral("3x3 ones over 3e38"));
        // The FFT alone on a large image of large values: no tile overflows.
        Image large = randomImage(1500, 64, 1, 12);
        for (float& v : large.data) v *= 1e36f; // up to about 2e38
        p.kernel = randomKernel(11, 11, KernelKind::Dense, 2);
        const float absSum = float(p.kernel.absSum());
        for (float& v : p.kernel.values) v /= absSum; // sums never beyond the largest input
        p.method = Method::Direct;
        const Image direct = convolve(large, p);
        p.method = Method::Fft;
        const Image fft = convolve(large, p);
        QCOMPARE(countNonFinite(direct), 0LL);
        QCOMPARE(countNonFinite(fft), 0LL);
        QVERIFY(relativeError(fft, direct, p.kernel, large) <= toleranceOf(Accuracy::Fft));
    }

    // A kernel of very large taps: the FFT scales its spectrum too.
    void kernelOfLargeTaps()
    {
        const Image in = randomImage(64, 48, 1, 21);
        ConvolveParams p;
        p.kernel = randomKernel(5, 5, KernelKind::Dense, 4);
        for (float& v : p.kernel.values) v *= 1e33f;
        checkEveryMethod(in, p, QStringLiteral("taps of 1e33"));
    }

    // --compare and the Difference panel: counts, never NaN statistics.
    void compareCountsNonFinite()
    {
        Image a(4, 2, 2), b(4, 2, 2);
        for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] = b.data[i] = float(i);
        a.at(0, 0, 0) = kNaN;  // NaN in both: matched
        b.at(0, 0, 0) = kNaN;
        a.at(0, 0, 1) = kInf;  // +inf in both: matched
        b.at(0, 0, 1) = kInf;
        a.at(0, 0, 2) = kInf;  // +inf against -inf
        b.at(0, 0, 2) = -kInf;
        a.at(1, 1, 3) = kNaN;  // NaN against a finite value
        b.at(0, 1, 0) = -kInf; // a finite value against -inf
        a.at(1, 0, 0) = kNaN;  // NaN against +inf
        b.at(1, 0, 0) = kInf;
        b.at(1, 1, 1) += 0.25f;
        const DiffStats s = compareImages(a, b);
        QCOMPARE(s.nonFiniteA, 5LL);
        QCOMPARE(s.nonFiniteB, 5LL);
        QCOMPARE(s.nonFiniteMismatch, 4LL);
        QCOMPARE(s.finiteBoth, 16LL - 6);
        QCOMPARE(s.maxAbs, 0.25);
        QCOMPARE(s.maxX, 1);
        QCOMPARE(s.maxY, 1);
        QCOMPARE(s.maxC, 1);
        QVERIFY(std::isfinite(s.meanAbs) && std::fabs(s.meanAbs - 0.25 / 10) < 1e-12);
        QVERIFY(std::isfinite(s.rmse) && std::isfinite(s.psnr));

        const DiffStats same = compareImages(a, a);
        QCOMPARE(same.nonFiniteMismatch, 0LL);
        QCOMPARE(same.nonFiniteA, 5LL);
        QCOMPARE(same.maxAbs, 0.0);
        QVERIFY(std::isinf(same.psnr));

        Image allNan(2, 2, 1);
        std::fill(allNan.data.begin(), allNan.data.end(), kNaN);
        const DiffStats none = compareImages(allNan, Image(2, 2, 1));
        QCOMPARE(none.finiteBoth, 0LL);
        QCOMPARE(none.nonFiniteMismatch, 4LL);
        QCOMPARE(none.maxAbs, 0.0);
        QCOMPARE(none.meanAbs, 0.0);
    }

    // The difference view's image: a - b per sample, non-finite values as IEEE gives them, and
    // a shape mismatch refused.
    void differenceImageSubtractsPerSample()
    {
        Image a(3, 2, 2), b(3, 2, 2);
        for (std::size_t i = 0; i < a.data.size(); ++i) {
            a.data[i] = float(i) * 1.5f;
            b.data[i] = float(i);
        }
        a.at(1, 1, 2) = kInf;
        b.at(0, 0, 1) = kNaN;
        const Image d = differenceImage(a, b);
        QCOMPARE(d.width, 3);
        QCOMPARE(d.height, 2);
        QCOMPARE(d.channels, 2);
        for (std::size_t i = 0; i < d.data.size(); ++i) {
            const float want = a.data[i] - b.data[i];
            if (std::isnan(want))
                QVERIFY(std::isnan(d.data[i]));
            else
                QCOMPARE(d.data[i], want);
        }
        QVERIFY(std::isinf(d.at(1, 1, 2)));
        QVERIFY(std::isnan(d.at(0, 0, 1)));
        QVERIFY_THROWS_EXCEPTION(convlab::Error, differenceImage(a, Image(2, 3, 2)));
    }

    // The separable method's ring stays within its budget per thread, and the schedules that
    // split it (groups of components, strips of columns) give the same result, bit for bit, as
    // one pass over everything.
    void separableMemoryIsBounded()
    {
        const std::size_t budget = detail::kSeparableRingBudget;
        auto unbounded = [](int w, int kh, int rank) { return sizeof(float) * std::size_t(rank) * kh * w; };
        // A full-rank 1025x1025 kernel over 1024 columns used to take 4.3 GB per thread.
        QVERIFY(unbounded(1024, 1025, 1025) > std::size_t(4) << 30);
        const detail::SeparableSchedule full = detail::separableSchedule(1024, 1025, 1025);
        QVERIFY(full.ringBytes <= budget);
        QCOMPARE(full.stripWidth, 1024);
        QVERIFY(full.groupSize >= 1 && full.groupSize < 1025);
        // The widest image with the tallest kernel: strips.
        const detail::SeparableSchedule wide = detail::separableSchedule(65536, 1025, 1);
        QVERIFY(wide.ringBytes <= budget);
        QVERIFY(wide.stripWidth < 65536 && wide.stripWidth % 64 == 0);
        // Normal kernels keep one group and one strip: the schedule they always had.
        const detail::SeparableSchedule normal = detail::separableSchedule(4096, 31, 2);
        QCOMPARE(normal.groupSize, 2);
        QCOMPARE(normal.stripWidth, 4096);
        QVERIFY(normal.rowStride >= 4096 && normal.rowStride <= 4096 + 32);
        QCOMPARE(detail::separableRingRows(31), 31 + detail::kColumnPassRows - 1);
        QCOMPARE(normal.ringBytes, sizeof(float) * 2 * detail::separableRingRows(31) * normal.rowStride);
    }

    void separableScheduleKeepsResults_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("kw");
        QTest::addColumn<int>("kh");
        QTest::addColumn<qulonglong>("budget");
        QTest::addColumn<int>("groups");
        QTest::addColumn<int>("strips");
        const qulonglong full = detail::kSeparableRingBudget;
        // The default budget: over it by the components (5x129 rank 5) and by the columns (3x257).
        QTest::newRow("65536x2, 5x129, default budget") << 65536 << 2 << 5 << 129 << full << 5 << 1;
        QTest::newRow("65536x2, 3x257, default budget") << 65536 << 2 << 3 << 257 << full << 3 << 2;
        // Small budgets on small images: many groups and strips, ragged last ones.
        // (A 9-row kernel keeps 12 ring rows: 48 bytes a column.)
        QTest::newRow("300x23, 9x9, 40 KiB") << 300 << 23 << 9 << 9 << qulonglong(40 << 10) << 5 << 1;
        QTest::newRow("300x23, 9x9, 8 KiB") << 300 << 23 << 9 << 9 << qulonglong(8 << 10) << 9 << 3;
        QTest::newRow("1000x7, 7x5, 1 byte") << 1000 << 7 << 7 << 5 << qulonglong(1) << 5 << 16;
    }
    void separableScheduleKeepsResults()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, kw);
        QFETCH(int, kh);
        QFETCH(qulonglong, budget);
        QFETCH(int, groups);
        QFETCH(int, strips);
        Image in = randomImage(w, h, 2, 17);
        in.at(1, h / 2, std::min(w - 1, 64)) = kInf; // near a strip's seam
        in.at(0, 0, w - 1) = kNaN;
        const ImagePlanes planes(in);
        detail::Job job;
        job.in = &planes;
        job.width = w;
        job.height = h;
        job.channels = 2;
        job.kernel = randomKernel(kw, kh, KernelKind::Dense, 3);
        job.border = {BorderMode::Wrap, 0.0f};
        job.offset = 1.5;
        job.threads = w > 4096 ? 1 : 2; // one unbounded ring of the wide cases is 200 MB
        const detail::SeparableFactors factors = detail::separableFactors(job.kernel);
        job.factors = &factors;
        QCOMPARE(factors.rank, std::min(kw, kh));

        const detail::SeparableSchedule s = detail::separableSchedule(w, kh, factors.rank, budget);
        QCOMPARE((factors.rank + s.groupSize - 1) / s.groupSize, groups);
        QCOMPARE((w + s.stripWidth - 1) / s.stripWidth, strips);
        if (budget >= 64 * sizeof(float) * std::size_t(kh)) QVERIFY(s.ringBytes <= budget);

        detail::StageClock clock(nullptr);
        Image split(w, h, 2), whole(w, h, 2);
        detail::runSeparableWithin(job, split, clock, budget);
        detail::runSeparableWithin(job, whole, clock, ~std::size_t(0));
        QVERIFY(std::memcmp(split.data.data(), whole.data.data(), sizeof(float) * split.data.size()) == 0);
        QCOMPARE(countNonFinite(split), 2LL * std::min(kw, w) * std::min(kh, h)); // wrap: each sample once per output
    }
};

QTEST_GUILESS_MAIN(TestNonFinite)
#include "test_nonfinite.moc"
