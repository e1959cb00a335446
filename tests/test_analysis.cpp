// SPDX-License-Identifier: GPL-3.0-or-later
// Teaching tools: the pixel probe equals the reference method bit for bit; kernel analysis on
// kernels whose properties are known; the frequency response against closed forms; the padding
// preview against borderIndex; exported snippets run with scipy, OpenCV (Python) and a C++
// compiler against the engine.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <numbers>

#include "convlab/analysis.h"
#include "convlab/export.h"
#include "convlab/probe.h"
#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/error.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "testutil.h"

using namespace convlab;

namespace {

const char* kAsym = "1 2 3 4 5; 0 1 0 -1 2; 3 -2 1 0 1; 1 1 1 1 -1"; // 5x4, no symmetry

Kernel kernelWithAnchor(const char* text, int ax, int ay)
{
    Kernel k = parseKernelText(text);
    k.anchorX = ax;
    k.anchorY = ay;
    return k;
}

// Message of the convlab::Error that `f` throws ("" when it throws none).
template <class F> QString errorOf(F&& f)
{
    try {
        f();
    } catch (const Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

struct PyRun {
    bool ok = false;
    QString output;
};

PyRun runProcess(const QString& program, const QStringList& args, int timeoutMs = 300000)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    PyRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.output = QStringLiteral("did not finish: ") + p.errorString();
        return r;
    }
    r.output = QString::fromUtf8(p.readAll());
    r.ok = p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    return r;
}

const QString kPython = QStringLiteral("/usr/bin/python3");

// Every border mode, both semantics and anchors that are not the default: the export cases.
struct ExportCase {
    QString name;
    ConvolveParams params;
    int channels = 1;
};

std::vector<ExportCase> exportCases()
{
    std::vector<ExportCase> cases;
    struct K {
        const char* text;
        int ax, ay;
        double scale, offset;
        bool normalize;
    };
    const K kernels[] = {
        {kAsym, -1, -1, 1.0, 0.0, false},
        {"1 2; 3 4; -5 6", 0, 2, 0.5, 3.0, false},          // even width, anchor at a corner
        {"1 2 3 4; 2 -1 0 1; 0 0 1 1", 3, 0, 1.0, -2.0, true}, // anchor right/top, normalized
    };
    int n = 0;
    for (const std::string& border : test::borderSpellings("2.5", true))
        for (Semantics s : {Semantics::Convolution, Semantics::Correlation})
            for (const K& k : kernels) {
                ExportCase c;
                c.params.kernel = kernelWithAnchor(k.text, k.ax, k.ay);
                c.params.border = parseBorder(border);
                c.params.semantics = s;
                c.params.scale = k.scale;
                c.params.offset = k.offset;
                c.params.normalize = k.normalize;
                c.params.method = Method::Reference;
                c.params.device = Device::Cpu;
                c.channels = (n++ % 2) ? 3 : 1;
                c.name = QStringLiteral("%1 %2 %3x%4 anchor (%5,%6) %7ch")
                             .arg(QString::fromStdString(border),
                                  QLatin1String(s == Semantics::Convolution ? "convolution" : "correlation"))
                             .arg(c.params.kernel.width)
                             .arg(c.params.kernel.height)
                             .arg(c.params.kernel.ax())
                             .arg(c.params.kernel.ay())
                             .arg(c.channels);
                cases.push_back(std::move(c));
            }
    return cases;
}

// Whether the library an export target writes for has a border like `mode` (the table's name
// for it there); where it has none, exportCode refuses, saying so.
bool targetHasMode(ExportTarget target, BorderMode mode)
{
    const BorderModeInfo& info = borderModeInfo(mode);
    switch (target) {
    case ExportTarget::Scipy:
    case ExportTarget::Cupy:
    case ExportTarget::Dask: return info.scipy != nullptr;
    case ExportTarget::OpencvPython:
    case ExportTarget::OpencvCpp: return info.opencv != nullptr;
    }
    return false;
}

// For a case the target cannot express: export must refuse with a message naming the mode.
bool refusesAndSaysWhy(const ExportCase& c, ExportTarget target)
{
    const QString why = errorOf([&] { exportCode(c.params, target); });
    const QString mode = QString::fromLatin1(borderModeInfo(c.params.border.mode).name);
    qInfo("%s %s: not compared, the library has no such border mode (%s)", exportTargetName(target).c_str(),
          qPrintable(c.name), qPrintable(why));
    return why.contains(mode);
}

QString indented(const std::string& code, const QString& indent)
{
    QString out;
    for (const QString& line : QString::fromStdString(code).split(QLatin1Char('\n')))
        out += line.isEmpty() ? QStringLiteral("\n") : indent + line + QLatin1Char('\n');
    return out;
}

} // namespace

