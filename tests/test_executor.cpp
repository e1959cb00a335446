// SPDX-License-Identifier: GPL-3.0-or-later
// The executor's rule (convlab/executor.h) with stand-in sessions, on any machine: an explicit
// CUDA run that cannot start throws or falls back as the executor was told; a method without a
// CUDA path runs on the CPU with the session kept; a failing device is dropped and the next run
// starts a fresh one; device auto weighs what the bus would move, and nothing for an image the
// session holds; a stand-in's bus figures are not kept as this machine's; a failure while
// weighing (timing the bus or the costs) runs on the CPU and drops the session.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

#include "convlab/executor.h"
#include "convlab/kernel.h"

using namespace convlab;

namespace {

struct Log {
    int sessions = 0;
    int busMeasured = 0;
    double gpuEstimateMs = 1.0;
    bool busFails = false, costsFail = false; // timing the bus or the costs throws, as a full device would
};

// A session that computes nothing: the executor asks it only for its estimate and its bus.
class IdleSession : public GpuSession {
public:
    explicit IdleSession(Log& log) : log_(log) { ++log_.sessions; }
    void setImage(const ImagePlanes&) override {}
    void setImage(const PackedImage&) override {}
    bool hasImage() const override { return false; }
    Image run(const ConvolveParams&, RunReport*) override { return {}; }
    void runInto(const ConvolveParams&, const OutputPlanes&, RunReport*) override {}
    void runResident(const ConvolveParams&, RunReport*) override {}
    void downloadLastResult(Image&) override {}
    void downloadLastResult(const OutputPlanes&, const std::atomic<bool>*) override {}
    void readLastResultPixel(int, int, float*) override {}
    Histogram histogramOfLastResult(int, const std::atomic<bool>*) override { return {}; }
    void runToGlBuffer(const ConvolveParams&, unsigned int, RunReport*) override {}
    void copyLastResultToGlBuffer(unsigned int, std::size_t) override {}
    void releaseGlBuffer(unsigned int) override {}
    std::string deviceName() const override { return "idle stand-in"; }
    double estimateMs(const ConvolveParams&, int, int, int, bool) override
    {
        if (log_.costsFail) throw Error("cuFFT plan failed while timing the costs");
        return log_.gpuEstimateMs;
    }
    BusCosts busCosts() override
    {
        if (log_.busFails) throw Error("out of device memory while timing the bus");
        ++log_.busMeasured;
        return {10.0, 10.0, 20.0, 20.0, 0.01, "idle stand-in"}; // 10 GB/s each way: 1 GB is 100 ms
    }
    double copyBandwidthGBs() override { return 100.0; }

private:
    Log& log_;
};

// A session that takes device memory: it records what it was given, or fails as told.
struct DeviceLog {
    int sessions = 0;
    DevicePlanes planes;
    Method method = Method::Auto;
    bool noPath = false, fails = false;
};
class DeviceMemorySession : public IdleSession {
public:
    DeviceMemorySession(Log& log, DeviceLog& device) : IdleSession(log), device_(device) { ++device_.sessions; }
    bool runOnDevice(const ConvolveParams& params, const DevicePlanes& planes, RunReport*) override
    {
        if (device_.noPath) throw NoGpuPath("reference has no CUDA path");
        if (device_.fails) throw Error("device fault");
        device_.planes = planes;
        device_.method = params.method;
        return true;
    }

private:
    DeviceLog& device_;
};

Executor::SessionFactory idleSessions(Log& log)
{
    return [&log](std::string*) { return std::make_unique<IdleSession>(log); };
}

Executor::SessionFactory noDevice()
{
    return [](std::string* why) {
        *why = "no device here";
        return std::unique_ptr<GpuSession>();
    };
}

ConvolveParams paramsOn(Device device)
{
    ConvolveParams p;
    p.kernel = Kernel(3, 3, std::vector<float>(9, 1.0f / 9));
    p.device = device;
    p.threads = 1;
    return p;
}

RunFootprint footprint(double upBytes, double downBytes) { return {256, 256, 1, false, upBytes, downBytes, nullptr}; }

} // namespace

