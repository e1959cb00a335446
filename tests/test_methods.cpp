// SPDX-License-Identifier: GPL-3.0-or-later
// Every method against the double-precision reference, over whole images, for every border
// mode, both semantics, odd/tiny/prime sizes, kernels larger than the image, 1/3/4 channels.
#include <QtTest>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/error.h"
#include "convlab/modes.h"
#include "methods/methods.h"
#include "engine/plan.h"
#include "engine/planner.h"
#include "simd/rowkernels.h"
#include "testutil.h"
#include "engine/threadpool.h"

using namespace convlab;
using namespace convlab::test;

// QVERIFY returns from the enclosing function: inside a callback, record instead.
#define EXPECT_PLAN(cond) \
    do { \
        if (!(cond)) QTest::qFail(#cond, __FILE__, __LINE__); \
    } while (0)

namespace {

const char* kindName(KernelKind k)
{
    return k == KernelKind::Dense ? "dense" : k == KernelKind::Rank1 ? "rank1" : "rank2";
}

} // namespace

class TestMethods : public QObject {
    Q_OBJECT
private slots:
    void methodsSayWhetherTheyApply();
    // The suite compares thread counts on small images: every run takes the threads it asks
    // for (smallRunsWakeNoThreads checks what runs take otherwise).
    void initTestCase() { detail::setThreadsAsAskedForTests(true); }

    void agreeWithReference_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("kw");
        QTest::addColumn<int>("kh");
        QTest::addColumn<int>("kind");
        // Widths cover every path of the SIMD row kernels: scalar tails, one vector, 4 vectors of 8 or 16.
    const int sizes[][3] = {{1, 1, 1}, {1, 9, 1}, {8, 1, 3}, {2, 3, 1}, {13, 7, 3}, {31, 17, 4}, {64, 37, 1},
                            {150, 11, 1}};
        const int kernels[][2] = {{1, 1}, {3, 3}, {2, 4}, {5, 5}, {1, 7}, {6, 1}, {9, 9}, {4, 3}, {17, 15}};
        int seed = 1;
        for (const auto& s : sizes)
            for (const auto& k : kernels) {
                const KernelKind kind = KernelKind(seed % 3);
                QTest::addRow("%dx%dx%d k%dx%d %s", s[0], s[1], s[2], k[0], k[1], kindName(kind))
                    << s[0] << s[1] << s[2] << k[0] << k[1] << int(kind);
                ++seed;
            }
    }
    void agreeWithReference()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, channels);
        QFETCH(int, kw);
        QFETCH(int, kh);
        QFETCH(int, kind);
        const Image in = randomImage(w, h, channels, 1000u + w * 31 + h);
        const Kernel k = randomKernel(kw, kh, KernelKind(kind), 77u + kw * 13 + kh);
        for (const BorderModeInfo& mode : borderModes())
            for (Semantics sem : {Semantics::Convolution, Semantics::Correlation}) {
                ConvolveParams p;
                p.kernel = k;
                p.border = {mode.mode, 3.25f};
                p.semantics = sem;
                p.method = Method::Reference;
                const Image want = convolve(in, p);
                for (Method m : methodsUnderTest()) {
                    p.method = m;
                    RunReport rep;
                    const Image got = convolve(in, p, &rep);
                    const double err = relativeError(got, want, k, in);
                    const double tol = toleranceFor(rep.method);
                    if (!(err <= tol))
                        QFAIL(qPrintable(QString("%1 %2 %3: relative error %4 > %5")
                                             .arg(QString::fromStdString(methodName(m)), mode.name,
                                                  sem == Semantics::Convolution ? "conv" : "corr")
                                             .arg(err)
                                             .arg(tol)));
                }
            }
    }

    // The kernel's factors reproduce it. Eigen 3.4.0's divide-and-conquer SVD returned factors of
    // this 16x16 kernel of rank 10 (six zero rows, flipped for convolution) whose product was 5.6
    // off in entries of 15, and separable's results 1e-4 of their scale off; the engine checks
    // the product and falls back to Jacobi. The kernel is the engine fuzzer's finding
    // (tests/fuzz/corpus/convolve/found_separable_svd.bin), here with random kernels of many
    // ranks and shapes, zero rows and columns included.
    void separableFactorsReproduceTheKernel()
    {
        const char* rows[] = {
            "13.75 12.125 -10.75 -13.5 -3.375 5.875 13.75 7.625 0 0 0 0 0 0 0 0",
            "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
            "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
            "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
            "0 0 -11.625 10 13.375 -8.875 -9 -9.125 -9.25 -9.375 -9.5 -9.625 -9.75 -9.875 -10 -10.125",
            "-10.25 -10.375 -10.5 -10.625 -10.75 -11 -10.875 6 5.875 5.75 5.625 5.5 5.375 5.25 5.125 5",
            "4.875 4.75 4.625 4.5 4.375 4.25 4.125 4 3.875 3.75 3.625 3.5 3.375 3.25 3.125 3",
            "2.875 2.75 2.625 2.5 4.75 2.375 2.25 2.125 2 1.875 1.75 1.625 1.5 5 -11.25 15.75",
            "5 -13.375 -11.25 0.875 6 -13.5 10.125 -2.75 -7.375 11 9 -7.875 13 9.875 -6.875 8.5",
            "13.75 -12 -1.5 -6.375 0 0 0.125 11.875 -6.375 1.75 -8.5 -3.75 -2.125 -2.25 5.5 7.75",
            "-7.875 9.25 -13.25 7 13.75 12.125 -10.75 -13.5 -3.375 5.875 13.75 7.625 -11.625 10 13.375 -14.5",
            "-12.875 2 -15.5 9.125 2.625 -11 -3.625 9 15.875 -2.375 12.5 4.875 -15.125 -4.625 14.375 -8.25",
            "-13.75 -12.375 3.625 1.375 1.25 1.125 1 0.875 0.75 0.625 0.5 0.375 0.25 0.125 0 0"};
        std::string text;
        for (const char* r : rows) text += std::string(r) + ";";
        std::vector<Kernel> kernels{parseKernelText(text)};
        const int shapes[][2] = {{16, 16}, {17, 15}, {9, 9}, {31, 5}, {1, 12}, {40, 40}};
        std::uint32_t seed = 5;
        for (const auto& s : shapes)
            for (KernelKind kind : {KernelKind::Rank1, KernelKind::Rank2, KernelKind::Dense}) {
                Kernel k = randomKernel(s[0], s[1], kind, seed++);
                for (int v = 1; v < k.height; v += 3) // zero rows lower the rank and deflate the SVD
                    for (int u = 0; u < k.width; ++u) k.values[std::size_t(v) * k.width + u] = 0.0f;
                kernels.push_back(k);
                k.values[0] += 1.0f; // the same shape, another kernel: factors are kept by content
                kernels.push_back(k);
            }
        // Twice, the second time in reverse order: the factors of the last few kernels are
        // kept (separable.cpp), so some come from that cache and the rest, pushed out of it,
        // are computed again; each must still be its own kernel's.
        std::vector<const Kernel*> order;
        for (const Kernel& k : kernels) order.push_back(&k);
        for (auto it = kernels.rbegin(); it != kernels.rend(); ++it) order.push_back(&*it);
        for (const Kernel* kp : order) {
            const Kernel& k = *kp;
            const detail::SeparableFactors f = detail::separableFactors(k);
            double worst = 0.0, largest = 0.0;
            for (int v = 0; v < k.height; ++v)
                for (int u = 0; u < k.width; ++u) {
                    double sum = 0.0;
                    for (int i = 0; i < f.rank; ++i) sum += double(f.columns[i][v]) * f.rows[i][u];
                    worst = std::max(worst, std::fabs(sum - k.at(v, u)));
                    largest = std::max(largest, double(std::fabs(k.at(v, u))));
                }
            if (!(worst <= 1e-6 * largest))
                QFAIL(qPrintable(QString("%1x%2 rank %3: factors off by %4 (largest tap %5)")
                                     .arg(k.width).arg(k.height).arg(f.rank).arg(worst).arg(largest)));
        }
        // The finding itself, end to end: separable within its tolerance in both semantics.
        const Image in = randomImage(34, 23, 1, 99u);
        for (Semantics sem : {Semantics::Convolution, Semantics::Correlation}) {
            ConvolveParams p;
            p.kernel = kernels[0];
            p.semantics = sem;
            p.method = Method::Reference;
            const Image want = convolve(in, p);
            p.method = Method::Separable;
            RunReport rep;
            const double err = relativeError(convolve(in, p, &rep), want, p.kernel, in);
            QCOMPARE(rep.rank, 10);
            QVERIFY2(err <= toleranceFor(Method::Separable), qPrintable(QString::number(err)));
        }
    }

    // Large images go through overlap-save tiles: every tile seam and border must match.
    void fftTilesAgree_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("kw");
        QTest::addColumn<int>("kh");
        QTest::newRow("tiles across") << 1301 << 40 << 5 << 5;
        QTest::newRow("tiles both ways") << 1031 << 1107 << 9 << 4;
        QTest::newRow("wide kernel") << 1200 << 1030 << 33 << 3;
        QTest::newRow("768-point tiles") << 2000 << 50 << 63 << 5;
    }
    // The tile sides are those of least transform work (fft_tiling.cpp): a 63x63 kernel on 4096x4096
    // gets 768-point tiles (706 outputs a side, 36 tiles) rather than 256 (194 outputs, 484
    // tiles); every tiling covers the image with tiles that each keep outputs.
    void fftTilingTakesTheLeastWork()
    {
        const detail::FftTiling large = detail::fftTiling(4096, 4096, 63, 63);
        QCOMPARE(large.n0, 768);
        QCOMPARE(large.n1, 768);
        QCOMPARE(large.tilesX * large.tilesY, 36);
        QCOMPARE(detail::fftTiling(2000, 50, 63, 5).n1, 768);
        const int cases[][4] = {{4096, 4096, 3, 3},   {4096, 4096, 31, 31}, {1301, 40, 5, 5},
                                {1200, 1030, 33, 3},  {5000, 7, 1, 1},      {3000, 3000, 201, 151},
                                {1025, 1025, 1025, 1}, {1, 1, 1, 1}};
        for (const auto& c : cases) {
            const detail::FftTiling t = detail::fftTiling(c[0], c[1], c[2], c[3]);
            QVERIFY(t.outW >= 1 && t.outH >= 1);
            QCOMPARE(t.outW, std::min(c[0], t.n1 - c[2] + 1));
            QCOMPARE(t.outH, std::min(c[1], t.n0 - c[3] + 1));
            QVERIFY(t.tilesX * t.outW >= c[0] && (t.tilesX - 1) * t.outW < c[0]);
            QVERIFY(t.tilesY * t.outH >= c[1] && (t.tilesY - 1) * t.outH < c[1]);
        }
    }

    // The CPU's transform sides are those FFTW runs fast (fft_tiling.cpp, fftSideWeight). A 600x500
    // image with a 15x15 kernel is one tile of 514 x 614 padded points, whose smallest 7-smooth
    // sides were 525 (3 5^2 7) and 625 (5^4): 3.7 ms against 1.6 for 576 x 640 on one thread.
    void fftSidesAreFastOnes()
    {
        QCOMPARE(detail::fastFftSideAtLeast(514), 576); // 2^6 3^2
        QCOMPARE(detail::fastFftSideAtLeast(614), 640); // 2^7 5
        QCOMPARE(detail::fastFftSideAtLeast(662), 672); // 2^5 3 7
        QCOMPARE(detail::fastFftSideAtLeast(768), 768);
        QCOMPARE(detail::fftSideWeight(625), 0.0);
        QCOMPARE(detail::fftSideWeight(729), 0.0);
        QCOMPARE(detail::fftSideWeight(1024), 1.0);
        const detail::FftTiling one = detail::fftTiling(600, 500, 15, 15);
        QCOMPARE(one.tilesX * one.tilesY, 1);
        QCOMPARE(one.n0, 576);
        QCOMPARE(one.n1, 640);
        for (int n = 1; n < 5000; n += 3) {
            const int m = detail::fastFftSideAtLeast(n);
            QVERIFY(m >= n && detail::fftSideWeight(m) > 0.0);
            for (int between = n; between < m; ++between) QCOMPARE(detail::fftSideWeight(between), 0.0);
        }
        const int cases[][4] = {{600, 500, 63, 63}, {800, 600, 31, 31}, {1024, 768, 63, 63}, {4096, 4096, 31, 31},
                                {4000, 3000, 101, 101}, {1301, 40, 5, 5}, {7, 5000, 1, 201}, {1, 1, 1, 1}};
        for (const auto& c : cases) {
            const detail::FftTiling t = detail::fftTiling(c[0], c[1], c[2], c[3]);
            QVERIFY2(detail::fftSideWeight(t.n0) > 0.0 && detail::fftSideWeight(t.n1) > 0.0,
                     qPrintable(QString("%1 x %2").arg(t.n0).arg(t.n1)));
        }
    }

    // The transform sides: the smallest at least n whose prime factors stay within the bound
    // (the CUDA session times those for 7, 5 and 3 and keeps the fastest).
    void smoothSizes()
    {
        QCOMPARE(detail::smoothSizeAtLeast(4158, 7), 4200); // 2^3 3 5^2 7
        QCOMPARE(detail::smoothSizeAtLeast(4158, 5), 4320); // 2^5 3^3 5
        QCOMPARE(detail::smoothSizeAtLeast(4158, 3), 4374); // 2 3^7
        QCOMPARE(detail::smoothSizeAtLeast(4158, 2), 8192);
        QCOMPARE(detail::smoothSizeAtLeast(4096, 3), 4096);
        QCOMPARE(detail::smoothSizeAtLeast(0, 3), 1);
        QCOMPARE(detail::smoothSizeAtLeast(7, 5), 8);
        for (int n = 1; n < 3000; n += 7) {
            QCOMPARE(detail::fftFriendlySize(n), detail::smoothSizeAtLeast(n, 7));
            for (int p : {2, 3, 5, 7}) {
                const int m = detail::smoothSizeAtLeast(n, p);
                QVERIFY(m >= n);
                int r = m;
                for (int f : {2, 3, 5, 7})
                    while (f <= p && r % f == 0) r /= f;
                QCOMPARE(r, 1);
                for (int between = n; between < m; ++between) { // none smaller qualifies
                    int q = between;
                    for (int f : {2, 3, 5, 7})
                        while (f <= p && q % f == 0) q /= f;
                    QVERIFY(q != 1);
                }
            }
        }
    }

    void fftTilesAgree()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, kw);
        QFETCH(int, kh);
        QVERIFY(detail::fftTiling(w, h, kw, kh).tilesX * detail::fftTiling(w, h, kw, kh).tilesY > 1);
        const Image in = randomImage(w, h, 2, 17);
        const Kernel k = randomKernel(kw, kh, KernelKind::Dense, 23);
        for (const BorderModeInfo& mode : borderModes()) {
            ConvolveParams p;
            p.kernel = k;
            p.border = {mode.mode, 7.0f};
            p.method = Method::Direct;
            const Image want = convolve(in, p);
            p.method = Method::Fft;
            const double err = relativeError(convolve(in, p), want, k, in);
            QVERIFY2(err <= toleranceFor(Method::Fft), qPrintable(QString("%1: %2").arg(mode.name).arg(err)));
        }
    }

    void evenKernelAnchors()
    {
        const Image in = randomImage(11, 9, 1, 5);
        Kernel k = randomKernel(4, 2, KernelKind::Dense, 9);
        for (int ax = 0; ax < 4; ++ax)
            for (int ay = 0; ay < 2; ++ay) {
                k.anchorX = ax;
                k.anchorY = ay;
                for (Semantics sem : {Semantics::Convolution, Semantics::Correlation}) {
                    ConvolveParams p;
                    p.kernel = k;
                    p.border = {BorderMode::Wrap, 0};
                    p.semantics = sem;
                    p.method = Method::Reference;
                    const Image want = convolve(in, p);
                    for (Method m : requestableMethods()) {
                        p.method = m;
                        QVERIFY2(relativeError(convolve(in, p), want, k, in) <= toleranceFor(m), methodName(m).c_str());
                    }
                }
            }
    }

    // The definitions, checked on a pixel by hand: a kernel with one non-zero tap moves the
    // image, in opposite directions for convolution and correlation.
    void semanticsByHand()
    {
        Image in(5, 4, 1);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 5; ++x) in.at(0, y, x) = float(10 * y + x);
        Kernel k(3, 3, {0, 0, 0, 0, 0, 1, 0, 0, 0}); // K(1,2) = 1, anchor (1,1)
        for (Method m : requestableMethods()) {
            ConvolveParams p;
            p.kernel = k;
            p.border = {BorderMode::Wrap, 0};
            p.method = m;
            // convolution: out(y,x) = in(y + 1 - 1, x + 1 - 2) = in(y, x - 1)
            const Image conv = convolve(in, p);
            p.semantics = Semantics::Correlation;
            // correlation: out(y,x) = in(y - 1 + 1, x - 1 + 2) = in(y, x + 1)
            const Image corr = convolve(in, p);
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 5; ++x) {
                    QVERIFY(std::fabs(conv.at(0, y, x) - in.at(0, y, (x + 4) % 5)) < 1e-4);
                    QVERIFY(std::fabs(corr.at(0, y, x) - in.at(0, y, (x + 1) % 5)) < 1e-4);
                }
        }
    }

    void constantBorderUsesValue()
    {
        Image in(3, 3, 1);
        for (float& v : in.data) v = 1.0f;
        ConvolveParams p;
        p.kernel = Kernel(3, 3, std::vector<float>(9, 1.0f));
        p.border = {BorderMode::Constant, 10.0f};
        for (Method m : requestableMethods()) {
            p.method = m;
            const Image out = convolve(in, p);
            QVERIFY(std::fabs(out.at(0, 0, 0) - (4 * 1.0f + 5 * 10.0f)) < 1e-3); // corner
            QVERIFY(std::fabs(out.at(0, 1, 1) - 9.0f) < 1e-3);                   // centre
            QVERIFY(std::fabs(out.at(0, 0, 1) - (6 * 1.0f + 3 * 10.0f)) < 1e-3); // edge
        }
    }

    void scaleOffsetNormalize()
    {
        const Image in = randomImage(9, 7, 3, 3);
        ConvolveParams p;
        p.kernel = Kernel(3, 1, {1, 2, 1});
        p.method = Method::Reference;
        const Image raw = convolve(in, p);
        p.normalize = true;
        p.scale = 2.0;
        p.offset = -5.0;
        for (Method m : requestableMethods()) {
            p.method = m;
            RunReport rep;
            const Image out = convolve(in, p, &rep);
            QCOMPARE(rep.effectiveScale, 0.5);
            for (std::size_t i = 0; i < out.data.size(); ++i)
                QVERIFY(std::fabs(out.data[i] - (0.5 * raw.data[i] - 5.0)) < 1e-3);
        }
        // A zero-sum kernel is left alone, and the report says so.
        p.kernel = Kernel(3, 1, {-1, 0, 1});
        p.scale = 1.0;
        p.offset = 0.0;
        RunReport rep;
        convolve(in, p, &rep);
        QCOMPARE(rep.effectiveScale, 1.0);
        bool noticed = false;
        for (const auto& n : rep.notices) noticed |= n.find("zero-sum") != std::string::npos;
        QVERIFY(noticed);
    }

    void alphaPassesThrough()
    {
        Image in = randomImage(6, 5, 4, 8);
        in.hasAlpha = true;
        ConvolveParams p;
        p.kernel = Kernel(3, 3, std::vector<float>(9, 1.0f / 9));
        for (Method m : requestableMethods()) {
            p.method = m;
            p.filterAlpha = false;
            Image out = convolve(in, p);
            QVERIFY(out.hasAlpha);
            QVERIFY(std::equal(in.plane(3), in.plane(3) + in.planeSize(), out.plane(3)));
            QVERIFY(!std::equal(in.plane(0), in.plane(0) + in.planeSize(), out.plane(0)));
            p.filterAlpha = true;
            out = convolve(in, p);
            QVERIFY(!std::equal(in.plane(3), in.plane(3) + in.planeSize(), out.plane(3)));
        }
    }

    // Channels are a batch: each plane of a 3-channel run equals the 1-channel run of that plane.
    void packedSourceMatchesFloat_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("bits");
        QTest::newRow("1x1 gray 8") << 1 << 1 << 1 << 8;
        QTest::newRow("5x3 BGR 8") << 5 << 3 << 3 << 8;
        QTest::newRow("37x19 BGRA 16") << 37 << 19 << 4 << 16;
        QTest::newRow("64x41 gray+alpha 8") << 64 << 41 << 2 << 8;
        QTest::newRow("131x7 BGR 16") << 131 << 7 << 3 << 16;
    }
    void packedSourceMatchesFloat()
    {
        // 8/16-bit samples converted inside the first pass give exactly the results of their
        // float image, for every method and border mode, alpha passed through.
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, channels);
        QFETCH(int, bits);
        PackedImage pk;
        pk.width = w;
        pk.height = h;
        pk.channels = channels;
        pk.depth = bits == 8 ? SampleDepth::U8 : SampleDepth::U16;
        pk.hasAlpha = channels == 2 || channels == 4;
        if (channels >= 3) pk.order = {2, 1, 0, 3};
        pk.stride = static_cast<std::size_t>(w) * channels * pk.sampleBytes() + 2 * pk.sampleBytes(); // padded rows
        pk.bytes.resize(pk.stride * h);
        std::uint32_t state = 777u + w;
        for (auto& b : pk.bytes) b = std::uint8_t((state = state * 1664525u + 1013904223u) >> 24);
        const Image asFloat = unpackImage(pk);
        const Kernel k = randomKernel(5, 4, KernelKind::Rank2, 12);
        for (const BorderModeInfo& mode : borderModes())
            for (const MethodInfo& method : methods()) {
                const Method m = method.method;
                ConvolveParams p;
                p.kernel = k;
                p.border = {mode.mode, 3.0f};
                p.method = m;
                p.device = Device::Cpu;
                p.offset = 1.0;
                RunReport a, b;
                const Image want = convolve(asFloat, p, &a);
                const Image got = convolve(pk, p, &b);
                QCOMPARE(b.method, a.method);
                QVERIFY(got.sameShape(want));
                QCOMPARE(got.hasAlpha, pk.hasAlpha);
                QCOMPARE(got.depth, pk.depth);
                QVERIFY2(got.data == want.data, qPrintable(QString("%1 %2").arg(method.name, mode.name)));
            }
        // Malformed samples are refused before any work.
        pk.bytes.resize(pk.stride * (h - 1));
        ConvolveParams p;
        p.kernel = k;
        QVERIFY_THROWS_EXCEPTION(Error, convolve(pk, p));
    }

    void channelsAreIndependent()
    {
        const Image in = randomImage(23, 19, 3, 12);
        ConvolveParams p;
        p.kernel = randomKernel(5, 4, KernelKind::Dense, 3);
        p.border = {BorderMode::Mirror, 0};
        for (Method m : requestableMethods()) {
            p.method = m;
            const Image all = convolve(in, p);
            for (int c = 0; c < 3; ++c) {
                Image one(in.width, in.height, 1);
                std::copy(in.plane(c), in.plane(c) + in.planeSize(), one.plane(0));
                const Image single = convolve(one, p);
                QVERIFY(std::equal(single.plane(0), single.plane(0) + single.planeSize(), all.plane(c)));
            }
        }
    }

    void autoReportsItsChoice()
    {
        const Image in = randomImage(40, 30, 1, 4);
        ConvolveParams p;
        RunReport rep;
        p.kernel = randomKernel(5, 5, KernelKind::Rank1, 1);
        convolve(in, p, &rep);
        // Which method wins on so small an image is the measured costs' call (under the
        // sanitizers it is often direct); that separable was weighed at rank 1 is not.
        QCOMPARE(rep.rank, 1);
        QVERIFY(std::any_of(rep.estimates.begin(), rep.estimates.end(),
                            [](const MethodEstimate& e) { return e.method == Method::Separable && e.rank == 1; }));
        QVERIFY(!rep.reason.empty());
        p.kernel = Kernel(3, 3, {1, 1, 1, 1, -8, 1, 1, 1, 1});
        convolve(in, p, &rep);
        QCOMPARE(rep.rank, 2);
        QCOMPARE(int(rep.singularValues.size()), 3);
        p.kernel = randomKernel(31, 31, KernelKind::Dense, 2);
        convolve(in, p, &rep);
        QCOMPARE(rep.estimates.size(), convlab::autoCandidates().size()); // one per method auto weighs
        const auto cheapest = std::min_element(rep.estimates.begin(), rep.estimates.end(),
                                               [](auto& a, auto& b) { return a.ms < b.ms; });
        QCOMPARE(rep.method, cheapest->method); // auto takes the cheapest estimate
        QVERIFY(rep.reason.find(methodName(rep.method)) != std::string::npos);
        // Auto gives exactly what the method it picked gives.
        const Image a = convolve(in, p, &rep);
        p.method = rep.method;
        const Image b = convolve(in, p);
        QCOMPARE(a.data, b.data);
    }

    // The measured cost model: positive constants, a cache that is reused, sane orderings.
    void costModel()
    {
        const CostModel& m = cpuCostModel();
        for (const MethodInfo& info : methods())
            if (info.autoCandidate) QVERIFY2(m.of(info.method).perWorkNs > 0, info.name);
        QVERIFY(!m.cpu.empty());
        const Kernel big = randomKernel(63, 63, KernelKind::Dense, 1);
        const Kernel small = randomKernel(3, 3, KernelKind::Dense, 1);
        const auto eBig = detail::estimateCpu(m, 4096, 4096, 1, big, 63, 1);
        const auto eSmall = detail::estimateCpu(m, 4096, 4096, 1, small, 3, 1);
        // 3969 taps per pixel cost more than 9; the FFT's cost hardly depends on the kernel.
        QVERIFY(eBig[0].ms > 100 * eSmall[0].ms);
        QVERIFY(eBig[2].ms < 4 * eSmall[2].ms);
        QVERIFY(eBig[2].ms < eBig[0].ms);
    }

    // One pricing for every backend (planner.h priceMethods): the CPU's estimates are it over
    // every method; a backend that replaces one method's terms (the GPU's FFT) changes only
    // that method's estimate; a method that does not apply is not priced.
    void onePricingForEveryBackend()
    {
        const CostModel& m = cpuCostModel();
        const Kernel k = randomKernel(9, 9, KernelKind::Dense, 5);
        const detail::RunShape shape{1024, 768, 3, &k, 4, 2};
        std::vector<Method> all;
        for (const MethodInfo& info : methods()) all.push_back(info.method);
        const auto cpu = detail::estimateCpu(m, 1024, 768, 3, k, 4, 2);
        const auto priced = detail::priceMethods(m, shape, all);
        QCOMPARE(priced.size(), cpu.size());
        for (std::size_t i = 0; i < cpu.size(); ++i) {
            QCOMPARE(priced[i].method, cpu[i].method);
            QCOMPARE(priced[i].ms, cpu[i].ms);
        }
        // Ten times the FFT's work, one "thread": only its estimate moves.
        const detail::CostTerms fftTerms = detail::engineOf(Method::Fft).costTerms(shape);
        auto tenfold = [&](Method method, const detail::RunShape&) -> std::optional<detail::CostTerms> {
            if (method != Method::Fft) return std::nullopt;
            return detail::CostTerms{fftTerms.values, 10 * fftTerms.work, 1};
        };
        const std::vector<Method> three{Method::Direct, Method::Separable, Method::Fft};
        const auto base = detail::priceMethods(m, shape, three);
        const auto moved = detail::priceMethods(m, shape, three, tenfold);
        QCOMPARE(moved.size(), std::size_t(3));
        for (std::size_t i = 0; i < 3; ++i) {
            if (moved[i].method == Method::Fft) {
                const MethodCost& c = m.of(Method::Fft);
                QCOMPARE(moved[i].ms, (fftTerms.values * c.perValueNs + 10 * fftTerms.work * c.perWorkNs) / 1e6);
                QVERIFY(moved[i].ms > base[i].ms);
            } else {
                QCOMPARE(moved[i].ms, base[i].ms);
            }
        }
        // Without the kernel's rank the separable method does not apply.
        const detail::RunShape unranked{1024, 768, 3, &k, -1, 2};
        for (const MethodEstimate& e : detail::priceMethods(m, unranked, three)) QVERIFY(e.method != Method::Separable);
    }

    // Every millisecond of the total is in one stage ("other" holds the rest), and the
    // method's own time is what throughput and the planner use.
    void stagesAddUpToTotal_data()
    {
        QTest::addColumn<int>("method");
        for (const MethodInfo& m : methods()) QTest::newRow(m.name) << int(m.method);
    }
    void stagesAddUpToTotal()
    {
        QFETCH(int, method);
        const Image in = randomImage(301, 203, 3, 5);
        ConvolveParams p;
        p.kernel = randomKernel(7, 5, KernelKind::Dense, 2);
        p.method = Method(method);
        for (int run = 0; run < 2; ++run) { // the first may pay one-time costs
            RunReport rep;
            Image out = convolve(in, p, &rep);
            double sum = 0.0;
            for (const StageTiming& s : rep.stages) {
                QVERIFY2(s.ms >= 0.0, s.name.c_str());
                sum += s.ms;
            }
            QVERIFY2(std::fabs(sum - rep.totalMs) <= 0.05 * rep.totalMs + 0.011,
                     qPrintable(QString("stages %1 ms, total %2 ms").arg(sum).arg(rep.totalMs)));
            QVERIFY(rep.computeMs > 0.0);
            QVERIFY(rep.computeMs <= perRunMs(rep) + 1e-9);
        }
    }

    // An all-zero kernel gives the offset everywhere, also into a buffer holding an older result.
    void zeroKernelIntoReusedBuffer()
    {
        const Image in = randomImage(37, 23, 2, 9);
        for (Method m : requestableMethods()) {
            ConvolveParams p;
            p.method = m;
            p.kernel = randomKernel(5, 3, KernelKind::Dense, 1);
            Image out;
            convolveInto(in, p, out); // the buffer now holds a real result
            p.kernel = Kernel(5, 3, std::vector<float>(15, 0.0f));
            p.offset = 5.0;
            convolveInto(in, p, out);
            for (float v : out.data) QVERIFY2(std::fabs(v - 5.0f) < 1e-4f, methodName(m).c_str());
        }
    }

    // The plan step every backend executes: kernel flip and anchor, scale, alpha, rank and
    // the choice among whatever costs the backend measured.
    void planStepIsSharedLogic()
    {
        ConvolveParams p;
        p.kernel = Kernel(3, 2, {1, 2, 3, 4, 5, 6});
        p.kernel.anchorX = 0;
        p.normalize = true;
        p.scale = 2.0;
        detail::MethodCosts costs;
        costs.measuredOn = "a test device";
        int asked = 0;
        costs.estimate = [&](const Kernel& k, int rank, int channels) {
            ++asked;
            EXPECT_PLAN(k.values == correlationKernel(p.kernel, p.semantics).values);
            EXPECT_PLAN(rank == 1 || rank == 2);
            EXPECT_PLAN(channels == 3);
            return std::vector<MethodEstimate>{{Method::Direct, 5.0, 0}, {Method::Separable, 7.0, rank}, {Method::Fft, 1.0, 0}};
        };
        RunReport rep;
        const detail::Plan plan = detail::makePlan(p, {8, 6, 4, true}, costs, rep, nullptr);
        QCOMPARE(asked, 1);
        QCOMPARE(plan.method, Method::Fft);
        QCOMPARE(rep.method, Method::Fft);
        QVERIFY(rep.reason.find("a test device") != std::string::npos);
        QCOMPARE(plan.channels, 3); // alpha passes through
        QCOMPARE(plan.kernel.values, correlationKernel(p.kernel, p.semantics).values);
        QCOMPARE(plan.kernel.ax(), 2); // the anchor mirrored with the flip
        QVERIFY(std::fabs(plan.scale - 2.0 / 21.0) < 1e-12);
        QCOMPARE(rep.rank, plan.factors.rank);

        p.filterAlpha = true;
        p.method = Method::Reference;
        RunReport ref;
        const detail::Plan asRequested = detail::makePlan(p, {8, 6, 4, true}, costs, ref, nullptr);
        QCOMPARE(asked, 1); // no costs needed for a requested method
        QCOMPARE(asRequested.method, Method::Reference);
        QCOMPARE(asRequested.channels, 4);
        QCOMPARE(ref.reason, std::string("requested"));

        p.offset = NAN;
        RunReport bad;
        QVERIFY_THROWS_EXCEPTION(Error, detail::makePlan(p, {8, 6, 1, false}, costs, bad, nullptr));
    }

    void closeStagesNamesTheRest()
    {
        RunReport r;
        r.stages = {{"a", 1.0}, {"plan FFT size (once)", 2.0, true}};
        closeStages(r, 10.0);
        QCOMPARE(r.totalMs, 10.0);
        QCOMPARE(r.stages.size(), std::size_t(3));
        QCOMPARE(r.stages.back().name, std::string("other"));
        QCOMPARE(r.stages.back().ms, 7.0);
        QCOMPARE(perRunMs(r), 8.0);
        closeStages(r, 12.0); // closing again grows "other", never a second one
        QCOMPARE(r.stages.size(), std::size_t(3));
        QCOMPARE(r.stages.back().ms, 9.0);
        // Stages longer than the clock's total (a backend adding its own): the total grows.
        RunReport over;
        over.stages = {{"a", 5.0}};
        closeStages(over, 4.0);
        QCOMPARE(over.totalMs, 5.0);
        QCOMPARE(over.stages.size(), std::size_t(1));
    }

    // A first run into a new output is not learnt from (engine.cpp: the first over that memory,
    // often beside the decoding or drawing of its image); a run into a reused output is. The
    // model is first made to price direct at an eighth of its cost, so that a real run measures
    // about 8x its corrected estimate.
    void plannerLearnsOnlyFromRunsIntoExistingOutputs()
    {
        resetPlannerCorrections();
        const Image in = randomImage(4096, 2048, 1, 5);
        ConvolveParams p;
        p.kernel = randomKernel(15, 15, KernelKind::Dense, 6);
        p.method = Method::Direct;
        p.device = Device::Cpu;
        p.threads = 1;
        double estimate = 0.0;
        for (const MethodEstimate& e : detail::estimateCpu(cpuCostModel(), in.width, in.height, 1, p.kernel, -1, 1))
            if (e.method == Method::Direct) estimate = e.ms;
        QVERIFY(estimate > 16.0); // the corrected estimate stays past the 2 ms the planner ignores
        const CorrectionClass runClass = correctionClassOf(p.kernel, 1);
        QVERIFY(!detail::recordMeasurement(Method::Direct, runClass, estimate, estimate / 8).has_value());
        QVERIFY(detail::recordMeasurement(Method::Direct, runClass, estimate, estimate / 8).has_value());
        const double eighth = plannerCorrection(Method::Direct, runClass);
        Image out;
        RunReport first;
        convolveInto(in, p, out, &first);
        QCOMPARE(plannerCorrection(Method::Direct, runClass), eighth);
        // Two runs into the output now in use: the first of them is held back until the second
        // confirms it (were the first run into the new output counted, this one would correct).
        RunReport second;
        convolveInto(in, p, out, &second);
        QCOMPARE(plannerCorrection(Method::Direct, runClass), eighth);
        RunReport third;
        convolveInto(in, p, out, &third);
        QVERIFY2(plannerCorrection(Method::Direct, runClass) > 2 * eighth,
                 qPrintable(QString("took %1 and %2 ms, estimated %3 ms")
                                .arg(second.computeMs)
                                .arg(third.computeMs)
                                .arg(estimate * eighth)));
        QVERIFY(!third.notices.empty());
        resetPlannerCorrections();
    }

    // When a measured run differs from its estimate by more than 2x, auto's model follows it.
    void plannerLearnsFromMeasuredRuns()
    {
        resetPlannerCorrections();
        const Image in = randomImage(2048, 2048, 1, 3);
        ConvolveParams p;
        p.kernel = randomKernel(15, 15, KernelKind::Dense, 4);
        RunReport first;
        (void)convolve(in, p, &first);
        resetPlannerCorrections(); // whatever that run taught, start from the plain model
        RunReport plain;
        (void)convolve(in, p, &plain);
        const Method picked = plain.method;
        double estimate = 0.0, other = INFINITY;
        for (const MethodEstimate& e : plain.estimates) {
            if (e.method == picked) estimate = e.ms;
            else other = std::min(other, e.ms);
        }
        resetPlannerCorrections();
        const CorrectionClass runClass = correctionClassOf(p.kernel, plain.threads);
        // Within 2x: the model is left alone.
        QVERIFY(!detail::recordMeasurement(picked, runClass, estimate, 1.5 * estimate));
        QCOMPARE(plannerCorrection(picked, runClass), 1.0);
        // Far slower than thought: its estimates grow by the ratio, and auto now picks another.
        const double factor = 2.0 * other / estimate; // enough to make another method cheaper
        // One run so far off is not enough: a second in a row on the same side confirms it, and
        // the smaller departure is applied. A run within 2x between them, or one off to the
        // other side, starts over.
        QVERIFY(!detail::recordMeasurement(picked, runClass, estimate, 3.0 * factor * estimate));
        QVERIFY(!detail::recordMeasurement(picked, runClass, estimate, estimate));
        QVERIFY(!detail::recordMeasurement(picked, runClass, estimate, 3.0 * factor * estimate));
        QVERIFY(!detail::recordMeasurement(picked, runClass, estimate, estimate / 3.0));
        QCOMPARE(plannerCorrection(picked, runClass), 1.0);
        QVERIFY(!detail::recordMeasurement(picked, runClass, estimate, 3.0 * factor * estimate));
        const auto note = detail::recordMeasurement(picked, runClass, estimate, factor * estimate);
        QVERIFY(note.has_value());
        QVERIFY(note->find(methodName(picked)) != std::string::npos);
        QVERIFY(std::fabs(plannerCorrection(picked, runClass) - factor) < 1e-9 * factor);
        RunReport after;
        ConvolveParams q = p;
        (void)convolve(in, q, &after);
        QVERIFY2(after.method != picked, after.reason.c_str());
        // Only for runs of that class: another thread count, or a kernel of another size class,
        // is planned from the plain model.
        QCOMPARE(plannerCorrection(picked, {runClass.threads + 1, runClass.tapsLog2}), 1.0);
        QCOMPARE(plannerCorrection(picked, {runClass.threads, runClass.tapsLog2 + 2}), 1.0);
        resetPlannerCorrections();
        QCOMPARE(plannerCorrection(picked, runClass), 1.0);
        QCOMPARE(correctionClassOf(parseKernelText("1 1 1; 1 1 1; 1 1 1"), 2).tapsLog2, 3);
        QCOMPARE(correctionClassOf(Kernel(11, 11, std::vector<float>(121, 1.0f)), 1).tapsLog2, 6);
        QCOMPARE(correctionClassOf(Kernel(1, 1, std::vector<float>(1, 1.0f)), 0).threads, 1);
        // Short estimates are dominated by fixed costs: never learnt from.
        QVERIFY(!detail::recordMeasurement(Method::Direct, runClass, 0.5, 50.0));
        // Separable's corrections are kept per rank class as well: its 31 pass pairs of a dense
        // 31x31 kernel running slow on two threads do not reprice a 31x31 Gaussian's one pair
        // (which auto then gave to the FFT at twice separable's time). The other methods' costs
        // do not depend on the rank, and their corrections apply to every rank.
        resetPlannerCorrections();
        const Kernel k31(31, 31, std::vector<float>(961, 1.0f));
        const CorrectionClass rank31 = correctionClassOf(k31, 2, 31), rank1 = correctionClassOf(k31, 2, 1);
        QCOMPARE(rank31.rankLog2, 4);
        QCOMPARE(rank1.rankLog2, 0);
        QCOMPARE(correctionClassOf(k31, 2, -1).rankLog2, 0); // unknown rank
        QVERIFY(!detail::recordMeasurement(Method::Separable, rank31, 10.0, 30.0).has_value());
        QVERIFY(detail::recordMeasurement(Method::Separable, rank31, 10.0, 30.0).has_value());
        QCOMPARE(plannerCorrection(Method::Separable, rank31), 3.0);
        QCOMPARE(plannerCorrection(Method::Separable, rank1), 1.0);
        QVERIFY(!detail::recordMeasurement(Method::Fft, rank31, 10.0, 30.0).has_value());
        QVERIFY(detail::recordMeasurement(Method::Fft, rank31, 10.0, 30.0).has_value());
        QCOMPARE(plannerCorrection(Method::Fft, rank1), 3.0);
        resetPlannerCorrections();
    }

    // Interactive planning: a quick plan now, the measured one later; results right either way.
    void fftPlanningInTheBackground()
    {
        setFftPlanning(FftPlanning::EstimateNow);
        const Image in = randomImage(347, 211, 2, 8); // a transform size no other test plans
        ConvolveParams p;
        p.kernel = randomKernel(9, 7, KernelKind::Dense, 6);
        p.method = Method::Reference;
        const Image want = convolve(in, p);
        p.method = Method::Fft;
        RunReport first;
        const Image a = convolve(in, p, &first);
        bool planStage = false;
        for (const StageTiming& s : first.stages)
            if (s.name.find("plan FFT") != std::string::npos) planStage = s.once;
        QVERIFY(planStage);
        QVERIFY(relativeError(a, want, p.kernel, in) < 1e-5);
        waitForFftPlanning();
        RunReport second;
        const Image b = convolve(in, p, &second);
        for (const StageTiming& s : second.stages) QVERIFY2(!s.once, s.name.c_str());
        QVERIFY(relativeError(b, want, p.kernel, in) < 1e-5);
        setFftPlanning(FftPlanning::MeasureNow);
        QCOMPARE(fftPlanning(), FftPlanning::MeasureNow);
    }

    void invalidInputsThrow()
    {
        const Image in = randomImage(4, 4, 1, 1);
        ConvolveParams p;
        p.kernel = Kernel(2, 2, {1, 2, 3}); // wrong count
        QVERIFY_THROWS_EXCEPTION(Error, convolve(in, p));
        p.kernel = Kernel(2, 1, {1, NAN});
        QVERIFY_THROWS_EXCEPTION(Error, convolve(in, p));
        p.kernel = Kernel(2, 1, {1, 1});
        p.kernel.anchorX = 2;
        QVERIFY_THROWS_EXCEPTION(Error, convolve(in, p));
        p.kernel.anchorX = -1;
        p.scale = INFINITY;
        QVERIFY_THROWS_EXCEPTION(Error, convolve(in, p));
        p.scale = 1;
        QVERIFY_THROWS_EXCEPTION(Error, convolve(Image(), p));
    }

    void convolveIntoReusesStorage()
    {
        const Image in = randomImage(50, 40, 3, 2);
        ConvolveParams p;
        p.kernel = randomKernel(5, 3, KernelKind::Dense, 4);
        Image out(50, 40, 3);
        const float* storage = out.data.data();
        for (Method m : requestableMethods()) {
            p.method = m;
            convolveInto(in, p, out, nullptr);
            QCOMPARE(out.data.data(), storage);
            QCOMPARE(out.data, convolve(in, p).data);
        }
        Image other(7, 7, 1); // wrong shape: reallocated
        convolveInto(in, p, other, nullptr);
        QVERIFY(other.sameShape(in));
        Image self = in;
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(self, p, self, nullptr));
    }

    // A caller's planes (separate buffers, odd sizes) are read where they are and give the
    // same result as the Image holding the same samples, for every method and border mode.
    void planesOwnedElsewhereAreReadInPlace()
    {
        for (auto [w, h] : {std::pair{1, 1}, {3, 2}, {37, 23}, {70, 9}}) {
            const Image in = randomImage(w, h, 3, 5);
            std::vector<std::vector<float>> buffers;
            for (int c = 0; c < in.channels; ++c) buffers.emplace_back(in.plane(c), in.plane(c) + in.planeSize());
            ImagePlanes planes;
            planes.width = w;
            planes.height = h;
            planes.channels = 3;
            for (int c = 0; c < 3; ++c) planes.planes[c] = buffers[c].data();
            ConvolveParams p;
            p.kernel = randomKernel(5, 4, KernelKind::Dense, 6);
            for (const BorderModeInfo& b : borderModes()) {
                p.border = {b.mode, 0.25f};
                for (Method m : requestableMethods()) {
                    p.method = m;
                    Image fromPlanes;
                    convolveInto(planes, p, fromPlanes);
                    QVERIFY2(fromPlanes.data == convolve(in, p).data,
                             qPrintable(QString("%1x%2 %3 %4").arg(w).arg(h).arg(b.name, methodName(m).c_str())));
                }
            }
        }
    }

    // Sample storage (image.h, SampleAllocator): a large image starts on a 2 MiB boundary (huge
    // pages), Image's constructor still gives zeros, and a copy keeps the values.
    void sampleStorageIsAlignedAndZeroedByTheConstructor()
    {
        Image large(1024, 1024, 3); // 12 MiB
        QCOMPARE(reinterpret_cast<std::uintptr_t>(large.data.data()) % (std::uintptr_t(2) << 20), std::uintptr_t(0));
        QVERIFY(std::all_of(large.data.begin(), large.data.end(), [](float v) { return v == 0.0f; }));
        const Image unset = Image::uninitialized(1024, 1024, 3);
        QVERIFY(unset.sameShape(large) && unset.data.size() == large.data.size());
        QVERIFY_THROWS_EXCEPTION(Error, Image::uninitialized(0, 5, 1));
        const Image small = randomImage(9, 7, 2, 1);
        const Image copy = small;
        QCOMPARE(copy.data, small.data);
    }

    void planesSharingTheOutputAreRefused()
    {
        const Image in = randomImage(20, 10, 1, 3);
        ConvolveParams p;
        p.kernel = randomKernel(3, 3, KernelKind::Dense, 1);
        Image out = in;
        ImagePlanes inside = out; // the output's own storage
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(inside, p, out));
        QCOMPARE(out.data, in.data); // untouched
        inside.planes[0] = out.data.data() + 5; // partly inside
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(inside, p, out));
        ImagePlanes missing = in;
        missing.planes[0] = nullptr;
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(missing, p, out));
        Image malformed = in;
        malformed.data.pop_back();
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(ImagePlanes(malformed), p, out));
        QCOMPARE(out.data, in.data);
    }

    // Outputs past 48 MiB stream whatever the cache the system lists (a guest may list its
    // host's whole last level); a 64 KiB output, below any last level, stays cached.
    void largeOutputsBypassCaches()
    {
        if (qEnvironmentVariableIsSet("CONVLAB_STREAMING")) QSKIP("CONVLAB_STREAMING is set: it overrides the sizes");
        QVERIFY(detail::outputsBypassCaches(std::size_t(64) << 20));
        QVERIFY(detail::outputsBypassCaches((std::size_t(48) << 20) + 64));
        QVERIFY(!detail::outputsBypassCaches(std::size_t(64) << 10));
    }

    // Outputs larger than the last-level cache are written with non-temporal stores
    // (rowkernels.h): the streamed pair kernel gives every bit the cached one gives, for the
    // unrolled 3x3 and 5x5 kernels and the general one, at widths through every vector path, and
    // rows that are not vector-aligned fall back to ordinary stores with the same results.
    void streamedStoresKeepEveryBit()
    {
        const detail::RowKernels& rk = detail::rowKernels();
        Samples storage(std::size_t(1) << 20); // 4 MiB: starts on a 2 MiB boundary (image.h)
        QCOMPARE(reinterpret_cast<std::uintptr_t>(storage.data()) % 64, std::uintptr_t(0));
        std::uint32_t seed = 3;
        for (auto [kw, kh] : {std::pair{3, 3}, {5, 5}, {7, 7}, {2, 4}})
            for (int w : {16, 40, 64, 100, 150, 1030}) {
                const Image rowsImage = randomImage(w + kw - 1, kh + 1, 1, seed++);
                std::vector<const float*> rows;
                for (int r = 0; r <= kh; ++r) rows.push_back(rowsImage.plane(0) + std::size_t(r) * rowsImage.width);
                const Kernel k = randomKernel(kw, kh, KernelKind::Dense, seed++);
                const std::size_t stride = 2048; // floats between output rows: 64-byte multiples
                for (int misalign : {0, 1}) {
                    float* cached = storage.data() + misalign;
                    float* streamed = storage.data() + 2 * stride + misalign;
                    std::fill(storage.begin(), storage.end(), -1.0f);
                    const bool finiteCached = rk.correlate2dPair(rows.data(), k.values.data(), kw, kh, 1, w, 0.5f, 0.25f,
                                                                 cached, cached + stride, false, 0);
                    const bool finiteStreamed = rk.correlate2dPair(rows.data(), k.values.data(), kw, kh, 1, w, 0.5f,
                                                                   0.25f, streamed, streamed + stride, true, 0);
                    QVERIFY(finiteCached && finiteStreamed);
                    for (int r = 0; r < 2; ++r)
                        QVERIFY2(std::memcmp(cached + r * stride, streamed + r * stride, sizeof(float) * w) == 0,
                                 qPrintable(QString("%1x%2 w %3 row %4 misaligned %5").arg(kw).arg(kh).arg(w).arg(r).arg(misalign)));
                    QCOMPARE(cached[w], -1.0f); // nothing past the row
                    QCOMPARE(streamed[w], -1.0f);
                }
            }
    }

    // The FFT's crop (rowkernels.h, cropScaled) stores scale * in + offset exactly as the scalar
    // fused multiply-add of its build gives it, streamed or not, at every offset from a vector
    // boundary and widths through the head, vector and tail paths; writes nothing past the row;
    // and reports a NaN or an infinity wherever in the row it lands (head, vectors, tail).
    void fftCropScalesEveryValueAndSeesNonFinite()
    {
        const detail::RowKernels& rk = detail::rowKernels();
        Samples storage(std::size_t(1) << 20);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(storage.data()) % 64, std::uintptr_t(0));
        const Image in = randomImage(200, 1, 1, 77);
        const float scale = 0.37f, offset = -1.25f;
        for (int w : {0, 1, 7, 16, 17, 33, 47, 64, 100, 161})
            for (int misalign = 0; misalign < 16; misalign += 5)
                for (bool stream : {false, true}) {
                    float* out = storage.data() + 64 + misalign;
                    std::fill(storage.begin(), storage.begin() + 512, -9.0f);
                    QVERIFY(rk.cropScaled(in.plane(0), w, scale, offset, out, stream));
                    for (int x = 0; x < w; ++x) {
                        const float expected = std::string(rk.isa) == "sse2" ? offset + in.plane(0)[x] * scale
                                                                                 : std::fma(in.plane(0)[x], scale, offset);
                        QVERIFY2(out[x] == expected, qPrintable(QString("w %1 x %2 misaligned %3 stream %4: %5, not %6")
                                                                    .arg(w).arg(x).arg(misalign).arg(stream).arg(out[x]).arg(expected)));
                    }
                    QCOMPARE(out[w], -9.0f);
                    QCOMPARE(out[-1], -9.0f);
                    for (int at : {0, w / 2, w - 1}) {
                        if (w == 0) continue;
                        std::vector<float> row(in.plane(0), in.plane(0) + w);
                        for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
                            row[at] = bad;
                            QVERIFY2(!rk.cropScaled(row.data(), w, scale, offset, out, stream),
                                     qPrintable(QString("w %1, %2 at %3 not reported").arg(w).arg(bad).arg(at)));
                        }
                    }
                }
    }

    // The separable column pass combines up to four output rows per pass over the ring
    // (rowkernels.h, combineRowsUpTo4): every bit as four single-row passes give, accumulating
    // or not, for kernel heights from 1 to 31 and widths through every vector path.
    void columnPassOfFourRowsKeepsEveryBit()
    {
        const detail::RowKernels& rk = detail::rowKernels();
        std::uint32_t seed = 9;
        for (int kh : {1, 2, 5, 31})
            for (int w : {5, 16, 40, 100, 150, 1030})
                for (int n = 1; n <= 4; ++n)
                    for (bool accumulate : {false, true}) {
                        const Image ringImage = randomImage(w, kh + n - 1, 1, seed++);
                        std::vector<const float*> rows;
                        for (int r = 0; r < kh + n - 1; ++r) rows.push_back(ringImage.plane(0) + std::size_t(r) * w);
                        const Kernel k = randomKernel(1, kh, KernelKind::Dense, seed++);
                        const Image start = randomImage(w, n, 1, seed++);
                        Image one = start, four = start;
                        std::vector<float*> outs;
                        for (int j = 0; j < n; ++j) {
                            rk.combineRows(rows.data() + j, k.values.data(), kh, w, one.plane(0) + std::size_t(j) * w, accumulate);
                            outs.push_back(four.plane(0) + std::size_t(j) * w);
                        }
                        rk.combineRowsUpTo4(rows.data(), k.values.data(), kh, n, w, outs.data(), accumulate);
                        const QString where = QString("kh %1 w %2 n %3 accumulate %4").arg(kh).arg(w).arg(n).arg(accumulate);
                        QVERIFY2(std::memcmp(one.data.data(), four.data.data(), sizeof(float) * one.data.size()) == 0,
                                 qPrintable(where));
                        if (accumulate) continue;
                        // The only component's pass: the same bits, streamed or not, aligned or not,
                        // and a bit for each output row holding a non-finite value.
                        Samples storage(std::size_t(1) << 20); // 2 MiB-aligned (image.h)
                        for (bool stream : {false, true})
                            for (int misalign : {0, 1}) {
                                std::vector<float*> finals;
                                for (int j = 0; j < n; ++j) finals.push_back(storage.data() + misalign + std::size_t(j) * 2048);
                                QCOMPARE(rk.combineRowsUpTo4Final(rows.data(), k.values.data(), kh, n, w, finals.data(), stream), 0u);
                                for (int j = 0; j < n; ++j)
                                    QVERIFY2(std::memcmp(finals[j], one.plane(0) + std::size_t(j) * w, sizeof(float) * w) == 0,
                                             qPrintable(where + QString(" final, stream %1 misaligned %2").arg(stream).arg(misalign)));
                            }
                        Image poisoned = ringImage; // an infinity in the last ring row: only the last output row sees it
                        poisoned.at(0, kh + n - 2, w / 2) = std::numeric_limits<float>::infinity();
                        std::vector<const float*> poisonedRows;
                        for (int r = 0; r < kh + n - 1; ++r) poisonedRows.push_back(poisoned.plane(0) + std::size_t(r) * w);
                        std::vector<float*> finals;
                        for (int j = 0; j < n; ++j) finals.push_back(storage.data() + std::size_t(j) * 2048);
                        const unsigned bad = rk.combineRowsUpTo4Final(poisonedRows.data(), k.values.data(), kh, n, w, finals.data(), true);
                        const bool reaches = k.values[std::size_t(kh) - 1] != 0.0f;
                        QCOMPARE(bad, reaches ? 1u << (n - 1) : 0u);
                    }
    }

    // The separable row pass (rowkernels.h, filterRow) takes short kernels' shifted vectors from
    // loaded neighbours and prefetches the next row: every output has the bits of its taps added
    // one by one in order, for widths through every block, vector and scalar path, with a row
    // holding exactly the w + (kw - 1) * step values it may read (a read past it shows under the
    // address sanitizer) and prefetch distances that point past the buffer; taps one float apart
    // and a pixel of 2 to 5 channels apart (rows of whole interleaved pixels).
    void rowPassKeepsTheTapOrder()
    {
        const detail::RowKernels& rk = detail::rowKernels();
        const bool fused = std::strcmp(rk.isa, "sse2") != 0; // the baseline build has no FMA
        std::uint32_t seed = 21;
        for (int kw : {1, 2, 3, 5, 7, 9, 17})
            for (int step : {1, 2, 3, 4, 5})
            for (int w : {1, 7, 16, 63, 64, 65, 79, 80, 81, 150, 1030})
                for (std::ptrdiff_t ahead : {std::ptrdiff_t(0), std::ptrdiff_t(w), std::ptrdiff_t(1) << 40}) {
                    const Image rowImage = randomImage(w + (kw - 1) * step, 1, 1, seed++);
                    const std::vector<float> in(rowImage.data.begin(), rowImage.data.end()); // exactly sized
                    const Kernel k = randomKernel(kw, 1, KernelKind::Dense, seed++);
                    std::vector<float> out(static_cast<std::size_t>(w) + 1, -1.0f);
                    rk.filterRow(in.data(), k.values.data(), kw, step, w, out.data(), ahead);
                    for (int x = 0; x < w; ++x) {
                        float expected = 0.0f;
                        for (int u = 0; u < kw; ++u) {
                            const float sample = in[x + u * step];
                            expected = fused ? std::fma(k.values[u], sample, expected) : expected + k.values[u] * sample;
                        }
                        if (std::memcmp(&expected, &out[x], sizeof expected) != 0)
                            QFAIL(qPrintable(QString("kw %1 step %6 w %2 x %3: %4, taps in order give %5")
                                                 .arg(kw).arg(w).arg(x).arg(out[x], 0, 'g', 9).arg(expected, 0, 'g', 9)
                                                 .arg(step)));
                    }
                    QCOMPARE(out[w], -1.0f); // nothing past the row
                }
    }

    // The direct method's four-row kernel (rowkernels.h, correlate2dQuad) gives every output the
    // bits of its taps added in order, kernel row by row, as the one- and two-row kernels do, so
    // an output does not depend on the group of rows it was computed in: for kernels it runs
    // itself and ones it hands to pairs, widths through every block, vector and scalar path,
    // rows holding exactly the values they may read, prefetch distances past the buffers, and
    // streamed stores asked for; and taps a pixel of 2, 3 or 4 channels apart (interleaved rows).
    void quadRowsKeepTheTapOrder()
    {
        const detail::RowKernels& rk = detail::rowKernels();
        const bool fused = std::strcmp(rk.isa, "sse2") != 0; // the baseline build has no FMA
        const float scale = 0.75f, offset = 0.25f;
        std::uint32_t seed = 5;
        const int kernels[][2] = {{3, 3}, {5, 5}, {2, 7}, {7, 3}, {9, 9}, {11, 11}, {3, 5}, {4, 1}};
        for (const auto& ks : kernels)
            for (int w : {1, 15, 16, 17, 40, 63, 64, 65, 100, 120, 130, 1030})
                for (int step : {1, 2, 3, 4})
                for (bool stream : {false, true}) {
                    const int kw = ks[0], kh = ks[1];
                    std::vector<std::vector<float>> rowData;
                    std::vector<const float*> rows;
                    for (int r = 0; r < kh + 3; ++r) {
                        const Image row = randomImage(w + (kw - 1) * step, 1, 1, seed++);
                        rowData.emplace_back(row.data.begin(), row.data.end()); // exactly sized
                    }
                    for (const auto& r : rowData) rows.push_back(r.data());
                    const Kernel k = randomKernel(kw, kh, KernelKind::Dense, seed++);
                    std::vector<std::vector<float>> out(4, std::vector<float>(static_cast<std::size_t>(w) + 1, -1.0f));
                    float* const outs[4] = {out[0].data(), out[1].data(), out[2].data(), out[3].data()};
                    QVERIFY(rk.correlate2dQuad(rows.data(), k.values.data(), kw, kh, step, w, scale, offset, outs, stream,
                                               std::ptrdiff_t(1) << 40));
                    for (int j = 0; j < 4; ++j) {
                        for (int x = 0; x < w; ++x) {
                            float sum = 0.0f;
                            for (int v = 0; v < kh; ++v)
                                for (int u = 0; u < kw; ++u) {
                                    const float t = k.values[v * kw + u], in = rowData[j + v][x + u * step];
                                    sum = fused ? std::fma(t, in, sum) : sum + t * in;
                                }
                            const float expected = fused ? std::fma(sum, scale, offset) : sum * scale + offset;
                            if (std::memcmp(&expected, &out[j][x], sizeof expected) != 0)
                                QFAIL(qPrintable(QString("k%1x%2 w %3 step %8 row %4 x %5: %6, taps in order give %7")
                                                     .arg(kw).arg(kh).arg(w).arg(j).arg(x)
                                                     .arg(out[j][x], 0, 'g', 9).arg(expected, 0, 'g', 9).arg(step)));
                        }
                        QCOMPARE(out[j][w], -1.0f); // nothing past the row
                    }
                }
    }

    // A direct run into an output larger than the last-level cache (the one that streams its
    // stores) gives every bit the same run gives with its stores cached, over the whole image,
    // borders included: a width of whole vectors (every row streamed) and an odd one (rows not
    // aligned: ordinary stores). The cached run agrees with the reference (agreeWithReference),
    // so the streamed one does too, at the cost of a direct run instead of a reference one.
    void directIntoAnOutputLargerThanTheCache()
    {
        int side = 0;
        for (int s = 512; s <= 8192 && !side; s += 512)
            if (detail::outputsBypassCaches(sizeof(float) * std::size_t(s) * s)) side = s;
        if (!side) QSKIP("no output up to 8192x8192 streams here (CONVLAB_STREAMING=0 keeps every store cached)");
        for (int w : {side, side + 3}) {
            const Image in = randomImage(w, side, 1, 11u + w);
            for (auto [kw, kh] : {std::pair{3, 3}, {5, 5}}) {
                ConvolveParams p;
                p.kernel = randomKernel(kw, kh, KernelKind::Dense, 12);
                p.border = {BorderMode::Reflect, 0.0f};
                p.method = Method::Direct;
                const Image streamed = convolve(in, p);
                Image cached;
                {
                    const detail::StreamingForcedForTests keepCached(false);
                    QVERIFY(!detail::outputsBypassCaches(sizeof(float) * in.data.size()));
                    cached = convolve(in, p);
                }
                QVERIFY(detail::outputsBypassCaches(sizeof(float) * in.data.size()));
                QVERIFY2(std::memcmp(streamed.data.data(), cached.data.data(), sizeof(float) * in.data.size()) == 0,
                         qPrintable(QString("%1x%2 k%3").arg(w).arg(side).arg(kw)));
            }
        }
    }

    void cancelStopsTheRun()
    {
        const Image in = randomImage(64, 64, 1, 1);
        std::atomic<bool> cancel{true};
        ConvolveParams p;
        p.kernel = randomKernel(5, 5, KernelKind::Dense, 1);
        p.cancel = &cancel;
        for (Method m : requestableMethods()) {
            p.method = m;
            QVERIFY_THROWS_EXCEPTION(Cancelled, convolve(in, p));
        }
    }

    // The workers take every chunk of [0, n) exactly once, chunks being `grain` long and in
    // place, however many workers ask; a worker's exception reaches the caller and stops the
    // others taking more; a call from inside a worker finishes (it runs there, not waiting for
    // the busy pool).
    void chunksAreTakenOnce()
    {
        for (int n : {1, 2, 7, 100, 1001})
            for (int grain : {1, 3, 64, 5000})
                for (int threads : {1, 2, 5}) {
                    std::vector<std::atomic<int>> taken(static_cast<std::size_t>(n));
                    std::atomic<int> workers{0}, misplaced{0};
                    detail::parallelWorkers(n, threads, grain, [&](detail::ChunkQueue& chunks) {
                        ++workers;
                        for (int b, e; chunks.next(b, e);) {
                            if (threads > 1 && (b % grain != 0 || e - b > grain)) ++misplaced;
                            for (int i = b; i < e; ++i) ++taken[static_cast<std::size_t>(i)];
                        }
                    });
                    const QString what = QString("n %1 grain %2 threads %3").arg(n).arg(grain).arg(threads);
                    QVERIFY2(misplaced == 0, qPrintable(what));
                    QVERIFY2(workers >= 1 && workers <= threads, qPrintable(what));
                    for (const auto& t : taken) QVERIFY2(t == 1, qPrintable(what));
                }
        std::atomic<int> chunksAfterFailure{0};
        QVERIFY_THROWS_EXCEPTION(Error, detail::parallelWorkers(1000, 2, 1, [&](detail::ChunkQueue& chunks) {
            for (int b, e; chunks.next(b, e);) {
                if (b == 0) throw Error("chunk 0"); // the first chunk taken
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                ++chunksAfterFailure;
            }
        }));
        QVERIFY(chunksAfterFailure < 100); // the queue was drained: not the 999 other chunks
        std::atomic<int> inner{0};
        detail::parallelFor(4, 2, [&](int b, int e) {
            for (int i = b; i < e; ++i)
                detail::parallelFor(10, 2, [&](int ib, int ie) { inner += ie - ib; });
        });
        QCOMPARE(inner.load(), 40);
    }

    // A child made by fork after the pool has workers has none of them (fork copies only the
    // calling thread): its pooled calls must start workers of their own, not queue work for the
    // parent's and wait forever. The child reports by exit status; alarm() ends a hung child.
    void poolWorksInForkedChild()
    {
        std::atomic<int> before{0};
        detail::parallelFor(64, 2, [&](int b, int e) { before += e - b; });
        QCOMPARE(before.load(), 64);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            alarm(20);
            std::atomic<int> sum{0}, workers{0};
            for (int round = 0; round < 3; ++round) // several calls: the fresh pool is reused
                detail::parallelWorkers(1000, 2, 1, [&](detail::ChunkQueue& chunks) {
                    ++workers;
                    for (int b, e; chunks.next(b, e);) sum += e - b;
                });
            _exit(sum == 3000 && workers >= 3 ? 0 : 1);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY2(WIFEXITED(status), WIFSIGNALED(status) ? "the child was killed (hung: SIGALRM)" : "no exit");
        QCOMPARE(WEXITSTATUS(status), 0);
    }

    // Threads take chunks of rows or tiles in whatever order they come free: the output must not
    // depend on how many there are, to the bit, for every method and border, at odd sizes and
    // several FFT tiles (the 1301-wide image) and several channels.
    // convolveInto with the caller's planes (convlab::OutputPlanes, what the Python module
    // passes for a NumPy output) gives every bit convolve() gives, for every method and border
    // mode, planes at any offset from a 64-byte boundary (NumPy's storage is 16-byte aligned),
    // alpha copied through; an output past the streaming size too, whose rows the direct
    // kernels then write partly cached and partly streamed. A wrong shape and planes that
    // share the input's memory are refused and leave the planes untouched.
    void callerPlanesGetTheImageBits()
    {
        auto planesAt = [](Samples& storage, int offset, const Image& like) {
            OutputPlanes o;
            o.width = like.width;
            o.height = like.height;
            o.channels = like.channels;
            for (int c = 0; c < like.channels; ++c) o.planes[c] = storage.data() + offset + c * like.planeSize();
            return o;
        };
        auto sameBits = [](const OutputPlanes& o, const Image& want) {
            for (int c = 0; c < want.channels; ++c)
                if (std::memcmp(o.plane(c), want.plane(c), sizeof(float) * want.planeSize()) != 0) return false;
            return true;
        };
        struct Case {
            int w, h, c, kw, kh;
        };
        for (const Case& t : {Case{37, 29, 4, 3, 3}, Case{64, 40, 1, 5, 5}, Case{130, 61, 3, 17, 9}})
            for (const BorderModeInfo& mode : borderModes())
                for (Method m : {Method::Direct, Method::Separable, Method::Fft, Method::Reference}) {
                    Image in = randomImage(t.w, t.h, t.c, 11u + t.w);
                    in.hasAlpha = t.c == 4;
                    ConvolveParams p;
                    p.kernel = randomKernel(t.kw, t.kh, t.kw == 5 ? KernelKind::Rank1 : KernelKind::Dense, 5u);
                    p.border = {mode.mode, 0.75f};
                    p.method = m;
                    const Image want = convolve(in, p);
                    for (int offset : {0, 1, 4, 13}) {
                        Samples storage(in.data.size() + 16, -7.0f);
                        const OutputPlanes o = planesAt(storage, offset, in);
                        convolveInto(ImagePlanes(in), p, o, nullptr);
                        QVERIFY2(sameBits(o, want), qPrintable(QString("%1x%2x%3 %4 %5 offset %6").arg(t.w).arg(t.h).arg(t.c)
                                                                   .arg(mode.name, QString::fromStdString(methodName(m))).arg(offset)));
                        QCOMPARE(storage[offset + in.data.size()], -7.0f); // nothing past the planes
                    }
                }
        // Past the streaming size (48 MiB at most, rowkernels.h outputsBypassCaches): the direct
        // method and the separable one's only column pass split each row at its first boundary.
        const Image large = randomImage(4096, 3073, 1, 99);
        ConvolveParams p;
        for (auto [m, side, kind] : {std::tuple{Method::Direct, 3, KernelKind::Dense},
                                     std::tuple{Method::Separable, 5, KernelKind::Rank1}}) {
            p.kernel = randomKernel(side, side, kind, 7u);
            p.method = m;
            const Image want = convolve(large, p);
            for (int offset : {0, 4, 13}) {
                Samples storage(large.data.size() + 16, -7.0f);
                const OutputPlanes o = planesAt(storage, offset, large);
                convolveInto(ImagePlanes(large), p, o, nullptr);
                QVERIFY2(sameBits(o, want), qPrintable(QString("4096x3073 %1 offset %2")
                                                           .arg(QString::fromStdString(methodName(m))).arg(offset)));
                QCOMPARE(storage[offset + large.data.size()], -7.0f);
            }
        }
        p.kernel = randomKernel(3, 3, KernelKind::Dense, 7u);
        p.method = Method::Direct;
        // Refused: another shape, and planes inside the input.
        Image small = randomImage(20, 10, 1, 3);
        Samples storage(small.data.size() * 2, -7.0f);
        OutputPlanes wrong = planesAt(storage, 0, small);
        wrong.width = 19;
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(ImagePlanes(small), p, wrong, nullptr));
        QCOMPARE(storage[0], -7.0f);
        OutputPlanes inside;
        inside.width = small.width;
        inside.height = small.height;
        inside.channels = 1;
        inside.planes[0] = small.plane(0) + 5;
        const Image before = small;
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(ImagePlanes(small), p, inside, nullptr));
        QVERIFY(std::memcmp(small.data.data(), before.data.data(), sizeof(float) * small.data.size()) == 0);
    }

    // Interleaved pixels (a NumPy (H, W, C) array) read and written where they lie, through
    // views with a pixel step: the same bits as the planar image, every channel of a wider array
    // outside the view untouched. Direct and separable filter whole pixels where they lie
    // (Job::wholePixels), read other views in place and write bands of rows (engine.cpp
    // runInBands); FFT and the reference get planar copies.
    void interleavedPixelsGetThePlanarBits()
    {
        // Planes [first, first + count) of interleaved storage with `step` samples a pixel.
        auto viewOf = [](auto* storage, int w, int h, int step, int first, int count) {
            using Planes = std::conditional_t<std::is_const_v<std::remove_pointer_t<decltype(storage)>>, ImagePlanes,
                                              OutputPlanes>;
            Planes v;
            v.width = w;
            v.height = h;
            v.channels = count;
            v.pixelStep = step;
            for (int c = 0; c < count; ++c) v.planes[c] = storage + first + c;
            return v;
        };
        struct Case {
            int w, h, step, first, count, kw, kh;
            KernelKind kind;
            bool alphaKept = true; // four channels: the last is alpha, copied through
        };
        // Views of whole pixels (first 0, count == step, every channel filtered) are filtered
        // where they lie by direct (Job::wholePixels): among them images narrower than the
        // kernel's reach (whole padded rows), even and one-sided kernels, rows of fewer samples
        // than a vector.
        const Case cases[] = {{37, 29, 3, 0, 3, 3, 3, KernelKind::Dense},   {64, 40, 4, 0, 4, 5, 5, KernelKind::Rank1},
                              {130, 61, 5, 1, 3, 17, 9, KernelKind::Dense}, {1, 1, 3, 0, 3, 3, 3, KernelKind::Dense},
                              {3, 2, 2, 0, 2, 5, 5, KernelKind::Rank2},     {75, 300, 7, 4, 3, 7, 7, KernelKind::Rank2},
                              {50, 33, 2, 1, 1, 4, 6, KernelKind::Rank1},   {33, 17, 4, 0, 4, 3, 3, KernelKind::Dense, false},
                              {40, 23, 3, 0, 3, 9, 3, KernelKind::Dense},   {6, 9, 3, 0, 3, 13, 5, KernelKind::Dense},
                              {21, 5, 2, 0, 2, 2, 7, KernelKind::Dense},    {5, 3, 4, 0, 4, 1, 3, KernelKind::Rank1, false},
                              {70, 31, 3, 0, 3, 5, 5, KernelKind::Rank1}};
        for (const Case& t : cases)
            for (const BorderModeInfo& mode : borderModes())
                for (Method m : {Method::Direct, Method::Separable, Method::Fft, Method::Reference})
                    for (int threads : {1, 2}) {
                        const QString what = QString("%1x%2 step %3 planes %4..%5 %6 %7 %8 threads")
                                                 .arg(t.w).arg(t.h).arg(t.step).arg(t.first).arg(t.first + t.count - 1)
                                                 .arg(mode.name, QString::fromStdString(methodName(m))).arg(threads);
                        Image planar = randomImage(t.w, t.h, t.count, 31u + t.w);
                        planar.hasAlpha = t.count == 4 && t.alphaKept;
                        if (t.w * t.h > 100) { // a NaN, an infinity and a sum that overflows float
                            planar.at(0, t.h / 2, t.w / 2) = std::numeric_limits<float>::quiet_NaN();
                            planar.at(t.count - 1, t.h / 3, 1) = std::numeric_limits<float>::infinity();
                            planar.at(0, t.h - 1, t.w - 1) = 3e38f;
                        }
                        ConvolveParams p;
                        p.kernel = randomKernel(t.kw, t.kh, t.kind, 9u);
                        p.border = {mode.mode, 0.5f};
                        p.method = m;
                        p.threads = threads;
                        const Image want = convolve(planar, p);
                        const std::size_t values = planar.planeSize() * t.step;
                        std::vector<float> pixels(values, -3.0f), result(values + 8, -7.0f);
                        for (int c = 0; c < t.count; ++c)
                            for (std::size_t i = 0; i < planar.planeSize(); ++i)
                                pixels[i * t.step + t.first + c] = planar.plane(c)[i];
                        ImagePlanes in = viewOf(static_cast<const float*>(pixels.data()), t.w, t.h, t.step, t.first, t.count);
                        in.hasAlpha = planar.hasAlpha;
                        const OutputPlanes out = viewOf(result.data(), t.w, t.h, t.step, t.first, t.count);
                        RunReport report;
                        convolveInto(in, p, out, &report);
                        // Whole pixels are filtered where they lie by direct and separable, with
                        // nothing to interleave afterwards; every other view by bands or planar
                        // copies.
                        const bool wholePixels = t.first == 0 && t.count == t.step && !planar.hasAlpha;
                        const bool interleaves = std::any_of(report.stages.begin(), report.stages.end(),
                                                             [](const StageTiming& s) { return s.name == "interleave output"; });
                        const bool inPlace = wholePixels && (m == Method::Direct || m == Method::Separable);
                        QVERIFY2(interleaves == !inPlace, qPrintable(what + ": stages"));
                        bool same = true, untouched = true;
                        for (std::size_t i = 0; i < planar.planeSize(); ++i)
                            for (int s = 0; s < t.step; ++s) {
                                const float got = result[i * t.step + s];
                                if (s < t.first || s >= t.first + t.count)
                                    untouched &= got == -7.0f;
                                else
                                    same &= std::memcmp(&got, &want.plane(s - t.first)[i], sizeof got) == 0;
                            }
                        QVERIFY2(same, qPrintable(what));
                        QVERIFY2(untouched, qPrintable(what + ": a plane outside the view was written"));
                        QCOMPARE(result[values], -7.0f); // nothing past the pixels
                        // Interleaved in, planar out; planar in, interleaved out.
                        Image planarOut;
                        convolveInto(in, p, planarOut, nullptr);
                        QVERIFY2(std::memcmp(planarOut.data.data(), want.data.data(), sizeof(float) * want.data.size()) == 0,
                                 qPrintable(what + " into an image"));
                        std::fill(result.begin(), result.end(), -7.0f);
                        convolveInto(ImagePlanes(planar), p, out, nullptr);
                        for (std::size_t i = 0; i < planar.planeSize(); ++i)
                            for (int c = 0; c < t.count; ++c)
                                same &= std::memcmp(&result[i * t.step + t.first + c], &want.plane(c)[i], sizeof(float)) == 0;
                        QVERIFY2(same, qPrintable(what + " from planes"));
                    }
        // Past the streaming size, over many bands: rows streamed into the interleaved output.
        const int w = 4096, h = 1100, n = 3;
        const Image planar = randomImage(w, h, n, 5u);
        std::vector<float> pixels(planar.data.size()), result(planar.data.size() + 16, -7.0f);
        for (int c = 0; c < n; ++c)
            for (std::size_t i = 0; i < planar.planeSize(); ++i) pixels[i * n + c] = planar.plane(c)[i];
        for (auto [m, side, kind] : {std::tuple{Method::Direct, 3, KernelKind::Dense},
                                     std::tuple{Method::Separable, 5, KernelKind::Rank1}})
            for (int offset : {0, 1, 4}) {
                ConvolveParams p;
                p.kernel = randomKernel(side, side, kind, 7u);
                p.method = m;
                const Image want = convolve(planar, p);
                std::fill(result.begin(), result.end(), -7.0f);
                convolveInto(viewOf(static_cast<const float*>(pixels.data()), w, h, n, 0, n), p,
                             viewOf(result.data() + offset, w, h, n, 0, n), nullptr);
                bool same = true;
                for (int c = 0; c < n; ++c)
                    for (std::size_t i = 0; i < planar.planeSize(); ++i)
                        same &= std::memcmp(&result[offset + i * n + c], &want.plane(c)[i], sizeof(float)) == 0;
                QVERIFY2(same, qPrintable(QString("4096x1100x3 %1 offset %2").arg(QString::fromStdString(methodName(m))).arg(offset)));
                QCOMPARE(result[offset + planar.data.size()], -7.0f);
                QCOMPARE(offset > 0 ? result[offset - 1] : -7.0f, -7.0f);
            }
        // 8- and 16-bit samples as decoded into interleaved pixels: whole pixels in plane order
        // filtered where they lie by direct and separable (the samples of a row converted
        // together), BGR order and alpha copied through by bands.
        struct PackedCase {
            int w, h, channels;
            SampleDepth depth;
            bool alpha, reversed;
        };
        const PackedCase packedCases[] = {{37, 29, 4, SampleDepth::U8, true, false}, {37, 29, 3, SampleDepth::U8, false, false},
                                          {41, 13, 4, SampleDepth::U16, false, false}, {3, 7, 2, SampleDepth::U8, false, false},
                                          {23, 9, 3, SampleDepth::U8, false, true}};
        for (const PackedCase& t : packedCases)
            for (const BorderModeInfo& mode : borderModes())
                for (Method m : {Method::Direct, Method::Separable, Method::Fft, Method::Reference}) {
                    PackedImage packed;
                    packed.width = t.w;
                    packed.height = t.h;
                    packed.channels = t.channels;
                    packed.depth = t.depth;
                    packed.hasAlpha = t.alpha;
                    if (t.reversed) packed.order = {2, 1, 0, 3};
                    packed.stride = static_cast<std::size_t>(t.w) * t.channels * packed.sampleBytes();
                    packed.bytes.resize(packed.stride * t.h);
                    for (std::size_t i = 0; i < packed.bytes.size(); ++i)
                        packed.bytes[i] = static_cast<std::uint8_t>(i * 37 % 251);
                    ConvolveParams p;
                    p.kernel = randomKernel(5, 3, KernelKind::Dense, 4u);
                    p.border = {mode.mode, 0.5f};
                    p.method = m;
                    const Image want = convolve(packed, p);
                    std::vector<float> result(want.data.size() + 4, -7.0f);
                    RunReport report;
                    convolveInto(packed, p, viewOf(result.data(), t.w, t.h, t.channels, 0, t.channels), &report);
                    const QString what = QString("%1x%2x%3 %4-bit%5%6 %7 %8")
                                             .arg(t.w).arg(t.h).arg(t.channels).arg(t.depth == SampleDepth::U16 ? 16 : 8)
                                             .arg(t.alpha ? " alpha" : "", t.reversed ? " BGR" : "", mode.name,
                                                  QString::fromStdString(methodName(m)));
                    bool same = true;
                    for (int c = 0; c < t.channels; ++c)
                        for (std::size_t i = 0; i < want.planeSize(); ++i)
                            same &= std::memcmp(&result[i * t.channels + c], &want.plane(c)[i], sizeof(float)) == 0;
                    QVERIFY2(same, qPrintable(what));
                    QCOMPARE(result[want.data.size()], -7.0f); // nothing past the pixels
                    const bool inPlace = !t.alpha && !t.reversed && (m == Method::Direct || m == Method::Separable);
                    const bool interleaves = std::any_of(report.stages.begin(), report.stages.end(),
                                                         [](const StageTiming& s) { return s.name == "interleave output"; });
                    QVERIFY2(interleaves == !inPlace, qPrintable(what + ": stages"));
                }
        // Refused: a pixel step below 1, and an output that shares the input's pixels.
        ImagePlanes bad = viewOf(static_cast<const float*>(pixels.data()), w, h, 0, 0, n);
        ConvolveParams p;
        p.kernel = randomKernel(3, 3, KernelKind::Dense, 7u);
        Image unused;
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(bad, p, unused, nullptr));
        const std::vector<float> before = pixels;
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(viewOf(static_cast<const float*>(pixels.data()), w, h, n, 0, 2), p,
                                                     viewOf(pixels.data(), w, h, n, 2, 1), nullptr));
        QVERIFY(pixels == before);
        // 8-bit samples borrowed from memory the output covers (PackedImage::borrowed): refused.
        std::vector<float> storage(static_cast<std::size_t>(w) * h * n);
        for (std::size_t i = 0; i < storage.size(); ++i) storage[i] = 0.37f * static_cast<float>(i % 1013);
        const std::vector<float> storageBefore = storage;
        PackedImage borrowed;
        borrowed.width = w;
        borrowed.height = h;
        borrowed.channels = n;
        borrowed.stride = static_cast<std::size_t>(w) * n;
        borrowed.borrowed = {reinterpret_cast<const std::uint8_t*>(storage.data()) + 8, borrowed.stride * h};
        QVERIFY_THROWS_EXCEPTION(Error, convolveInto(borrowed, p, viewOf(storage.data(), w, h, n, 0, n), nullptr));
        QVERIFY(storage == storageBefore);
        // Borrowed samples elsewhere give the bits of the same samples owned.
        PackedImage owned = borrowed;
        owned.bytes.assign(borrowed.borrowed.begin(), borrowed.borrowed.end());
        owned.borrowed = {};
        std::vector<float> fromBorrowed(storage.size()), fromOwned(storage.size());
        convolveInto(borrowed, p, viewOf(fromBorrowed.data(), w, h, n, 0, n), nullptr);
        convolveInto(owned, p, viewOf(fromOwned.data(), w, h, n, 0, n), nullptr);
        QVERIFY(fromBorrowed == fromOwned);
        QVERIFY(std::any_of(fromOwned.begin(), fromOwned.end(), [](float v) { return v != 0.0f; }));
    }

    // A run takes one thread per 50 us of its estimated one-thread time, up to the threads
    // asked for (engine.cpp): a 64x64 image with a 3x3 kernel took 17 us on one thread and 60 on
    // two. The results are the same bits either way (outputsDoNotDependOnThreads).
    void smallRunsWakeNoThreads()
    {
        const bool before = detail::setThreadsAsAskedForTests(false);
        ConvolveParams p;
        p.kernel = randomKernel(3, 3, KernelKind::Dense, 2);
        p.threads = 4;
        RunReport small, large, explicitMethod, reference;
        const Image tiny = randomImage(64, 64, 1, 3);
        const Image one = convolve(tiny, p, &small); // auto: the cost model is loaded from here on
        p.method = Method::Direct;
        (void)convolve(tiny, p, &explicitMethod);
        p.method = Method::Reference; // not priced: the threads asked for
        (void)convolve(tiny, p, &reference);
        p.method = Method::Auto;
        (void)convolve(randomImage(2048, 1024, 1, 4), p, &large);
        detail::setThreadsAsAskedForTests(true);
        RunReport asked;
        const Image many = convolve(tiny, p, &asked);
        detail::setThreadsAsAskedForTests(before);
        QCOMPARE(small.threads, 1);
        QCOMPARE(explicitMethod.threads, 1);
        QCOMPARE(reference.threads, 4);
        QCOMPARE(large.threads, 4);
        QCOMPARE(asked.threads, 4);
        // A run that takes fewer threads than it was given says so; one given all (0) does not.
        const auto saysSo = [](const RunReport& r) {
            return std::any_of(r.notices.begin(), r.notices.end(), [](const std::string& n) {
                return n.find("of the 4 threads asked for") != std::string::npos;
            });
        };
        QVERIFY(saysSo(small) && saysSo(explicitMethod));
        QVERIFY(!saysSo(large) && !saysSo(reference));
        p.threads = 0;
        RunReport all;
        detail::setThreadsAsAskedForTests(false);
        (void)convolve(tiny, p, &all);
        detail::setThreadsAsAskedForTests(before);
        QCOMPARE(all.threads, 1);
        QVERIFY(std::none_of(all.notices.begin(), all.notices.end(),
                             [](const std::string& n) { return n.find("threads asked for") != std::string::npos; }));
        QVERIFY(std::memcmp(one.data.data(), many.data.data(), sizeof(float) * one.data.size()) == 0);
    }

    void outputsDoNotDependOnThreads()
    {
        const int sizes[][3] = {{1, 9, 1}, {37, 53, 3}, {131, 301, 1}, {1301, 40, 1}};
        const int kernels[][2] = {{3, 3}, {5, 5}, {2, 7}, {41, 41}};
        for (const auto& s : sizes)
            for (const auto& ks : kernels) {
                const Image in = randomImage(s[0], s[1], s[2], 7u + s[0]);
                const Kernel k = randomKernel(ks[0], ks[1], ks[0] == 5 ? KernelKind::Rank1 : KernelKind::Dense, 3u);
                for (const BorderModeInfo& mode : borderModes())
                    for (Method m : {Method::Direct, Method::Separable, Method::Fft}) {
                        ConvolveParams p;
                        p.kernel = k;
                        p.border = {mode.mode, -1.5f};
                        p.method = m;
                        p.threads = 1;
                        const Image one = convolve(in, p);
                        for (int threads : {2, 3, 8}) {
                            p.threads = threads;
                            const Image many = convolve(in, p);
                            QVERIFY2(many.data.size() == one.data.size() &&
                                         std::memcmp(many.data.data(), one.data.data(),
                                                     sizeof(float) * one.data.size()) == 0,
                                     qPrintable(QString("%1x%2x%3 k%4x%5 %6 %7 threads %8")
                                                    .arg(s[0]).arg(s[1]).arg(s[2]).arg(ks[0]).arg(ks[1])
                                                    .arg(mode.name, QString::fromStdString(methodName(m)))
                                                    .arg(threads)));
                        }
                    }
            }
    }

    void compareStatistics()
    {
        Image a(4, 3, 2), b(4, 3, 2);
        for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] = b.data[i] = float(i);
        b.at(1, 2, 3) += 0.5f;
        const DiffStats s = compareImages(a, b);
        QCOMPARE(s.maxAbs, 0.5);
        QCOMPARE(s.maxX, 3);
        QCOMPARE(s.maxY, 2);
        QCOMPARE(s.maxC, 1);
        QVERIFY(std::fabs(s.meanAbs - 0.5 / 24) < 1e-12);
        QVERIFY(std::isinf(compareImages(a, a).psnr));
        QVERIFY_THROWS_EXCEPTION(Error, compareImages(a, Image(3, 3, 2)));
    }

    // Every method of convlab/modes.h under every border mode of the table, within the
    // tolerance its row gives (docs/semantics.md, Tolerances); auto runs one of its candidates
    // and is held to that one's tolerance. A new row is tested here without editing a list.
    void everyTableMethodMeetsItsTolerance_data()
    {
        QTest::addColumn<int>("method");
        for (const MethodInfo& m : methods()) QTest::addRow("%s", m.name) << int(m.method);
    }
    void everyTableMethodMeetsItsTolerance()
    {
        QFETCH(int, method);
        const MethodInfo& row = methodInfo(Method(method));
        const std::pair<int, int> sizes[] = {{13, 7}, {3, 2}}; // the second smaller than the kernel
        for (const auto& [w, h] : sizes) {
            const Image in = randomImage(w, h, 3, 500u + w);
            const Kernel k = randomKernel(4, 5, KernelKind::Dense, 41u + w);
            for (const BorderModeInfo& mode : borderModes())
                for (Semantics sem : {Semantics::Convolution, Semantics::Correlation}) {
                    ConvolveParams p;
                    p.kernel = k;
                    p.border = {mode.mode, -2.5f};
                    p.semantics = sem;
                    p.device = Device::Cpu;
                    p.method = Method::Reference;
                    const Image want = convolve(in, p);
                    p.method = row.method;
                    RunReport rep;
                    const Image got = convolve(in, p, &rep);
                    const MethodInfo& ran = methodInfo(rep.method);
                    if (row.accuracy == Accuracy::OfItsPick)
                        QVERIFY2(ran.autoCandidate, ran.name);
                    else
                        QCOMPARE(rep.method, row.method);
                    const double err = relativeError(got, want, k, in), tol = toleranceOf(ran.accuracy);
                    QVERIFY2(err <= tol, qPrintable(QString("%1 (ran %2) %3 %4x%5: relative error %6 > %7")
                                                        .arg(row.name, ran.name, mode.name)
                                                        .arg(w)
                                                        .arg(h)
                                                        .arg(err)
                                                        .arg(tol)));
                }
        }
    }
};

