// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli end to end: good runs are checked against the engine's double-precision
// reference called in-process with the same parameters; the JSON report is parsed; bad input
// must fail with one line on stderr, a non-zero exit status and no output file.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "convlab/convolve.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "testutil.h"

using namespace convlab;

namespace {

struct CliRun {
    int exitCode = -1; // -1: did not start, crashed or hung
    QByteArray out;
    QByteArray err;
};

CliRun runCli(const QStringList& args)
{
    QProcess p;
    p.start(test::cliPath(), args);
    CliRun r;
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    if (p.exitStatus() == QProcess::NormalExit) r.exitCode = p.exitCode();
    return r;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeText(const QString& path, const QByteArray& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(text), qint64(text.size()));
}

// The error contract: exactly one line "convlab-cli: error: ..." naming the problem.
void verifyOneLineError(const CliRun& r, const QString& mustContain)
{
    QVERIFY2(r.exitCode > 0, qPrintable(QStringLiteral("exit code %1").arg(r.exitCode)));
    const QString err = QString::fromUtf8(r.err).trimmed();
    QVERIFY2(err.startsWith(QLatin1String("convlab-cli: error: ")), qPrintable(err));
    QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err));
    QVERIFY2(err.contains(mustContain, Qt::CaseInsensitive),
             qPrintable(QStringLiteral("'%1' does not mention '%2'").arg(err, mustContain)));
}

