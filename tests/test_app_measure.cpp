// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench's measuring modes end to end, as a script calls them: `convlab
// --benchmark-latency` and `--screenshot` with --backend, --size, --kernel, --edits and --json.
// Each run gets a fresh settings folder. What is checked is the structure of what they report
// (the first edit apart from the steady state, one sample per edit, the parts of an edit within
// its whole) and the refusals (a bad value is a usage error, CUDA without a device is
// "unavailable"), never a time.
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <string>

#include "convlab/convolve.h"

namespace {

struct AppRun {
    int exitCode = -1; // -1: crashed or timed out
    QString out, err;
};

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

class TestAppMeasure : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    QString path(const QString& name) const { return dir_.filePath(name); }

    // The app under this test's own settings folder, so that no run reads or changes the
    // user's and each run starts as a new user's would.
    AppRun runApp(const QStringList& args)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), path(QStringLiteral("home")));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), path(QStringLiteral("home/.config")));
        env.insert(QStringLiteral("XDG_CACHE_HOME"), path(QStringLiteral("home/.cache")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(CONVLAB_APP_PATH), args);
        AppRun r;
        if (!p.waitForFinished(240000)) {
            p.kill();
            p.waitForFinished();
        } else if (p.exitStatus() == QProcess::NormalExit) {
            r.exitCode = p.exitCode();
        }
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QVERIFY(QDir(dir_.path()).mkpath(QStringLiteral("home/.config")));
    }

    // The first result after the image arrives and each timed edit are reported apart, each
    // with the engine's stages, the display's part and the path the result took to the screen.
    void benchmarkReportsFirstAndSteadyEdits()
    {
        const QString json = path(QStringLiteral("latency.json"));
        const QString kernel = QStringLiteral("1 2 1; 2 4 2; 1 2 1");
        const AppRun r = runApp({"--benchmark-latency", "--backend", "cpu", "--size", "96x64", "--kernel", kernel,
                                 "--edits", "4", "--pause-ms", "30", "--json", json});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("first result after load")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("each edit after 30 ms of the event loop")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("steady state, 4 edits")), qPrintable(r.out));

        const QJsonObject doc = readJson(json);
        QCOMPARE(doc.value("mode").toString(), QStringLiteral("benchmark-latency"));
        const QJsonObject image = doc.value("image").toObject();
        QCOMPARE(image.value("width").toInt(), 96);
        QCOMPARE(image.value("height").toInt(), 64);
        QCOMPARE(image.value("channels").toInt(), 3);
        const QJsonObject k = doc.value("kernel").toObject();
        QCOMPARE(k.value("spec").toString(), kernel);
        QCOMPARE(k.value("width").toInt(), 3);
        QCOMPARE(k.value("height").toInt(), 3);
        QCOMPARE(doc.value("backend_requested").toString(), QStringLiteral("cpu"));
        QCOMPARE(doc.value("backend").toString(), QStringLiteral("cpu"));
        QVERIFY(!doc.value("gl").toObject().value("renderer").toString().isEmpty());
        QCOMPARE(doc.value("display_path").toString(), QStringLiteral("host memory to the OpenGL buffer"));
        // A CPU result is drawn from the colours the view mapped on the host (view/displaymap.h).
        QCOMPARE(doc.value("drawn_from").toString(), QStringLiteral("8-bit colours"));

        const QJsonObject first = doc.value("first").toObject();
        QVERIFY(first.value("wall_ms").toDouble() > 0.0);
        const QJsonObject firstEngine = first.value("engine").toObject();
        QCOMPARE(firstEngine.value("device").toString(), QStringLiteral("cpu"));
        bool convolved = false;
        for (const QJsonValue& s : firstEngine.value("stages").toArray())
            convolved = convolved || s.toObject().value("name").toString() == QStringLiteral("convolve");
        QVERIFY2(convolved, "the first result's stages name no 'convolve'");

        const QJsonObject steady = doc.value("steady").toObject();
        QCOMPARE(steady.value("edits").toInt(), 4);
        QCOMPARE(steady.value("pause_ms").toInt(), 30);
        const QJsonArray samples = steady.value("samples").toArray();
        QCOMPARE(samples.size(), 4);
        for (const QJsonValue& v : samples) {
            const QJsonObject s = v.toObject();
            QCOMPARE(s.value("device").toString(), QStringLiteral("cpu"));
            // The engine's work is a part of the edit's wall time (the clock starts before the
            // edit reaches the kernel document and stops at the frame that drew it).
            QVERIFY(s.value("engine_ms").toDouble() > 0.0);
            QVERIFY(s.value("wall_ms").toDouble() >= s.value("engine_ms").toDouble());
        }
        const QJsonObject wall = steady.value("wall_ms").toObject();
        QVERIFY(wall.value("min").toDouble() <= wall.value("median").toDouble());
        QVERIFY(wall.value("median").toDouble() <= wall.value("max").toDouble());
        const int median = steady.value("median_edit").toObject().value("index").toInt(-1);
        QVERIFY(median >= 0 && median < 4);
    }

    // A picture of the window at the first-launch layout, with what drew it named.
    void screenshotWritesTheWindowAndWhatDrewIt()
    {
        const QString png = path(QStringLiteral("window.png"));
        const QString json = path(QStringLiteral("screenshot.json"));
        const AppRun r = runApp({"--screenshot", png, "--backend", "cpu", "--size", "320x200", "--json", json});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QImage picture(png);
        QVERIFY2(!picture.isNull(), "the screenshot is not a readable PNG");
        QVERIFY(picture.width() >= 640 && picture.height() >= 400);
        const QJsonObject doc = readJson(json);
        QCOMPARE(doc.value("mode").toString(), QStringLiteral("screenshot"));
        QCOMPARE(doc.value("backend").toString(), QStringLiteral("cpu"));
        QCOMPARE(doc.value("image").toObject().value("width").toInt(), 320);
        QVERIFY(!doc.value("display_path").toString().isEmpty());
    }

    // CUDA is measured where it runs and refused, with the reason and its own exit status,
    // where it does not: never the CPU measured under CUDA's name.
    void cudaBackendRunsOrIsRefused()
    {
        const QString json = path(QStringLiteral("cuda.json"));
        QFile::remove(json);
        const AppRun r =
            runApp({"--benchmark-latency", "--backend", "cuda", "--size", "64x48", "--edits", "2", "--json", json});
        std::string why;
        if (convlab::cudaAvailable(&why)) {
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QCOMPARE(readJson(json).value("backend").toString(), QStringLiteral("cuda"));
        } else {
            QCOMPARE(r.exitCode, 3);
            QVERIFY2(r.err.contains(QStringLiteral("CUDA cannot run here")), qPrintable(r.err));
            QVERIFY2(!QFile::exists(json), "a refused run wrote its JSON");
        }
    }

    void badOptionsAreUsageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("size without height") << QStringList{"--benchmark-latency", "--size", "10x"} << "--size '10x'";
        QTest::newRow("size zero") << QStringList{"--screenshot", "x.png", "--size", "0x5"} << "--size '0x5'";
        QTest::newRow("ragged kernel") << QStringList{"--benchmark-latency", "--kernel", "1 2; 3"} << "--kernel '1 2; 3'";
        QTest::newRow("unknown backend") << QStringList{"--benchmark-latency", "--backend", "tpu"} << "--backend";
        QTest::newRow("edits not a number") << QStringList{"--benchmark-latency", "--edits", "many"} << "--edits 'many'";
        QTest::newRow("edits without benchmark") << QStringList{"--screenshot", "x.png", "--edits", "3"} << "--edits";
        QTest::newRow("pause not a number") << QStringList{"--benchmark-latency", "--pause-ms", "-5"} << "--pause-ms '-5'";
        QTest::newRow("option without a mode") << QStringList{"--backend", "cpu"} << "--backend applies";
        QTest::newRow("both modes") << QStringList{"--benchmark-latency", "--screenshot", "x.png"} << "separate runs";
        QTest::newRow("size and image") << QStringList{"--benchmark-latency", "--size", "8x8", "in.png"} << "not both";
    }

    // A bad value stops the run before a window opens, with one line naming the option.
    void badOptionsAreUsageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString json = path(QStringLiteral("refused.json"));
        const AppRun r = runApp(args + QStringList{"--json", json});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!QFile::exists(json));
        QVERIFY(!QFile::exists(QStringLiteral("x.png")));
    }

    // A JSON file that cannot be written fails the run and says why.
    void unwritableJsonFails()
    {
        const AppRun r = runApp({"--benchmark-latency", "--backend", "cpu", "--size", "32x32", "--edits", "1", "--json",
                                 path(QStringLiteral("missing/dir/out.json"))});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("cannot write")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestAppMeasure)
#include "test_app_measure.moc"
