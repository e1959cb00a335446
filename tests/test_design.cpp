// SPDX-License-Identifier: GPL-3.0-or-later
// Filter design (docs/semantics.md, *Filter design*): the achieved frequency response meets the
// ideal outside the transition band within each window's bound, DC gains, the spectral
// inversions are exact, separable designs factor, radial ones are symmetric, the presets, the
// names that carry the design, and the errors.
#include <QtTest>

#include <cmath>
#include <complex>
#include <numbers>

#include "convlab/analysis.h"
#include "convlab/design.h"
#include "convlab/error.h"
#include "convlab/kernel.h"

using namespace convlab;

Q_DECLARE_METATYPE(convlab::FilterDesign)

namespace {

// The largest error a window leaves outside the transition band of a low- or high-pass
// (docs/semantics.md, *Filter design*); a band's two edges may add theirs.
double windowBound(const FilterDesign& d)
{
    const double edges = d.hasBand() ? 2.0 : 1.0;
    switch (d.window) {
    case DesignWindow::Hann:
        return 0.035 * edges;
    case DesignWindow::Hamming:
        return 0.025 * edges;
    case DesignWindow::Blackman:
        return 0.002 * edges;
    case DesignWindow::Kaiser: // beta 8.6
        return 0.001 * edges;
    case DesignWindow::Rectangular:
        break;
    }
    return INFINITY;
}

FilterDesign design(FilterBand band, double f1, double f2, int size, DesignWindow w, DesignShape shape)
{
    FilterDesign d;
    d.band = band;
    d.f1 = f1;
    d.f2 = f2;
    d.size = size;
    d.window = w;
    d.shape = shape;
    return d;
}

QString label(const FilterDesign& d) { return QString::fromStdString(designText(d)); }

// Every band, shape and window at a few sizes and edges.
void addDesignRows(bool withRectangular)
{
    QTest::addColumn<FilterDesign>("d");
    for (int shape = 0; shape < 2; ++shape)
        for (int w = withRectangular ? 0 : 1; w < 5; ++w)
            for (int size : {15, 21, 31, 63})
                for (int band = 0; band < 4; ++band) {
                    const bool hasBand = band >= 2;
                    const auto edges = hasBand ? std::vector<std::pair<double, double>>{{0.05, 0.25}, {0.2, 0.25}, {0.3, 0.45}}
                                               : std::vector<std::pair<double, double>>{{0.05, 0}, {0.2, 0}, {0.4, 0}};
                    for (auto [f1, f2] : edges) {
                        const FilterDesign d =
                            design(FilterBand(band), f1, f2, size, DesignWindow(w), DesignShape(shape));
                        QTest::newRow(qPrintable(label(d))) << d;
                    }
                }
}

// |H(f)| of 1-D taps centred on the middle one, f in cycles/pixel, by its own DTFT.
double gain1d(const std::vector<double>& h, double f)
{
    std::complex<double> acc;
    const int m = int(h.size()) / 2;
    for (int n = 0; n < int(h.size()); ++n) acc += h[n] * std::polar(1.0, -2 * std::numbers::pi * f * (n - m));
    return std::abs(acc);
}

} // namespace

class TestDesign : public QObject {
    Q_OBJECT

private slots:
    // The achieved 2-D response (the analysis' DTFT of the taps) meets the ideal: within the
    // window's bound of 1 in the pass region and of 0 in the stop region, outside half the
    // transition width from every edge.
    void meetsTheIdealResponse_data() { addDesignRows(false); }
    void meetsTheIdealResponse()
    {
        QFETCH(FilterDesign, d);
        const Kernel k = designKernel(d);
        const DesignFit fit = measureDesign(d, frequencyResponse(k, 128));
        const double bound = windowBound(d);
        QVERIFY(fit.stopSamples > 0 || fit.passSamples > 0);
        QVERIFY2(fit.passDeviation <= bound, qPrintable(QString("pass %1 > %2").arg(fit.passDeviation).arg(bound)));
        QVERIFY2(fit.stopGain <= bound, qPrintable(QString("stop %1 > %2").arg(fit.stopGain).arg(bound)));
    }