const char* kAsym = "1 2 3 4 5; 0 1 0 -1 2; 3 -2 1 0 1; 1 1 1 1 -1"; // 5x4, no symmetry
const char* kBlur = "1 2 1; 2 4 2; 1 2 1";
const char* kClassic = "1 1 1; 1 -8 1; 1 1 1";

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString gray() const { return path(QStringLiteral("gray.npy")); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(test::cliPath()), qPrintable(test::cliPath()));
        writeNpy(test::randomImage(37, 23, 1, 11), gray().toStdString());
        writeNpy(test::randomImage(19, 29, 3, 12), path(QStringLiteral("rgb.npy")).toStdString());
        writeText(path(QStringLiteral("edge.txt")), "# a kernel file\n1 0 -1\n2 0 -2\n1 0 -3\n");
        writeText(path(QStringLiteral("wide.json")),
                  R"({"name": "wide", "values": [[1, 2, 3], [4, 5, 6]], "anchor": [0, 1],
                      "semantics": "correlation", "normalize": true, "offset": 3})");
        writeText(path(QStringLiteral("corrupt.npy")), "this is not a NumPy file\n");
    }

    void goodRun_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("kernel"); // the same kernel for loadKernelSpec in-process
        QTest::addColumn<QString>("border");
        QTest::addColumn<bool>("correlate");
        QTest::addColumn<int>("ax");
        QTest::addColumn<int>("ay");
        QTest::addColumn<double>("scale");
        QTest::addColumn<double>("offset");
        QTest::addColumn<bool>("normalize");

        // QTest rows must match the column types exactly: QString, never const char*.
        const QString g = QStringLiteral("gray"), c = QStringLiteral("rgb"), a = QString::fromLatin1(kAsym);
        const QString blur = QString::fromLatin1(kBlur), classic = QString::fromLatin1(kClassic);
        const QString reflect = QStringLiteral("reflect");
        const auto s = [](const char* text) { return QString::fromLatin1(text); };
        const auto row = [](const QString& name) -> QTestData& { return QTest::newRow(qPrintable(name)); };

        row("inline") << g << QStringList{"-k", blur} << blur << reflect << false << -1 << -1 << 1.0 << 0.0 << false;
        row("inline rgb") << c << QStringList{"-k", a} << a << reflect << false << -1 << -1 << 1.0 << 0.0 << false;
        row("negative first value") << g << QStringList{"-k", "-1 2 -3"} << s("-1 2 -3") << reflect << false << -1
                                    << -1 << 1.0 << 0.0 << false;
        row("preset") << g << QStringList{"-k", "preset:gaussian:sigma=1.5"} << s("preset:gaussian:sigma=1.5")
                      << reflect << false << -1 << -1 << 1.0 << 0.0 << false;
        row("preset defaults") << c << QStringList{"-k", "preset:sobel-x"} << s("preset:sobel-x") << reflect << false
                               << -1 << -1 << 1.0 << 0.0 << false;
        row("text file") << g << QStringList{"-k", path("edge.txt")} << s("1 0 -1; 2 0 -2; 1 0 -3") << reflect
                         << false << -1 << -1 << 1.0 << 0.0 << false;
        row("json file") << g << QStringList{"-k", path("wide.json")} << s("1 2 3; 4 5 6") << reflect << true << 0 << 1
                         << 1.0 << 3.0 << true;
        row("json file, flags override") << c
                                         << QStringList{"-k", path("wide.json"), "--convolve", "--no-normalize",
                                                        "--offset", "-2", "--scale", "0.5", "--anchor", "2,0"}
                                         << s("1 2 3; 4 5 6") << reflect << false << 2 << 0 << 0.5 << -2.0 << false;
        for (const char* mode : {"constant", "constant:7.5", "replicate", "reflect", "mirror", "wrap", "nearest",
                                 "reflect101", "circular"})
            row(QStringLiteral("border %1").arg(mode)) << g << QStringList{"-k", a, "-b", mode} << a << s(mode) << false
                                                       << -1 << -1 << 1.0 << 0.0 << false;
        row("border constant rgb") << c << QStringList{"-k", a, "--border", "constant:-3"} << a << s("constant:-3")
                                   << false << -1 << -1 << 1.0 << 0.0 << false;
        row("correlate") << g << QStringList{"-k", a, "--correlate"} << a << reflect << true << -1 << -1 << 1.0 << 0.0
                         << false;
        row("correlate wrap rgb") << c << QStringList{"-k", a, "--correlate", "-b", "wrap"} << a << s("wrap") << true
                                  << -1 << -1 << 1.0 << 0.0 << false;
        row("anchor even kernel") << g << QStringList{"-k", "1 2; 3 4", "--anchor", "0,0"} << s("1 2; 3 4") << reflect
                                  << false << 0 << 0 << 1.0 << 0.0 << false;
        row("anchor corner") << g << QStringList{"-k", a, "--anchor", "4,3", "--correlate"} << a << reflect << true
                             << 4 << 3 << 1.0 << 0.0 << false;
        row("normalize") << g << QStringList{"-k", blur, "--normalize"} << blur << reflect << false << -1 << -1
                         << 1.0 << 0.0 << true;
        row("normalize zero-sum") << g << QStringList{"-k", classic, "--normalize"} << classic << reflect << false
                                  << -1 << -1 << 1.0 << 0.0 << true;
        row("scale offset") << c << QStringList{"-k", a, "--scale", "0.25", "--offset", "-10"} << a << reflect
                            << false << -1 << -1 << 0.25 << -10.0 << false;
        for (const char* m : {"reference", "direct", "separable", "fft", "auto"})
            row(QStringLiteral("method %1").arg(m)) << c << QStringList{"-k", a, "-m", m, "-b", "mirror"} << a
                                                    << s("mirror") << false << -1 << -1 << 1.0 << 0.0 << false;
        row("one thread, cpu") << g << QStringList{"-k", a, "--threads", "1", "-d", "cpu"} << a << reflect << false
                               << -1 << -1 << 1.0 << 0.0 << false;
    }

    void goodRun()
    {
        QFETCH(QString, input);
        QFETCH(QStringList, args);
        QFETCH(QString, kernel);
        QFETCH(QString, border);
        QFETCH(bool, correlate);
        QFETCH(int, ax);
        QFETCH(int, ay);
        QFETCH(double, scale);
        QFETCH(double, offset);
        QFETCH(bool, normalize);

        const QString in = path(input + ".npy"), out = path(QStringLiteral("good.npy"));
        QFile::remove(out);
        const CliRun r = runCli(QStringList{in, out} + args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains(out.toUtf8()));

        ConvolveParams p;
        p.kernel = loadKernelSpec(kernel.toStdString()).kernel;
        p.kernel.anchorX = ax;
        p.kernel.anchorY = ay;
        p.border = parseBorder(border.toStdString());
        p.semantics = correlate ? Semantics::Correlation : Semantics::Convolution;
        p.scale = scale;
        p.offset = offset;
        p.normalize = normalize;
        p.method = Method::Reference;
        p.device = Device::Cpu;
        const Image src = readNpy(in.toStdString());
        const Image want = convolve(src, p);
        const Image got = readNpy(out.toStdString());
        QCOMPARE(got.depth, SampleDepth::F32);
        QVERIFY(got.sameShape(want));
        const double err = test::relativeError(got, want, p.kernel, src);
        QVERIFY2(err <= 1e-5, qPrintable(QStringLiteral("relative error %1").arg(err)));
    }

    // The classic: the rank-2 "edge" kernel on a megapixel image.
    void classicEdgeKernel()
    {
        const QString in = path(QStringLiteral("mega.npy")), out = path(QStringLiteral("mega_out.npy"));
        const Image src = test::randomImage(1000, 1000, 1, 7);
        writeNpy(src, in.toStdString());
        const CliRun r = runCli({in, out, "-k", kClassic, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject kernel = QJsonDocument::fromJson(r.out).object().value("kernel").toObject();
        QCOMPARE(kernel.value("rank").toInt(), 2);
        QCOMPARE(kernel.value("sum").toDouble(), 0.0);

        ConvolveParams p;
        p.kernel = parseKernelText(kClassic);
        p.method = Method::Reference;
        p.device = Device::Cpu;
        const Image got = readNpy(out.toStdString());
        const double err = test::relativeError(got, convolve(src, p), p.kernel, src);
        QVERIFY2(err <= 1e-5, qPrintable(QStringLiteral("relative error %1").arg(err)));
    }

    void jsonReport()
    {
        const QString out = path(QStringLiteral("report.npy"));
        const CliRun r = runCli({gray(), out, "-k", kAsym, "-b", "constant:2", "--repeat", "3", "--compare", "fft",
                                 "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.isEmpty(), r.err.constData()); // JSON mode: nothing but the object
        QJsonParseError perr;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out, &perr);
        QVERIFY2(perr.error == QJsonParseError::NoError, qPrintable(perr.errorString()));
        QVERIFY(doc.isObject());
        const QJsonObject j = doc.object();
        const auto has = [](const QJsonObject& o, std::initializer_list<const char*> keys) {
            for (const char* k : keys)
                if (!o.contains(QLatin1String(k))) return QString::fromLatin1(k);
            return QString();
        };
        QCOMPARE(has(j, {"input", "output", "kernel", "border", "semantics", "method", "device", "scale", "offset",
                         "notices", "runs", "median_total_ms", "mpx_per_s", "compare"}),
                 QString());
        const QJsonObject input = j["input"].toObject();
        QCOMPARE(has(input, {"path", "width", "height", "channels", "depth"}), QString());
        QCOMPARE(input["width"].toInt(), 37);
        QCOMPARE(input["height"].toInt(), 23);
        QCOMPARE(input["channels"].toInt(), 1);
        QCOMPARE(input["depth"].toString(), QStringLiteral("32f"));
        const QJsonObject output = j["output"].toObject();
        QCOMPARE(has(output, {"path", "depth", "map"}), QString());
        QCOMPARE(output["path"].toString(), out);
        QCOMPARE(output["depth"].toString(), QStringLiteral("32f"));
        const QJsonObject kernel = j["kernel"].toObject();
        QCOMPARE(has(kernel, {"name", "width", "height", "anchor", "sum", "rank", "singular_values"}), QString());
        QCOMPARE(kernel["width"].toInt(), 5);
        QCOMPARE(kernel["height"].toInt(), 4);
        QCOMPARE(kernel["anchor"].toArray(), (QJsonArray{2, 2}));
        QCOMPARE(kernel["sum"].toDouble(), 23.0);
        const SvdInfo svd = analyzeRank(parseKernelText(kAsym));
        QCOMPARE(kernel["rank"].toInt(), svd.rank);
        QCOMPARE(kernel["singular_values"].toArray().size(), qsizetype(svd.singularValues.size()));
        QCOMPARE(j["border"].toObject()["mode"].toString(), QStringLiteral("constant"));
        QCOMPARE(j["border"].toObject()["value"].toDouble(), 2.0);
        QCOMPARE(j["semantics"].toString(), QStringLiteral("convolution"));
        const QJsonObject method = j["method"].toObject();
        QCOMPARE(has(method, {"requested", "chosen", "reason"}), QString());
        QCOMPARE(method["requested"].toString(), QStringLiteral("auto"));
        QVERIFY(!method["chosen"].toString().isEmpty());
        QVERIFY(!method["reason"].toString().isEmpty());
        const QJsonObject device = j["device"].toObject();
        QCOMPARE(has(device, {"requested", "chosen", "cuda_available", "cuda_reason"}), QString());
        QCOMPARE(device["cuda_available"].toBool(), cudaAvailable());
        QCOMPARE(j["scale"].toDouble(), 1.0);
        QVERIFY(j["notices"].isArray());

        const QJsonArray runs = j["runs"].toArray();
        QCOMPARE(runs.size(), 3);
        QList<double> totals;
        for (const QJsonValue& run : runs) {
            const QJsonArray stages = run.toObject()["stages"].toArray();
            QVERIFY(!stages.isEmpty());
            for (const QJsonValue& s : stages) {
                QVERIFY(!s.toObject()["name"].toString().isEmpty());
                QVERIFY(s.toObject()["ms"].toDouble(-1) >= 0);
            }
            totals << run.toObject()["total_ms"].toDouble(-1);
            QVERIFY(totals.back() >= 0);
        }
        std::sort(totals.begin(), totals.end());
        QCOMPARE(j["median_total_ms"].toDouble(), totals[1]);

        const QJsonObject cmp = j["compare"].toObject();
        QCOMPARE(has(cmp, {"method", "device", "max_abs", "mean_abs", "rmse", "psnr", "max_at"}), QString());
        QCOMPARE(cmp["method"].toString(), QStringLiteral("fft"));
        QCOMPARE(cmp["device"].toString(), QStringLiteral("cpu"));
        const double maxAbs = cmp["max_abs"].toDouble(-1);
        const Image src = readNpy(gray().toStdString());
        const float maxIn = *std::max_element(src.data.begin(), src.data.end());
        const double bound = 1e-5 * parseKernelText(kAsym).absSum() * maxIn; // DESIGN.md FFT tolerance
        QVERIFY2(maxAbs >= 0 && maxAbs <= bound, qPrintable(QString::number(maxAbs)));
        QVERIFY(cmp["mean_abs"].toDouble(-1) <= maxAbs);
        QVERIFY(cmp["rmse"].toDouble(-1) <= maxAbs);
        const QJsonArray at = cmp["max_at"].toArray();
        QCOMPARE(at.size(), 3);
        QVERIFY(at[0].toInt(-1) >= 0 && at[0].toInt() < 37 && at[1].toInt(-1) >= 0 && at[1].toInt() < 23);
        QCOMPARE(at[2].toInt(-1), 0);
    }

    void textSummary()
    {
        const QString out = path(QStringLiteral("summary.npy"));
        const CliRun r = runCli({gray(), out, "-k", kClassic, "--normalize", "--compare", "direct@cpu"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString text = QString::fromUtf8(r.out);
        for (const char* s : {"37x23", "3x3", "anchor (1,1)", "rank 2", "reflect", "Mpx/s", "compare  direct on cpu"})
            QVERIFY2(text.contains(QLatin1String(s)), qPrintable(QStringLiteral("no '%1' in:\n%2").arg(s, text)));
        QVERIFY(text.contains(out));
        QVERIFY2(r.err.contains("convlab-cli: note: zero-sum kernel"), r.err.constData());
        if (!cudaAvailable()) QVERIFY2(r.err.contains("CUDA unavailable"), r.err.constData());
        QVERIFY(QFile::exists(out));
    }

    void pngDepthAndMap()
    {
        if (!imageFormatsAvailable()) QSKIP("built without image formats");
        const QString in = path(QStringLiteral("in.png")), out = path(QStringLiteral("out.png"));
        Image src = test::randomImage(31, 17, 3, 5, true);
        src.depth = SampleDepth::U8;
        saveImage(src, in.toStdString());
        const CliRun r = runCli({in, out, "-k", "0 1 0; 1 -4 1; 0 1 0", "--depth", "16", "--map", "abs"});
        QVERIFY2(r.exitCode == 0, r.err.constData());

        const Image loaded = loadImage(in.toStdString());
        ConvolveParams p;
        p.kernel = parseKernelText("0 1 0; 1 -4 1; 0 1 0");
        p.method = Method::Reference;
        p.device = Device::Cpu;
        const Image want = convolve(loaded, p);
        const Image got = loadImage(out.toStdString());
        QCOMPARE(got.depth, SampleDepth::U16);
        QVERIFY(got.sameShape(want));
        const auto [lo, hi] = std::minmax_element(want.data.begin(), want.data.end());
        int negatives = 0;
        for (std::size_t i = 0; i < want.data.size(); ++i) {
            const double mapped = mapSample(want.data[i], OutputMap::Abs, 255.0, 65535.0, *lo, *hi);
            const double expect = std::clamp(std::round(mapped), 0.0, 65535.0);
            QVERIFY2(std::fabs(got.data[i] - expect) <= 1.0,
                     qPrintable(QStringLiteral("sample %1: %2 != %3").arg(i).arg(got.data[i]).arg(expect)));
            negatives += want.data[i] < -1.0;
        }
        QVERIFY(negatives > 0); // the absolute value mapping was exercised
    }

    void alphaChannel_data()
    {
        QTest::addColumn<bool>("filterAlpha");
        QTest::newRow("passed through") << false;
        QTest::newRow("filtered") << true;
    }

    void alphaChannel()
    {
        QFETCH(bool, filterAlpha);
        if (!imageFormatsAvailable()) QSKIP("built without image formats");
        const QString in = path(QStringLiteral("rgba.png")), out = path(QStringLiteral("rgba_out.png"));
        Image src = test::randomImage(23, 13, 4, 9, true);
        src.depth = SampleDepth::U8;
        src.hasAlpha = true;
        saveImage(src, in.toStdString());
        QStringList args{in, out, "-k", kBlur, "--normalize"};
        if (filterAlpha) args << "--filter-alpha";
        const CliRun r = runCli(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());

        const Image loaded = loadImage(in.toStdString());
        QVERIFY(loaded.hasAlpha);
        ConvolveParams p;
        p.kernel = parseKernelText(kBlur);
        p.normalize = true;
        p.filterAlpha = filterAlpha;
        p.method = Method::Reference;
        p.device = Device::Cpu;
        const Image want = convolve(loaded, p);
        const Image got = loadImage(out.toStdString());
        QVERIFY(got.sameShape(want) && got.hasAlpha);
        for (std::size_t i = 0; i < want.data.size(); ++i)
            QVERIFY2(std::fabs(got.data[i] - std::round(want.data[i])) <= 1.0, qPrintable(QString::number(i)));
        // The alpha plane is the input's exactly when passed through, and smoothed when filtered.
        const auto alpha = [](const Image& img) {
            return std::vector<float>(img.plane(3), img.plane(3) + img.planeSize());
        };
        QCOMPARE(alpha(got) == alpha(loaded), !filterAlpha);
    }

    void listPresets()
    {
        const CliRun r = runCli({"--list-presets"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const auto& presets = presetList();
        QCOMPARE(lines.size(), qsizetype(presets.size()));
        for (std::size_t i = 0; i < presets.size(); ++i) {
            QVERIFY(lines[qsizetype(i)].startsWith(QString::fromStdString(presets[i].name) + QLatin1Char(' ')));
            QVERIFY(lines[qsizetype(i)].contains(QString::fromStdString(presets[i].description.substr(0, 20))));
            for (const PresetParam& q : presets[i].params)
                QVERIFY(lines[qsizetype(i)].contains(QString::fromStdString(q.name) + QLatin1Char('=')));
        }
    }

    void versionAndHelp()
    {
        const CliRun v = runCli({"--version"});
        QCOMPARE(v.exitCode, 0);
        QVERIFY(v.out.startsWith("convlab-cli "));
        QVERIFY(v.out.contains(cudaAvailable() ? "CUDA: available" : "CUDA: unavailable"));
        const CliRun h = runCli({"--help"});
        QCOMPARE(h.exitCode, 0);
        for (const char* s : {"--kernel", "--border", "--compare", "--json", "reflect", "preset:NAME"})
            QVERIFY2(h.out.contains(s), s);
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("output");
        QTest::addColumn<QString>("mention");

        const QString in = gray(), out = path(QStringLiteral("bad.npy"));
        const auto row = [&](const char* name, const QStringList& extra, const QString& mention) {
            QTest::newRow(name) << (QStringList{in, out} + extra) << out << mention;
        };
        QTest::newRow("missing input") << QStringList{path("missing.npy"), out, "-k", "1"} << out << QStringLiteral("missing.npy");
        QTest::newRow("corrupt input") << QStringList{path("corrupt.npy"), out, "-k", "1"} << out << QStringLiteral("corrupt.npy");
        QTest::newRow("output folder missing") << QStringList{in, path("nosuchdir/out.npy"), "-k", "1"}
                                               << path("nosuchdir/out.npy") << QStringLiteral("nosuchdir");
        QTest::newRow("unknown output format") << QStringList{in, path("bad.xyz"), "-k", "1"} << path("bad.xyz")
                                               << QStringLiteral(".xyz");
        QTest::newRow("no inputs") << QStringList{"-k", "1"} << out << QStringLiteral("INPUT");
        row("no kernel", {}, "no kernel given (-k)");
        row("ragged kernel", {"-k", "1 2 3; 4 5"}, "row");
        row("nan kernel", {"-k", "1 nan 1"}, "nan");
        row("kernel file missing", {"-k", path("nokernel.txt")}, "nokernel.txt");
        row("unknown preset", {"-k", "preset:nosuchpreset"}, "nosuchpreset");
        row("unknown border", {"-k", "1", "-b", "sideways"}, "sideways");
        row("unknown method", {"-k", "1", "-m", "quickest"}, "quickest");
        row("unknown device", {"-k", "1", "-d", "tpu"}, "tpu");
        row("anchor outside", {"-k", kBlur, "--anchor", "3,0"}, "anchor");
        row("anchor negative", {"-k", kBlur, "--anchor", "-1,0"}, "anchor");
        row("anchor garbage", {"-k", kBlur, "--anchor", "one,two"}, "anchor");
        row("unknown depth", {"-k", "1", "--depth", "12"}, "depth");
        row("unknown map", {"-k", "1", "--map", "sideways"}, "sideways");
        row("unknown compare method", {"-k", "1", "--compare", "bogus"}, "bogus");
        row("repeat zero", {"-k", "1", "--repeat", "0"}, "repeat");
        row("scale not a number", {"-k", "1", "--scale", "nan"}, "scale");
        row("unknown option", {"-k", "1", "--frobnicate"}, "frobnicate");
    }

    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, output);
        QFETCH(QString, mention);
        QFile::remove(output);
        const QDir dir(m_dir.path());
        const auto filter = QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot;
        const QStringList filesBefore = dir.entryList(filter);
        const CliRun r = runCli(args);
        verifyOneLineError(r, mention);
        QVERIFY2(!QFile::exists(output), qPrintable(output));
        QCOMPARE(dir.entryList(filter), filesBefore); // no temporary left behind either
    }

    void outputIsInput()
    {
        const QByteArray before = readAll(gray());
        QVERIFY(!before.isEmpty());
        const QString sameFile = m_dir.path() + QStringLiteral("/./sub/../gray.npy");
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("sub")));
        for (const QString& out : {gray(), sameFile}) {
            const CliRun r = runCli({gray(), out, "-k", kBlur});
            verifyOneLineError(r, QStringLiteral("input"));
            QCOMPARE(readAll(gray()), before);
        }
    }

    void cudaUnavailable()
    {
        std::string why;
        if (cudaAvailable(&why)) QSKIP("CUDA is available on this machine");
        const QString out = path(QStringLiteral("cuda.npy"));
        verifyOneLineError(runCli({gray(), out, "-k", kBlur, "-d", "cuda"}), QStringLiteral("CUDA unavailable"));
        QVERIFY(!QFile::exists(out));
        verifyOneLineError(runCli({gray(), out, "-k", kBlur, "--compare", "fft@cuda"}),
                           QStringLiteral("CUDA unavailable"));
        QVERIFY(!QFile::exists(out));
    }

    void failedRunKeepsExistingOutput()
    {
        const QString out = path(QStringLiteral("precious.npy"));
        writeText(out, "previous contents\n");
        verifyOneLineError(runCli({gray(), out, "-k", "1 2; 3"}), QStringLiteral("row"));
        verifyOneLineError(runCli({path("missing.npy"), out, "-k", "1"}), QStringLiteral("missing.npy"));
        verifyOneLineError(runCli({gray(), out, "-k", "1", "-b", "sideways"}), QStringLiteral("sideways"));
        QCOMPARE(readAll(out), QByteArray("previous contents\n"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
