// SPDX-License-Identifier: GPL-3.0-or-later
// The float64 engine (convlab/convolve64.h): its row kernel against a scalar sum at every
// width (the vector blocks, the overlapping last vector, the scalar tail), and its direct and
// separable methods against its reference and an independent per-coordinate oracle, for every
// border mode, both semantics, off-centre anchors, kernels larger than the image, 1 and 3
// interleaved channels. Registered once per ISA (CONVLAB_ISA), as test_methods is.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <vector>

#include "convlab/convolve64.h"
#include "convlab/error.h"
#include "simd/rowkernels.h"
#include "simd/rowkernels64.h"

using namespace convlab;

namespace {

std::vector<double> randomValues(std::size_t n, unsigned seed, double offset = 0.0)
{
    std::mt19937 gen(seed);
    std::normal_distribution<double> d(0.0, 1.0);
    std::vector<double> v(n);
    for (double& x : v) x = d(gen) * 1e3 + offset;
    return v;
}

// The definition with std::fma-free plain sums in the order v, u: an oracle sharing nothing
// with the engine but borderIndex (tested on its own in test_border).
std::vector<double> oracle(const std::vector<double>& in, int w, int h, int c, const Convolve64Params& p)
{
    const int kw = p.kernelWidth, kh = p.kernelHeight;
    int ax = p.anchorX >= 0 ? p.anchorX : kw / 2, ay = p.anchorY >= 0 ? p.anchorY : kh / 2;
    std::vector<double> out(in.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int ch = 0; ch < c; ++ch) {
                long double acc = 0.0L;
                for (int v = 0; v < kh; ++v)
                    for (int u = 0; u < kw; ++u) {
                        // convolution: out(y,x) = sum K(v,u) in(y + ay - v, x + ax - u)
                        const bool conv = p.semantics == Semantics::Convolution;
                        const long long sy = conv ? y + ay - v : y - ay + v, sx = conv ? x + ax - u : x - ax + u;
                        const int iy = borderIndex(sy, h, p.border), ix = borderIndex(sx, w, p.border);
                        const double s = iy < 0 || ix < 0 ? p.cval : in[(std::size_t(iy) * w + ix) * c + ch];
                        acc += static_cast<long double>(p.weights[std::size_t(v) * kw + u]) * s;
                    }
                out[(std::size_t(y) * w + x) * c + ch] = static_cast<double>(acc);
            }
    return out;
}

double scaledError(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& k,
                   const std::vector<double>& in, double cval)
{
    double sumAbs = 0.0, peak = std::abs(cval), worst = 0.0;
    for (double v : k) sumAbs += std::abs(v);
    for (double v : in) peak = std::max(peak, std::abs(v));
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst / std::max(sumAbs * peak, 1e-300);
}

std::vector<double> run(const std::vector<double>& in, int w, int h, int c, const Convolve64Params& p,
                        RunReport* report = nullptr)
{
    std::vector<double> out(in.size(), -7.0);
    convolve64(Samples64{in.data(), w, h, c}, p, Output64{out.data(), w, h, c}, report);
    return out;
}

Convolve64Params params(int kw, int kh, std::vector<double> k, BorderMode mode, Method m)
{
    Convolve64Params p;
    p.kernelWidth = kw;
    p.kernelHeight = kh;
    p.weights = std::move(k);
    p.border = mode;
    p.cval = 3.25;
    p.method = m;
    p.threads = 2;
    return p;
}

} // namespace

class TestMethods64 : public QObject {
    Q_OBJECT
private slots:
    void rowKernelMatchesScalarSumsAtEveryWidth()
    {
        const detail::RowKernels64& rk = detail::rowKernels64();
        QCOMPARE(std::string(rk.isa).substr(0, 4), std::string(detail::rowKernels().isa).substr(0, 4));
        for (const auto& [kw, kh] : {std::pair{1, 1}, {3, 3}, {5, 2}, {1, 7}, {15, 15}})
            for (int w = 1; w <= 70; ++w) {
                const auto k = randomValues(std::size_t(kw) * kh, 1);
                std::vector<std::vector<double>> rows;
                std::vector<const double*> ptrs;
                for (int v = 0; v < kh; ++v) rows.push_back(randomValues(std::size_t(w) + kw - 1, 10 + v));
                for (const auto& r : rows) ptrs.push_back(r.data());
                std::vector<double> out(std::size_t(w) + 1, 99.0); // one past the row: left untouched
                rk.correlate(ptrs.data(), k.data(), kw, kh, w, out.data());
                for (int x = 0; x < w; ++x) {
                    double sum = 0.0, scale = 0.0;
                    for (int v = 0; v < kh; ++v)
                        for (int u = 0; u < kw; ++u) {
                            sum += k[v * kw + u] * rows[v][x + u];
                            scale += std::abs(k[v * kw + u] * rows[v][x + u]);
                        }
                    QVERIFY2(std::abs(out[x] - sum) <= 1e-14 * scale, qPrintable(QString("%1x%2 w=%3 x=%4").arg(kw).arg(kh).arg(w).arg(x)));
                }
                QCOMPARE(out[w], 99.0);
            }
    }