    // The 1-D factor by its own DTFT: gain within the window's bound of 1 below the transition
    // band and of 0 above it (the textbook figures: Hann 0.0063, Hamming 0.0022, Blackman
    // 0.0002; the rectangular window's Gibbs ripple, 9 %, grows to 13 % at 31 taps once the
    // taps are scaled to DC gain 1).
    void oneDimensionalLowPass_data()
    {
        QTest::addColumn<int>("window");
        QTest::addColumn<double>("bound");
        QTest::newRow("rectangular") << int(DesignWindow::Rectangular) << 0.13;
        QTest::newRow("hann") << int(DesignWindow::Hann) << 0.007;
        QTest::newRow("hamming") << int(DesignWindow::Hamming) << 0.005;
        QTest::newRow("blackman") << int(DesignWindow::Blackman) << 0.00025;
        QTest::newRow("kaiser") << int(DesignWindow::Kaiser) << 0.00015;
    }
    void oneDimensionalLowPass()
    {
        QFETCH(int, window);
        QFETCH(double, bound);
        const auto w = DesignWindow(window);
        for (int size : {31, 63, 127}) {
            const double fc = 0.2, half = transitionWidth(w, 8.6, size) / 2;
            const std::vector<double> h = lowPassTaps(fc, size, w, 8.6);
            int passed = 0, stopped = 0;
            for (int i = 0; i <= 1000; ++i) {
                const double f = 0.5 * i / 1000, g = gain1d(h, f);
                if (f < fc - half) {
                    QVERIFY2(std::fabs(g - 1) <= bound, qPrintable(QString("size %1, f %2: %3").arg(size).arg(f).arg(g)));
                    ++passed;
                } else if (f > fc + half) {
                    QVERIFY2(g <= bound, qPrintable(QString("size %1, f %2: %3").arg(size).arg(f).arg(g)));
                    ++stopped;
                }
            }
            QVERIFY(passed > 100 && stopped > 100);
            QCOMPARE(gain1d(h, fc) < 0.6 && gain1d(h, fc) > 0.4, true); // about -6 dB at the cut-off
        }
    }

    void kaiserBetaTradesRippleForWidth()
    {
        FilterDesign d = design(FilterBand::LowPass, 0.15, 0, 63, DesignWindow::Kaiser, DesignShape::Separable);
        d.beta = 4;
        const DesignFit low = measureDesign(d, frequencyResponse(designKernel(d), 128));
        d.beta = 10;
        const DesignFit high = measureDesign(d, frequencyResponse(designKernel(d), 128));
        QVERIFY(high.transition > low.transition);
        QVERIFY2(high.stopGain < low.stopGain / 10, qPrintable(QString("%1 %2").arg(high.stopGain).arg(low.stopGain)));
        QVERIFY(low.stopGain < 0.05); // beta 4: about 45 dB
    }

    // Low-pass and band-stop pass DC with gain 1, high-pass and band-pass stop it.
    void dcGain_data() { addDesignRows(true); }
    void dcGain()
    {
        QFETCH(FilterDesign, d);
        const Kernel k = designKernel(d);
        const double want = d.band == FilterBand::LowPass || d.band == FilterBand::BandStop ? 1.0 : 0.0;
        QVERIFY2(std::fabs(k.sum() - want) <= 1e-6, qPrintable(QString::number(k.sum(), 'g', 10)));
        QVERIFY(std::fabs(analyzeKernel(k).dcGain - want) <= 1e-6);
        QCOMPARE(idealGain(d, 0, 0), want);
    }

    // High-pass = delta - low-pass and band-stop = delta - band-pass, exactly off the centre
    // tap and to float rounding at it.
    void spectralInversionIsExact_data()
    {
        QTest::addColumn<FilterDesign>("inverse");
        QTest::addColumn<FilterDesign>("original");
        for (int shape = 0; shape < 2; ++shape)
            for (int w = 0; w < 5; ++w) {
                const auto s = DesignShape(shape);
                const auto win = DesignWindow(w);
                const FilterDesign hp = design(FilterBand::HighPass, 0.2, 0, 21, win, s);
                const FilterDesign bs = design(FilterBand::BandStop, 0.1, 0.3, 21, win, s);
                QTest::newRow(qPrintable(label(hp))) << hp << design(FilterBand::LowPass, 0.2, 0, 21, win, s);
                QTest::newRow(qPrintable(label(bs))) << bs << design(FilterBand::BandPass, 0.1, 0.3, 21, win, s);
            }
    }
    void spectralInversionIsExact()
    {
        QFETCH(FilterDesign, inverse);
        QFETCH(FilterDesign, original);
        const Kernel a = designKernel(inverse), b = designKernel(original);
        const std::size_t centre = a.values.size() / 2;
        for (std::size_t i = 0; i < a.values.size(); ++i) {
            const double sum = double(a.values[i]) + double(b.values[i]);
            if (i == centre)
                QVERIFY2(std::fabs(sum - 1.0) <= 0x1p-24, qPrintable(QString::number(sum, 'g', 10)));
            else
                QCOMPARE(sum, 0.0);
        }
        // And the ideal responses are complementary everywhere.
        for (double fx : {0.0, 0.05, 0.15, 0.2, 0.25, 0.35, 0.49})
            for (double fy : {0.0, 0.1, 0.3})
                QCOMPARE(idealGain(inverse, fx, fy) + idealGain(original, fx, fy), 1.0);
    }

