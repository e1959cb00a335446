// SPDX-License-Identifier: GPL-3.0-or-later
// Built-in kernels: every preset builds and validates; sums, symmetries, known values, ranks,
// and parameter errors.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "convlab/error.h"
#include "convlab/kernel.h"

using namespace convlab;

namespace {

QString errorOf(std::string_view name, std::string_view params)
{
    try {
        makePreset(name, params);
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("<no error>");
}

Kernel transposed(const Kernel& k)
{
    Kernel t(k.height, k.width, std::vector<float>(k.values.size()));
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) t.values[std::size_t(u) * t.width + v] = k.at(v, u);
    return t;
}

// Largest |a - b| over two kernels of the same size (infinity when the sizes differ).
double maxDiff(const Kernel& a, const Kernel& b)
{
    if (a.width != b.width || a.height != b.height) return INFINITY;
    double d = 0.0;
    for (std::size_t i = 0; i < a.values.size(); ++i) d = std::max(d, std::fabs(double(a.values[i]) - b.values[i]));
    return d;
}

// +1: K(v, u) == K(v, w-1-u) (even in x); -1: odd in x. Same for y with `alongY`.
bool mirrored(const Kernel& k, bool alongY, int sign)
{
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) {
            const float m = alongY ? k.at(k.height - 1 - v, u) : k.at(v, k.width - 1 - u);
            if (k.at(v, u) != sign * m) return false;
        }
    return true;
}

bool pointSymmetric(const Kernel& k)
{
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u)
            if (k.at(v, u) != k.at(k.height - 1 - v, k.width - 1 - u)) return false;
    return true;
}

} // namespace

class TestPresets : public QObject {
    Q_OBJECT

private slots:
    void everyPresetBuilds()
    {
        const auto& list = presetList();
        QVERIFY(list.size() >= 20);
        for (const PresetInfo& info : list) {
            QVERIFY2(!info.description.empty(), info.name.c_str());
            for (const PresetParam& p : info.params) {
                QVERIFY2(p.minValue <= p.defaultValue && p.defaultValue <= p.maxValue, (info.name + " " + p.name).c_str());
                QVERIFY(!p.help.empty());
                // A choice's range is its indices.
                if (!p.choices.empty()) QCOMPARE(p.maxValue, double(p.choices.size() - 1));
            }
            const Kernel k = makePreset(info.name);
            k.validate();
            // Designed filters carry their parameters: "lowpass:cutoff=0.1,...".
            QVERIFY2(k.name == info.name || k.name.starts_with(info.name + ":"), k.name.c_str());
            QVERIFY2(k.width % 2 == 1 && k.height % 2 == 1, info.name.c_str());
            QVERIFY2(k.absSum() > 0, info.name.c_str());
        }
        for (const char* name : {"identity", "box", "gaussian", "sobel-x", "sobel-y", "scharr-x", "scharr-y",
                                 "prewitt-x", "prewitt-y", "laplacian4", "laplacian8", "edge8", "sharpen", "unsharp",
                                 "emboss", "motion", "disk", "log", "dog", "gabor", "lowpass", "highpass",
                                 "bandpass", "bandstop"})
            QVERIFY2(std::any_of(list.begin(), list.end(), [&](const PresetInfo& i) { return i.name == name; }), name);
    }

    // The list says which parameters are whole numbers and which take 0 as "choose for me",
    // as makePreset treats them: a fraction of a whole one is refused, 0 of an automatic one
    // builds.
    void parameterKinds()
    {
        for (const PresetInfo& info : presetList())
            for (const PresetParam& p : info.params) {
                const std::string where = info.name + " " + p.name;
                if (p.whole && p.choices.empty() && p.minValue + 0.5 <= p.maxValue)
                    QVERIFY_THROWS_EXCEPTION(convlab::Error,
                                             makePreset(info.name, p.name + "=" + std::to_string(p.minValue + 0.5)));
                if (p.zeroIsAuto) {
                    QVERIFY2(p.whole && p.minValue == 0, where.c_str());
                    makePreset(info.name, p.name + "=0").validate();
                }
            }
        const auto param = [](const char* preset, const char* name) {
            const auto& list = presetList();
            const auto info = std::find_if(list.begin(), list.end(), [&](const PresetInfo& i) { return i.name == preset; });
            return *std::find_if(info->params.begin(), info->params.end(), [&](const PresetParam& p) { return p.name == name; });
        };
        QVERIFY(param("gaussian", "size").whole && param("gaussian", "size").zeroIsAuto);
        QVERIFY(!param("gaussian", "sigma").whole && !param("gaussian", "sigma").zeroIsAuto);
        QVERIFY(param("box", "width").zeroIsAuto && param("box", "size").whole && !param("box", "size").zeroIsAuto);
        QVERIFY(param("lowpass", "size").whole && !param("lowpass", "size").zeroIsAuto);
        QVERIFY(!param("motion", "length").whole); // an antialiased line takes fractional lengths
    }

