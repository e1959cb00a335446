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

    // The planner's constants and FFTW's wisdom land in the cache directory, whole; a damaged
    // constants file is measured again and replaced.
    void enginesCachesGoToTheCacheDirectory()
    {
        const QString dir = cacheHome_.filePath("convlab");
        QVERIFY(QDir().mkpath(dir));
        writeText((dir + "/cpu-planner.json").toStdString(), "{ damaged");

        const CostModel& model = cpuCostModel();
        QVERIFY(!model.fromCache);
        const QByteArray json = readAll(dir + "/cpu-planner.json");
        QVERIFY2(json.contains("\"per_work_ns\"") && json.trimmed().endsWith('}'), json.constData());

        setFftPlanning(FftPlanning::MeasureNow);
        ConvolveParams p;
        p.kernel = test::randomKernel(9, 9, test::KernelKind::Dense, 1);
        p.method = Method::Fft;
        p.device = Device::Cpu;
        const Image in = test::randomImage(300, 200, 1, 2);
        (void)convolve(in, p);
        QVERIFY(readAll(dir + "/fftwf-wisdom").startsWith("(fftw-3"));
        QCOMPARE(entries(dir), (QStringList{"cpu-planner.json", "fftwf-wisdom"}));
    }
};

QTEST_APPLESS_MAIN(TestFsUtil)
#include "test_fsutil.moc"
