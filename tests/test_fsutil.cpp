// SPDX-License-Identifier: GPL-3.0-or-later
// The cache directory and the atomic writer (core/src/io/fsutil.h), and the two caches the engine
// keeps there: the planner's constants and FFTW's wisdom.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/error.h"
#include "engine/calibrations.h"
#include "io/fsutil.h"
#include "testutil.h"

using namespace convlab;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

void writeText(const std::string& path, const std::string& text)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) != qint64(text.size()))
        throw Error("test could not write " + path);
}

// Sets an environment variable for one scope, restoring the previous value (or its absence).
class ScopedEnv {
public:
    ScopedEnv(const char* name, const QByteArray* value) : name_(name), had_(qEnvironmentVariableIsSet(name))
    {
        if (had_) old_ = qgetenv(name);
        if (value) qputenv(name, *value);
        else qunsetenv(name);
    }
    ~ScopedEnv()
    {
        if (had_) qputenv(name_, old_);
        else qunsetenv(name_);
    }

private:
    const char* name_;
    bool had_;
    QByteArray old_;
};

} // namespace

class TestFsUtil : public QObject {
    Q_OBJECT

    QTemporaryDir cacheHome_;

private slots:
    // Before anything in the engine looks for its caches: they go to a fresh directory.
    // The store keeps each section apart: one written leaves the others; a section of another
    // version or identity reads as absent; numbers come back to the bit; a damaged file reads
    // as empty and is replaced whole by the next write; without a cache directory nothing is
    // written and nothing read.
    void calibrationStoreKeepsSectionsApart()
    {
        QTemporaryDir home;
        const QByteArray path = home.path().toUtf8();
        const ScopedEnv x("XDG_CACHE_HOME", &path);
        using detail::CalibrationValues;
        const double third = 1.0 / 3.0;
        detail::saveCalibration("alpha", 1, "machine A", {{"x", detail::calibrationNumber(third)}, {"name", "grid"}});
        detail::saveCalibration("beta", 2, "machine B", {{"y", "7"}});
        const auto alpha = detail::loadCalibration("alpha", 1, "machine A");
        QVERIFY(alpha);
        QCOMPARE(alpha->at("name"), std::string("grid"));
        QCOMPARE(detail::parseCalibrationNumber(alpha->at("x")).value_or(0.0), third); // every bit
        QVERIFY(detail::loadCalibration("beta", 2, "machine B"));
        QVERIFY(!detail::loadCalibration("alpha", 2, "machine A")); // another version
        QVERIFY(!detail::loadCalibration("alpha", 1, "machine C")); // another identity
        QVERIFY(!detail::loadCalibration("gamma", 1, ""));          // never written
        detail::saveCalibration("alpha", 1, "machine A", {{"x", "2"}});
        QCOMPARE(detail::loadCalibration("alpha", 1, "machine A")->size(), std::size_t(1)); // replaced
        QVERIFY(detail::loadCalibration("beta", 2, "machine B"));                            // kept
        QVERIFY(!detail::parseCalibrationNumber("nan"));
        QVERIFY(!detail::parseCalibrationNumber("1.5x"));

        const std::string file = (home.path() + "/convlab/calibrations.json").toStdString();
        writeText(file, "[1, 2");
        QVERIFY(!detail::loadCalibration("beta", 2, "machine B"));
        detail::saveCalibration("beta", 2, "machine B", {{"y", "8"}});
        QCOMPARE(detail::loadCalibration("beta", 2, "machine B")->at("y"), std::string("8"));
        QCOMPARE(entries(home.path() + "/convlab"), QStringList{"calibrations.json"}); // no temporary left

        const ScopedEnv none("XDG_CACHE_HOME", nullptr), noHome("HOME", nullptr);
        QVERIFY(detail::calibrationsPath().empty());
        detail::saveCalibration("beta", 2, "machine B", {{"y", "9"}});
        QVERIFY(!detail::loadCalibration("beta", 2, "machine B"));
    }

    void initTestCase()
    {
        QVERIFY(cacheHome_.isValid());
        qputenv("XDG_CACHE_HOME", cacheHome_.path().toUtf8());
    }

    void cacheDirectoryFollowsTheEnvironment()
    {
        const QByteArray xdg("/tmp/xdg-cache"), home("/home/someone"), empty;
        {
            const ScopedEnv x("XDG_CACHE_HOME", &xdg), h("HOME", &home);
            QCOMPARE(QString::fromStdString(detail::cacheDirectory().string()), QString("/tmp/xdg-cache/convlab"));
        }
        {
            const ScopedEnv x("XDG_CACHE_HOME", &empty), h("HOME", &home); // empty counts as unset
            QCOMPARE(QString::fromStdString(detail::cacheDirectory().string()),
                     QString("/home/someone/.cache/convlab"));
        }
        {
            const ScopedEnv x("XDG_CACHE_HOME", nullptr), h("HOME", nullptr);
            QVERIFY(detail::cacheDirectory().empty());
        }
        QCOMPARE(QString::fromStdString(detail::cacheDirectory().string()), cacheHome_.filePath("convlab"));
    }