class TestExecutor : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(cache_.isValid());
        qputenv("XDG_CACHE_HOME", cache_.path().toUtf8()); // the planner's calibration and the bus figures
    }

    // Arrays in GPU memory (convolveOnDevice): on the shared executor's session, never on the
    // CPU; device cpu, no CUDA, a method without a CUDA path each refused with why; a device
    // fault drops the session, a missing path keeps it.
    void deviceMemoryRunsOnlyOnTheGpu()
    {
        Log log;
        DeviceLog device;
        Executor& shared = Executor::shared();
        float in[12] = {}, out[12] = {};
        DevicePlanes planes;
        planes.in = in;
        planes.out = out;
        planes.width = 4;
        planes.height = 3;
        planes.channels = 1;
        planes.stream = 1;
        auto refusedWith = [&](const ConvolveParams& p, const char* words) {
            try {
                convolveOnDevice(p, planes);
            } catch (const Error& e) {
                return std::string(e.what()).find(words) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refusedWith(paramsOn(Device::Cpu), "device is cpu"));
        shared.setSessionFactory(noDevice());
        QVERIFY(refusedWith(paramsOn(Device::Auto), "CUDA cannot run here: no device here"));
        shared.setSessionFactory([&](std::string*) { return std::make_unique<DeviceMemorySession>(log, device); });
        ConvolveParams p = paramsOn(Device::Cuda);
        p.method = Method::Direct;
        RunReport report;
        QVERIFY(convolveOnDevice(p, planes, &report)); // the stand-in says the input held NaN
        QCOMPARE(device.planes.in, static_cast<const float*>(in));
        QCOMPARE(device.planes.out, out);
        QCOMPARE(device.planes.width, 4);
        QCOMPARE(device.planes.stream, std::uintptr_t(1));
        QCOMPARE(device.method, Method::Direct);
        QVERIFY(!report.stages.empty() && report.stages.front().name.find("start CUDA") != std::string::npos);
        device.noPath = true;
        QVERIFY(refusedWith(p, "runs only on the GPU"));
        QCOMPARE(device.sessions, 1); // kept
        device.noPath = false;
        device.fails = true;
        QVERIFY(refusedWith(p, "device fault"));
        device.fails = false;
        QVERIFY(convolveOnDevice(p, planes));
        QCOMPARE(device.sessions, 2); // the failed one was dropped
        shared.setSessionFactory({});
    }

    void explicitCudaThatCannotStartThrowsOrFallsBack()
    {
        Executor strict(Executor::ExplicitCuda::Throws, noDevice());
        bool called = false;
        const auto onGpu = [&](GpuSession&) { called = true; };
        try {
            strict.tryGpu(paramsOn(Device::Cuda), footprint(1, 1), nullptr, onGpu);
            QFAIL("an explicit CUDA run without a device must throw");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("CUDA unavailable: no device here"), e.what());
        }
        Executor lenient(Executor::ExplicitCuda::FallsBack, noDevice());
        const Executor::Attempt a = lenient.tryGpu(paramsOn(Device::Cuda), footprint(1, 1), nullptr, onGpu);
        QVERIFY(!a.ran);
        QVERIFY(a.deviceFailed);
        QVERIFY2(QString::fromStdString(a.failure).contains("no device here"), a.failure.c_str());
        QVERIFY(!called);
        // Device auto without a device: the CPU, saying why; neither failure nor notice.
        const Executor::Attempt autoRun = lenient.tryGpu(paramsOn(Device::Auto), footprint(1, 1), nullptr, onGpu);
        QVERIFY(!autoRun.ran && !autoRun.deviceFailed && autoRun.notice.empty());
        QVERIFY2(QString::fromStdString(autoRun.reason).contains("CUDA unavailable (no device here)"), autoRun.reason.c_str());
        QVERIFY(!called);
        // The CPU asked for: nothing placed, nothing started.
        const Executor::Attempt cpu = strict.tryGpu(paramsOn(Device::Cpu), footprint(1, 1), nullptr, onGpu);
        QVERIFY(!cpu.ran && !cpu.deviceFailed && cpu.reason.empty());
    }

    void methodWithoutCudaPathRunsOnCpuAndKeepsTheSession()
    {
        Log log;
        Executor ex(Executor::ExplicitCuda::FallsBack, idleSessions(log));
        const Executor::Attempt a = ex.tryGpu(paramsOn(Device::Cuda), footprint(1, 1), nullptr,
                                              [](GpuSession&) { throw NoGpuPath("reference has no CUDA path"); });
        QVERIFY(!a.ran && !a.deviceFailed);
        QCOMPARE(QString::fromStdString(a.notice), QStringLiteral("reference has no CUDA path: ran on the CPU"));
        QVERIFY(ex.sessionHandle());
        QCOMPARE(log.sessions, 1);
        // Told to throw, the explicit run hears of it; the session is still kept.
        Executor strict(Executor::ExplicitCuda::Throws, idleSessions(log));
        QVERIFY_THROWS_EXCEPTION(NoGpuPath, strict.tryGpu(paramsOn(Device::Cuda), footprint(1, 1), nullptr,
                                                          [](GpuSession&) { throw NoGpuPath("no path"); }));
        QVERIFY(strict.sessionHandle());
    }

    void failingDeviceIsDroppedAndTheNextRunStartsAFreshSession()
    {
        Log log;
        Executor ex(Executor::ExplicitCuda::FallsBack, idleSessions(log));
        auto image = std::make_shared<int>(1);
        const Executor::Attempt first = ex.tryGpu(paramsOn(Device::Cuda), footprint(1, 1), nullptr,
                                                  [&](GpuSession&) { ex.noteHeld(image); });
        QVERIFY(first.ran);
        QVERIFY(ex.holds(image));
        const Executor::Attempt lost = ex.tryGpu(paramsOn(Device::Cuda), footprint(1, 1), nullptr,
                                                 [](GpuSession&) { throw Error("device lost"); });
        QVERIFY(!lost.ran);
        QVERIFY(lost.deviceFailed);
        QCOMPARE(QString::fromStdString(lost.failure), QStringLiteral("device lost"));
        QVERIFY(!ex.sessionHandle());
        QVERIFY2(!ex.holds(image), "what the lost session held is forgotten with it");
        QVERIFY(ex.tryGpu(paramsOn(Device::Cuda), footprint(1, 1), nullptr, [](GpuSession&) {}).ran);
        QCOMPARE(log.sessions, 2);
        // Told to throw, the failure reaches the caller, and the session is dropped all the same.
        Executor strict(Executor::ExplicitCuda::Throws, idleSessions(log));
        QVERIFY_THROWS_EXCEPTION(Error, strict.tryGpu(paramsOn(Device::Cuda), footprint(1, 1), nullptr,
                                                      [](GpuSession&) { throw Error("device lost"); }));
        QVERIFY(!strict.sessionHandle());
    }

    void autoWeighsWhatTheBusWouldMove()
    {
        Log log;
        log.gpuEstimateMs = 0.001;
        Executor ex(Executor::ExplicitCuda::Throws, idleSessions(log));
        int gpuRuns = 0;
        const auto onGpu = [&](GpuSession&) { ++gpuRuns; };
        // 1 TB down at 10 GB/s is 100 s: no 256x256 3x3 on the CPU takes that long.
        std::vector<StageTiming> stages;
        const Executor::Attempt slowBus = ex.tryGpu(paramsOn(Device::Auto), footprint(0, 1e12), &stages, onGpu);
        QVERIFY2(!slowBus.ran, slowBus.reason.c_str());
        QCOMPARE(gpuRuns, 0);
        QVERIFY(!slowBus.reason.empty());
        bool started = false;
        for (const StageTiming& s : stages) started = started || (s.name == "start CUDA (once per process)" && s.once);
        QVERIFY2(started, "starting the session is a one-time stage of the run");
        // Nothing to move (an image the session holds, a result drawn from the device): a GPU
        // that computes in a microsecond wins.
        const Executor::Attempt resident = ex.tryGpu(paramsOn(Device::Auto), footprint(0, 0), nullptr, onGpu);
        QVERIFY2(resident.ran, resident.reason.c_str());
        QCOMPARE(gpuRuns, 1);
        QCOMPARE(log.sessions, 1);
        QCOMPARE(log.busMeasured, 1); // once per session
        // A stand-in's figures are not this machine's bus: nothing is kept in the store.
        QVERIFY(!cachedBusCosts().known());
    }

    // Issue 51, defect 3: a device error while weighing a device auto run (timing the bus, the
    // costs) runs it on the CPU with why, drops the session, and the next run starts a fresh
    // one that works; an explicit CUDA run is not weighed and is unaffected.
    void aFailureWhileWeighingFallsBackAndDoesNotPoisonLaterRuns()
    {
        for (bool busFails : {true, false}) {
            Log log;
            log.gpuEstimateMs = 0.001;
            log.busFails = busFails;
            log.costsFail = !busFails;
            Executor ex(Executor::ExplicitCuda::Throws, idleSessions(log));
            int gpuRuns = 0;
            const auto onGpu = [&](GpuSession&) { ++gpuRuns; };
            Executor::Attempt failed;
            try {
                failed = ex.tryGpu(paramsOn(Device::Auto), footprint(0, 0), nullptr, onGpu);
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QString("the weighing's error escaped device auto: ") + e.what()));
            }
            QVERIFY(!failed.ran);
            QCOMPARE(gpuRuns, 0);
            QVERIFY2(QString::fromStdString(failed.reason).contains(busFails ? "timing the bus" : "timing the costs"),
                     failed.reason.c_str());
            QVERIFY2(QString::fromStdString(failed.reason).contains("ran on the CPU"), failed.reason.c_str());
            QVERIFY2(!ex.sessionHandle(), "the half-weighed session is dropped");
            log.busFails = log.costsFail = false; // the device recovers: the next run is not poisoned
            const Executor::Attempt next = ex.tryGpu(paramsOn(Device::Auto), footprint(0, 0), nullptr, onGpu);
            QVERIFY2(next.ran, next.reason.c_str());
            QCOMPARE(gpuRuns, 1);
            QCOMPARE(log.sessions, 2);
        }
    }

    // The footprint names its image: on the backend whose session holds it the upload is free,
    // so a run that the transfer would lose goes to the GPU once the image is there.
    void anImageTheSessionHoldsUploadsNothing()
    {
        Log log;
        log.gpuEstimateMs = 0.001;
        Executor ex(Executor::ExplicitCuda::Throws, idleSessions(log));
        auto image = std::make_shared<int>(7);
        RunFootprint f = footprint(1e12, 0); // 100 s up at 10 GB/s
        f.image = image;
        QVERIFY(!ex.tryGpu(paramsOn(Device::Auto), f, nullptr, [](GpuSession&) {}).ran);
        const Executor::Attempt upload = ex.tryGpu(paramsOn(Device::Cuda), f, nullptr, [&](GpuSession&) { ex.noteHeld(image); });
        QVERIFY(upload.ran);
        QCOMPARE(upload.device, Device::Cuda);
        QVERIFY(ex.holds(image));
        const Executor::Attempt resident = ex.tryGpu(paramsOn(Device::Auto), f, nullptr, [](GpuSession&) {});
        QVERIFY2(resident.ran, resident.reason.c_str());
        QCOMPARE(resident.device, Device::Cuda);
        f.image = std::make_shared<int>(8); // another image: the upload counts again
        QVERIFY(!ex.tryGpu(paramsOn(Device::Auto), f, nullptr, [](GpuSession&) {}).ran);
        QCOMPARE(log.sessions, 1);
        // Only GPU backends have sessions.
        QVERIFY_THROWS_EXCEPTION(Error, ex.setSessionFactory(idleSessions(log), Device::Cpu));
        QVERIFY_THROWS_EXCEPTION(Error, ex.session(Device::Auto));
    }

private:
    QTemporaryDir cache_;
};

QTEST_GUILESS_MAIN(TestExecutor)
#include "test_executor.moc"
