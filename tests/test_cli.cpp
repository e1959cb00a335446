// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli end to end: good runs are checked against the engine's double-precision
// reference called in-process with the same parameters; the JSON report is parsed; bad input
// must fail with one line on stderr, a non-zero exit status and no output file.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QFileInfo>
#include <QDir>
#include <QThread>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "convlab/analysis.h"
#include "convlab/export.h"
#include "convlab/probe.h"
#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "convlab/modes.h"
#include "corrupt_files.h"
#include "testutil.h"

using namespace convlab;

Q_DECLARE_METATYPE(convlab::SampleDepth)

namespace {

using test::CliRun;
using test::runCli;

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
    // The bytes of a noisy 64x48 RGB image saved by the library as `ext`.
    QByteArray goodFile(const char* ext) const
    {
        Image img = test::randomImage(64, 48, 3, 21, true);
        img.depth = SampleDepth::U8;
        const QString p = path(QStringLiteral("good_source") + QLatin1String(ext));
        saveImage(img, p.toStdString());
        return readAll(p);
    }
    static QJsonArray aliases(std::span<const char* const> list)
    {
        QJsonArray out;
        for (const char* a : list) out.append(QString::fromUtf8(a));
        return out;
    }
    static QJsonValue orNull(const char* text) { return text ? QJsonValue(QString::fromUtf8(text)) : QJsonValue(); }

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

    // Image formats live in a module the engine opens on first use (core/src/io/codecs_abi.h):
    // a .npy run and --help never load OpenCV's codecs (and the some 140 libraries they bring),
    // a PNG run does. Where the module cannot be opened, .npy still works and an image file
    // fails in one line that says why, with nothing written.
    void imageCodecsLoadOnlyWhenUsed()
    {
        if (!imageFormatsAvailable()) QSKIP("built without image formats");
        Image img = test::randomImage(20, 14, 3, 31, true);
        img.depth = SampleDepth::U8;
        const QString png = path(QStringLiteral("codecs_in.png"));
        saveImage(img, png.toStdString());
        const QList<QPair<QString, QString>> trace{{QStringLiteral("LD_DEBUG"), QStringLiteral("files")}};
        const auto loadsCodecs = [](const CliRun& r) { return r.err.contains("libopencv_imgcodecs"); };

        const CliRun npy = runCli({gray(), path(QStringLiteral("codecs_out.npy")), "-k", "1 2 1"}, trace);
        QCOMPARE(npy.exitCode, 0);
        QVERIFY2(npy.err.contains("libfftw3f"), "the loader's trace names the libraries it loads"); // the probe works
        QVERIFY(!loadsCodecs(npy));
        const CliRun help = runCli({"--help"}, trace);
        QCOMPARE(help.exitCode, 0);
        QVERIFY(!loadsCodecs(help));
        const CliRun image = runCli({png, path(QStringLiteral("codecs_out.png")), "-k", "1 2 1"}, trace);
        QCOMPARE(image.exitCode, 0);
        QVERIFY(loadsCodecs(image));

        const QString absent = path(QStringLiteral("no-such-module.so"));
        const QList<QPair<QString, QString>> missing{{QStringLiteral("CONVLAB_CODECS"), absent}};
        const QString npyOut = path(QStringLiteral("codecs_missing.npy"));
        QCOMPARE(runCli({gray(), npyOut, "-k", "1 2 1"}, missing).exitCode, 0);
        QVERIFY(QFile::exists(npyOut));
        const QString why = QStringLiteral("image formats are unavailable: cannot open the codec module (%1: no such file)").arg(absent);
        const QString unread = path(QStringLiteral("codecs_unread.npy"));
        const CliRun read = runCli({png, unread, "-k", "1 2 1"}, missing);
        QCOMPARE(read.exitCode, 1);
        QCOMPARE(QString::fromUtf8(read.err).trimmed(),
                 QStringLiteral("convlab-cli: error: cannot read '%1': %2").arg(png, why));
        QVERIFY(!QFile::exists(unread));
        const QString unwritten = path(QStringLiteral("codecs_unwritten.png"));
        const CliRun write = runCli({gray(), unwritten, "-k", "1 2 1"}, missing);
        QCOMPARE(write.exitCode, 1);
        QVERIFY2(write.err.contains(("cannot write '" + unwritten + "': " + why).toUtf8()), write.err.constData());
        QVERIFY(!QFile::exists(unwritten));
        const CliRun version = runCli({"--version"}, missing);
        QCOMPARE(version.exitCode, 0);
        QVERIFY2(version.out.contains(("image formats: no (.npy only: cannot open the codec module (" + absent).toUtf8()),
                 version.out.constData());

        // Not a module: the loader's own words, with the file named.
        const CliRun foreign = runCli({png, unread, "-k", "1 2 1"}, {{QStringLiteral("CONVLAB_CODECS"), gray()}});
        QCOMPARE(foreign.exitCode, 1);
        QVERIFY2(foreign.err.contains(("cannot open the codec module (" + gray() + ": ").toUtf8()), foreign.err.constData());
        QVERIFY(!QFile::exists(unread));
    }