    void failedWritesLeaveTheTargetAndNoTemporary()
    {
        QTemporaryDir dir;
        const std::string target = dir.filePath("model.json").toStdString();
        writeText(target, "old");
        std::string seen;
        try {
            detail::writeFileAtomically(target, [&](const std::string& tmp) {
                seen = tmp;
                writeText(tmp, "half");
                throw std::runtime_error("disk full");
            });
            QFAIL("the writer's exception was swallowed");
        } catch (const std::runtime_error& e) {
            QCOMPARE(QString(e.what()), QString("disk full"));
        }
        QVERIFY2(QString::fromStdString(seen).endsWith(".json"), seen.c_str()); // extension kept
        QCOMPARE(QFileInfo(QString::fromStdString(seen)).absolutePath(), dir.path());
        QCOMPARE(readAll(dir.filePath("model.json")), QByteArray("old"));
        QCOMPARE(entries(dir.path()), QStringList{"model.json"});

        // A missing folder is one line naming the file and the folder.
        const std::string nowhere = dir.filePath("missing/model.json").toStdString();
        try {
            detail::writeFileAtomically(nowhere, [](const std::string& tmp) { writeText(tmp, "x"); });
            QFAIL("no error for a missing folder");
        } catch (const Error& e) {
            const QString msg = e.what();
            QVERIFY2(msg.contains("missing/model.json") && msg.contains("does not exist") && !msg.contains('\n'),
                     qPrintable(msg));
        }
    }

    // Writers running at once on one target each get their own temporary; the target ends up
    // as one of them, whole, and nothing else is left.
    void concurrentWritersNeverMix()
    {
        QTemporaryDir dir;
        const std::string target = dir.filePath("fftwf-wisdom").toStdString();
        constexpr int kWriters = 8;
        std::vector<std::string> texts, temporaries(kWriters);
        for (int i = 0; i < kWriters; ++i) texts.push_back(std::string(200000, char('a' + i)));
        std::atomic<int> failures{0};
        std::vector<std::thread> threads;
        for (int i = 0; i < kWriters; ++i)
            threads.emplace_back([&, i] {
                try {
                    detail::writeFileAtomically(target, [&](const std::string& tmp) {
                        temporaries[i] = tmp;
                        writeText(tmp, texts[i]);
                    });
                } catch (...) {
                    ++failures;
                }
            });
        for (std::thread& t : threads) t.join();
        QCOMPARE(failures.load(), 0);
        QCOMPARE(std::set<std::string>(temporaries.begin(), temporaries.end()).size(), std::size_t(kWriters));
        const QByteArray got = readAll(dir.filePath("fftwf-wisdom"));
        bool whole = false;
        for (const std::string& t : texts) whole = whole || got == QByteArray::fromStdString(t);
        QVERIFY(whole);
        QCOMPARE(entries(dir.path()), QStringList{"fftwf-wisdom"});
    }

    // The planner's constants (in the calibration store) and FFTW's wisdom land in the cache
    // directory, whole; a damaged store is measured again and replaced.
    void enginesCachesGoToTheCacheDirectory()
    {
        const QString dir = cacheHome_.filePath("convlab");
        QVERIFY(QDir().mkpath(dir));
        writeText((dir + "/calibrations.json").toStdString(), "{ damaged");

        const CostModel& model = cpuCostModel();
        QVERIFY(!model.fromCache);
        const QByteArray json = readAll(dir + "/calibrations.json");
        QVERIFY2(json.contains("\"cpu-planner\"") && json.contains("direct.per_work_ns") && json.trimmed().endsWith('}'),
                 json.constData());

        setFftPlanning(FftPlanning::MeasureNow);
        ConvolveParams p;
        p.kernel = test::randomKernel(9, 9, test::KernelKind::Dense, 1);
        p.method = Method::Fft;
        p.device = Device::Cpu;
        const Image in = test::randomImage(300, 200, 1, 2);
        (void)convolve(in, p);
        QVERIFY(readAll(dir + "/fftwf-wisdom").startsWith("(fftw-3"));
        QCOMPARE(entries(dir), (QStringList{"calibrations.json", "fftwf-wisdom"}));
    }
};

QTEST_APPLESS_MAIN(TestFsUtil)
#include "test_fsutil.moc"
