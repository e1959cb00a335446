// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench on the GPU downloads a result only when something reads its values. The CUDA
// session is replaced by a stand-in that computes on the CPU and counts its downloads, so the
// rule runs on any machine: a result nobody reads stays "on the device"; a save, Use Result as
// Source or a comparison brings the values; a shown histogram has the device count them and a
// shown probe reads the one pixel it shows, not the image; a newer edit cancels
// a download on its way; a failed download is said and the run repeated with its copy; a
// window that cannot draw from the device takes the values and draws them.
#include <QSignalSpy>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

#include "convlab/convolve.h"
#include "convlab/gpu.h"
#include "convlab/kernel.h"
#include "panels/histogrampanel.h"
#include "kernel/kerneldocument.h"
#include "window/mainwindow.h"
#include "panels/probepanel.h"
#include "workbench/rendercontroller.h"
#include "testutil.h"
#include "uitestutil.h"
#include "workbench/workbenchdocument.h"

using namespace convlab;

namespace {

// What the stand-ins did, shared by every session one factory made.
struct DeviceLog {
    std::atomic<int> sessions{0};
    std::atomic<int> runs{0};
    std::atomic<int> downloads{0};       // downloads that finished
    std::atomic<int> cancelled{0};       // downloads stopped by the cancel flag
    std::atomic<int> pixelReads{0};      // single pixels read from the device
    std::atomic<int> histograms{0};      // histograms counted on the device
    std::atomic<int> failNextDownload{0};
    std::atomic<int> downloadChunkMs{0}; // a slow bus: each of 8 chunks takes this long
    std::atomic<double> gpuEstimateMs{1.0}; // what the stand-in says a run takes
    std::atomic<int> factoryCalls{0};
};

// A GPU session that runs on the CPU: the result it "holds on the device" is a host image only
// its download hands out. It cannot draw into OpenGL buffers (as on a machine whose GL context
// is not on the NVIDIA device).
class StandInSession : public GpuSession {
public:
    explicit StandInSession(DeviceLog& log) : log_(log) { ++log_.sessions; }
    void setImage(const ImagePlanes& image) override { source_ = copyOf(image); }
    void setImage(const PackedImage& packed) override { source_ = unpackImage(packed); }
    bool hasImage() const override { return !source_.empty(); }
    Image run(const ConvolveParams& params, RunReport* report) override
    {
        runResident(params, report);
        return held_;
    }
    void runInto(const ConvolveParams& params, const OutputPlanes& out, RunReport* report) override
    {
        runResident(params, report);
        downloadLastResult(out, nullptr);
    }
    void runResident(const ConvolveParams& params, RunReport* report) override
    {
        ConvolveParams p = params;
        p.device = Device::Cpu;
        RunReport r;
        convolveInto(source_, p, held_, &r);
        r.device = Device::Cuda;
        if (report) *report = r;
        ++log_.runs;
    }
    void downloadLastResult(Image& out) override
    {
        out = held_;
        ++log_.downloads;
    }
    void downloadLastResult(const OutputPlanes& out, const std::atomic<bool>* cancel) override
    {
        if (log_.failNextDownload.exchange(0)) throw Error("device lost");
        for (int chunk = 0; chunk < 8; ++chunk) {
            if (cancel && cancel->load()) {
                ++log_.cancelled;
                throw Cancelled();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(log_.downloadChunkMs.load()));
        }
        for (int c = 0; c < out.channels; ++c)
            for (int y = 0; y < out.height; ++y)
                for (int x = 0; x < out.width; ++x)
                    out.row(c, y)[std::size_t(x) * out.pixelStep] = held_.at(c, y, x);
        ++log_.downloads;
    }
    void readLastResultPixel(int x, int y, float* values) override
    {
        if (x < 0 || y < 0 || x >= held_.width || y >= held_.height) throw Error("pixel outside the result");
        for (int c = 0; c < held_.channels; ++c) values[c] = held_.at(c, y, x);
        ++log_.pixelReads;
    }
    Histogram histogramOfLastResult(int maxBins, const std::atomic<bool>* cancel) override
    {
        if (held_.empty()) throw Error("no result");
        ++log_.histograms;
        return imageHistogram(held_, maxBins, cancel);
    }
    void runToGlBuffer(const ConvolveParams&, unsigned int, RunReport*) override { throw Error(kNoInterop); }
    void copyLastResultToGlBuffer(unsigned int, std::size_t) override { throw Error(kNoInterop); }
    void releaseGlBuffer(unsigned int) override {}
    std::string deviceName() const override { return "stand-in device"; }
    double estimateMs(const ConvolveParams&, int, int, int, bool) override { return log_.gpuEstimateMs; }
    BusCosts busCosts() override { return {10.0, 10.0, 20.0, 20.0, 0.01, "stand-in device"}; }
    double copyBandwidthGBs() override { return 100.0; }