class TestAnalysis : public QObject {
    Q_OBJECT

private slots:
    // ---- pixel probe ----

    void probeEqualsReference_data()
    {
        QTest::addColumn<QString>("border");
        QTest::addColumn<bool>("correlate");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("ax");
        QTest::addColumn<int>("ay");
        QTest::addColumn<int>("channels");
        struct K {
            const char* name;
            const char* text;
            int ax, ay;
        };
        const K kernels[] = {
            {"5x4 default anchor", kAsym, -1, -1},
            {"even 4x2 anchor 0,1", "0.5 -1.25 3 1; 2 0.1 -0.7 4", 0, 1},
            {"even 2x2 anchor 1,0", "1 2; -3 0.3", 1, 0},
            {"11x3 wider than the image", "1 2 3 4 5 6 7 8 9 10 11; 0 1 0 1 0 1 0 1 0 1 0; -1 -2 -3 -4 -5 6 5 4 3 2 1", 8,
             2},
        };
        int n = 0;
        for (const std::string& border : test::borderSpellings("-7.5", true))
            for (bool correlate : {false, true})
                for (const K& k : kernels) {
                    const int channels = (n++ % 2) ? 3 : 1;
                    QTest::newRow(qPrintable(QStringLiteral("%1 %2 %3 %4ch")
                                                 .arg(QString::fromStdString(border),
                                                      QLatin1String(correlate ? "correlation" : "convolution"),
                                                      QLatin1String(k.name))
                                                 .arg(channels)))
                        << QString::fromStdString(border) << correlate << QString::fromLatin1(k.text) << k.ax << k.ay
                        << channels;
                }
    }

    void probeEqualsReference()
    {
        QFETCH(QString, border);
        QFETCH(bool, correlate);
        QFETCH(QString, kernel);
        QFETCH(int, ax);
        QFETCH(int, ay);
        QFETCH(int, channels);
        const Image in = test::randomImage(9, 7, channels, 41);
        ConvolveParams p;
        p.kernel = kernelWithAnchor(qPrintable(kernel), ax, ay);
        p.border = parseBorder(border.toStdString());
        p.semantics = correlate ? Semantics::Correlation : Semantics::Convolution;
        p.scale = 0.75;
        p.offset = -3.25;
        p.normalize = true;
        p.method = Method::Reference;
        p.device = Device::Cpu;
        const Image want = convolve(in, p);
        const Kernel applied = correlationKernel(p.kernel, p.semantics);

        const int w = in.width, h = in.height;
        const int points[][2] = {{0, 0},     {w - 1, 0}, {0, h - 1},     {w - 1, h - 1}, {w / 2, 0},
                                 {0, h / 2}, {w - 1, h / 2}, {w / 2, h - 1}, {w / 2, h / 2}};
        for (int c = 0; c < channels; ++c)
            for (const auto& [x, y] : points) {
                const PixelProbe pr = probePixel(in, p, x, y, c);
                QCOMPARE(pr.value, want.at(c, y, x));
                QVERIFY(!pr.passedThrough);
                QCOMPARE(pr.scale, p.scale / p.kernel.sum());
                QCOMPARE(pr.offset, p.offset);
                QCOMPARE(pr.applied.values, applied.values);
                QCOMPARE(pr.applied.ax(), applied.ax());
                QCOMPARE(pr.applied.ay(), applied.ay());
                QCOMPARE(int(pr.taps.size()), applied.width * applied.height);
                double acc = 0.0;
                for (int v = 0; v < applied.height; ++v)
                    for (int u = 0; u < applied.width; ++u) {
                        const ProbeTap& t = pr.taps[std::size_t(v) * applied.width + u];
                        QCOMPARE(t.x, static_cast<long long>(x) - applied.ax() + u);
                        QCOMPARE(t.y, static_cast<long long>(y) - applied.ay() + v);
                        const bool outside = t.x < 0 || t.x >= w || t.y < 0 || t.y >= h;
                        QCOMPARE(t.padded, outside);
                        QCOMPARE(t.weight, applied.at(v, u));
                        if (!outside) QVERIFY(t.sourceX == t.x && t.sourceY == t.y);
                        if (t.sourceX < 0) {
                            QVERIFY(outside && borderModeInfo(p.border.mode).takesValue);
                            QCOMPARE(t.value, p.border.value);
                        } else {
                            QCOMPARE(t.value, in.at(c, t.sourceY, t.sourceX));
                        }
                        QCOMPARE(t.product, double(t.weight) * double(t.value));
                        acc += t.product;
                    }
                QCOMPARE(pr.sum, acc);
            }
    }