    // Control bytes in the input (an escape sequence in kernel text, a binary kernel file)
    // never reach the terminal raw: the one error line shows them as \xNN.
    void controlBytesAreNotEchoed()
    {
        const QString out = path(QStringLiteral("ctl.npy"));
        const QString text = QStringLiteral("1 2 \x1b[31mred\x07");
        const CliRun r = runCli({gray(), out, "-k", text});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(!r.err.contains('\x1b') && !r.err.contains('\x07'), r.err.constData());
        QVERIFY2(r.err.contains("\\x1b"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(!QFile::exists(out));
        const QString binary = path(QStringLiteral("binary.txt"));
        writeText(binary, QByteArray("1 2\x01\x02\x1b\x00 3", 9));
        const CliRun b = runCli({gray(), out, "-k", binary});
        QCOMPARE(b.exitCode, 1);
        for (char c : b.err)
            QVERIFY2(c == '\n' || static_cast<unsigned char>(c) >= 0x20, b.err.toHex().constData());
    }

    // A method asked for by name whose estimate is over --max-seconds is refused before it
    // runs, saying the estimate and what to do; nothing is written. --force runs it; auto and
    // a budget it fits run as before.
    void forcedMethodOverBudgetIsRefusedUpFront()
    {
        const QString out = path(QStringLiteral("budget.npy"));
        QFile::remove(out);
        const CliRun refused = runCli({gray(), out, "-k", "1 2 1; 2 4 2; 1 2 1", "-m", "direct", "--max-seconds",
                                       "1e-9"});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("-m direct is estimated at") && refused.err.contains("--max-seconds 1e-09") &&
                     refused.err.contains("--force"),
                 refused.err.constData());
        QVERIFY(!QFile::exists(out));
        const CliRun json = runCli({gray(), out, "-k", "1 2 1", "-m", "separable", "--max-seconds", "1e-9", "--json"});
        QCOMPARE(json.exitCode, 1);
        QVERIFY2(QJsonDocument::fromJson(json.out).object()["error"].toString().contains("estimated at"),
                 json.out.constData());
        QCOMPARE(runCli({gray(), out, "-k", "1 2 1; 2 4 2; 1 2 1", "-m", "direct", "--max-seconds", "1e-9", "--force"})
                     .exitCode,
                 0);
        QVERIFY(QFile::exists(out));
        QCOMPARE(runCli({gray(), out, "-k", "1 2 1", "--max-seconds", "1e-9"}).exitCode, 0);   // auto
        QCOMPARE(runCli({gray(), out, "-k", "1 2 1", "-m", "direct"}).exitCode, 0);            // the default budget
        QCOMPARE(runCli({gray(), out, "-k", "1 2 1", "--max-seconds", "0"}).exitCode, 2);     // not positive
    }

    // Many repeats keep a bounded number of reports; the median still covers every run.
    void manyRepeatsKeepBoundedReports()
    {
        const QString out = path(QStringLiteral("rep.npy"));
        const CliRun r = runCli({gray(), out, "-k", "1 2 1", "--repeat", "150", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["run_count"].toInt(), 150);
        QCOMPARE(j["runs"].toArray().size(), 100);
        QVERIFY(j["median_total_ms"].toDouble() > 0.0);
    }

    // Ctrl-C (or SIGTERM) while it computes: the run stops at its next check, the tool says
    // which signal stopped it and that nothing was written, and returns 128 + the signal.
    void interruptStopsTheRunAndWritesNothing()
    {
        QTemporaryDir dir;
        const QString in = dir.filePath("in.npy");
        writeNpy(test::randomImage(1024, 1024, 3, 9), in.toStdString());
        const QString out = dir.filePath("out.npy");
        for (int sig : {SIGINT, SIGTERM}) {
            QProcess p;
            // The reference method with a 101x101 kernel: minutes of work, stopped within the second.
            p.start(test::cliPath(), {in, out, "-k", "preset:box:size=101", "-m", "reference", "--force", "-d", "cpu"});
            QVERIFY(p.waitForStarted());
            QThread::msleep(1500); // decoded and computing
            QCOMPARE(p.state(), QProcess::Running);
            ::kill(static_cast<pid_t>(p.processId()), sig);
            QVERIFY2(p.waitForFinished(20000), "the run did not stop at its next check"); // it has minutes left
            QCOMPARE(p.exitStatus(), QProcess::NormalExit); // it stopped itself, not the signal
            QCOMPARE(p.exitCode(), 128 + sig);
            const QString err = QString::fromUtf8(p.readAllStandardError());
            QVERIFY2(err.contains(sig == SIGINT ? "interrupted by SIGINT" : "stopped by SIGTERM") &&
                         err.contains("nothing was written to"),
                     qPrintable(err));
            QVERIFY(!QFile::exists(out));
            QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1); // the input alone
        }
    }

    // Interrupted while it writes the output (the moment its temporary appears), the tool
    // removes the temporary: no hidden file is left, and no partial output.
    void interruptLeavesNoTemporary()
    {
        QTemporaryDir dir;
        const QString in = dir.filePath("big.npy");
        writeNpy(test::randomImage(2048, 2048, 3, 5), in.toStdString());
        const QString out = dir.filePath("out.npy");
        auto temporaries = [&] {
            return QDir(dir.path()).entryList(QStringList{".*tmp*"}, QDir::Files | QDir::Hidden | QDir::System);
        };
        int caught = 0;
        for (int attempt = 0; attempt < 6 && caught < 2; ++attempt) {
            QFile::remove(out);
            QProcess p;
            p.start(test::cliPath(), {in, out, "-k", "1 2 1; 2 4 2; 1 2 1", "-m", "direct"});
            QVERIFY(p.waitForStarted());
            // Wait for the temporary to appear, then interrupt at once.
            QElapsedTimer t;
            t.start();
            bool writing = false;
            while (p.state() == QProcess::Running && t.elapsed() < 30000 && !(writing = !temporaries().isEmpty()))
                QThread::usleep(200);
            if (writing) {
                ::kill(static_cast<pid_t>(p.processId()), attempt % 2 ? SIGTERM : SIGINT);
                ++caught;
            }
            QVERIFY(p.waitForFinished(60000));
            QVERIFY2(temporaries().isEmpty(), qPrintable(temporaries().join(' ')));
            if (p.exitStatus() == QProcess::CrashExit) { // ended by the signal: one line says so
                const QStringList lines = QString::fromUtf8(p.readAllStandardError()).split('\n', Qt::SkipEmptyParts);
                QCOMPARE(lines.size(), 1);
                QVERIFY2(lines[0].startsWith("convlab-cli: ") &&
                             (lines[0].contains("interrupted by SIGINT") || lines[0].contains("stopped by SIGTERM")),
                         qPrintable(lines[0]));
            }
            if (writing) QVERIFY(!QFile::exists(out) || readNpy(out.toStdString()).width == 2048);
        }
        QVERIFY2(caught > 0, "the write was never caught in flight");
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
        // Every border mode and method of the tables in modes.h, by name and by each alias: a new
        // row there is run here without editing this list.
        QStringList borders;
        for (const BorderModeInfo& m : borderModes()) {
            borders << s(m.name);
            if (m.takesValue) borders << s(m.name) + QStringLiteral(":7.5");
            for (const char* alias : m.aliases) borders << s(alias);
        }
        for (const QString& mode : borders)
            row(QStringLiteral("border %1").arg(mode)) << g << QStringList{"-k", a, "-b", mode} << a << mode << false
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
        QStringList methodNames;
        for (const MethodInfo& m : methods()) {
            methodNames << s(m.name);
            for (const char* alias : m.aliases) methodNames << s(alias);
        }
        for (const QString& m : methodNames)
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

    // docs/semantics.md, Non-finite values: a NaN sample in the input gives NaN outputs in both
    // runs; --compare counts them and keeps its statistics numbers (never null).
    void compareCountsNonFinite()
    {
        Image src = test::randomImage(41, 29, 1, 9);
        src.data[static_cast<std::size_t>(14) * 41 + 20] = std::numeric_limits<float>::quiet_NaN();
        const QString in = path(QStringLiteral("nan.npy")), out = path(QStringLiteral("nan_out.npy"));
        writeNpy(src, in.toStdString());
        const CliRun r = runCli({in, out, "-k", "1 2 1; 2 4 2; 1 2 1", "-m", "direct", "--compare", "fft", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject cmp = QJsonDocument::fromJson(r.out).object().value("compare").toObject();
        QCOMPARE(cmp.value("non_finite_a").toInt(), 9); // the 3x3 footprint of the NaN
        QCOMPARE(cmp.value("non_finite_b").toInt(), 9);
        QCOMPARE(cmp.value("non_finite_mismatch").toInt(), 0);
        QCOMPARE(cmp.value("finite_both").toInt(), 41 * 29 - 9);
        QVERIFY(cmp.value("max_abs").isDouble());
        QVERIFY(cmp.value("max_abs").toDouble() < 1e-3);
        const CliRun text = runCli({in, out, "-k", "1 2 1; 2 4 2; 1 2 1", "-m", "direct", "--compare", "fft"});
        QVERIFY2(text.out.contains("non-finite values: 9 in the result, 9 in fft's, 0 not matched"), text.out.constData());
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
        const double bound = 1e-5 * parseKernelText(kAsym).absSum() * maxIn; // docs/semantics.md, Tolerances (fft)
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
        // auto on a machine without CUDA runs on the CPU as it always does there: not worth a
        // line on stderr (the JSON report keeps it, see cudaNoticeOnlyInTheReport).
        QVERIFY2(!r.err.contains("CUDA"), r.err.constData());
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

    void integerInputConvertedInThePass()
    {
        // An 8-bit file is filtered from its samples (converted inside the first pass); the
        // result equals the engine's on the float image, bit for bit.
        if (!imageFormatsAvailable()) QSKIP("built without image formats");
        const QString in = path(QStringLiteral("in8.png")), out = path(QStringLiteral("out8.npy"));
        Image src = test::randomImage(41, 23, 3, 12, true);
        src.depth = SampleDepth::U8;
        saveImage(src, in.toStdString());
        for (const char* method : {"direct", "separable", "fft"}) {
            const CliRun r = runCli({in, out, "-k", kBlur, "-m", method, "-d", "cpu", "-b", "mirror"});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            ConvolveParams p;
            p.kernel = parseKernelText(kBlur);
            p.method = parseMethod(method);
            p.device = Device::Cpu;
            p.border = parseBorder("mirror");
            const Image want = convolve(loadImage(in.toStdString()), p);
            QVERIFY2(readNpy(out.toStdString()).data == want.data, method);
        }
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

    // A designed filter named on the command line: the kernel is the design's, the analysis
    // reports how its response meets the ideal, a bad parameter is one line and exit status 1.
    void designedFilter()
    {
        const QString spec = "preset:bandpass:f1=0.1,f2=0.3,size=41,window=blackman,shape=radial";
        const CliRun j = runCli({"--analyze", "-k", spec, "--json"});
        QVERIFY2(j.exitCode == 0, j.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(j.out).object();
        const Kernel k = makePreset("bandpass", "f1=0.1,f2=0.3,size=41,window=blackman,shape=radial");
        QCOMPARE(o["kernel"].toObject()["name"].toString(), QString::fromStdString(k.name));
        const QJsonObject d = o["design"].toObject();
        QCOMPARE(d["preset"].toString(), QString::fromStdString(k.name));
        QVERIFY(d["stop_gain"].toDouble() > 0 && d["stop_gain"].toDouble() < 0.004);
        QVERIFY(d["pass_deviation"].toDouble() > 0 && d["pass_deviation"].toDouble() < 0.004);
        QVERIFY(std::fabs(o["sum"].toDouble()) < 1e-6); // band-pass: DC gain 0

        const CliRun t = runCli({"--analyze", "-k", "preset:lowpass:cutoff=0.2,size=9"});
        QVERIFY2(t.out.contains("design     outside the transition band"), t.out.constData());
        QVERIFY(t.out.contains("rank       1")); // separable
        const CliRun plain = runCli({"--analyze", "-k", "preset:gaussian"});
        QVERIFY(!plain.out.contains("design"));
        // A band narrower than the transition leaves no pass-band sample to measure.
        const CliRun narrow = runCli({"--analyze", "-k", "preset:bandpass:f1=0.2,f2=0.25,size=15", "--json"});
        QVERIFY(QJsonDocument::fromJson(narrow.out).object()["design"].toObject()["pass_deviation"].isNull());

        const CliRun bad = runCli({"--analyze", "-k", "preset:bandstop:f1=0.3,f2=0.2"});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains("preset 'bandstop': f1=0.3 must be below f2=0.2"), bad.err.constData());
        QCOMPARE(bad.err.trimmed().count('\n'), 0);
        const CliRun list = runCli({"--list-presets"});
        QVERIFY(list.out.contains("window=hamming") && list.out.contains("shape=separable"));
    }

    void versionAndHelp()
    {
        const CliRun v = runCli({"--version"});
        QCOMPARE(v.exitCode, 0);
        QVERIFY(v.out.startsWith("convlab-cli "));
        QVERIFY(v.out.contains(cudaAvailable() ? "CUDA: available" : "CUDA: unavailable"));
        const CliRun h = runCli({"--help"});
        QCOMPARE(h.exitCode, 0);
        for (const char* s : {"--kernel", "--border", "--compare", "--json", "reflect", "preset:NAME", "--probe",
                              "--analyze", "--response", "--export", "opencv-python", "--pad-preview"})
            QVERIFY2(h.out.contains(s), s);
    }

    // ---- teaching modes ----

    void probe_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("x");
        QTest::addColumn<int>("y");
        QTest::addColumn<int>("channel");
        QTest::addColumn<QString>("border");
        QTest::addColumn<bool>("correlate");
        QTest::addColumn<int>("ax");
        QTest::addColumn<int>("ay");
        const QString g = QStringLiteral("gray"), c = QStringLiteral("rgb");
        QTest::newRow("corner, convolution, constant")
            << g << QStringList{"--probe", "0,0", "-b", "constant:2"} << 0 << 0 << 0 << QStringLiteral("constant:2")
            << false << -1 << -1;
        QTest::newRow("far corner, correlation, wrap, anchor")
            << g << QStringList{"--probe", "36,22", "-b", "wrap", "--correlate", "--anchor", "4,3"} << 36 << 22 << 0
            << QStringLiteral("wrap") << true << 4 << 3;
        QTest::newRow("edge, rgb channel 2, mirror")
            << c << QStringList{"--probe", "18,10", "--channel", "2", "-b", "mirror", "--anchor", "0,1"} << 18 << 10
            << 2 << QStringLiteral("mirror") << false << 0 << 1;
        QTest::newRow("centre, replicate") << g << QStringList{"--probe", "18,11", "-b", "replicate"} << 18 << 11 << 0
                                           << QStringLiteral("replicate") << false << -1 << -1;
    }

    // The probe's value is the reference output exactly; nothing is written without OUTPUT.
    void probe()
    {
        QFETCH(QString, input);
        QFETCH(QStringList, args);
        QFETCH(int, x);
        QFETCH(int, y);
        QFETCH(int, channel);
        QFETCH(QString, border);
        QFETCH(bool, correlate);
        QFETCH(int, ax);
        QFETCH(int, ay);
        const QString in = path(input + ".npy");
        ConvolveParams p;
        p.kernel = parseKernelText(kAsym);
        p.kernel.anchorX = ax;
        p.kernel.anchorY = ay;
        p.border = parseBorder(border.toStdString());
        p.semantics = correlate ? Semantics::Correlation : Semantics::Convolution;
        p.scale = 0.5;
        p.offset = 1.25;
        p.method = Method::Reference;
        p.device = Device::Cpu;
        const Image src = readNpy(in.toStdString());
        const Image want = convolve(src, p);
        const QStringList common = QStringList{in, "-k", kAsym, "--scale", "0.5", "--offset", "1.25"} + args;

        const QDir dir(m_dir.path());
        const QStringList filesBefore = dir.entryList(QDir::Files);
        const CliRun j = runCli(common + QStringList{"--json"});
        QVERIFY2(j.exitCode == 0, j.err.constData());
        QCOMPARE(dir.entryList(QDir::Files), filesBefore);
        const QJsonObject o = QJsonDocument::fromJson(j.out).object();
        QCOMPARE(float(o["value"].toDouble()), want.at(channel, y, x));
        QCOMPARE(o["pixel"].toArray(), (QJsonArray{x, y}));
        QCOMPARE(o["channel"].toInt(), channel);
        QCOMPARE(o["scale"].toDouble(), 0.5);
        QCOMPARE(o["offset"].toDouble(), 1.25);
        const Kernel applied = correlationKernel(p.kernel, p.semantics);
        QCOMPARE(o["applied"].toObject()["flipped"].toBool(), !correlate);
        QCOMPARE(o["applied"].toObject()["anchor"].toArray(), (QJsonArray{applied.ax(), applied.ay()}));
        const QJsonArray rows = o["applied"].toObject()["values"].toArray();
        QCOMPARE(rows.size(), applied.height);
        for (int v = 0; v < applied.height; ++v)
            for (int u = 0; u < applied.width; ++u)
                QCOMPARE(float(rows[v].toArray()[u].toDouble()), applied.at(v, u));
        const QJsonArray taps = o["taps"].toArray();
        QCOMPARE(taps.size(), applied.width * applied.height);
        double sum = 0.0;
        int padded = 0;
        for (const QJsonValue& t : taps) {
            sum += t.toObject()["product"].toDouble();
            padded += t.toObject()["padded"].toBool();
        }
        QCOMPARE(o["sum"].toDouble(), sum);
        const bool atBorder = x - applied.ax() < 0 || y - applied.ay() < 0 ||
                              x - applied.ax() + applied.width > src.width || y - applied.ay() + applied.height > src.height;
        QCOMPARE(padded > 0, atBorder);

        const CliRun t = runCli(common);
        QVERIFY2(t.exitCode == 0, t.err.constData());
        const QString text = QString::fromUtf8(t.out);
        for (const char* s : {"neighbourhood", "applied kernel", "products", "sum ", "scale ", "offset ", "value "})
            QVERIFY2(text.contains(QLatin1String(s)), qPrintable(QStringLiteral("no '%1' in:\n%2").arg(s, text)));
        QCOMPARE(text.contains(QLatin1String("(flipped)")), !correlate);
        QCOMPARE(text.contains(QLatin1String("padded taps")), atBorder);
        QVERIFY(text.contains(QStringLiteral("value    %1 ").arg(QString::number(want.at(channel, y, x), 'g', 9))));

        // With OUTPUT the filtered image is written as by an ordinary run.
        const QString out = path(QStringLiteral("probe_out.npy"));
        QFile::remove(out);
        const CliRun w = runCli(common + QStringList{out});
        QVERIFY2(w.exitCode == 0, w.err.constData());
        QVERIFY(test::relativeError(readNpy(out.toStdString()), want, p.kernel, src) <= 1e-5);
    }

    void analyze()
    {
        const CliRun j = runCli({"--analyze", "-k", "preset:sobel-x", "--json"});
        QVERIFY2(j.exitCode == 0, j.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(j.out).object();
        QCOMPARE(o["rank"].toInt(), 1);
        QVERIFY(o["zero_sum"].toBool());
        QCOMPARE(o["sum"].toDouble(), 0.0);
        const QJsonObject sym = o["symmetry"].toObject();
        QVERIFY(sym["odd_x"].toBool() && !sym["even_x"].toBool() && sym["even_y"].toBool() && !sym["odd_y"].toBool());
        QCOMPARE(o["separable"].toObject()["column"].toArray().size(), 3);
        QCOMPARE(o["response"].toObject()["class"].toString(), QStringLiteral("band-pass"));

        const CliRun t = runCli({"--analyze", "-k", "preset:gaussian:sigma=2"});
        QVERIFY2(t.exitCode == 0, t.err.constData());
        for (const char* s : {"rank       1", "even in x, even in y", "separable", "low-pass"})
            QVERIFY2(t.out.contains(s), t.out.constData());
        const CliRun edge = runCli({"--analyze", "-k", kClassic});
        QVERIFY(edge.out.contains("rank       2") && edge.out.contains("zero-sum") && edge.out.contains("high-pass"));
        QVERIFY(!edge.out.contains("separable"));

        // The response file holds frequencyResponse(), linear or in dB.
        const Kernel k = parseKernelText(kBlur);
        for (bool log : {false, true}) {
            const QString file = path(QStringLiteral("response.npy"));
            QStringList args{"--analyze", "-k", kBlur, "--response", file, "--response-size", "32"};
            if (log) args << "--log";
            const CliRun r = runCli(args);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const Image got = readNpy(file.toStdString());
            QCOMPARE(got.data, frequencyResponse(k, 32, log).data);
        }
        if (imageFormatsAvailable()) {
            const QString png = path(QStringLiteral("response.png"));
            QVERIFY(runCli({"--analyze", "-k", kBlur, "--response", png}).exitCode == 0);
            const Image img = loadImage(png.toStdString());
            QCOMPARE(img.width, 256);
            QCOMPARE(img.at(0, 128, 128), 255.0f); // DC is the blur's peak
        }
    }

    void exportCode_data()
    {
        QTest::addColumn<QString>("target");
        for (const char* t : {"scipy", "opencv-python", "opencv-cpp", "cupy", "dask"}) QTest::newRow(t) << QString::fromLatin1(t);
    }

    void exportCode()
    {
        QFETCH(QString, target);
        const CliRun r = runCli({"--export", target, "-k", kAsym, "-b", "constant:2", "--correlate", "--anchor", "4,3",
                                 "--scale", "0.5", "--offset", "3", "--normalize"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        ConvolveParams p;
        p.kernel = parseKernelText(kAsym);
        p.kernel.name = "inline";
        p.kernel.anchorX = 4;
        p.kernel.anchorY = 3;
        p.border = parseBorder("constant:2");
        p.semantics = Semantics::Correlation;
        p.scale = 0.5;
        p.offset = 3;
        p.normalize = true;
        QCOMPARE(QString::fromUtf8(r.out), QString::fromStdString(convlab::exportCode(p, parseExportTarget(target.toStdString()))));
        const CliRun j = runCli({"--export", target, "-k", kBlur, "--json"});
        QVERIFY2(j.exitCode == 0, j.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(j.out).object();
        QCOMPARE(o["target"].toString(), target);
        QVERIFY(o["code"].toString().contains(QLatin1String("ConvLab: convolution with the 3x3 kernel")));
    }

    void padPreview()
    {
        const QString out = path(QStringLiteral("padded.npy"));
        for (const char* mode : {"wrap", "constant:-4", "reflect"}) {
            const CliRun r = runCli({path("rgb.npy"), out, "--pad-preview", "5", "-b", mode});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY(r.out.contains("29x39"));
            const Image want = convlab::padPreview(readNpy(path("rgb.npy").toStdString()), parseBorder(mode), 5);
            QCOMPARE(readNpy(out.toStdString()).data, want.data);
        }
    }

    // Teaching modes without INPUT/OUTPUT, and usage errors between the modes.
    void teachingModeErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mention");
        QTest::addColumn<int>("status");
        QTest::newRow("export unknown target") << QStringList{"--export", "matlab", "-k", "1"} << QStringLiteral("matlab") << 2;
        QTest::newRow("export no kernel") << QStringList{"--export", "scipy"} << QStringLiteral("no kernel") << 2;
        QTest::newRow("export bad border") << QStringList{"--export", "scipy", "-k", "1", "-b", "sideways"}
                                           << QStringLiteral("sideways") << 2;
        QTest::newRow("analyze no kernel") << QStringList{"--analyze"} << QStringLiteral("no kernel") << 2;
        QTest::newRow("analyze bad kernel") << QStringList{"--analyze", "-k", "1 2; 3"} << QStringLiteral("row") << 1;
        QTest::newRow("analyze with input") << QStringList{"--analyze", "-k", "1", gray()}
                                            << QStringLiteral("takes no INPUT") << 2;
        QTest::newRow("response folder missing")
            << QStringList{"--analyze", "-k", "1", "--response", path("nosuchdir/r.npy")} << QStringLiteral("nosuchdir") << 1;
        QTest::newRow("response size too small")
            << QStringList{"--analyze", "-k", "1", "--response", path("r.npy"), "--response-size", "1"}
            << QStringLiteral("response-size") << 2;
        QTest::newRow("response without analyze") << QStringList{"--response", path("r.npy"), "-k", "1"}
                                                  << QStringLiteral("--analyze") << 2;
        QTest::newRow("probe without input") << QStringList{"--probe", "1,1", "-k", "1"} << QStringLiteral("INPUT") << 2;
        QTest::newRow("channel without probe") << QStringList{gray(), path("c.npy"), "-k", "1", "--channel", "1"}
                                               << QStringLiteral("--probe") << 2;
        QTest::newRow("two modes") << QStringList{"--probe", "1,1", "--export", "scipy", "-k", "1", gray()}
                                   << QStringLiteral("excludes") << 2;
        QTest::newRow("pad-preview no output") << QStringList{gray(), "--pad-preview", "2"} << QStringLiteral("OUTPUT") << 2;
    }

    void teachingModeErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mention);
        QFETCH(int, status);
        const QDir dir(m_dir.path());
        const QStringList filesBefore = dir.entryList(QDir::Files | QDir::Hidden);
        const CliRun r = runCli(args);
        verifyOneLineError(r, mention);
        QCOMPARE(r.exitCode, status);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(dir.entryList(QDir::Files | QDir::Hidden), filesBefore);
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
        row("probe outside", {"-k", "1", "--probe", "37,0"}, "(37,0)");
        row("probe garbage", {"-k", "1", "--probe", "a,b"}, "--probe");
        row("probe channel", {"-k", "1", "--probe", "0,0", "--channel", "1"}, "channel 1");
        row("pad-preview negative", {"--pad-preview", "-1"}, "pad-preview");
        row("pad-preview bad border", {"--pad-preview", "2", "-b", "sideways"}, "sideways");
        row("pad-preview too large", {"--pad-preview", "70000"}, "pad-preview");
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

    // ---- hostile or odd files: one line on stderr, exit status 1, no output file ----

    void corruptImagesGiveOneLine_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("mention");
        if (!imageFormatsAvailable()) return;
        for (const test::CorruptFile& f : test::corruptImageFiles(goodFile(".png"), goodFile(".jpg"), goodFile(".tif")))
            QTest::newRow(qPrintable(f.name)) << f.name << f.bytes << f.mention;
    }
    void corruptImagesGiveOneLine()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, mention);
        const QString in = path("corrupt-" + name), out = path(QStringLiteral("from_corrupt.png"));
        writeText(in, bytes);
        QFile::remove(out);
        const QDir dir(m_dir.path());
        const auto filter = QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot;
        const QStringList filesBefore = dir.entryList(filter);
        const CliRun r = runCli({in, out, "-k", kBlur});
        verifyOneLineError(r, mention);
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.count('\n'), 1); // exactly one line: nothing from libpng, libjpeg, libtiff or OpenCV
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFile::exists(out));
        QCOMPARE(dir.entryList(filter), filesBefore);
        QFile::remove(in);
    }

    // A tiny file whose header claims 30000x30000 RGB is refused from the header, at once, with
    // the claimed size and the limit in the message.
    void hugeClaimIsRefusedAtOnce_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        if (!imageFormatsAvailable()) return;
        QTest::newRow("png") << "claims.png" << test::pngClaiming(30000, 30000);
        QTest::newRow("jpeg") << "claims.jpg" << test::jpegClaiming(goodFile(".jpg"), 30000, 30000);
    }
    void hugeClaimIsRefusedAtOnce()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        const QString in = path(name), out = path(QStringLiteral("claims_out.npy"));
        writeText(in, bytes);
        const CliRun r = runCli({in, out, "-k", "1"});
        verifyOneLineError(r, QStringLiteral("30000x30000"));
        QVERIFY2(r.err.contains(QByteArray::number(qulonglong(kMaxImageValues))) &&
                     r.err.contains(QByteArray::number(kMaxImageSide)),
                 r.err.constData());
        QVERIFY(!QFile::exists(out));
    }

