// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel estimation from an image pair (docs/semantics.md, Kernel estimation): kernels filtered
// with the engine are recovered from noise-free pairs, interior and under every border mode,
// for both semantics and any anchor; the residual is the RMSE the definition names; a ridge
// shrinks the kernel; bad pairs and singular systems fail with one clear line. The CLI path
// (--estimate-kernel) is run end to end.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <span>
#include <random>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/estimate.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "convlab/modes.h"
#include "testutil.h"

using namespace convlab;

Q_DECLARE_METATYPE(convlab::Semantics)

namespace {

// Recovery of a noise-free pair: max |estimate - truth| relative to max |truth|.
constexpr double kRecoveryTolerance = 1e-4;

Image filterWith(const Image& in, const Kernel& k, Semantics s, Border border = {})
{
    ConvolveParams p;
    p.kernel = k;
    p.semantics = s;
    p.border = border;
    p.method = Method::Reference; // the definition, rounded once to float
    p.device = Device::Cpu;
    return convolve(in, p);
}

double maxAbs(std::span<const float> v)
{
    double m = 0.0;
    for (float x : v) m = std::max(m, double(std::fabs(x)));
    return m;
}

double relativeKernelError(const Kernel& got, const Kernel& want)
{
    if (got.width != want.width || got.height != want.height) return INFINITY;
    double worst = 0.0;
    for (std::size_t i = 0; i < want.values.size(); ++i)
        worst = std::max(worst, std::fabs(double(got.values[i]) - double(want.values[i])));
    return worst / maxAbs(want.values);
}

double kernelNorm(const Kernel& k)
{
    double s = 0.0;
    for (float v : k.values) s += double(v) * v;
    return std::sqrt(s);
}

// Runs `fn`, which must throw convlab::Error mentioning `mustContain` in one line.
template <class F> void verifyError(F&& fn, const QString& mustContain)
{
    try {
        fn();
        QFAIL(qPrintable(QStringLiteral("no error; expected one mentioning '%1'").arg(mustContain)));
    } catch (const Error& e) {
        const QString m = QString::fromUtf8(e.what());
        QVERIFY2(!m.contains(QLatin1Char('\n')), qPrintable(m));
        QVERIFY2(m.contains(mustContain, Qt::CaseInsensitive), qPrintable(m));
    }
}

EstimateOptions optionsFor(const Kernel& k, Semantics s)
{
    EstimateOptions o;
    o.width = k.width;
    o.height = k.height;
    o.anchorX = k.anchorX;
    o.anchorY = k.anchorY;
    o.semantics = s;
    return o;
}

// The residual RMSE recomputed from its definition: the engine applies the estimated kernel,
// and the differences are taken over the outputs that count (the interior, or everything).
double residualByEngine(const Image& source, const Image& filtered, const KernelEstimate& e, Semantics s,
                        const std::optional<Border>& border)
{
    const Image applied = filterWith(source, e.kernel, s, border.value_or(Border{}));
    const Kernel form = correlationKernel(e.kernel, s);
    const int x0 = border ? 0 : form.ax(), y0 = border ? 0 : form.ay();
    const int x1 = border ? source.width : source.width - (form.width - 1 - form.ax());
    const int y1 = border ? source.height : source.height - (form.height - 1 - form.ay());
    double sum = 0.0;
    std::size_t count = 0;
    for (int c = 0; c < e.channels; ++c)
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) {
                const double d = double(applied.at(c, y, x)) - double(filtered.at(c, y, x));
                sum += d * d;
                ++count;
            }
    return count ? std::sqrt(sum / double(count)) : NAN;
}

using test::CliRun;
using test::runCli;

} // namespace