    // Convolution semantics, by hand: K has its 1 right of the anchor, so out(y,x) = in(y,x-1).
    void probeByHand()
    {
        Image in(3, 2, 1);
        in.data = {1, 2, 3, 4, 5, 6};
        ConvolveParams p;
        p.kernel = parseKernelText("0 0 0; 0 0 1; 0 0 0");
        p.border = parseBorder("constant:9");
        const PixelProbe left = probePixel(in, p, 0, 1);
        QCOMPARE(left.value, 9.0f); // in(1,-1): the border constant
        QCOMPARE(left.applied.at(1, 0), 1.0f); // flipped: the 1 moved to the left
        const ProbeTap& used = left.taps[3];
        QVERIFY(used.padded);
        QCOMPARE(used.x, -1LL);
        QCOMPARE(used.sourceX, -1);
        QCOMPARE(probePixel(in, p, 2, 0).value, 2.0f);
        p.semantics = Semantics::Correlation;
        QCOMPARE(probePixel(in, p, 0, 0).value, 2.0f); // correlation reads to the right
        p.border = parseBorder("wrap");
        const PixelProbe wrapped = probePixel(in, p, 2, 1);
        QCOMPARE(wrapped.value, 4.0f);
        QCOMPARE(wrapped.taps[5].sourceX, 0);
        QVERIFY(wrapped.taps[5].padded);
    }

    void probeAlpha()
    {
        Image in = test::randomImage(6, 5, 4, 3);
        in.hasAlpha = true;
        ConvolveParams p;
        p.kernel = parseKernelText(kAsym);
        p.method = Method::Reference;
        p.device = Device::Cpu;
        for (bool filterAlpha : {false, true}) {
            p.filterAlpha = filterAlpha;
            const Image want = convolve(in, p);
            const PixelProbe pr = probePixel(in, p, 5, 0, 3);
            QCOMPARE(pr.passedThrough, !filterAlpha);
            QCOMPARE(pr.taps.empty(), !filterAlpha);
            QCOMPARE(pr.value, want.at(3, 0, 5));
        }
    }

    void probeErrors()
    {
        const Image in = test::randomImage(4, 3, 1, 1);
        ConvolveParams p;
        p.kernel = parseKernelText("1 2 1");
        QVERIFY(errorOf([&] { probePixel(in, p, 4, 0); }).contains(QLatin1String("(4,0)")));
        QVERIFY(errorOf([&] { probePixel(in, p, -1, 0); }).contains(QLatin1String("outside the 4x3 image")));
        QVERIFY(errorOf([&] { probePixel(in, p, 0, 3); }).contains(QLatin1String("(0,3)")));
        QVERIFY(errorOf([&] { probePixel(in, p, 0, 0, 1); }).contains(QLatin1String("channel 1")));
        QVERIFY(errorOf([&] { probePixel(in, p, 0, 0, -1); }).contains(QLatin1String("channel -1")));
        p.kernel.values[1] = NAN;
        QVERIFY(errorOf([&] { probePixel(in, p, 0, 0); }).contains(QLatin1String("not finite")));
        QVERIFY(errorOf([&] { probePixel(Image(), p, 0, 0); }).contains(QLatin1String("empty")));
    }