    static constexpr const char* kNoInterop = "the GL context is not on this device";

private:
    static Image copyOf(const ImagePlanes& in)
    {
        Image out(in.width, in.height, in.channels);
        for (int c = 0; c < in.channels; ++c)
            for (int y = 0; y < in.height; ++y)
                for (int x = 0; x < in.width; ++x) out.at(c, y, x) = in.at(c, y, x);
        return out;
    }
    DeviceLog& log_;
    Image source_, held_;
};

RenderController::GpuSessionFactory standIns(DeviceLog& log)
{
    return [&log](std::string*) {
        ++log.factoryCalls;
        return std::make_unique<StandInSession>(log);
    };
}

// The CPU engine's result for the document's current source and parameters.
Image expectedResult(const WorkbenchDocument& doc)
{
    ConvolveParams p = doc.params();
    p.device = Device::Cpu;
    return convolve(*doc.source(), p);
}

bool sameValues(const Image& a, const Image& b) { return a.sameShape(b) && a.data == b.data; }

} // namespace

class TestHostCopy : public QObject {
    Q_OBJECT

    DeviceLog log_;
    std::unique_ptr<WorkbenchDocument> doc_;

    // A document whose CUDA runs go to the stand-in, with a 37x23 RGB source rendered once.
    void startDocument()
    {
        log_.downloads = 0;
        log_.cancelled = 0;
        log_.pixelReads = 0;
        log_.histograms = 0;
        log_.runs = 0;
        log_.sessions = 0;
        log_.downloadChunkMs = 0;
        log_.gpuEstimateMs = 1.0;
        log_.factoryCalls = 0;
        doc_ = std::make_unique<WorkbenchDocument>();
        doc_->renderer()->setGpuSessionFactory(standIns(log_));
        WorkbenchDocument::RunSettings s = doc_->runSettings();
        s.device = Device::Cuda;
        doc_->setRunSettings(s);
        doc_->kernel()->setKernel(makePreset("gaussian", "size=5,sigma=1"), QStringLiteral("test"));
        QVERIFY(test::renderAfter(doc_->renderer(),
                                  [&] { doc_->setSource(test::randomImage(37, 23, 3, 5u), QStringLiteral("random")); }));
    }

    // Edits one cell and waits for its result.
    bool edit(float value)
    {
        return test::renderAfter(doc_->renderer(), [&] { doc_->kernel()->setCell(2, 2, value); });
    }

private slots:
    void init() { startDocument(); }
    void cleanup()
    {
        if (doc_) doc_->shutdown();
        doc_.reset();
    }

    void resultNobodyReadsStaysOnTheDevice()
    {
        const WorkbenchDocument::Result* r = doc_->result();
        QVERIFY(r);
        QCOMPARE(r->report.device, Device::Cuda);
        QVERIFY2(!r->image, "a result nobody reads was downloaded");
        QCOMPARE(r->width, 37);
        QCOMPARE(r->height, 23);
        QCOMPARE(r->channels, 3);
        for (int i = 1; i <= 3; ++i) QVERIFY(edit(0.5f + 0.1f * float(i)));
        QCOMPARE(log_.runs.load(), 4);
        QCOMPARE(log_.downloads.load(), 0);
        QVERIFY(!doc_->result()->image);
    }

    // A save (or any one-off reader) gets the values of the current result, copied once.
    void hostResultBringsTheCurrentValues()
    {
        QVERIFY(edit(0.7f));
        QSignalSpy ready(doc_.get(), &WorkbenchDocument::resultHostReady);
        const auto values = doc_->hostResult();
        QVERIFY(values);
        QVERIFY(sameValues(*values, expectedResult(*doc_)));
        QCOMPARE(ready.count(), 1);
        QCOMPARE(log_.downloads.load(), 1);
        QCOMPARE(doc_->result()->image, values);
        QCOMPARE(doc_->hostResult(), values); // held: no second copy
        QCOMPARE(log_.downloads.load(), 1);
    }

    // While a reader is shown, each run brings its values with it (no second trip); when it
    // goes, results stay on the device again.
    void aReaderGetsValuesWithEachRun()
    {
        QObject reader;
        QSignalSpy ready(doc_.get(), &WorkbenchDocument::resultHostReady);
        doc_->setHostResultWanted(&reader, true); // the held result is fetched at once
        QTRY_COMPARE(ready.count(), 1);
        QVERIFY(doc_->result()->image);
        QVERIFY(edit(0.3f));
        QVERIFY2(doc_->result()->image, "a run with a reader shown came without its values");
        QVERIFY(sameValues(*doc_->result()->image, expectedResult(*doc_)));
        QCOMPARE(log_.downloads.load(), 2);
        doc_->setHostResultWanted(&reader, false);
        QVERIFY(edit(0.4f));
        QVERIFY(!doc_->result()->image);
        QCOMPARE(log_.downloads.load(), 2);
    }

