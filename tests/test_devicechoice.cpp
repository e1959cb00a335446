// SPDX-License-Identifier: GPL-3.0-or-later
// Device auto's choice with given costs (no GPU needed), the bus figures' cache, and where a
// caller's planes lie for the GPU's transfers (core/src/engine/hostspans.h).
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "convlab/costs.h"
#include "engine/hostspans.h"

using namespace convlab;

class TestDeviceChoice : public QObject {
    Q_OBJECT
private slots:
    // The H200 host's figures: 4096x4096 float, 3x3 on 16 CPU cores 0.76 ms; the GPU computes
    // in 0.09 ms but moving 64 MB up at 8.9 GB/s and down at 16.5 takes 11 ms: the CPU wins.
    void smallKernelOnHostMemoryStaysOnTheCpu()
    {
        const DeviceChoice c = chooseDevice({0.76, 0.09, 7.5, 4.1});
        QCOMPARE(c.device, Device::Cpu);
        QVERIFY2(c.reason.find("0.76 ms") != std::string::npos, c.reason.c_str());
        // Before the GPU's estimate is asked for: the bus alone already loses.
        QCOMPARE(chooseDevice({0.76, -1.0, 7.5, 4.1}).device, Device::Cpu);
    }
    void largeKernelGoesToTheGpu()
    {
        const DeviceChoice c = chooseDevice({250.0, 0.5, 7.5, 4.1});
        QCOMPARE(c.device, Device::Cuda);
        QVERIFY2(c.reason.find("GPU") != std::string::npos, c.reason.c_str());
        // Undecided until the GPU's own estimate is known, when the bus alone does not lose.
        QCOMPARE(chooseDevice({250.0, -1.0, 7.5, 4.1}).device, Device::Auto);
    }
    void residentImagePaysOnlyTheDownload()
    {
        QCOMPARE(chooseDevice({3.0, 0.1, 7.5, 1.2}).device, Device::Cpu);
        const DeviceChoice c = chooseDevice({3.0, 0.1, 0.0, 1.2});
        QCOMPARE(c.device, Device::Cuda);
        QVERIFY2(c.reason.find("on the GPU") != std::string::npos, c.reason.c_str());
    }
    void busFiguresAreKeptAndDamageIsIgnored()
    {
        QTemporaryDir dir;
        qputenv("XDG_CACHE_HOME", dir.path().toUtf8());
        QVERIFY(!cachedBusCosts().known());
        BusCosts b;
        b.uploadGBs = 20;
        b.downloadGBs = 30;
        b.latencyMs = 0.01;
        b.device = "test device";
        saveBusCosts(b);
        const BusCosts read = cachedBusCosts();
        QVERIFY(read.known());
        QCOMPARE(read.uploadGBs, 20.0);
        QCOMPARE(read.device, std::string("test device"));
        QCOMPARE(read.uploadMs(20e6), 0.01 + 1.0); // 20 MB at 20 GB/s
        // Kept in the calibration store, as its own section.
        const auto store = std::filesystem::path(dir.path().toStdString()) / "convlab" / "calibrations.json";
        QVERIFY(std::filesystem::exists(store));
        std::ofstream(store) << "{ broken";
        QVERIFY(!cachedBusCosts().known());
        qunsetenv("XDG_CACHE_HOME");
    }
    void planarPlanesTravelAsFewRuns()
    {
        Image img(5, 3, 3);
        detail::HostRun<const float> runs[4];
        QCOMPARE(detail::planarRuns(ImagePlanes(img), runs), 1);
        QCOMPARE(runs[0].values, std::size_t(45));
        ImagePlanes swapped = img;
        std::swap(swapped.planes[0], swapped.planes[2]);
        QCOMPARE(detail::planarRuns(swapped, runs), 3);
        QCOMPARE(runs[2].host, img.plane(0));
        QCOMPARE(runs[2].deviceOffset, std::size_t(30));
    }
    void interleavedPixelsAsOneSpan()
    {
        std::vector<float> rgba(4 * 6 * 2);
        ImagePlanes bgr; // planes 0..2 are samples 2, 1, 0 of 4-sample pixels
        bgr.width = 6;
        bgr.height = 2;
        bgr.channels = 3;
        bgr.pixelStep = 4;
        bgr.planes = {rgba.data() + 2, rgba.data() + 1, rgba.data(), nullptr};
        const auto read = detail::pixelSpan(bgr, false);
        QVERIFY(read.has_value());
        QCOMPARE(read->order[0], 2);
        QCOMPARE(read->values, std::size_t(11 * 4 + 3)); // ends at the last pixel's sample 2
        QVERIFY(!detail::pixelSpan(bgr, true)); // writing it whole would overwrite sample 3
        bgr.pixelStep = 3;
        QVERIFY(detail::pixelSpan(bgr, true).has_value());
        bgr.planes[1] = bgr.planes[0]; // two planes on one sample: no pixel order
        QVERIFY(!detail::pixelSpan(bgr, false));
    }
};

QTEST_APPLESS_MAIN(TestDeviceChoice)
#include "test_devicechoice.moc"