    // ---- kernel analysis ----

    void gaussianIsSeparableLowPass()
    {
        const Kernel k = makePreset("gaussian", "sigma=1.5");
        const KernelAnalysis a = analyzeKernel(k);
        QCOMPARE(a.rank, 1);
        QCOMPARE(int(a.column.size()), k.height);
        QCOMPARE(int(a.row.size()), k.width);
        float maxAbs = 0;
        for (float v : k.values) maxAbs = std::max(maxAbs, std::fabs(v));
        for (int v = 0; v < k.height; ++v)
            for (int u = 0; u < k.width; ++u)
                QVERIFY2(std::fabs(a.column[v] * a.row[u] - k.at(v, u)) <= 1e-6f * maxAbs,
                         qPrintable(QStringLiteral("(%1,%2)").arg(u).arg(v)));
        QVERIFY(a.evenX && a.evenY && !a.oddX && !a.oddY);
        QVERIFY(!a.zeroSum);
        QVERIFY(std::fabs(a.sum - 1.0) < 1e-5);
        QCOMPARE(a.filterClass, FilterClass::LowPass);
        QVERIFY(std::fabs(a.dcGain - a.maxGain) < 1e-9);
        QVERIFY(a.nyquistGain < 0.1);
        QVERIFY(a.classReason.starts_with("low-pass"));
    }