    void methodsMatchTheOracleInEveryMode()
    {
        const BorderMode modes[] = {BorderMode::Constant, BorderMode::Replicate, BorderMode::Reflect, BorderMode::Mirror,
                                    BorderMode::Wrap};
        struct Size { int w, h, c; };
        const Size sizes[] = {{1, 1, 1}, {1, 5, 1}, {7, 1, 1}, {2, 3, 3}, {37, 23, 1}, {41, 9, 3}};
        const auto col = randomValues(7, 3), row = randomValues(5, 4);
        std::vector<double> rankOne;
        for (double a : col)
            for (double b : row) rankOne.push_back(a * b);
        struct K { int kw, kh; std::vector<double> v; int ax, ay; };
        const K kernels[] = {{1, 1, {2.5}, -1, -1}, {3, 3, randomValues(9, 5), -1, -1}, {4, 6, randomValues(24, 6), 0, 5},
                             {5, 7, rankOne, 3, 1}, {9, 1, randomValues(9, 7), -1, -1}, {1, 8, randomValues(8, 8), -1, 2}};
        for (const Size& s : sizes) {
            const auto in = randomValues(std::size_t(s.w) * s.h * s.c, 9, 1e6);
            for (BorderMode mode : modes)
                for (const K& k : kernels)
                    for (Semantics sem : {Semantics::Convolution, Semantics::Correlation})
                        for (Method m : {Method::Direct, Method::Separable, Method::Reference, Method::Auto}) {
                            Convolve64Params p = params(k.kw, k.kh, k.v, mode, m);
                            p.anchorX = k.ax;
                            p.anchorY = k.ay;
                            p.semantics = sem;
                            const double err = scaledError(run(in, s.w, s.h, s.c, p), oracle(in, s.w, s.h, s.c, p),
                                                           k.v, in, p.cval);
                            QVERIFY2(err <= 1e-14, qPrintable(QString("%1x%2x%3 kernel %4x%5 mode %6 method %7: %8")
                                                                  .arg(s.w).arg(s.h).arg(s.c).arg(k.kw).arg(k.kh)
                                                                  .arg(int(mode)).arg(int(m)).arg(err)));
                        }
        }
    }

    void rankOneKernelsRunSeparableAndOthersDirect()
    {
        const auto in = randomValues(64 * 48, 11);
        const auto col = randomValues(9, 12), row = randomValues(11, 13);
        std::vector<double> rankOne;
        for (double a : col)
            for (double b : row) rankOne.push_back(a * b);
        RunReport report;
        run(in, 64, 48, 1, params(11, 9, rankOne, BorderMode::Reflect, Method::Auto), &report);
        QCOMPARE(report.method, Method::Separable);
        QCOMPARE(report.rank, 1);
        run(in, 64, 48, 1, params(11, 9, randomValues(99, 14), BorderMode::Reflect, Method::Fft), &report);
        QCOMPARE(report.method, Method::Direct);
        QVERIFY(QString::fromStdString(report.reason).contains("no float64 FFT"));
        QCOMPARE(method64For(params(3, 3, randomValues(9, 15), BorderMode::Wrap, Method::Separable)), Method::Direct);
    }

    void streamedOutputsGiveTheSameBits()
    {
        const auto in = randomValues(260 * 33, 19);
        for (Method m : {Method::Direct, Method::Separable}) {
            const Convolve64Params p = params(5, 3, {1, 2, 3, 2, 1, 2, 4, 6, 4, 2, 1, 2, 3, 2, 1}, BorderMode::Reflect, m);
            std::vector<double> cached, streamed;
            {
                detail::StreamingForcedForTests forced(false);
                cached = run(in, 260, 33, 1, p);
            }
            {
                detail::StreamingForcedForTests forced(true);
                streamed = run(in, 260, 33, 1, p);
            }
            QVERIFY(cached == streamed);
            QVERIFY(scaledError(cached, oracle(in, 260, 33, 1, p), p.weights, in, p.cval) <= 1e-14);
        }
    }

    void threadCountsGiveTheSameBits()
    {
        const auto in = randomValues(131 * 77 * 2, 16);
        Convolve64Params p = params(6, 5, randomValues(30, 17), BorderMode::Mirror, Method::Direct);
        p.threads = 1;
        const auto one = run(in, 131, 77, 2, p);
        p.threads = 0;
        QVERIFY(one == run(in, 131, 77, 2, p));
    }

    void badArgumentsThrowAndLeaveTheOutput()
    {
        const auto in = randomValues(16, 18);
        std::vector<double> out(16, 5.0);
        const auto refused = [&](Convolve64Params p, Samples64 s, Output64 o) {
            try {
                convolve64(s, p, o);
            } catch (const Error&) {
                return true;
            }
            return false;
        };
        const Samples64 s{in.data(), 4, 4, 1};
        const Output64 o{out.data(), 4, 4, 1};
        QVERIFY(refused(params(2, 2, {1.0, 2.0, 3.0}, BorderMode::Wrap, Method::Direct), s, o));          // 3 values for 4
        QVERIFY(refused(params(1, 1, {NAN}, BorderMode::Wrap, Method::Direct), s, o));                    // not finite
        Convolve64Params anchored = params(3, 3, std::vector<double>(9, 1.0), BorderMode::Wrap, Method::Direct);
        anchored.anchorX = 3;
        QVERIFY(refused(anchored, s, o));                                                               // anchor outside
        QVERIFY(refused(params(1, 1, {1.0}, BorderMode::Wrap, Method::Direct), s, Output64{out.data(), 4, 3, 1}));
        QVERIFY(refused(params(1, 1, {1.0}, BorderMode::Wrap, Method::Direct), s,
                        Output64{const_cast<double*>(in.data()) + 2, 4, 4, 1}));                        // overlaps
        QVERIFY(std::all_of(out.begin(), out.end(), [](double v) { return v == 5.0; }));
        std::atomic<bool> cancel{true};
        Convolve64Params p = params(3, 3, std::vector<double>(9, 1.0), BorderMode::Wrap, Method::Direct);
        p.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, convolve64(s, p, o));
    }
};

QTEST_APPLESS_MAIN(TestMethods64)
#include "test_methods64.moc"