    void sums_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("params");
        QTest::addColumn<double>("sum");
        for (const char* n : {"identity", "box", "gaussian", "unsharp", "motion", "disk", "sharpen", "emboss", "lowpass",
                              "bandstop"})
            QTest::newRow(n) << n << "" << 1.0;
        for (const char* n : {"sobel-x", "sobel-y", "scharr-x", "scharr-y", "prewitt-x", "prewitt-y", "laplacian4",
                              "laplacian8", "edge8", "log", "dog", "highpass", "bandpass"})
            QTest::newRow(n) << n << "" << 0.0;
        QTest::newRow("gaussian 2.5/15") << "gaussian" << "sigma=2.5,size=15" << 1.0;
        QTest::newRow("gaussian even") << "gaussian" << "sigma=1.5,size=6" << 1.0;
        QTest::newRow("box 5x2") << "box" << "width=5,height=2" << 1.0;
        QTest::newRow("unsharp strong") << "unsharp" << "sigma=2,amount=3" << 1.0;
        QTest::newRow("motion 30deg") << "motion" << "length=12.5,angle=30" << 1.0;
        QTest::newRow("disk 5.5") << "disk" << "radius=5.5" << 1.0;
        QTest::newRow("log 3") << "log" << "sigma=3" << 0.0;
        QTest::newRow("dog 2/3") << "dog" << "sigma1=2,sigma2=3,size=21" << 0.0;
    }

    void sums()
    {
        QFETCH(QString, name);
        QFETCH(QString, params);
        QFETCH(double, sum);
        const Kernel k = makePreset(name.toStdString(), params.toStdString());
        QVERIFY2(std::fabs(k.sum() - sum) <= 1e-6 * std::max(1.0, k.absSum()),
                 qPrintable(QString("sum %1, absSum %2").arg(k.sum()).arg(k.absSum())));
    }

    void knownValues()
    {
        QCOMPARE(makePreset("sobel-x").values, (std::vector<float>{1, 0, -1, 2, 0, -2, 1, 0, -1}));
        QCOMPARE(makePreset("sobel-y").values, (std::vector<float>{1, 2, 1, 0, 0, 0, -1, -2, -1}));
        QCOMPARE(makePreset("scharr-x").values, (std::vector<float>{3, 0, -3, 10, 0, -10, 3, 0, -3}));
        QCOMPARE(makePreset("prewitt-y").values, (std::vector<float>{1, 1, 1, 0, 0, 0, -1, -1, -1}));
        QCOMPARE(makePreset("laplacian4").values, (std::vector<float>{0, 1, 0, 1, -4, 1, 0, 1, 0}));
        QCOMPARE(makePreset("laplacian8").values, (std::vector<float>{1, 1, 1, 1, -8, 1, 1, 1, 1}));
        QCOMPARE(makePreset("edge8").values, makePreset("laplacian8").values);
        QCOMPARE(makePreset("edge8").name, std::string("edge8"));
        QCOMPARE(makePreset("sharpen").values, (std::vector<float>{0, -1, 0, -1, 5, -1, 0, -1, 0}));
        QCOMPARE(makePreset("emboss").values, (std::vector<float>{-2, -1, 0, -1, 1, 1, 0, 1, 2}));
        QCOMPARE(makePreset("box").values, std::vector<float>(9, 1.0f / 9.0f));

        const Kernel box = makePreset("box", "width=5, height=2");
        QCOMPARE(box.width, 5);
        QCOMPARE(box.height, 2);
        QCOMPARE(box.values, std::vector<float>(10, 0.1f));
        QCOMPARE(makePreset("box", "size=4").width, 4);

        const Kernel id = makePreset("identity", "size=5");
        QCOMPARE(id.width, 5);
        QCOMPARE(id.at(2, 2), 1.0f);
        QCOMPARE(id.absSum(), 1.0);
        QCOMPARE(makePreset("identity", "size=1").values, std::vector<float>{1.0f});
    }

    void gaussian()
    {
        const Kernel g3 = makePreset("gaussian", "sigma=1,size=3");
        QCOMPARE(g3.width, 3);
        QVERIFY(std::fabs(double(g3.at(1, 1)) / g3.at(0, 1) - std::exp(0.5)) < 1e-6);
        QVERIFY(std::fabs(double(g3.at(1, 1)) / g3.at(0, 0) - std::exp(1.0)) < 1e-6);

        QCOMPARE(makePreset("gaussian").width, 7);                    // 2*ceil(3*1)+1
        QCOMPARE(makePreset("gaussian", "sigma=2.5").width, 17);      // 2*ceil(7.5)+1
        QCOMPARE(makePreset("gaussian", "sigma=2.5,size=15").width, 15);

        for (const char* params : {"sigma=1", "sigma=2.5,size=15", "sigma=0.7,size=8"}) {
            const Kernel g = makePreset("gaussian", params);
            QVERIFY2(mirrored(g, false, 1) && mirrored(g, true, 1), params);
            QCOMPARE(maxDiff(g, transposed(g)), 0.0);
            // Rank 1: K(v,u) = K(v,c) * K(c,u) / K(c,c) with c the middle row/column.
            const int c = g.width / 2;
            double err = 0.0, peak = 0.0;
            for (int v = 0; v < g.height; ++v)
                for (int u = 0; u < g.width; ++u) {
                    const double outer = double(g.at(v, c)) * g.at(c, u) / g.at(c, c);
                    err = std::max(err, std::fabs(outer - g.at(v, u)));
                    peak = std::max(peak, std::fabs(double(g.at(v, u))));
                }
            QVERIFY2(err <= 1e-6 * peak, qPrintable(QString("%1: rank-1 error %2").arg(params).arg(err)));
        }
    }

    void derivativeSymmetry_data()
    {
        QTest::addColumn<QString>("x");
        QTest::addColumn<QString>("y");
        QTest::newRow("sobel") << "sobel-x" << "sobel-y";
        QTest::newRow("scharr") << "scharr-x" << "scharr-y";
        QTest::newRow("prewitt") << "prewitt-x" << "prewitt-y";
    }

    void derivativeSymmetry()
    {
        QFETCH(QString, x);
        QFETCH(QString, y);
        const Kernel kx = makePreset(x.toStdString());
        const Kernel ky = makePreset(y.toStdString());
        QVERIFY(mirrored(kx, false, -1)); // odd in x
        QVERIFY(mirrored(kx, true, 1));   // even in y
        QCOMPARE(maxDiff(ky, transposed(kx)), 0.0);
        // Convolution flips the kernel: the left column carries the positive weights, so a ramp
        // increasing to the right gives a positive response.
        QVERIFY(kx.at(1, 0) > 0 && kx.at(1, 2) < 0);
        double response = 0.0; // out = sum K(v,u) * ramp(x + ax - u) with ramp(x) = x
        for (int v = 0; v < 3; ++v)
            for (int u = 0; u < 3; ++u) response += kx.at(v, u) * (1 - u);
        QVERIFY(response > 0);
    }

    void motion()
    {
        const Kernel m0 = makePreset("motion");
        QCOMPARE(m0.width, 9);
        QCOMPARE(m0.height, 1);
        QCOMPARE(m0.values, std::vector<float>(9, 1.0f / 9.0f));

        // Transposing mirrors the line about the diagonal: angle a becomes 90 - a.
        QCOMPARE(maxDiff(makePreset("motion", "angle=90"), transposed(m0)), 0.0);
        QCOMPARE(maxDiff(makePreset("motion", "length=7.5,angle=90"), transposed(makePreset("motion", "length=7.5"))),
                 0.0);
        QVERIFY(maxDiff(makePreset("motion", "length=15,angle=70"),
                        transposed(makePreset("motion", "length=15,angle=20"))) < 1e-6);
        QCOMPARE(maxDiff(makePreset("motion", "angle=180"), m0), 0.0);
        QCOMPARE(makePreset("motion", "length=10").width, 11); // odd size, half-covered end pixels
        QCOMPARE(makePreset("motion", "length=10").at(0, 0), makePreset("motion", "length=10").at(0, 5) / 2);

        // 45 degrees counter-clockwise on screen: from the lower left to the upper right.
        const Kernel d = makePreset("motion", "length=9,angle=45");
        QCOMPARE(d.width, d.height);
        QVERIFY(d.width % 2 == 1);
        QVERIFY(d.at(0, d.width - 1) > 0.01f);
        QCOMPARE(d.at(0, 0), 0.0f);
        QVERIFY(pointSymmetric(d));
        QVERIFY(maxDiff(d, transposed(d)) < 1e-6);
    }

    void disk()
    {
        const Kernel d = makePreset("disk");
        QCOMPARE(d.width, 7);
        QVERIFY(mirrored(d, false, 1) && mirrored(d, true, 1));
        QCOMPARE(maxDiff(d, transposed(d)), 0.0);
        QCOMPARE(d.at(0, 0), 0.0f);                        // corner pixel lies outside the radius
        QVERIFY(d.at(0, 3) > 0.0f && d.at(0, 3) < d.at(3, 3)); // edge pixel partly covered
        QCOMPARE(d.at(2, 2), d.at(3, 3));                  // fully covered
        QVERIFY(std::fabs(d.at(3, 3) * std::numbers::pi * 9 - 1) < 0.02);  // 1 / area
        QCOMPARE(makePreset("disk", "radius=0.5").width, 1);
        QCOMPARE(makePreset("disk", "radius=5.5").width, 11);
    }

    void derivedShapes()
    {
        const Kernel u = makePreset("unsharp", "sigma=1,amount=1,size=5");
        const Kernel g = makePreset("gaussian", "sigma=1,size=5");
        QCOMPARE(u.width, 5);
        for (int v = 0; v < 5; ++v)
            for (int x = 0; x < 5; ++x) {
                const double want = (v == 2 && x == 2 ? 2.0 : 0.0) - g.at(v, x);
                QVERIFY(std::fabs(u.at(v, x) - want) < 1e-6);
            }

        const Kernel log = makePreset("log");
        QCOMPARE(log.width, 13); // 2*ceil(4*1.4)+1
        QVERIFY(log.at(6, 6) < 0);
        QVERIFY(mirrored(log, false, 1) && mirrored(log, true, 1));

        const Kernel dog = makePreset("dog");
        QCOMPARE(dog.width, 11); // from sigma2 = 1.6
        QVERIFY(dog.at(5, 5) > 0);
        QVERIFY(mirrored(dog, false, 1) && mirrored(dog, true, 1));

        const Kernel gab = makePreset("gabor");
        QCOMPARE(gab.width, 37); // 2*ceil(3*sigma/gamma)+1
        QCOMPARE(gab.at(18, 18), 1.0f);
        QVERIFY(mirrored(gab, false, 1) && mirrored(gab, true, 1));
        QVERIFY(gab.at(18, 22) < 0); // half a wavelength (lambda 8) to the right
        QVERIFY(maxDiff(makePreset("gabor", "theta=90,size=25"), transposed(makePreset("gabor", "size=25"))) < 1e-6);
        const Kernel odd = makePreset("gabor", "psi=90,size=15");
        QVERIFY(mirrored(odd, true, 1));
        QVERIFY(std::fabs(odd.sum()) < 1e-5);
    }

    void parameterErrors_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("params");
        QTest::addColumn<QStringList>("fragments");
        QTest::newRow("unknown preset") << "gauss" << ""
                                        << QStringList{"unknown preset 'gauss'", "gaussian", "sobel-x", "gabor"};
        QTest::newRow("unknown parameter") << "gaussian" << "sigm=2"
                                           << QStringList{"preset 'gaussian' has no parameter 'sigm'", "sigma, size"};
        QTest::newRow("fixed kernel") << "sobel-x" << "size=5" << QStringList{"'size'", "takes none"};
        QTest::newRow("below range") << "gaussian" << "sigma=0" << QStringList{"sigma=0 is outside the range 0.1..100"};
        QTest::newRow("above range") << "motion" << "length=2000" << QStringList{"length=2000", "1..1025"};
        QTest::newRow("not a number") << "disk" << "radius=big" << QStringList{"radius='big' is not a number"};
        QTest::newRow("empty value") << "disk" << "radius=" << QStringList{"radius=''"};
        QTest::newRow("nan") << "disk" << "radius=nan" << QStringList{"not a number"};
        QTest::newRow("whole number") << "gaussian" << "size=4.5" << QStringList{"size=4.5 must be a whole number"};
        QTest::newRow("no equals") << "gaussian" << "sigma" << QStringList{"NAME=VALUE", "'sigma'"};
        QTest::newRow("twice") << "gaussian" << "sigma=1,sigma=2" << QStringList{"'sigma' is given twice"};
        QTest::newRow("dog equal") << "dog" << "sigma1=2,sigma2=2" << QStringList{"must differ"};
        // Designed filters (docs/semantics.md, *Filter design*).
        QTest::newRow("cut-off 0") << "lowpass" << "cutoff=0"
                                   << QStringList{"preset 'lowpass': cutoff=0 must lie strictly between 0 and 0.5"};
        QTest::newRow("cut-off Nyquist") << "highpass" << "cutoff=0.5" << QStringList{"cutoff=0.5 must lie strictly"};
        QTest::newRow("cut-off above") << "lowpass" << "cutoff=0.7" << QStringList{"cutoff=0.7 is outside the range 0..0.5"};
        QTest::newRow("f1 = f2") << "bandpass" << "f1=0.2,f2=0.2" << QStringList{"preset 'bandpass': f1=0.2 must be below f2=0.2"};
        QTest::newRow("f1 > f2") << "bandstop" << "f1=0.3,f2=0.1" << QStringList{"f1=0.3 must be below f2=0.1"};
        QTest::newRow("f2 Nyquist") << "bandstop" << "f2=0.5" << QStringList{"f2=0.5 must lie strictly between"};
        QTest::newRow("even size") << "lowpass" << "size=14" << QStringList{"size=14 must be odd"};
        QTest::newRow("size 1") << "lowpass" << "size=1" << QStringList{"size=1 is outside the range 3..1025"};
        QTest::newRow("fractional size") << "lowpass" << "size=15.5" << QStringList{"size=15.5 must be a whole number"};
        QTest::newRow("window") << "bandpass" << "window=gauss"
                                << QStringList{"window='gauss' is not one of rectangular, hann, hamming, blackman, kaiser"};
        QTest::newRow("shape") << "lowpass" << "shape=round" << QStringList{"shape='round' is not one of separable, radial"};
        QTest::newRow("beta") << "lowpass" << "window=kaiser,beta=60" << QStringList{"beta=60 is outside the range 0..50"};
        QTest::newRow("old name") << "lowpass" << "f1=0.1" << QStringList{"has no parameter 'f1'", "cutoff"};
        QTest::newRow("not a choice") << "lowpass" << "window=triangle"
                                      << QStringList{"preset 'lowpass': window='triangle' is not one of", "kaiser"};
        QTest::newRow("choice index") << "lowpass" << "shape=1" << QStringList{"shape='1' is not one of separable, radial"};
    }

    void parameterErrors()
    {
        QFETCH(QString, name);
        QFETCH(QString, params);
        QFETCH(QStringList, fragments);
        const QString msg = errorOf(name.toStdString(), params.toStdString());
        QVERIFY2(!msg.contains('\n'), qPrintable(msg));
        for (const QString& f : fragments) QVERIFY2(msg.contains(f), qPrintable(msg + " lacks " + f));
    }

    void parameterSpelling()
    {
        QCOMPARE(makePreset("gaussian", " sigma = +2.5 , size=15, ").width, 15);
        QCOMPARE(makePreset("lowpass", "window = Blackman , shape=RADIAL").name,
                 std::string("lowpass:cutoff=0.1,size=15,window=blackman,shape=radial"));
        QCOMPARE(makePreset("box", "size=1025").width, kMaxKernelSide);
        const Kernel big = makePreset("gaussian", "sigma=100");
        QCOMPARE(big.width, 601);
        big.validate();
    }
};

QTEST_APPLESS_MAIN(TestPresets)
#include "test_presets.moc"