    void knownKernels_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("rank");
        QTest::addColumn<bool>("zeroSum");
        QTest::addColumn<QString>("symmetry"); // flags evenX oddX evenY oddY as 0/1
        QTest::addColumn<QString>("cls");
        const auto row = [](const char* name, const char* k, int rank, bool zero, const char* sym, const char* cls) {
            QTest::newRow(name) << QString::fromLatin1(k) << rank << zero << QString::fromLatin1(sym)
                                << QString::fromLatin1(cls);
        };
        row("laplacian", "0 1 0; 1 -4 1; 0 1 0", 2, true, "1010", "high-pass");
        row("edge8", "1 1 1; 1 -8 1; 1 1 1", 2, true, "1010", "high-pass");
        row("box 3x3", "1 1 1; 1 1 1; 1 1 1", 1, false, "1010", "low-pass");
        row("box 1x4", "0.25 0.25 0.25 0.25", 1, false, "1010", "low-pass");
        row("sobel-x", "-1 0 1; -2 0 2; -1 0 1", 1, true, "0110", "band-pass");
        row("sobel-y", "-1 -2 -1; 0 0 0; 1 2 1", 1, true, "1001", "band-pass");
        row("sharpen", "0 -1 0; -1 5 -1; 0 -1 0", 2, false, "1010", "high-pass");
        row("identity", "0 0 0; 0 1 0; 0 0 0", 1, false, "1010", "other");
        row("shift", "0 0 1", 1, false, "0010", "other");
        row("zero", "0 0; 0 0", 0, true, "1111", "other");
        row("asymmetric", kAsym, 4, false, "0000", "");
    }

    void knownKernels()
    {
        QFETCH(QString, kernel);
        QFETCH(int, rank);
        QFETCH(bool, zeroSum);
        QFETCH(QString, symmetry);
        QFETCH(QString, cls);
        const Kernel k = parseKernelText(kernel.toStdString());
        const KernelAnalysis a = analyzeKernel(k);
        QCOMPARE(a.rank, rank);
        QCOMPARE(a.singularValues, analyzeRank(k).singularValues);
        QCOMPARE(a.zeroSum, zeroSum);
        QCOMPARE(a.sum, k.sum());
        QCOMPARE(a.absSum, k.absSum());
        const QString flags = QStringLiteral("%1%2%3%4").arg(int(a.evenX)).arg(int(a.oddX)).arg(int(a.evenY)).arg(int(a.oddY));
        QCOMPARE(flags, symmetry);
        QCOMPARE(a.row.empty(), rank != 1);
        if (!cls.isEmpty()) QCOMPARE(QString::fromStdString(filterClassName(a.filterClass)), cls);
        QVERIFY(!a.classReason.empty());
        QVERIFY(std::fabs(a.dcGain - std::fabs(a.sum)) <= 1e-12 * std::max(1.0, a.absSum));
    }

    void analysisErrors()
    {
        Kernel k(2, 2, {1, 2, 3});
        QVERIFY(errorOf([&] { analyzeKernel(k); }).contains(QLatin1String("needs 4 values")));
        k.values.push_back(INFINITY);
        QVERIFY(errorOf([&] { analyzeKernel(k); }).contains(QLatin1String("not finite")));
    }

    // ---- frequency response ----

    void boxResponseClosedForm()
    {
        constexpr int size = 64;
        for (int n : {1, 2, 3, 4, 5, 7}) {
            const Kernel row(n, 1, std::vector<float>(n, 1.0f / n));
            const Kernel square(n, n, std::vector<float>(std::size_t(n) * n, 1.0f / (n * n)));
            const std::vector<double> h = frequencyResponseRow(row, size);
            const std::vector<double> hs = frequencyResponseRow(square, size);
            QCOMPARE(int(h.size()), size);
            const Image img = frequencyResponse(square, size);
            QCOMPARE(img.width, size);
            QCOMPARE(img.height, size);
            const auto closed = [n](double w) {
                const double s = std::sin(w / 2);
                return std::fabs(s) < 1e-12 ? 1.0 : std::fabs(std::sin(n * w / 2) / (n * s));
            };
            for (int i = 0; i < size; ++i) {
                const double w = 2 * std::numbers::pi * (i - size / 2) / size;
                const QString at = QStringLiteral("n=%1 i=%2").arg(n).arg(i);
                QVERIFY2(std::fabs(h[i] - closed(w)) < 1e-6, qPrintable(at));
                QVERIFY2(std::fabs(hs[i] - closed(w)) < 1e-6, qPrintable(at));
                // The fy = 0 row of the image, and the separable 2-D response |H(wx)| |H(wy)|.
                QVERIFY2(std::fabs(img.at(0, size / 2, i) - closed(w)) < 1e-6, qPrintable(at));
                for (int j = 0; j < size; j += 7) {
                    const double wy = 2 * std::numbers::pi * (j - size / 2) / size;
                    QVERIFY2(std::fabs(img.at(0, j, i) - closed(w) * closed(wy)) < 1e-6, qPrintable(at));
                }
            }
        }
    }

    void responseLogScaleAndLimits()
    {
        const Kernel k(2, 1, {0.5f, 0.5f});
        const std::vector<double> lin = frequencyResponseRow(k, 16);
        const std::vector<double> db = frequencyResponseRow(k, 16, true);
        QCOMPARE(db[0], kResponseFloorDb); // -pi: the 2-tap box has a zero there
        QVERIFY(std::fabs(db[8]) < 1e-9);  // DC: 0 dB
        QVERIFY(std::fabs(db[4] - 20 * std::log10(lin[4])) < 1e-9);
        const Image img = frequencyResponse(k, 16, true);
        QVERIFY(std::fabs(img.at(0, 8, 4) - db[4]) < 1e-5);
        QVERIFY(errorOf([&] { frequencyResponse(k, 1); }).contains(QLatin1String("size 1")));
        QVERIFY(errorOf([&] { frequencyResponse(k, kMaxResponseSize + 1); }).contains(QLatin1String("outside")));
        QVERIFY(errorOf([&] { frequencyResponseRow(Kernel(), 8); }).contains(QLatin1String("empty")));
    }

    // ---- border preview ----

    void padPreviewMatchesBorderIndex()
    {
        const Image in = test::randomImage(5, 3, 2, 8);
        for (const std::string& mode : test::borderSpellings("4.5")) {
            const Border b = parseBorder(mode);
            for (int margin : {0, 2, 7}) {
                const Image out = padPreview(in, b, margin);
                QCOMPARE(out.width, in.width + 2 * margin);
                QCOMPARE(out.height, in.height + 2 * margin);
                QCOMPARE(out.channels, in.channels);
                for (int c = 0; c < in.channels; ++c)
                    for (int y = 0; y < out.height; ++y)
                        for (int x = 0; x < out.width; ++x) {
                            const int sx = borderIndex(x - margin, in.width, b.mode);
                            const int sy = borderIndex(y - margin, in.height, b.mode);
                            const float want = (sx < 0 || sy < 0) ? b.value : in.at(c, sy, sx);
                            QCOMPARE(out.at(c, y, x), want);
                        }
                if (margin == 0) QCOMPARE(out.data, in.data);
            }
        }
        // The rules themselves, against each mode's n = 4 example of the table ("cbaabcddcb" for
        // p = -3..6, '#' the constant): a ramp a..d = 1..4 padded by 3, its middle row (y = 3).
        Image ramp(4, 1, 1);
        ramp.data = {1, 2, 3, 4};
        const int reach = test::kExampleReach;
        for (const BorderModeInfo& mode : borderModes()) {
            const Border b{mode.mode, mode.takesValue ? -1.0f : 0.0f};
            const Image out = padPreview(ramp, b, reach);
            const std::size_t row = std::size_t(reach) * out.width;
            const std::vector<float> middle(out.data.begin() + row, out.data.begin() + row + out.width);
            std::vector<float> want;
            for (int x = -reach; x < ramp.width + reach; ++x) {
                const int i = test::exampleIndex(mode, x);
                want.push_back(i < 0 ? b.value : ramp.data[std::size_t(i)]);
            }
            QVERIFY2(middle == want, mode.name);
        }
        QVERIFY(errorOf([&] { padPreview(ramp, Border{}, -1); }).contains(QLatin1String("margin -1")));
        QVERIFY(errorOf([&] { padPreview(Image(), Border{}, 1); }).contains(QLatin1String("empty")));
    }

    // ---- code export ----

    void exportNames()
    {
        for (ExportTarget t : {ExportTarget::Scipy, ExportTarget::OpencvPython, ExportTarget::OpencvCpp, ExportTarget::Cupy,
                               ExportTarget::Dask})
            QCOMPARE(parseExportTarget(exportTargetName(t)), t);
        QCOMPARE(exportTargetNames(" | "), std::string("scipy | opencv-python | opencv-cpp | cupy | dask"));
        QVERIFY(errorOf([] { parseExportTarget("matlab"); }).contains(QLatin1String("'matlab'")));
        ConvolveParams p;
        p.kernel = parseKernelText("1 2 1");
        p.border = parseBorder("wrap");
        const std::string cupy = exportCode(p, ExportTarget::Cupy);
        QVERIFY(cupy.find("cupyx.scipy import ndimage") != std::string::npos);
        QVERIFY(cupy.find("ndimage.convolve(src, cp.asarray(k), mode=\"wrap\", origin=origin)") != std::string::npos);
        // dask: convlab.dask, else dask-image with the same arguments (run by python/tests/test_export.py).
        p.semantics = Semantics::Correlation;
        p.border = parseBorder("constant:2.5");
        const std::string dask = exportCode(p, ExportTarget::Dask);
        QVERIFY(dask.find("out = convlab.dask.correlate(src, kk, mode=\"constant\", cval=2.5, origin=oo)") !=
                std::string::npos);
        QVERIFY(dask.find("out = ndfilters.correlate(src.astype(np.float64), kk.astype(np.float64), "
                          "mode=\"constant\", cval=2.5, origin=oo)") != std::string::npos);
        p.semantics = Semantics::Convolution;
        p.normalize = true;
        p.kernel = parseKernelText("1 0 -1");
        QVERIFY(exportCode(p, ExportTarget::Scipy).find("# note: zero-sum kernel left unnormalized") != std::string::npos);
        p.scale = NAN;
        QVERIFY(errorOf([&] { exportCode(p, ExportTarget::Scipy); }).contains(QLatin1String("finite")));
    }

    // Runs the scipy and opencv-python snippets of every case in one Python process and compares
    // what they compute with the engine's reference.
    void exportPythonMatchesEngine()
    {
        const PyRun probe = runProcess(kPython, {"-c", "import numpy, scipy.ndimage, cv2"});
        if (!probe.ok)
            QSKIP(qPrintable(QStringLiteral("needs /usr/bin/python3 with numpy, scipy and cv2 (python3-scipy, "
                                            "python3-opencv): ") + probe.output.trimmed().left(200)));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::vector<ExportCase> cases = exportCases();
        QString script = QStringLiteral("import sys\nimport numpy as np\n\n");
        const ExportTarget targets[] = {ExportTarget::Scipy, ExportTarget::OpencvPython};
        for (std::size_t i = 0; i < cases.size(); ++i) {
            writeNpy(test::randomImage(13, 11, cases[i].channels, 100 + unsigned(i)),
                     dir.filePath(QStringLiteral("in%1.npy").arg(i)).toStdString());
            for (ExportTarget t : targets) {
                if (!targetHasMode(t, cases[i].params.border.mode)) {
                    QVERIFY(refusesAndSaysWhy(cases[i], t));
                    continue;
                }
                const QString fn = QStringLiteral("case_%1_%2").arg(i).arg(int(t));
                script += QStringLiteral("def %1(img):\n").arg(fn) + indented(exportCode(cases[i].params, t), "    ") +
                          QStringLiteral("    return out\n\n");
                script += QStringLiteral("np.save(sys.argv[1] + '/out%1_%2.npy', %3(np.load(sys.argv[1] + "
                                         "'/in%1.npy')))\n\n")
                              .arg(i)
                              .arg(int(t))
                              .arg(fn);
            }
        }
        const QString scriptPath = dir.filePath(QStringLiteral("cases.py"));
        {
            QFile f(scriptPath);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(script.toUtf8());
        }
        const PyRun run = runProcess(kPython, {scriptPath, dir.path()});
        QVERIFY2(run.ok, qPrintable(run.output));
        int compared = 0;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const Image in = readNpy(dir.filePath(QStringLiteral("in%1.npy").arg(i)).toStdString());
            const Image want = convolve(in, cases[i].params);
            for (ExportTarget t : targets) {
                if (!targetHasMode(t, cases[i].params.border.mode)) continue; // refused above
                ++compared;
                const Image got = readNpy(dir.filePath(QStringLiteral("out%1_%2.npy").arg(i).arg(int(t))).toStdString());
                const double err = test::relativeError(got, want, cases[i].params.kernel, in);
                QVERIFY2(err <= 1e-6, qPrintable(QStringLiteral("%1 %2: relative error %3")
                                                     .arg(QString::fromStdString(exportTargetName(t)), cases[i].name)
                                                     .arg(err)));
            }
        }
        QVERIFY(compared > 0);
    }

    // Compiles the opencv-cpp snippets of every case into one program (each in its own
    // namespace) and runs it on raw interleaved float32 images.
    void exportCppMatchesEngine()
    {
#if defined(CONVLAB_TEST_CXX) && defined(CONVLAB_TEST_OPENCV_INCLUDE) && defined(CONVLAB_TEST_OPENCV_CORE)
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::vector<ExportCase> cases = exportCases();
        QString program = QStringLiteral("#include <opencv2/core.hpp>\n#include <opencv2/imgproc.hpp>\n"
                                         "#include <fstream>\n#include <string>\n\n");
        QString calls;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            if (!targetHasMode(ExportTarget::OpencvCpp, cases[i].params.border.mode)) {
                QVERIFY(refusesAndSaysWhy(cases[i], ExportTarget::OpencvCpp));
                continue;
            }
            const Image in = test::randomImage(13, 11, cases[i].channels, 200 + unsigned(i));
            std::vector<float> interleaved(in.data.size());
            for (int c = 0; c < in.channels; ++c)
                for (std::size_t k = 0; k < in.planeSize(); ++k) interleaved[k * in.channels + c] = in.plane(c)[k];
            std::ofstream(dir.filePath(QStringLiteral("in%1.raw").arg(i)).toStdString(), std::ios::binary)
                .write(reinterpret_cast<const char*>(interleaved.data()), std::streamsize(interleaved.size() * 4));
            program += QStringLiteral("namespace case%1 {\n").arg(i) +
                       QString::fromStdString(exportCode(cases[i].params, ExportTarget::OpencvCpp)) +
                       QStringLiteral("}\n\n");
            calls += QStringLiteral("    run(dir, %1, %2, case%1::convlabFilter);\n").arg(i).arg(cases[i].channels);
        }
        program += QStringLiteral(R"(static void run(const std::string& dir, int i, int channels, cv::Mat (*f)(const cv::Mat&))
{
    cv::Mat img(11, 13, CV_32FC(channels));
    std::ifstream(dir + "/in" + std::to_string(i) + ".raw", std::ios::binary)
        .read(reinterpret_cast<char*>(img.data), std::streamsize(img.total() * img.elemSize()));
    const cv::Mat out = f(img).clone();
    std::ofstream(dir + "/out" + std::to_string(i) + ".raw", std::ios::binary)
        .write(reinterpret_cast<const char*>(out.data), std::streamsize(out.total() * out.elemSize()));
}

int main(int, char** argv)
{
    const std::string dir = argv[1];
)") + calls + QStringLiteral("}\n");
        const QString source = dir.filePath(QStringLiteral("cases.cpp")), exe = dir.filePath(QStringLiteral("cases"));
        {
            QFile f(source);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(program.toUtf8());
        }
        QStringList args{"-std=c++17", "-O0", "-w", "-isystem", QStringLiteral(CONVLAB_TEST_OPENCV_INCLUDE), source, "-o", exe};
        args << QStringLiteral(CONVLAB_TEST_OPENCV_IMGPROC) << QStringLiteral(CONVLAB_TEST_OPENCV_CORE);
        const PyRun build = runProcess(QStringLiteral(CONVLAB_TEST_CXX), args);
        QVERIFY2(build.ok, qPrintable(build.output.left(4000)));
        const PyRun run = runProcess(exe, {dir.path()});
        QVERIFY2(run.ok, qPrintable(run.output));
        int compared = 0;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            if (!targetHasMode(ExportTarget::OpencvCpp, cases[i].params.border.mode)) continue; // refused above
            ++compared;
            const Image in = test::randomImage(13, 11, cases[i].channels, 200 + unsigned(i));
            const Image want = convolve(in, cases[i].params);
            QFile f(dir.filePath(QStringLiteral("out%1.raw").arg(i)));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            QCOMPARE(bytes.size(), qsizetype(want.data.size() * 4));
            const float* raw = reinterpret_cast<const float*>(bytes.constData());
            Image got(in.width, in.height, in.channels);
            for (int c = 0; c < in.channels; ++c)
                for (std::size_t k = 0; k < in.planeSize(); ++k) got.plane(c)[k] = raw[k * in.channels + c];
            const double err = test::relativeError(got, want, cases[i].params.kernel, in);
            QVERIFY2(err <= 1e-6, qPrintable(QStringLiteral("opencv-cpp %1: relative error %2").arg(cases[i].name).arg(err)));
        }
        QVERIFY(compared > 0);
#else
        QSKIP("built without OpenCV headers to compile the C++ snippets against");
#endif
    }
};

QTEST_APPLESS_MAIN(TestAnalysis)
#include "test_analysis.moc"