// A method says whether it can run a shape: separable runs from the kernel's SVD, so without a
// rank it does not apply, auto does not weigh it and its reason is in words; every method
// applies to a run whose rank is known, and none is refused on the image's shape alone.
void TestMethods::methodsSayWhetherTheyApply()
{
    const Kernel k = randomKernel(5, 5, KernelKind::Dense, 3);
    const detail::RunShape unknownRank{64, 48, 1, &k, -1, 1}, knownRank{64, 48, 1, &k, 5, 1};
    std::string why;
    QVERIFY(!detail::methodApplies(detail::engineOf(Method::Separable), unknownRank, &why));
    QVERIFY2(why.find("rank") != std::string::npos, why.c_str());
    for (const MethodInfo& info : methods()) {
        if (!info.engine) continue;
        QVERIFY2(detail::methodApplies(*info.engine, knownRank), info.name);
        if (info.method != Method::Separable) QVERIFY2(detail::methodApplies(*info.engine, unknownRank), info.name);
    }
    auto weighs = [&](int rank, Method m) {
        for (const MethodEstimate& e : detail::estimateCpu(cpuCostModel(), 64, 48, 1, k, rank, 1))
            if (e.method == m) return true;
        return false;
    };
    QVERIFY(!weighs(-1, Method::Separable));
    QVERIFY(weighs(5, Method::Separable));
    QVERIFY(weighs(-1, Method::Direct));
}

QTEST_APPLESS_MAIN(TestMethods)
#include "test_methods.moc"
