// SPDX-License-Identifier: GPL-3.0-or-later
// The FFT callbacks the library embeds (core/backends/cuda/fftcallbacks.cu, LTO IR) link, through
// nvJitLink as cuFFT links them at plan time, into a kernel that calls them by the names and
// signatures cuFFT uses (tests/gpu/fft_callback_probe.cu), for every architecture the build
// targets; a probe calling a callback that does not exist fails to link, so the check can fail.
// nvJitLink runs on the CPU: no GPU needed.
#include <QtTest>

#include <nvJitLink.h>

#include <span>
#include <string>
#include <vector>

#include "fftcallbacks.h"

namespace convlab::test {
std::span<const unsigned char> fftCallbackProbeFatbin();
std::span<const unsigned char> fftCallbackProbeMissingFatbin();
} // namespace convlab::test

namespace {

struct LinkResult {
    bool linked = false;
    size_t cubinBytes = 0;
    std::string log;
};

LinkResult link(const std::string& arch, std::span<const unsigned char> probe)
{
    LinkResult r;
    const std::string archOption = "-arch=sm_" + arch;
    const char* options[] = {archOption.c_str(), "-lto"};
    nvJitLinkHandle h = nullptr;
    if (nvJitLinkCreate(&h, 2, options) != NVJITLINK_SUCCESS) {
        r.log = "nvJitLinkCreate failed";
        return r;
    }
    const auto callbacks = convlab::cuda::fftCallbacksFatbin();
    bool added = nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, callbacks.data(), callbacks.size(), "fftcallbacks") ==
                 NVJITLINK_SUCCESS;
    added = added && nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, probe.data(), probe.size(), "probe") ==
                         NVJITLINK_SUCCESS;
    r.linked = added && nvJitLinkComplete(h) == NVJITLINK_SUCCESS;
    size_t logBytes = 0;
    if (nvJitLinkGetErrorLogSize(h, &logBytes) == NVJITLINK_SUCCESS && logBytes > 1) {
        r.log.resize(logBytes);
        nvJitLinkGetErrorLog(h, r.log.data());
    }
    if (r.linked) nvJitLinkGetLinkedCubinSize(h, &r.cubinBytes);
    nvJitLinkDestroy(&h);
    return r;
}

} // namespace

class TestGpuFftCallbacks : public QObject {
    Q_OBJECT
private slots:
    void callbacksLinkForEveryTarget_data()
    {
        QTest::addColumn<QString>("arch");
        const QStringList archs = QString(CONVLAB_CUDA_ARCHITECTURES).split(',', Qt::SkipEmptyParts);
        QVERIFY(!archs.isEmpty());
        for (QString a : archs) QTest::newRow(qPrintable(a)) << a.section('-', 0, 0);
    }
    void callbacksLinkForEveryTarget()
    {
        QFETCH(QString, arch);
        QVERIFY(!convlab::cuda::fftCallbacksFatbin().empty());
        const LinkResult ok = link(arch.toStdString(), convlab::test::fftCallbackProbeFatbin());
        QVERIFY2(ok.linked, ok.log.c_str());
        QVERIFY(ok.cubinBytes > 0);
        const LinkResult missing = link(arch.toStdString(), convlab::test::fftCallbackProbeMissingFatbin());
        QVERIFY2(!missing.linked, "a call to a callback that does not exist linked");
    }

    // The names the session gives cuFFT are those the probe calls.
    void namesAreTheProbes()
    {
        QCOMPARE(QString(convlab::cuda::kFftLoadPadded), QString("convlabLoadPadded"));
        QCOMPARE(QString(convlab::cuda::kFftStoreProduct), QString("convlabStoreProduct"));
        QCOMPARE(QString(convlab::cuda::kFftStoreCropped), QString("convlabStoreCropped"));
    }
};

QTEST_APPLESS_MAIN(TestGpuFftCallbacks)
#include "test_gpu_fft_callbacks.moc"