    // A kernel file over the limit is refused unread, the limit named.
    void oversizedKernelFileIsRefused()
    {
        const QString kernel = path(QStringLiteral("huge.json")), out = path(QStringLiteral("k_out.npy"));
        {
            QFile f(kernel);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"values\": [");
            QVERIFY(f.resize(60 * 1000 * 1000)); // sparse
        }
        const CliRun r = runCli({gray(), out, "-k", kernel});
        verifyOneLineError(r, QStringLiteral("too large"));
        QVERIFY2(r.err.contains(QByteArray::number(qulonglong(kMaxKernelFileBytes >> 20)) + " MiB"), r.err.constData());
        QCOMPARE(r.exitCode, 1);
        QVERIFY(!QFile::exists(out));
        QFile::remove(kernel);
    }

    // Float input into an image file without --depth: the deepest depth the format holds, said
    // once (stderr, or the JSON report's notices), decided before computing.
    void floatInputTakesTheDeepestDepthTheOutputHolds_data()
    {
        QTest::addColumn<QString>("ext");
        QTest::addColumn<SampleDepth>("depth");
        QTest::addColumn<QString>("said"); // empty: the format holds float32, nothing to say
        QTest::newRow("png") << ".png" << SampleDepth::U16 << "writing 16-bit";
        QTest::newRow("jpeg") << ".jpg" << SampleDepth::U8 << "writing 8-bit";
        QTest::newRow("tiff") << ".tif" << SampleDepth::F32 << "";
    }
    void floatInputTakesTheDeepestDepthTheOutputHolds()
    {
        QFETCH(QString, ext);
        QFETCH(SampleDepth, depth);
        QFETCH(QString, said);
        if (!imageFormatsAvailable()) QSKIP("built without image formats");
        const QString in = path(QStringLiteral("unit.npy")), out = path("unit_out" + ext);
        Image src(32, 8, 1);
        for (std::size_t i = 0; i < src.data.size(); ++i) src.data[i] = float(i) / float(src.data.size() - 1);
        writeNpy(src, in.toStdString());
        const CliRun r = runCli({in, out, "-k", "1", "-d", "cpu"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Image got = loadImage(out.toStdString());
        QCOMPARE(got.depth, depth);
        if (depth == SampleDepth::U16)
            for (std::size_t i = 0; i < src.data.size(); ++i) QCOMPARE(got.data[i], std::round(src.data[i] * 65535.0f));
        if (said.isEmpty()) {
            QVERIFY2(!r.err.contains("hold"), r.err.constData());
        } else {
            QCOMPARE(r.err.count("convlab-cli: note: "), 1);
            QVERIFY2(r.err.contains(said.toUtf8()) && r.err.contains("float32"), r.err.constData());
        }
        const CliRun j = runCli({in, out, "-k", "1", "-d", "cpu", "--json"});
        QVERIFY2(j.exitCode == 0 && j.err.isEmpty(), j.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(j.out).object();
        const QString notices = QString::fromUtf8(QJsonDocument(o["notices"].toArray()).toJson());
        QCOMPARE(notices.contains(QStringLiteral("the deepest they hold")), !said.isEmpty());
    }

    // What the output cannot hold is refused before the (here: very long) computation.
    void outputRefusedBeforeComputing_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("output");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("mention");
        QTest::newRow("float into png") << "gray" << "never.png" << QStringList{"--depth", "32f"} << "cannot hold";
        QTest::newRow("unknown format") << "gray" << "never.xyz" << QStringList{} << ".xyz";
        QTest::newRow("colour into pgm") << "rgb" << "never.pgm" << QStringList{} << "gray images only";
    }
    void outputRefusedBeforeComputing()
    {
        QFETCH(QString, input);
        QFETCH(QString, output);
        QFETCH(QStringList, extra);
        QFETCH(QString, mention);
        if (!imageFormatsAvailable()) QSKIP("built without image formats");
        // A million reference runs of a 33x33 kernel: far longer than the test's patience.
        const QString out = path(output);
        const CliRun r = runCli(QStringList{path(input + ".npy"), out, "-k", "preset:box:size=33", "-m", "reference",
                                            "--repeat", "1000000"} + extra);
        verifyOneLineError(r, mention);
        QCOMPARE(r.exitCode, 1);
        QVERIFY(!QFile::exists(out));
    }

    // Exit status 2 for a bad command line (any named option value), 1 for what the files or
    // the run say; option values are checked before any file is read.
    void exitStatusSaysWhoseFault_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("status");
        const QString in = gray(), out = path(QStringLiteral("status.npy"));
        const auto row = [&](const char* name, const QStringList& extra, int status) {
            QTest::newRow(name) << (QStringList{in, out} + extra) << status;
        };
        row("unknown border", {"-k", "1", "-b", "sideways"}, 2);
        row("unknown method", {"-k", "1", "-m", "quickest"}, 2);
        row("unknown device", {"-k", "1", "-d", "tpu"}, 2);
        row("unknown map", {"-k", "1", "--map", "sideways"}, 2);
        row("unknown depth", {"-k", "1", "--depth", "12"}, 2);
        row("unknown compare method", {"-k", "1", "--compare", "bogus"}, 2);
        row("unknown compare device", {"-k", "1", "--compare", "fft@tpu"}, 2);
        row("anchor garbage", {"-k", kBlur, "--anchor", "one,two"}, 2);
        row("no kernel", {}, 2);
        QTest::newRow("unknown name before a missing input")
            << QStringList{path("missing.npy"), out, "-k", "1", "-m", "quickest"} << 2;
        QTest::newRow("export bogus") << QStringList{"--export", "bogus", "-k", "1"} << 2;
        QTest::newRow("list bogus") << QStringList{"--list", "bogus"} << 2;
        row("ragged kernel", {"-k", "1 2; 3"}, 1);
        QTest::newRow("missing input") << QStringList{path("missing.npy"), out, "-k", "1"} << 1;
        QTest::newRow("corrupt input") << QStringList{path("corrupt.npy"), out, "-k", "1"} << 1;
    }
    void exitStatusSaysWhoseFault()
    {
        QFETCH(QStringList, args);
        QFETCH(int, status);
        const CliRun r = runCli(args);
        verifyOneLineError(r, QString());
        QCOMPARE(r.exitCode, status);
        QVERIFY(r.out.isEmpty());
    }

    // With --json a failure is also one JSON object on stdout, whatever failed: a command line
    // that does not parse, a file that does not open, an output that cannot be written (with
    // the system's reason, and no codec library's line on stderr).
    void jsonErrorsAreObjectsOnStdout()
    {
        const struct {
            QStringList args;
            int status;
            const char* says;
        } cases[] = {
            {{"--bogus", "--json"}, 2, "--bogus"},
            {{path(QStringLiteral("missing.png")), path(QStringLiteral("o.npy")), "-k", "1 2 1", "--json"}, 1, "missing.png"},
            {{gray(), "/sys/convlab-test.npy", "-k", "1 2 1", "--json"}, 1, "permission denied"},
            {{gray(), "/sys/convlab-test.png", "-k", "1 2 1", "--json"}, 1, "permission denied"},
        };
        for (const auto& c : cases) {
            const CliRun r = runCli(c.args);
            QCOMPARE(r.exitCode, c.status);
            verifyOneLineError(r, QString());
            QVERIFY2(r.err.contains(c.says), r.err.constData());
            QJsonParseError parse{};
            const QJsonDocument doc = QJsonDocument::fromJson(r.out, &parse);
            QVERIFY2(parse.error == QJsonParseError::NoError && doc.isObject(), r.out.constData());
            QCOMPARE(doc.object().value("exit_status").toInt(), c.status);
            QVERIFY2(doc.object().value("error").toString().contains(QString::fromLatin1(c.says)), r.out.constData());
        }
        // Without --json, stdout stays empty (exitStatusSaysWhoseFault).
        QVERIFY(runCli({gray(), "/sys/convlab-test.png", "-k", "1 2 1"}).out.isEmpty());
    }

    // auto without CUDA runs on the CPU, as it always does on such a machine: the JSON report
    // says so, stderr does not.
    void cudaNoticeOnlyInTheReport()
    {
        if (cudaAvailable()) QSKIP("CUDA is available on this machine");
        const QString out = path(QStringLiteral("auto.npy"));
        const CliRun t = runCli({gray(), out, "-k", kBlur});
        QVERIFY2(t.exitCode == 0, t.err.constData());
        QVERIFY2(!t.err.contains("CUDA"), t.err.constData());
        const CliRun j = runCli({gray(), out, "-k", kBlur, "--json"});
        QVERIFY2(j.exitCode == 0 && j.err.isEmpty(), j.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(j.out).object();
        QCOMPARE(o["device"].toObject()["requested"].toString(), QStringLiteral("auto"));
        QCOMPARE(o["device"].toObject()["chosen"].toString(), QStringLiteral("cpu"));
        bool said = false;
        for (const QJsonValue& n : o["notices"].toArray()) said = said || n.toString().contains("CUDA unavailable");
        QVERIFY2(said, j.out.constData());
    }

    // --list prints the tables of modes.h: one line a row, and with --json every field.
    void listBorderModes()
    {
        const CliRun t = runCli({"--list", "border-modes"});
        QVERIFY2(t.exitCode == 0, t.err.constData());
        const QStringList lines = QString::fromUtf8(t.out).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), qsizetype(borderModes().size()));
        for (std::size_t i = 0; i < borderModes().size(); ++i) {
            const BorderModeInfo& m = borderModes()[i];
            const QString& line = lines[qsizetype(i)];
            QVERIFY2(line.startsWith(QString::fromUtf8(m.name) + (m.takesValue ? "[:VALUE] " : " ")), qPrintable(line));
            QVERIFY2(line.contains(QString::fromUtf8(m.rule)), qPrintable(line));
            for (const char* alias : m.aliases) QVERIFY2(line.contains(QLatin1String(alias)), qPrintable(line));
        }
        const CliRun j = runCli({"--list", "border-modes", "--json"});
        QVERIFY2(j.exitCode == 0, j.err.constData());
        const QJsonArray rows = QJsonDocument::fromJson(j.out).array();
        QCOMPARE(rows.size(), qsizetype(borderModes().size()));
        for (std::size_t i = 0; i < borderModes().size(); ++i) {
            const BorderModeInfo& m = borderModes()[i];
            const QJsonObject o = rows[qsizetype(i)].toObject();
            QCOMPARE(o["name"].toString(), QString::fromUtf8(m.name));
            QCOMPARE(o["aliases"].toArray(), aliases(m.aliases));
            QCOMPARE(o["takes_value"].toBool(), m.takesValue);
            QCOMPARE(o["rule"].toString(), QString::fromUtf8(m.rule));
            QCOMPARE(o["example"].toString(), QString::fromUtf8(m.example));
            QCOMPARE(o["opencv"], orNull(m.opencv));
            QCOMPARE(o["opencv_filter2d"].toBool(), m.opencvFilter2D);
            QCOMPARE(o["scipy"], orNull(m.scipy));
            QCOMPARE(o["scipy_note"], orNull(m.scipyNote));
            QCOMPARE(o["matlab"], orNull(m.matlab));
            QCOMPARE(o["gimp"], orNull(m.gimp));
            QCOMPARE(o["gmic"], orNull(m.gmic));
            QCOMPARE(o.size(), 12); // every field, and only those
        }
    }

    void listMethods()
    {
        const CliRun t = runCli({"--list", "methods"});
        QVERIFY2(t.exitCode == 0, t.err.constData());
        const QStringList lines = QString::fromUtf8(t.out).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), qsizetype(methods().size()));
        for (std::size_t i = 0; i < methods().size(); ++i) {
            const MethodInfo& m = methods()[i];
            const QString& line = lines[qsizetype(i)];
            QVERIFY2(line.startsWith(QString::fromUtf8(m.name) + " "), qPrintable(line));
            QVERIFY2(line.contains(QString::fromUtf8(m.description)), qPrintable(line));
            for (const char* alias : m.aliases) QVERIFY2(line.contains(QLatin1String(alias)), qPrintable(line));
        }
        const CliRun j = runCli({"--list", "methods", "--json"});
        QVERIFY2(j.exitCode == 0, j.err.constData());
        const QJsonArray rows = QJsonDocument::fromJson(j.out).array();
        QCOMPARE(rows.size(), qsizetype(methods().size()));
        for (std::size_t i = 0; i < methods().size(); ++i) {
            const MethodInfo& m = methods()[i];
            const QJsonObject o = rows[qsizetype(i)].toObject();
            QCOMPARE(o["name"].toString(), QString::fromUtf8(m.name));
            QCOMPARE(o["aliases"].toArray(), aliases(m.aliases));
            QCOMPARE(o["description"].toString(), QString::fromUtf8(m.description));
            QCOMPARE(o["tolerance"].toDouble(-1), toleranceOf(m.accuracy));
            QCOMPARE(o["auto_candidate"].toBool(), m.autoCandidate);
            QVERIFY(!o["accuracy"].toString().isEmpty());
            QCOMPARE(parseMethod(o["name"].toString().toStdString()), m.method);
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
    // ---- batch mode: -O DIR ----

    // Every output of a batch is the file a single run writes for the same input, byte for
    // byte, whatever the channels and the input's kind; the JSON lines carry the single run's
    // report.
    void batchMatchesSingleRuns_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("format");
        for (const char* m : {"direct", "separable", "fft", "reference"}) {
            QTest::newRow((std::string(m) + ", own extension").c_str()) << QString::fromLatin1(m) << QString();
            QTest::newRow((std::string(m) + ", --format npy").c_str()) << QString::fromLatin1(m) << QStringLiteral("npy");
        }
    }
    void batchMatchesSingleRuns()
    {
        QFETCH(QString, method);
        QFETCH(QString, format);
        const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(QRegularExpression("[^a-z]"), "_");
        QDir(m_dir.path()).mkpath("batch_in_" + tag);
        const QString in = path("batch_in_" + tag), single = in + "/single", batch = in + "/batch";
        QVERIFY(QDir().mkpath(single) && QDir().mkpath(batch));
        QStringList inputs;
        // 1 channel float, 3 channels float, 8-bit RGB and RGBA files, two of the same shape in
        // a row (the batch's reused result buffer), then a smaller one.
        writeNpy(test::randomImage(37, 23, 1, 41), (in + "/a_gray.npy").toStdString());
        writeNpy(test::randomImage(37, 23, 1, 42), (in + "/b_gray.npy").toStdString());
        writeNpy(test::randomImage(19, 29, 3, 43), (in + "/c_rgb.npy").toStdString());
        inputs << in + "/a_gray.npy" << in + "/b_gray.npy" << in + "/c_rgb.npy";
        if (imageFormatsAvailable()) {
            Image rgb = test::randomImage(31, 17, 3, 44, true), rgba = test::randomImage(13, 11, 4, 45, true);
            rgb.depth = rgba.depth = SampleDepth::U8;
            rgba.hasAlpha = true;
            saveImage(rgb, (in + "/d_rgb.png").toStdString());
            saveImage(rgba, (in + "/e_rgba.png").toStdString());
            inputs << in + "/d_rgb.png" << in + "/e_rgba.png";
        }
        const QStringList filter{"-k", kAsym, "-m", method, "-b", "wrap"};
        for (const QString& input : inputs) {
            QFileInfo info(input);
            const QString name = format.isEmpty() ? info.fileName() : info.completeBaseName() + "." + format;
            const CliRun r = runCli(QStringList{input, single + "/" + name} + filter);
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        QStringList args = inputs + filter + QStringList{"-O", batch, "--json"};
        if (!format.isEmpty()) args << "--format" << format;
        const CliRun r = runCli(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.isEmpty(), r.err.constData()); // stderr is no terminal: no progress bar, and nothing went wrong

        const QStringList names = QDir(single).entryList(QDir::Files);
        QCOMPARE(names.size(), inputs.size());
        QCOMPARE(QDir(batch).entryList(QDir::Files | QDir::Hidden), names); // and no temporaries left
        for (const QString& name : names) {
            const QByteArray want = readAll(single + "/" + name);
            QVERIFY(!want.isEmpty());
            QVERIFY2(readAll(batch + "/" + name) == want, qPrintable(name));
        }

        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), inputs.size() + 1);
        for (int i = 0; i < inputs.size(); ++i) {
            QJsonParseError e;
            const QJsonObject o = QJsonDocument::fromJson(lines[i], &e).object();
            QVERIFY2(e.error == QJsonParseError::NoError, lines[i].constData());
            QCOMPARE(o["index"].toInt(), i);
            QCOMPARE(o["input"].toString(), inputs[i]);
            QVERIFY(!o.contains("error"));
            const QJsonObject rep = o["report"].toObject();
            QCOMPARE(rep["input"].toObject()["path"].toString(), inputs[i]);
            QCOMPARE(rep["output"].toObject()["path"].toString(), o["output"].toString());
            QVERIFY(QFile::exists(o["output"].toString()));
            QCOMPARE(rep["method"].toObject()["chosen"].toString(), method);
            QCOMPARE(rep["kernel"].toObject()["width"].toInt(), 5);
            QCOMPARE(rep["run_count"].toInt(), 1);
        }
        const QJsonObject summary = QJsonDocument::fromJson(lines.last()).object()["summary"].toObject();
        QCOMPARE(summary["inputs"].toInt(), inputs.size());
        QCOMPARE(summary["written"].toInt(), inputs.size());
        QCOMPARE(summary["skipped"].toInt(), 0);
        QVERIFY(summary["wall_s"].toDouble() > 0);
        QVERIFY(summary["images_per_s"].toDouble() > 0);
    }

    // Two inputs that would write one name are refused before anything is read or written:
    // exit status 2, one line naming both.
    void batchRefusesDuplicateNames_data()
    {
        QTest::addColumn<QStringList>("inputs");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("mentions");
        QDir(m_dir.path()).mkpath("dup_a");
        QDir(m_dir.path()).mkpath("dup_b");
        const QString a = path("dup_a/same.npy"), b = path("dup_b/same.npy"), c = path("dup_a/same.tif");
        writeNpy(test::randomImage(8, 6, 1, 51), a.toStdString());
        writeNpy(test::randomImage(8, 6, 1, 52), b.toStdString());
        QTest::newRow("same file name") << QStringList{gray(), a, b} << QStringList{} << b;
        QTest::newRow("same name after --format") << QStringList{a, c} << QStringList{"--format", "png"}
                                                  << QStringLiteral("same.png");
        QTest::newRow("one file twice") << QStringList{a, path("dup_b/../dup_a/same.npy")} << QStringList{}
                                        << QStringLiteral("listed twice");
    }
    void batchRefusesDuplicateNames()
    {
        QFETCH(QStringList, inputs);
        QFETCH(QStringList, extra);
        QFETCH(QString, mentions);
        const QString out = path("dup_out_" + QString::fromLatin1(QTest::currentDataTag()).replace(' ', '_'));
        QVERIFY(QDir().mkpath(out));
        const CliRun r = runCli(inputs + extra + QStringList{"-k", "1", "-O", out});
        verifyOneLineError(r, mentions);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY(QDir(out).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
    }

    // A corrupt input in the middle is said on stderr and in its JSON line, skipped, and the
    // others are written; the exit status is 3.
    void batchSkipsBadInputs()
    {
        const QString out = path("skip_out");
        QVERIFY(QDir().mkpath(out));
        const QString first = gray(), bad = path("corrupt.npy"), missing = path("skip_missing.npy");
        const QString last = path("rgb.npy");
        const CliRun r = runCli({first, bad, missing, last, "-k", kBlur, "-O", out, "--json"});
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(QDir(out).entryList(QDir::Files | QDir::Hidden), (QStringList{"gray.npy", "rgb.npy"}));
        QCOMPARE(readNpy((out + "/rgb.npy").toStdString()).width, 19); // the one after the bad ones is whole
        const QList<QByteArray> errs = r.err.trimmed().split('\n');
        QCOMPARE(errs.size(), 2);
        QVERIFY2(errs[0].startsWith("convlab-cli: error: skipped '" + bad.toUtf8() + "'"), errs[0].constData());
        QVERIFY2(errs[0].contains("not a .npy file"), errs[0].constData());
        QVERIFY2(errs[1].contains(missing.toUtf8()) && errs[1].contains("no such file"), errs[1].constData());

        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 5);
        QList<QJsonObject> objects;
        for (const QByteArray& line : lines) {
            QJsonParseError e;
            objects << QJsonDocument::fromJson(line, &e).object();
            QVERIFY2(e.error == QJsonParseError::NoError, line.constData());
        }
        QVERIFY(objects[0].contains("report") && objects[3].contains("report"));
        for (int i : {1, 2}) {
            QVERIFY(!objects[i].contains("report"));
            const QJsonObject err = objects[i]["error"].toObject();
            QCOMPARE(err["stage"].toString(), QStringLiteral("read"));
            QVERIFY(err["message"].toString().contains(i == 1 ? bad : missing));
            QCOMPARE(objects[i]["output"].toString(), out + (i == 1 ? "/corrupt.npy" : "/skip_missing.npy"));
        }
        const QJsonObject summary = objects[4]["summary"].toObject();
        QCOMPARE(summary["inputs"].toInt(), 4);
        QCOMPARE(summary["written"].toInt(), 2);
        QCOMPARE(summary["skipped"].toInt(), 2);
    }

    // An input whose channels the output format cannot hold is skipped at the filter step.
    void batchSkipsAnOutputFormatThatCannotHoldTheImage()
    {
        if (!imageFormatsAvailable()) QSKIP("built without image formats");
        const QString in = path("two_channels.npy"), out = path("format_out");
        writeNpy(test::randomImage(9, 7, 2, 53), in.toStdString());
        QVERIFY(QDir().mkpath(out));
        const CliRun r = runCli({gray(), in, "-k", "1", "-O", out, "--format", "jpg", "--json"});
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(QDir(out).entryList(QDir::Files | QDir::Hidden), QStringList{"gray.jpg"});
        const QJsonObject err = QJsonDocument::fromJson(r.out.split('\n')[1]).object()["error"].toObject();
        QCOMPARE(err["stage"].toString(), QStringLiteral("filter"));
        QVERIFY2(r.err.contains("skipped '" + in.toUtf8() + "'"), r.err.constData());
    }

    // --inputs -: the list from stdin, one path a line (blank lines and Windows line ends
    // allowed), after the positional inputs; --inputs FILE the same from a file.
    void batchInputsFromAList()
    {
        const QString out = path("list_out"), listFile = path("list.txt");
        QVERIFY(QDir().mkpath(out));
        writeNpy(test::randomImage(5, 4, 1, 54), path("edge_copy.npy").toStdString());
        QProcess p;
        p.start(test::cliPath(), {path("rgb.npy"), "-k", kBlur, "-O", out, "--inputs", "-"});
        QVERIFY(p.waitForStarted());
        p.write((gray() + "\r\n\n" + path("edge_copy.npy") + "\n").toUtf8());
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(QDir(out).entryList(QDir::Files), (QStringList{"edge_copy.npy", "gray.npy", "rgb.npy"}));
        const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 4); // one line an image, then the summary
        QVERIFY2(lines[0].startsWith(path("rgb.npy").toUtf8() + " -> "), lines[0].constData());
        QVERIFY2(lines[1].startsWith(gray().toUtf8() + " -> "), lines[1].constData());
        QVERIFY2(lines[3].contains("3 inputs: 3 written, 0 skipped"), lines[3].constData());

        const QString out2 = path("list_out2");
        QVERIFY(QDir().mkpath(out2));
        writeText(listFile, (gray() + "\n" + path("rgb.npy") + "\n").toUtf8());
        const CliRun r = runCli({"-k", kBlur, "-O", out2, "--inputs", listFile});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(readAll(out2 + "/gray.npy"), readAll(out + "/gray.npy"));
        verifyOneLineError(runCli({"-k", kBlur, "-O", out2, "--inputs", path("no_list.txt")}),
                           QStringLiteral("no_list.txt"));
        writeText(path("empty_list.txt"), "\n\n");
        const CliRun empty = runCli({"-k", kBlur, "-O", out2, "--inputs", path("empty_list.txt")});
        verifyOneLineError(empty, QStringLiteral("needs inputs"));
        QCOMPARE(empty.exitCode, 2);
    }

    // The progress bar is drawn on a terminal only: a pipe gets nothing of it, a terminal gets
    // it redrawn in place and cleared at the end.
    void batchProgressOnlyOnATerminal()
    {
        const QString out = path("progress_out");
        QVERIFY(QDir().mkpath(out));
        const QStringList args{gray(), path("rgb.npy"), "-k", kBlur, "-O", out};
        const CliRun piped = runCli(args);
        QCOMPARE(piped.exitCode, 0);
        QCOMPARE(piped.err, QByteArray());

        const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
        QVERIFY(master >= 0);
        QVERIFY(::grantpt(master) == 0 && ::unlockpt(master) == 0);
        const QByteArray slave = ::ptsname(master);
        QProcess p;
        p.setChildProcessModifier([slave] {
            const int fd = ::open(slave.constData(), O_RDWR | O_NOCTTY);
            if (fd >= 0) ::dup2(fd, 2);
        });
        p.start(test::cliPath(), args);
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        QByteArray terminal;
        ::fcntl(master, F_SETFL, O_NONBLOCK);
        char buf[4096];
        for (ssize_t n; (n = ::read(master, buf, sizeof buf)) > 0;) terminal.append(buf, int(n));
        ::close(master);
        QVERIFY2(terminal.contains("] 0/2"), terminal.constData());
        QVERIFY2(terminal.contains("] 2/2"), terminal.constData());
        QVERIFY2(terminal.endsWith("\r\x1b[K"), terminal.constData()); // the bar is gone at the end
        QVERIFY(p.readAllStandardOutput().contains("2 inputs: 2 written")); // stdout is unchanged
    }

    // The output folder must exist: it is not created, and the error says so before any input
    // is read.
    void batchOutputFolderMustExist()
    {
        const QString out = path("no_such_folder");
        const CliRun r = runCli({gray(), "-k", "1", "-O", out});
        verifyOneLineError(r, QStringLiteral("output folder '%1' does not exist").arg(out));
        QCOMPARE(r.exitCode, 1);
        QVERIFY(!QFileInfo::exists(out));
        verifyOneLineError(runCli({gray(), "-k", "1", "-O", gray()}), QStringLiteral("is not a folder"));
    }

    // A batch never writes over one of its inputs.
    void batchRefusesToOverwriteAnInput()
    {
        const QString folder = path("overwrite");
        QVERIFY(QDir().mkpath(folder));
        const QString in = folder + "/x.npy";
        writeNpy(test::randomImage(6, 5, 1, 55), in.toStdString());
        const QByteArray before = readAll(in);
        const CliRun r = runCli({in, "-k", "1 2 1", "-O", folder});
        verifyOneLineError(r, QStringLiteral("would overwrite the input"));
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(readAll(in), before);
    }

    // What only makes sense for one image is refused with -O, and several inputs need -O.
    void batchRefusesSingleImageOptions_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("probe") << QStringList{"--probe", "1,1"} << QStringLiteral("--probe");
        QTest::newRow("repeat") << QStringList{"--repeat", "3"} << QStringLiteral("--repeat");
        QTest::newRow("pad-preview") << QStringList{"--pad-preview", "4"} << QStringLiteral("--pad-preview");
        QTest::newRow("analyze") << QStringList{"--analyze"} << QStringLiteral("--analyze");
        QTest::newRow("export") << QStringList{"--export", "scipy"} << QStringLiteral("--export");
    }
    void batchRefusesSingleImageOptions()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, mentions);
        const QString out = path("refused_out");
        QVERIFY(QDir().mkpath(out));
        const CliRun r = runCli(QStringList{gray(), path("rgb.npy"), "-k", "1", "-O", out} + extra);
        verifyOneLineError(r, mentions + " works on one image");
        QCOMPARE(r.exitCode, 2);
        QVERIFY(QDir(out).entryList(QDir::Files | QDir::Hidden).isEmpty());
    }
    void severalInputsNeedAnOutputFolder()
    {
        const QString stray = path("stray.npy");
        const CliRun r = runCli({gray(), path("rgb.npy"), stray, "-k", "1"});
        verifyOneLineError(r, QStringLiteral("-O DIR"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!QFile::exists(stray));
        verifyOneLineError(runCli({gray(), "-k", "1", "--format", "png"}), QStringLiteral("-O"));
        verifyOneLineError(runCli({gray(), "-k", "1", "-O", m_dir.path(), "--format", "a/b"}),
                           QStringLiteral("--format"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