    // A separable low-pass is the outer product of its 1-D factor: rank 1, and the taps are the
    // products; the others are made of two or three such terms.
    void separableDesignsFactor()
    {
        for (int w = 0; w < 5; ++w) {
            const FilterDesign lp = design(FilterBand::LowPass, 0.15, 0, 17, DesignWindow(w), DesignShape::Separable);
            const Kernel k = designKernel(lp);
            const KernelAnalysis a = analyzeKernel(k);
            QCOMPARE(a.rank, 1);
            const std::vector<double> h = lowPassTaps(0.15, 17, DesignWindow(w), lp.beta);
            for (int v = 0; v < 17; ++v)
                for (int u = 0; u < 17; ++u) QCOMPARE(k.at(v, u), float(h[v] * h[u]));
            FilterDesign hp = lp;
            hp.band = FilterBand::HighPass;
            QCOMPARE(analyzeKernel(designKernel(hp)).rank, 2); // delta minus a rank-1 kernel
            FilterDesign bp = lp;
            bp.band = FilterBand::BandPass;
            bp.f2 = 0.3;
            QCOMPARE(analyzeKernel(designKernel(bp)).rank, 2);
        }
    }

    // Radial designs depend on the distance from the centre only: unchanged, bit for bit, by
    // transposition and by rotation through 90 degrees.
    void radialDesignsAreSymmetric_data()
    {
        QTest::addColumn<FilterDesign>("d");
        for (int w = 0; w < 5; ++w)
            for (int band = 0; band < 4; ++band)
                for (int size : {3, 9, 25}) {
                    const FilterDesign d =
                        design(FilterBand(band), 0.12, 0.31, size, DesignWindow(w), DesignShape::Radial);
                    QTest::newRow(qPrintable(label(d))) << d;
                }
    }
    void radialDesignsAreSymmetric()
    {
        QFETCH(FilterDesign, d);
        const Kernel k = designKernel(d);
        const int n = k.width;
        for (int v = 0; v < n; ++v)
            for (int u = 0; u < n; ++u) {
                QCOMPARE(k.at(v, u), k.at(u, v));             // transposed
                QCOMPARE(k.at(v, u), k.at(u, n - 1 - v));     // rotated by 90 degrees
                QCOMPARE(k.at(v, u), k.at(n - 1 - v, u));     // mirrored
            }
        // Not the separable design: a radial low-pass is not rank 1.
        if (d.band == FilterBand::LowPass && n > 3) QVERIFY(analyzeKernel(k).rank > 1);
    }

    void windows()
    {
        for (int w = 0; w < 5; ++w) {
            const auto win = DesignWindow(w);
            QCOMPARE(designWindow(win, 8.6, 0.0), 1.0);
            for (double t : {0.1, 0.5, 0.9, 1.0}) QCOMPARE(designWindow(win, 8.6, -t), designWindow(win, 8.6, t));
        }
        QVERIFY(std::fabs(designWindow(DesignWindow::Hann, 0, 1.0)) < 1e-15);
        QVERIFY(std::fabs(designWindow(DesignWindow::Hamming, 0, 1.0) - 0.08) < 1e-15);
        QVERIFY(std::fabs(designWindow(DesignWindow::Blackman, 0, 1.0)) < 1e-15);
        QVERIFY(std::fabs(designWindow(DesignWindow::Hann, 0, 0.5) - 0.5) < 1e-15);
        // Kaiser: I0(beta sqrt(1 - t^2)) / I0(beta); beta 0 is the rectangular window.
        QCOMPARE(designWindow(DesignWindow::Kaiser, 0.0, 0.7), 1.0);
        QVERIFY(std::fabs(designWindow(DesignWindow::Kaiser, 5.0, 1.0) - 1.0 / 27.239871823604442) < 1e-12);
        // The rectangular low-pass at a quarter cycle is the sampled sinc: zero at even taps.
        const std::vector<double> h = lowPassTaps(0.25, 21, DesignWindow::Rectangular, 0);
        for (int n = 2; n <= 10; n += 2) {
            QVERIFY(std::fabs(h[10 + n]) < 1e-15);
            QCOMPARE(h[10 + n], h[10 - n]);
        }
        QVERIFY(h[11] > 0 && h[13] < 0);
    }