    // A reader that goes away without saying so is forgotten.
    void aDestroyedReaderIsForgotten()
    {
        {
            QObject reader;
            doc_->setHostResultWanted(&reader, true);
            QVERIFY(doc_->hostResultWanted());
        }
        QVERIFY(!doc_->hostResultWanted());
    }

    // A newer edit stops a download on its way: the old values are never announced.
    void aNewerEditCancelsTheDownload()
    {
        log_.downloadChunkMs = 20;
        QSignalSpy ready(doc_.get(), &WorkbenchDocument::resultHostReady);
        doc_->fetchHostResult();
        QVERIFY(doc_->renderer()->fetchingHostCopy());
        QVERIFY(edit(0.9f));
        QCOMPARE(log_.cancelled.load(), 1);
        QCOMPARE(log_.downloads.load(), 0);
        QTRY_VERIFY(!doc_->renderer()->fetchingHostCopy());
        QCOMPARE(ready.count(), 0);
        QVERIFY(!doc_->result()->image); // the newer result, itself still on the device
    }

    // A download that fails is said, and the run repeats with its copy in a fresh session.
    void aFailedDownloadIsSaidAndTheRunRepeated()
    {
        QSignalSpy failed(doc_.get(), &WorkbenchDocument::renderFailed);
        log_.failNextDownload = 1;
        const auto values = doc_->hostResult();
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("could not be copied from the GPU: device lost")),
                 qPrintable(failed.first().first().toString()));
        QTRY_VERIFY(doc_->result() && doc_->result()->image);
        QVERIFY(sameValues(*doc_->result()->image, expectedResult(*doc_)));
        QCOMPARE(log_.sessions.load(), 2);
        if (values) QCOMPARE(values, doc_->result()->image);
    }

    void useResultAsSourceTakesTheValues()
    {
        const Image expected = expectedResult(*doc_);
        QVERIFY(doc_->canUseResultAsSource()); // also while the values are on the device
        QVERIFY(test::renderAfter(doc_->renderer(), [&] { doc_->useResultAsSource(); }));
        QVERIFY(sameValues(*doc_->source(), expected));
    }

    void comparingTakesTheValues()
    {
        QSignalSpy compared(doc_.get(), &WorkbenchDocument::comparisonChanged);
        doc_->compare(Method::Reference, Device::Cpu);
        QTRY_VERIFY(doc_->comparison());
        QVERIFY(doc_->result()->image);
        QVERIFY(doc_->comparison()->stats.maxAbs < 1e-3);
    }

    // A shown histogram has the device count the result: the counts equal the CPU's for the
    // same values, no download, and each new result is counted again; a hidden one counts
    // nothing until it is shown.
    void aShownHistogramCountsOnTheDevice()
    {
        HistogramPanel panel;
        panel.attach(doc_.get());
        QVERIFY(edit(0.6f)); // a result that arrives while the panel is hidden
        QCOMPARE(log_.histograms.load(), 0);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY2(!doc_->hostResultWanted(), "the histogram asked for the whole image");
        QTRY_VERIFY(panel.histogram(HistogramPanel::Which::Result));
        QCOMPARE(log_.histograms.load(), 1);
        auto sameCountsAsCpu = [&] {
            const Histogram want = imageHistogram(expectedResult(*doc_), HistogramPanel::kBins);
            const Histogram* got = panel.histogram(HistogramPanel::Which::Result);
            if (!got || got->bins != want.bins || got->lo != want.lo || got->hi != want.hi) return false;
            for (std::size_t c = 0; c < want.channels.size(); ++c)
                if (got->channels[c].counts != want.channels[c].counts) return false;
            return true;
        };
        QVERIFY(sameCountsAsCpu());
        QVERIFY(!panel.markers(HistogramPanel::Which::Result).empty());
        QVERIFY(edit(1.5f));
        QTRY_COMPARE(log_.histograms.load(), 2);
        QTRY_VERIFY(sameCountsAsCpu());
        QVERIFY(!doc_->result()->image);
        QCOMPARE(log_.downloads.load(), 0);
    }

    // The probe shows one value of the result: it reads that pixel from the device and leaves
    // the image there, and reads again when the pixel moves or a new result comes.
    void aShownProbeReadsOnePixel()
    {
        ProbePanel panel;
        panel.attach(doc_.get());
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY2(!doc_->hostResultWanted(), "the probe asked for the whole image");
        panel.setPixel(36, 22); // the corner, where the border rule decides
        const Image expected = expectedResult(*doc_);
        QTRY_VERIFY(panel.displayedValue().has_value());
        QCOMPARE(*panel.displayedValue(), expected.at(panel.channel(), 22, 36));
        panel.setPixel(5, 7);
        QTRY_VERIFY(panel.displayedValue().has_value());
        QCOMPARE(*panel.displayedValue(), expected.at(panel.channel(), 7, 5));
        const int readsBefore = log_.pixelReads.load();
        QVERIFY(edit(0.25f));
        QTRY_VERIFY(panel.displayedValue().has_value());
        QCOMPARE(*panel.displayedValue(), expectedResult(*doc_).at(panel.channel(), 7, 5));
        QVERIFY(log_.pixelReads.load() > readsBefore);
        QVERIFY(!doc_->result()->image);
        QCOMPARE(log_.downloads.load(), 0);
    }

    // Device auto weighs the two devices' costs for each run and says why it chose.
    void autoWeighsTheDevicesCosts()
    {
        WorkbenchDocument::RunSettings s = doc_->runSettings();
        s.device = Device::Auto;
        log_.gpuEstimateMs = 1e-6; // the image is resident and nobody reads the result: no bus cost
        QVERIFY(test::renderAfter(doc_->renderer(), [&] { doc_->setRunSettings(s); }));
        QCOMPARE(doc_->result()->report.device, Device::Cuda);
        QVERIFY(!doc_->result()->report.deviceReason.empty());
        log_.gpuEstimateMs = 1e6;
        QVERIFY(edit(0.2f));
        QCOMPARE(doc_->result()->report.device, Device::Cpu);
        QVERIFY(doc_->result()->image); // a CPU result is in host memory
        QVERIFY(sameValues(*doc_->result()->image, expectedResult(*doc_)));
        QVERIFY(!doc_->result()->report.deviceReason.empty());
    }

    // Where CUDA cannot start, auto runs on the CPU, says why, and asks only once.
    void autoWithoutCudaStaysOnTheCpu()
    {
        doc_->shutdown();
        doc_ = std::make_unique<WorkbenchDocument>();
        int asked = 0;
        doc_->renderer()->setGpuSessionFactory([&asked](std::string* why) -> std::unique_ptr<GpuSession> {
            ++asked;
            *why = "no device here";
            return nullptr;
        });
        WorkbenchDocument::RunSettings s = doc_->runSettings();
        s.device = Device::Auto;
        doc_->setRunSettings(s);
        QVERIFY(test::renderAfter(doc_->renderer(),
                                  [&] { doc_->setSource(test::randomImage(20, 11, 1, 3u), QStringLiteral("random")); }));
        for (int i = 1; i <= 2; ++i) QVERIFY(edit(0.1f * float(i)));
        const RunReport& r = doc_->result()->report;
        QCOMPARE(r.device, Device::Cpu);
        QVERIFY2(QString::fromStdString(r.deviceReason).contains(QStringLiteral("CUDA unavailable (no device here)")),
                 r.deviceReason.c_str());
        QCOMPARE(asked, 1);
    }

    // A window whose OpenGL context CUDA cannot write (the stand-in refuses, as llvmpipe would)
    // takes the values down and draws them, and names that path.
    void aWindowWithoutInteropDrawsTheValues()
    {
        cleanup();
        test::useTestSettings("test_hostcopy");
        MainWindow w(false);
        w.renderController()->setGpuSessionFactory(standIns(log_));
        w.resize(800, 600);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        WorkbenchDocument::RunSettings s = w.workbench()->runSettings();
        s.device = Device::Cuda;
        w.workbench()->setRunSettings(s);
        QSignalSpy displayed(&w, &MainWindow::resultDisplayed);
        w.setSourceImage(test::randomImage(64, 40, 3, 9u), QStringLiteral("random"));
        QTRY_VERIFY_WITH_TIMEOUT(!displayed.isEmpty() &&
                                     displayed.last().first().toULongLong() == w.renderController()->latestId(),
                                 30000);
        QCOMPARE(w.workbench()->result()->report.device, Device::Cuda);
        QVERIFY2(w.displayPath().contains(QStringLiteral("interop unavailable")), qPrintable(w.displayPath()));
        QVERIFY(w.workbench()->result()->image);
        QVERIFY(log_.downloads.load() >= 1);
    }
};

QTEST_MAIN(TestHostCopy)
#include "test_hostcopy.moc"