class TestEstimate : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void recoversKernelFromInterior_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("anchorX"); // -1: default
        QTest::addColumn<int>("anchorY");
        QTest::addColumn<int>("channels");
        QTest::addColumn<Semantics>("semantics");
        const struct {
            int w, h, ax, ay, c;
        } cases[] = {{1, 1, -1, -1, 1}, {1, 5, -1, -1, 1}, {4, 1, -1, -1, 3}, {2, 2, -1, -1, 1}, {3, 3, -1, -1, 3},
                     {3, 3, 0, 2, 1},   {4, 3, -1, -1, 1}, {5, 5, 4, 1, 1},  {6, 4, -1, -1, 3}, {7, 7, -1, -1, 1},
                     {9, 7, -1, -1, 1}, {9, 7, 1, 5, 3},   {8, 8, 7, 0, 1}};
        for (const auto& c : cases)
            for (Semantics s : {Semantics::Convolution, Semantics::Correlation})
                QTest::addRow("%dx%d anchor %d,%d %dch %s", c.w, c.h, c.ax, c.ay, c.c,
                              s == Semantics::Convolution ? "conv" : "corr")
                    << c.w << c.h << c.ax << c.ay << c.c << s;
    }
    void recoversKernelFromInterior()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, anchorX);
        QFETCH(int, anchorY);
        QFETCH(int, channels);
        QFETCH(Semantics, semantics);
        Kernel truth = test::randomKernel(w, h, test::KernelKind::Dense, std::uint32_t(w * 31 + h));
        truth.anchorX = anchorX;
        truth.anchorY = anchorY;
        const Image source = test::randomImage(53, 41, channels, std::uint32_t(w + 7 * h));
        // The border rule only reaches outputs outside the interior, which the fit ignores.
        const Image filtered = filterWith(source, truth, semantics, Border{BorderMode::Wrap, 0.0f});
        const KernelEstimate e = estimateKernel(source, filtered, optionsFor(truth, semantics));
        const double err = relativeKernelError(e.kernel, truth);
        QVERIFY2(err <= kRecoveryTolerance, qPrintable(QStringLiteral("relative error %1").arg(err)));
        QCOMPARE(e.kernel.ax(), truth.ax());
        QCOMPARE(e.kernel.ay(), truth.ay());
        QCOMPARE(e.kernel.anchorX, anchorX); // a default anchor stays the default
        QCOMPARE(e.channels, channels);
        QCOMPARE(e.equations, std::size_t(53 - w + 1) * (41 - h + 1) * channels);
        // Noise-free: what is left is the float rounding of the filtered values (about 100).
        QVERIFY2(e.residualRmse < 1e-3 * maxAbs(filtered.data) / 100, qPrintable(QString::number(e.residualRmse)));
    }

    void recoversKernelUnderEveryBorderMode_data()
    {
        QTest::addColumn<QString>("border");
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<Semantics>("semantics");
        for (const std::string& b : test::borderSpellings("30", true))
            for (const auto& [w, h] : {std::pair{3, 3}, std::pair{4, 5}, std::pair{7, 2}})
                for (Semantics s : {Semantics::Convolution, Semantics::Correlation})
                    QTest::addRow("%s %dx%d %s", b.c_str(), w, h, s == Semantics::Convolution ? "conv" : "corr")
                        << QString::fromStdString(b) << w << h << s;
    }
    void recoversKernelUnderEveryBorderMode()
    {
        QFETCH(QString, border);
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(Semantics, semantics);
        const Border b = parseBorder(border.toStdString());
        Kernel truth = test::randomKernel(w, h, test::KernelKind::Dense, std::uint32_t(3 * w + h));
        truth.anchorX = w - 1; // not the default, so the margins differ on each side
        // A small image: the edges are a large share of the equations.
        const Image source = test::randomImage(14, 11, 2, 5);
        const Image filtered = filterWith(source, truth, semantics, b);
        EstimateOptions o = optionsFor(truth, semantics);
        o.border = b;
        const KernelEstimate e = estimateKernel(source, filtered, o);
        QCOMPARE(e.equations, std::size_t(14 * 11 * 2)); // every output, edges included
        const double err = relativeKernelError(e.kernel, truth);
        QVERIFY2(err <= kRecoveryTolerance, qPrintable(QStringLiteral("relative error %1").arg(err)));
        QVERIFY2(e.residualRmse < 1e-3, qPrintable(QString::number(e.residualRmse)));
    }

    // The edges count: a pair filtered under one border rule does not fit under another.
    void edgesCountUnderABorderMode()
    {
        const Kernel truth = test::randomKernel(5, 5, test::KernelKind::Dense, 9);
        const Image source = test::randomImage(20, 16, 1, 10);
        const Image filtered = filterWith(source, truth, Semantics::Convolution, Border{BorderMode::Wrap, 0.0f});
        EstimateOptions o = optionsFor(truth, Semantics::Convolution);
        o.border = Border{BorderMode::Wrap, 0.0f};
        const double right = estimateKernel(source, filtered, o).residualRmse;
        o.border = Border{BorderMode::Constant, 0.0f};
        const double wrong = estimateKernel(source, filtered, o).residualRmse;
        QVERIFY2(wrong > 1000 * std::max(right, 1e-6), qPrintable(QStringLiteral("%1 vs %2").arg(wrong).arg(right)));
        o.border.reset(); // the interior alone fits under any rule
        QVERIFY(estimateKernel(source, filtered, o).residualRmse < 1e-3);
    }

    // The residual is sqrt(mean squared difference) over the outputs that count, in the
    // filtered image's units: checked against the engine applying the estimate to a noisy pair.
    void residualIsTheRmseOfTheFit_data()
    {
        QTest::addColumn<bool>("withBorder");
        QTest::addColumn<Semantics>("semantics");
        QTest::newRow("interior conv") << false << Semantics::Convolution;
        QTest::newRow("interior corr") << false << Semantics::Correlation;
        QTest::newRow("mirror conv") << true << Semantics::Convolution;
        QTest::newRow("mirror corr") << true << Semantics::Correlation;
    }
    void residualIsTheRmseOfTheFit()
    {
        QFETCH(bool, withBorder);
        QFETCH(Semantics, semantics);
        Kernel truth = test::randomKernel(4, 3, test::KernelKind::Dense, 12);
        truth.anchorY = 0;
        const Image source = test::randomImage(60, 50, 3, 13);
        const std::optional<Border> border =
            withBorder ? std::optional<Border>(Border{BorderMode::Mirror, 0.0f}) : std::nullopt;
        Image filtered = filterWith(source, truth, semantics, border.value_or(Border{}));
        constexpr double kNoise = 2.0;
        std::mt19937 rng(14);
        std::normal_distribution<float> noise(0.0f, float(kNoise));
        for (float& v : filtered.data) v += noise(rng);
        EstimateOptions o = optionsFor(truth, semantics);
        o.border = border;
        const KernelEstimate e = estimateKernel(source, filtered, o);
        const double byEngine = residualByEngine(source, filtered, e, semantics, border);
        QVERIFY2(std::fabs(e.residualRmse - byEngine) <= 1e-5 * byEngine,
                 qPrintable(QStringLiteral("%1 vs %2").arg(e.residualRmse).arg(byEngine)));
        // Least squares leaves about the noise: sigma * sqrt(1 - unknowns / equations).
        QVERIFY2(std::fabs(e.residualRmse - kNoise) < 0.1 * kNoise, qPrintable(QString::number(e.residualRmse)));
        QVERIFY(relativeKernelError(e.kernel, truth) < 0.05);
    }

    // An alpha channel the engine passed through is not part of the fit.
    void alphaIsLeftOut()
    {
        const Kernel truth = test::randomKernel(3, 3, test::KernelKind::Dense, 15);
        Image source = test::randomImage(30, 30, 4, 16);
        source.hasAlpha = true;
        const Image filtered = filterWith(source, truth, Semantics::Convolution);
        const KernelEstimate e = estimateKernel(source, filtered, optionsFor(truth, Semantics::Convolution));
        QCOMPARE(e.channels, 3);
        QVERIFY(relativeKernelError(e.kernel, truth) <= kRecoveryTolerance);
        EstimateOptions all = optionsFor(truth, Semantics::Convolution);
        all.filterAlpha = true; // the alpha plane, passed through, fits no kernel but the identity
        const KernelEstimate withAlpha = estimateKernel(source, filtered, all);
        QCOMPARE(withAlpha.channels, 4);
        QVERIFY(withAlpha.residualRmse > 1.0);
    }

    void ridgeShrinksTheKernel()
    {
        const Kernel truth = test::randomKernel(5, 5, test::KernelKind::Dense, 17);
        const Image source = test::randomImage(40, 40, 1, 18);
        Image filtered = filterWith(source, truth, Semantics::Convolution);
        std::mt19937 rng(19);
        std::normal_distribution<float> noise(0.0f, 5.0f);
        for (float& v : filtered.data) v += noise(rng);
        EstimateOptions o = optionsFor(truth, Semantics::Convolution);
        double lastNorm = INFINITY, lastResidual = 0.0;
        for (double ridge : {0.0, 0.01, 0.1, 1.0, 10.0}) {
            o.ridge = ridge;
            const KernelEstimate e = estimateKernel(source, filtered, o);
            const double norm = kernelNorm(e.kernel);
            QVERIFY2(norm < lastNorm, qPrintable(QStringLiteral("ridge %1: norm %2 after %3").arg(ridge).arg(norm).arg(lastNorm)));
            QVERIFY2(e.residualRmse >= lastResidual, qPrintable(QStringLiteral("ridge %1").arg(ridge)));
            lastNorm = norm;
            lastResidual = e.residualRmse;
        }
        // A ridge also makes a singular system solvable: the constant image's shortest kernel.
        Image flat(20, 20, 1);
        std::fill(flat.data.begin(), flat.data.end(), 10.0f);
        Image flatOut = flat;
        std::fill(flatOut.data.begin(), flatOut.data.end(), 90.0f); // a kernel summing to 9
        o.ridge = 1e-6;
        const KernelEstimate e = estimateKernel(flat, flatOut, o);
        for (float v : e.kernel.values) QVERIFY2(std::fabs(v - 9.0f / 25.0f) < 1e-3f, qPrintable(QString::number(v)));
    }

    void pairMustMatch()
    {
        const Image a = test::randomImage(20, 20, 1, 1);
        EstimateOptions o;
        verifyError([&] { estimateKernel(a, test::randomImage(21, 20, 1, 2), o); }, QStringLiteral("21x20"));
        verifyError([&] { estimateKernel(a, test::randomImage(20, 20, 3, 2), o); },
                    QStringLiteral("same size and channels"));
    }

    void singularSystemIsAnError_data()
    {
        QTest::addColumn<QString>("border"); // empty: interior
        QTest::newRow("interior") << QString();
        for (const std::string& b : {"replicate", "reflect", "mirror", "wrap"})
            QTest::newRow(b.c_str()) << QString::fromStdString(b);
    }
    void singularSystemIsAnError()
    {
        QFETCH(QString, border);
        Image flat(32, 24, 3);
        std::fill(flat.data.begin(), flat.data.end(), 7.0f);
        EstimateOptions o;
        o.width = 5;
        o.height = 3;
        if (!border.isEmpty()) o.border = parseBorder(border.toStdString());
        verifyError([&] { estimateKernel(flat, flat, o); }, QStringLiteral("too little structure to determine a 5x3"));
        // A ramp is no better: every window is a plane, three numbers.
        Image ramp(32, 24, 1);
        for (int y = 0; y < ramp.height; ++y)
            for (int x = 0; x < ramp.width; ++x) ramp.at(0, y, x) = float(2 * x + 3 * y);
        o.border.reset();
        verifyError([&] { estimateKernel(ramp, ramp, o); }, QStringLiteral("singular"));
    }

    void optionsAndSizesAreChecked()
    {
        const Image a = test::randomImage(20, 12, 1, 1);
        EstimateOptions o;
        o.width = kMaxEstimateSide + 1;
        verifyError([&] { estimateKernel(a, a, o); }, QStringLiteral("32x3 is outside"));
        o.width = 0;
        verifyError([&] { estimateKernel(a, a, o); }, QStringLiteral("outside"));
        o.width = 3;
        o.height = 13;
        verifyError([&] { estimateKernel(a, a, o); }, QStringLiteral("smaller than the 3x13 kernel"));
        o.height = 3;
        o.anchorX = 3;
        verifyError([&] { estimateKernel(a, a, o); }, QStringLiteral("anchor"));
        o.anchorX = -1;
        o.ridge = -1;
        verifyError([&] { estimateKernel(a, a, o); }, QStringLiteral("ridge"));
        o.ridge = 0;
        // 12 rows leave 2 interior rows for an 11x11 kernel: 20 equations for 121 unknowns.
        o.width = o.height = 11;
        verifyError([&] { estimateKernel(a, a, o); }, QStringLiteral("equations for the 121 values"));
        o.width = o.height = 3;
        Image bad = a;
        bad.at(0, 4, 5) = NAN;
        verifyError([&] { estimateKernel(a, bad, o); }, QStringLiteral("(5, 4)"));
    }

    void cancelStops()
    {
        const Image a = test::randomImage(64, 64, 1, 1);
        std::atomic<bool> cancel{true};
        EstimateOptions o;
        o.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, estimateKernel(a, a, o));
    }

    // ---- convlab-cli SOURCE FILTERED --estimate-kernel WxH ----

    void cliPrintsAKernelTheParserReads()
    {
        Kernel truth = test::randomKernel(5, 3, test::KernelKind::Dense, 21);
        const Image source = test::randomImage(48, 40, 3, 22);
        const Image filtered = filterWith(source, truth, Semantics::Correlation, Border{BorderMode::Replicate, 0.0f});
        writeNpy(source, path("src.npy").toStdString());
        writeNpy(filtered, path("flt.npy").toStdString());
        const CliRun r = runCli({path("src.npy"), path("flt.npy"), "--estimate-kernel", "5x3", "--correlate", "--border",
                                 "replicate"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // The whole output reads as a kernel: the report lines are '#' comments.
        const Kernel printed = parseKernelText(r.out.toStdString());
        QVERIFY(relativeKernelError(printed, truth) <= kRecoveryTolerance);
        QVERIFY2(r.out.contains("residual RMSE"), r.out.constData());
        EstimateOptions o = optionsFor(truth, Semantics::Correlation);
        o.border = Border{BorderMode::Replicate, 0.0f};
        QCOMPARE(printed.values, estimateKernel(source, filtered, o).kernel.values);
    }

    void cliJsonAndKernelFile()
    {
        Kernel truth = test::randomKernel(4, 4, test::KernelKind::Dense, 23);
        truth.anchorX = 0;
        truth.anchorY = 3;
        const Image source = test::randomImage(40, 30, 1, 24);
        writeNpy(source, path("src1.npy").toStdString());
        writeNpy(filterWith(source, truth, Semantics::Convolution), path("flt1.npy").toStdString());
        const QString saved = path("estimated.json");
        const CliRun r = runCli({path("src1.npy"), path("flt1.npy"), "--estimate-kernel", "4x4", "--anchor", "0,3",
                                 "--json", "-o", saved});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QJsonParseError perr;
        const QJsonObject j = QJsonDocument::fromJson(r.out, &perr).object();
        QVERIFY2(perr.error == QJsonParseError::NoError, r.out.constData());
        // "kernel" is a kernel file's JSON: the kernel parser reads it back.
        const QByteArray kernelJson = QJsonDocument(j.value("kernel").toObject()).toJson();
        const KernelSpec spec = parseKernelJson(kernelJson.toStdString());
        QVERIFY(relativeKernelError(spec.kernel, truth) <= kRecoveryTolerance);
        QCOMPARE(spec.kernel.ax(), 0);
        QCOMPARE(spec.kernel.ay(), 3);
        QVERIFY(spec.semantics == Semantics::Convolution);
        QVERIFY(j.value("residual_rmse").isDouble());
        QVERIFY(j.value("residual_rmse").toDouble() < 1e-3);
        QCOMPARE(j.value("equations").toInteger(), qint64(37 * 27));
        QCOMPARE(j.value("border").toString(), QStringLiteral("interior"));
        // -o wrote a kernel file the loader (the workbench's Open Kernel) reads, the same kernel.
        const KernelSpec file = loadKernelSpec(saved.toStdString());
        QCOMPARE(file.kernel.values, spec.kernel.values);
        QCOMPARE(file.kernel.ax(), 0);
        QVERIFY(file.semantics == Semantics::Convolution);
    }

    void cliBadValuesAreUsageErrors_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("mention");
        QTest::newRow("no x") << QStringList{"--estimate-kernel", "5"} << "WxH";
        QTest::newRow("zero") << QStringList{"--estimate-kernel", "0x3"} << "1..31";
        QTest::newRow("too big") << QStringList{"--estimate-kernel", "32x32"} << "1..31";
        QTest::newRow("junk") << QStringList{"--estimate-kernel", "3x3x"} << "WxH";
        QTest::newRow("negative ridge") << QStringList{"--estimate-kernel", "3x3", "--ridge", "-1"} << "ridge";
        QTest::newRow("nan ridge") << QStringList{"--estimate-kernel", "3x3", "--ridge", "nan"} << "ridge";
        QTest::newRow("bad border") << QStringList{"--estimate-kernel", "3x3", "--border", "bogus"} << "bogus";
        QTest::newRow("anchor outside") << QStringList{"--estimate-kernel", "3x3", "--anchor", "3,0"} << "anchor";
        QTest::newRow("with a kernel") << QStringList{"--estimate-kernel", "3x3", "-k", "1 2 1"} << "-k";
        QTest::newRow("o without") << QStringList{"-o", "x.json", "-k", "1"} << "estimate";
    }
    void cliBadValuesAreUsageErrors()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, mention);
        const Image source = test::randomImage(20, 20, 1, 25);
        writeNpy(source, path("u.npy").toStdString());
        const CliRun r = runCli(QStringList{path("u.npy"), path("u.npy")} + extra);
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err));
        QVERIFY2(err.contains(mention), qPrintable(err));
    }

    void cliFailuresAreErrors()
    {
        Image flat(24, 24, 1);
        std::fill(flat.data.begin(), flat.data.end(), 3.0f);
        writeNpy(flat, path("flat.npy").toStdString());
        writeNpy(test::randomImage(24, 20, 1, 26), path("other.npy").toStdString());
        const QString saved = path("never.json");
        CliRun r = runCli({path("flat.npy"), path("flat.npy"), "--estimate-kernel", "3x3", "-o", saved});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("singular"), r.err.constData());
        QVERIFY(!QFile::exists(saved)); // nothing written after a failure
        r = runCli({path("flat.npy"), path("other.npy"), "--estimate-kernel", "3x3"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("same size and channels"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
    }
};

QTEST_GUILESS_MAIN(TestEstimate)
#include "test_estimate.moc"