    void transitionWidths()
    {
        QCOMPARE(transitionWidth(DesignWindow::Hamming, 0, 33), 0.1);
        QCOMPARE(transitionWidth(DesignWindow::Blackman, 0, 55), 0.1);
        // Kaiser: beta 8.6 is about 86.7 dB, so (86.7 - 7.95) / 14.36 = 5.49 per tap.
        QVERIFY(std::fabs(transitionWidth(DesignWindow::Kaiser, 8.6, 1) - 5.486) < 0.01);
        QVERIFY(std::fabs(transitionWidth(DesignWindow::Kaiser, 0, 1) - 0.909) < 0.01); // 21 dB
        QVERIFY(transitionWidth(DesignWindow::Kaiser, 3, 1) < transitionWidth(DesignWindow::Kaiser, 5, 1));
    }

    // measureDesign on known responses: the ideal itself fits exactly; an all-pass response
    // passes perfectly and stops nothing.
    void measuringKnownResponses()
    {
        const FilterDesign d = design(FilterBand::BandPass, 0.1, 0.3, 31, DesignWindow::Hamming, DesignShape::Radial);
        const DesignFit ideal = measureDesign(d, idealResponse(d, 64));
        QCOMPARE(ideal.passDeviation, 0.0);
        QCOMPARE(ideal.stopGain, 0.0);
        QVERIFY(ideal.passSamples > 0 && ideal.stopSamples > 0);
        Image ones(64, 64, 1);
        std::fill(ones.data.begin(), ones.data.end(), 1.0f);
        const DesignFit allPass = measureDesign(d, ones);
        QCOMPARE(allPass.passDeviation, 0.0);
        QCOMPARE(allPass.stopGain, 1.0);
        QCOMPARE(allPass.passSamples + allPass.stopSamples, ideal.passSamples + ideal.stopSamples);
        // The ideal in dB: 0 where it passes, the floor where it stops.
        const Image db = idealResponse(d, 64, true);
        QCOMPARE(db.at(0, 32, 32), float(kResponseFloorDb)); // DC
        QCOMPARE(db.at(0, 32, 32 + 13), 0.0f);                // 13/64 = 0.2 cycles/pixel
    }

    // The presets build the designs, name them by their preset text, and that text (as a
    // preset spec) builds the same kernel; designOf recovers the design until a tap changes.
    void presetsAndNames()
    {
        const Kernel k = makePreset("lowpass", "cutoff=0.2,size=9,window=Kaiser,beta=5,shape=radial");
        QCOMPARE(k.name, std::string("lowpass:cutoff=0.2,size=9,window=kaiser,beta=5,shape=radial"));
        QCOMPARE(k.width, 9);
        const KernelSpec again = loadKernelSpec("preset:" + k.name);
        QCOMPARE(again.kernel.values, k.values);
        QCOMPARE(again.kernel.name, k.name);
        const std::optional<FilterDesign> d = designOf(k);
        QVERIFY(d.has_value());
        QCOMPARE(d->window, DesignWindow::Kaiser);
        QCOMPARE(d->shape, DesignShape::Radial);
        QCOMPARE(d->f1, 0.2);
        QCOMPARE(d->beta, 5.0);
        QCOMPARE(makePreset("bandstop").name, std::string("bandstop:f1=0.1,f2=0.25,size=21,window=hamming,shape=separable"));
        QCOMPARE(makePreset("highpass").name, std::string("highpass:cutoff=0.25,size=15,window=hamming,shape=separable"));

        Kernel moved = k;
        moved.anchorX = 0;
        QVERIFY(designOf(moved).has_value()); // the anchor does not change the magnitude
        Kernel edited = k;
        edited.values[3] += 0.01f;
        QVERIFY(!designOf(edited).has_value());
        Kernel renamed = k;
        renamed.name = "lowpass:cutoff=0.25,size=9,window=kaiser,beta=5,shape=radial";
        QVERIFY(!designOf(renamed).has_value());
        renamed.name = "lowpass";
        QVERIFY(!designOf(renamed).has_value());
        renamed.name = "gaussian:sigma=1";
        QVERIFY(!designOf(renamed).has_value());
        renamed.name = "lowpass:cutoff=7";
        QVERIFY(!designOf(renamed).has_value());
        QVERIFY(!designOf(makePreset("gaussian")).has_value());
    }

    // The design API reports what the presets do (their rows are in test_presets).
    void designErrors()
    {
        const FilterDesign d = design(FilterBand::BandPass, 0.2, 0.2, 15, DesignWindow::Hann, DesignShape::Radial);
        try {
            designKernel(d);
            QFAIL("no error");
        } catch (const Error& e) {
            QCOMPARE(QString(e.what()), QStringLiteral("preset 'bandpass': f1=0.2 must be below f2=0.2"));
        }
    }
};

QTEST_APPLESS_MAIN(TestDesign)
#include "test_design.moc"
