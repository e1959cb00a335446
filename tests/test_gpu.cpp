// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend against the CPU: every method x border mode x semantics x channels, sizes
// from 1x1 to 4099x4097, kernels 1x1, even, non-square, larger than the image, 63x63. Skips,
// saying why, where CUDA cannot run.
#include <QtTest>
#include <QFile>
#include <QTemporaryDir>

#include <atomic>
#include <limits>
#include <memory>
#include <utility>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/gpu.h"
#include "convlab/imagestats.h"
#include "convlab/kernel.h"
#include "testutil.h"

#if defined(CONVLAB_TEST_HAVE_CUDA)
#include <cuda_runtime.h>
#endif

using namespace convlab;
using namespace convlab::test;

// QSKIP returns from the calling function, so this must be a macro used in each test slot.
#define CONVLAB_REQUIRE_GPU()                                                                      \
    do {                                                                                           \
        if (!gpu_) QSKIP(qPrintable(QString("no usable CUDA device: %1").arg(QString::fromStdString(why_)))); \
    } while (0)

namespace {

// Once the layouts are timed for the side x side image held and this kernel size, auto's FFT estimate is
// the kept layout's measured time (as kernelChoices() lists it, 4 digits), not the model's.
void autoPricesTheFftAtTheKeptLayout(GpuSession& gpu, int side, const Kernel& k)
{
    ConvolveParams p;
    p.kernel = k;
    p.method = Method::Auto;
    RunReport rep;
    gpu.run(p, &rep);
    double fftMs = -1;
    for (const MethodEstimate& e : rep.estimates)
        if (e.method == Method::Fft) fftMs = e.ms;
    // Every layout section timed for this size (one per border mode) names the layout it kept
    // and that layout's time; auto's estimate is one of those kept times (the last one timed),
    // not the model's. Timings taken at different moments differ, so no two are compared.
    const QString all = QString::fromStdString(gpu.kernelChoices());
    const QString header = QString("FFT layout for %1x%1, %2x%3").arg(side).arg(k.width).arg(k.height);
    QVector<double> keptTimes;
    for (qsizetype at = all.indexOf(header); at >= 0; at = all.indexOf(header, at + 1)) {
        const qsizetype next = all.indexOf("\nFFT ", at + 1);
        const QString section = all.mid(at, next < 0 ? -1 : next - at);
        const QString kept = QRegularExpression("^  using (.+)$", QRegularExpression::MultilineOption).match(section).captured(1);
        const QRegularExpressionMatch line =
            QRegularExpression("^  " + QRegularExpression::escape(kept) + ": ([0-9.e+-]+) ms", QRegularExpression::MultilineOption)
                .match(section);
        QVERIFY2(!kept.isEmpty() && line.hasMatch(), qPrintable(section));
        keptTimes.push_back(line.captured(1).toDouble());
    }
    QVERIFY2(!keptTimes.isEmpty(), qPrintable(all));
    bool isAKeptTime = false;
    for (double t : keptTimes) isAKeptTime = isAKeptTime || std::abs(fftMs - t) <= 1e-3 * t; // printed to 4 digits
    QVERIFY2(isAKeptTime, qPrintable(QString("auto's FFT estimate %1 ms is none of the kept layouts' times\n%2").arg(fftMs).arg(all)));
}

// Every field of two histograms: bins, range, counts, the samples outside them, the finite range.
QString histogramDifference(const Histogram& a, const Histogram& b)
{
    if (a.bins != b.bins || a.lo != b.lo || a.hi != b.hi || a.channels.size() != b.channels.size())
        return QString("bins %1 [%2, %3] x%4 against %5 [%6, %7] x%8")
            .arg(a.bins).arg(a.lo).arg(a.hi).arg(a.channels.size()).arg(b.bins).arg(b.lo).arg(b.hi).arg(b.channels.size());
    for (std::size_t c = 0; c < a.channels.size(); ++c) {
        const ChannelHistogram &x = a.channels[c], &y = b.channels[c];
        if (x.counts != y.counts) return QString("channel %1: the counts differ").arg(c);
        if (x.below != y.below || x.above != y.above || x.nan != y.nan || x.posInf != y.posInf ||
            x.negInf != y.negInf || x.finite != y.finite)
            return QString("channel %1: the samples outside the bins differ").arg(c);
        if (x.min != y.min || x.max != y.max) return QString("channel %1: the finite range differs").arg(c);
    }
    return {};
}

} // namespace

class TestGpu : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<GpuSession> gpu_;
    std::string why_;


private slots:
    void initTestCase() { gpu_ = startCudaSession(&why_); }

    // What a session measured is kept in the calibration store: a later session on this device
    // (here: of this process, reading the same file) takes the tiled grid and the planner's
    // constants from it instead of timing them, and computes the same bits.
    void measurementsAreKeptForTheNextSession()
    {
        CONVLAB_REQUIRE_GPU();
        QTemporaryDir cache;
        const QByteArray old = qgetenv("XDG_CACHE_HOME");
        qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
        struct Restore {
            QByteArray value;
            ~Restore() { value.isEmpty() ? qunsetenv("XDG_CACHE_HOME") : qputenv("XDG_CACHE_HOME", value); }
        } restore{old};
        const Image in = randomImage(300, 200, 1, 4);
        ConvolveParams p;
        p.kernel = randomKernel(3, 3, KernelKind::Dense, 9);
        p.method = Method::Auto;
        std::string why;
        Image first;
        {
            const std::unique_ptr<GpuSession> a = startCudaSession(&why);
            QVERIFY2(a, why.c_str());
            a->setImage(in);
            RunReport rep;
            first = a->run(p, &rep);
            bool calibrated = false;
            for (const StageTiming& s : rep.stages) calibrated = calibrated || s.name.rfind("calibrate GPU planner", 0) == 0;
            QVERIFY(calibrated);
        }
        QVERIFY(QFile::exists(cache.path() + "/convlab/calibrations.json"));
        const std::unique_ptr<GpuSession> b = startCudaSession(&why);
        QVERIFY2(b, why.c_str());
        b->setImage(in);
        RunReport rep;
        QCOMPARE(b->run(p, &rep).data, first.data);
        for (const StageTiming& s : rep.stages)
            QVERIFY2(s.name.rfind("calibrate GPU planner", 0) != 0 && s.name.rfind("choose the tiled grid", 0) != 0,
                     s.name.c_str());
        QVERIFY2(b->kernelChoices().find("timed by an earlier process") != std::string::npos, b->kernelChoices().c_str());
    }

    void availabilityIsReported()
    {
        std::string reason;
        const bool available = cudaAvailable(&reason);
        QCOMPARE(available, gpu_ != nullptr);
        if (!available) QVERIFY2(!reason.empty(), "an unavailable CUDA must say why");
        // --device cuda must fail loudly without a device; auto must fall back to the CPU.
        ConvolveParams p;
        p.kernel = Kernel(3, 1, {1, 2, 1});
        p.device = Device::Auto;
        RunReport rep;
        const Image in = randomImage(9, 7, 1, 1);
        convolve(in, p, &rep);
        QCOMPARE(rep.device, available ? Device::Cuda : Device::Cpu);
        p.device = Device::Cuda;
        if (!available) QVERIFY_THROWS_EXCEPTION(Error, convolve(in, p));
    }

    void matchesCpu_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("channels");
        const int sizes[][3] = {{1, 1, 1}, {1, 13, 3}, {17, 1, 4}, {31, 29, 1}, {127, 61, 3}, {257, 131, 4}};
        for (const auto& s : sizes) QTest::addRow("%dx%dx%d", s[0], s[1], s[2]) << s[0] << s[1] << s[2];
    }
    void matchesCpu()
    {
        CONVLAB_REQUIRE_GPU();
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, channels);
        const Image in = randomImage(w, h, channels, 3u + w + h);
        gpu_->setImage(in); // resident for every kernel below
        const int kernels[][3] = {{1, 1, 0}, {3, 3, 1}, {4, 2, 0}, {7, 3, 2}, {2, 6, 1}, {19, 23, 0}, {63, 63, 1}};
        for (const auto& kk : kernels) {
            const Kernel k = randomKernel(kk[0], kk[1], KernelKind(kk[2]), 11u + kk[0]);
            for (const BorderModeInfo& mode : borderModes())
                for (Semantics sem : {Semantics::Convolution, Semantics::Correlation}) {
                    ConvolveParams p;
                    p.kernel = k;
                    p.border = {mode.mode, 1.5f};
                    p.semantics = sem;
                    p.scale = 0.75;
                    p.offset = 2.0;
                    p.device = Device::Cpu;
                    p.method = (double(w) * h * k.width * k.height < 5e6) ? Method::Reference : Method::Direct;
                    const Image want = convolve(in, p);
                    // Every method of the table: its GPU path, or (the reference has none) another
                    // one run in its place with a notice saying so.
                    for (const MethodInfo& asked : methods()) {
                        p.method = asked.method;
                        RunReport rep;
                        const Image got = gpu_->run(p, &rep);
                        QCOMPARE(rep.device, Device::Cuda);
                        const bool pick = asked.accuracy == Accuracy::OfItsPick;
                        if (pick) QVERIFY2(methodInfo(rep.method).autoCandidate, asked.name);
                        else if (rep.method != asked.method) QVERIFY2(!rep.notices.empty(), asked.name);
                        const double err = relativeError(got, want, k, in), tol = toleranceFor(rep.method);
                        QVERIFY2(err <= tol, qPrintable(QString("k%1x%2 %3 %4 %5 (ran %6): %7")
                                                            .arg(k.width)
                                                            .arg(k.height)
                                                            .arg(mode.name, sem == Semantics::Convolution ? "conv" : "corr",
                                                                 asked.name,
                                                                 QString::fromStdString(methodName(rep.method)))
                                                            .arg(err)));
                    }
                }
        }
    }

    // The FFT's sides are timed per padded size (session.cu, fftSidesFor): a 1000x700 image with
    // a 31x31 kernel pads to 1030x730, whose smallest sides with factors up to 7, 5 and 3 differ.
    // Whichever the device chooses, and the smallest sides untimed in a session of its own
    // (CONVLAB_GPU_FFT_SIZE=smallest), the result agrees with the CPU's in every border mode.
    void fftSidesAreChosenAndAgree()
    {
        CONVLAB_REQUIRE_GPU();
        const Image in = randomImage(1000, 700, 2, 41);
        const Kernel k = randomKernel(31, 31, KernelKind::Dense, 42);
        struct Unset { // the other tests' sessions choose as usual, whatever fails here
            ~Unset() { qunsetenv("CONVLAB_GPU_FFT_SIZE"); }
        } unset;
        for (const char* policy : {"fastest", "smallest"}) {
            qputenv("CONVLAB_GPU_FFT_SIZE", policy);
            std::string why;
            const std::unique_ptr<GpuSession> gpu = startCudaSession(&why);
            QVERIFY2(gpu, why.c_str());
            gpu->setImage(in);
            for (const BorderModeInfo& mode : borderModes()) {
                ConvolveParams p;
                p.kernel = k;
                p.border = {mode.mode, 0.5f};
                p.method = Method::Fft;
                RunReport rep;
                const Image got = gpu->run(p, &rep);
                QCOMPARE(rep.method, Method::Fft);
                p.device = Device::Cpu;
                p.method = Method::Direct;
                const double err = relativeError(got, convolve(in, p), k, in);
                QVERIFY2(err <= toleranceFor(Method::Fft), qPrintable(QString("%1, %2: %3").arg(policy, mode.name).arg(err)));
            }
            const std::string choices = gpu->kernelChoices();
            const bool timed = choices.find("FFT sides for 1030x730 padded") != std::string::npos;
            QVERIFY2(timed == (std::string(policy) == "fastest"), choices.c_str());
        }
    }

    // The FFT layouts (core/backends/cuda/fftlayout.h: the plane or overlap-save tiles, with separate
    // passes or with the passes fused into cuFFT's callbacks), each forced in a session of its
    // own (CONVLAB_GPU_FFT_LAYOUT), and the one the device chooses, agree with the CPU in every
    // border mode, for three planes with a square kernel and one with an off-centre oblong one.
    // The device chooses among them only from 4 M padded points on (fftlayout.h,
    // kFftLayoutMinPoints), so its session also runs a 2100 x 2100 image.
    void fftLayoutsAgreeWithCpu()
    {
        CONVLAB_REQUIRE_GPU();
        struct Unset {
            ~Unset() { qunsetenv("CONVLAB_GPU_FFT_LAYOUT"); }
        } unset;
        struct Case {
            int w, h, channels, kw, kh, ax, ay;
        };
        const Case cases[] = {{1100, 700, 3, 31, 31, -1, -1}, {700, 531, 1, 17, 9, 2, 7}, {2100, 2100, 1, 31, 31, -1, -1}};
        for (const char* policy : {"plane", "plane-fused", "tiles", "tiles-fused", "fastest"}) {
            qputenv("CONVLAB_GPU_FFT_LAYOUT", policy);
            std::string why;
            const std::unique_ptr<GpuSession> gpu = startCudaSession(&why);
            QVERIFY2(gpu, why.c_str());
            const bool chosen = std::string(policy) == "fastest";
            for (const Case& c : cases) {
                if (c.w == 2100 && !chosen) continue;
                const Image in = randomImage(c.w, c.h, c.channels, 5u + c.w);
                Kernel k = randomKernel(c.kw, c.kh, KernelKind::Dense, 6u + c.kh);
                k.anchorX = c.ax;
                k.anchorY = c.ay;
                gpu->setImage(in);
                for (const BorderModeInfo& mode : borderModes()) {
                    ConvolveParams p;
                    p.kernel = k;
                    p.border = {mode.mode, 0.5f};
                    p.scale = 0.5;
                    p.offset = 1.0;
                    p.method = Method::Fft;
                    RunReport rep;
                    Image got;
                    try {
                        got = gpu->run(p, &rep);
                    } catch (const Error& e) {
                        QFAIL(qPrintable(QString("%1: %2\n%3").arg(policy, e.what(),
                                                                    QString::fromStdString(gpu->kernelChoices()))));
                    }
                    QCOMPARE(rep.method, Method::Fft);
                    p.device = Device::Cpu;
                    // The large image against the CPU's FFT (seconds less than direct); both
                    // sides then carry an FFT's rounding, so twice its tolerance.
                    const bool large = c.w == 2100;
                    p.method = large ? Method::Fft : Method::Direct;
                    const double err = relativeError(got, convolve(in, p), k, in);
                    QVERIFY2(err <= (large ? 2 : 1) * toleranceFor(Method::Fft),
                             qPrintable(QString("%1, %2x%3, %4: %5").arg(policy).arg(c.w).arg(c.h).arg(mode.name).arg(err)));
                }
            }
            const std::string choices = gpu->kernelChoices();
            const bool timed = choices.find("FFT layout for 2100x2100, 31x31") != std::string::npos;
            QVERIFY2(timed == chosen, choices.c_str());
            if (chosen) autoPricesTheFftAtTheKeptLayout(*gpu, 2100, randomKernel(31, 31, KernelKind::Dense, 6u + 31));
            // Small images keep the plane with separate passes untimed.
            QVERIFY2(choices.find("FFT layout for 1100x700") == std::string::npos, choices.c_str());
            qInfo("%s: %s", policy, choices.c_str());
        }
    }

    void largeImage()
    {
        CONVLAB_REQUIRE_GPU();
        const Image in = randomImage(4099, 4097, 3, 99);
        gpu_->setImage(in);
        for (auto [kw, kh] : {std::pair{3, 3}, std::pair{63, 63}}) {
            const Kernel k = randomKernel(kw, kh, KernelKind::Dense, 5);
            for (const BorderModeInfo& mode : borderModes()) {
                ConvolveParams p;
                p.kernel = k;
                p.border = {mode.mode, 0.0f};
                p.device = Device::Cpu;
                p.method = kw > 3 ? Method::Fft : Method::Direct;
                const Image want = convolve(in, p);
                for (Method m : {Method::Direct, Method::Fft}) {
                    p.method = m;
                    const Image got = gpu_->run(p);
                    QVERIFY2(relativeError(got, want, k, in) <= 2e-5, mode.name);
                }
            }
        }
    }

    // Issue 51, defect 1: kernels whose tile leaves the tiled kernel (long thin ones on every
    // device, large squares on sm_86/89) read the taps at the stride they were uploaded with.
    void directOutsideTheTiledKernelMatchesCpu()
    {
        CONVLAB_REQUIRE_GPU();
        const Image in = randomImage(300, 211, 1, 51);
        gpu_->setImage(in);
        for (auto [kw, kh] : {std::pair{1, 401}, std::pair{3, 500}, std::pair{31, 300}, std::pair{97, 97}, std::pair{127, 125}}) {
            const Kernel k = randomKernel(kw, kh, KernelKind::Dense, 7u + kw);
            ConvolveParams p;
            p.kernel = k;
            p.border = {BorderMode::Reflect, 0.0f};
            p.device = Device::Cpu;
            p.method = Method::Reference;
            const Image want = convolve(in, p);
            for (Method m : {Method::Direct, Method::Reference}) {
                p.method = m;
                const Image got = gpu_->run(p);
                QVERIFY2(relativeError(got, want, k, in) <= toleranceFor(Method::Direct),
                         qPrintable(QString("%1x%2 %3").arg(kw).arg(kh).arg(methodName(m).c_str())));
            }
        }
    }

    // Issue 51, defect 6: the separable row pass over more padded rows than grid y's 65535.
    void separableOnTallImages()
    {
        CONVLAB_REQUIRE_GPU();
        const Image in = randomImage(8, kMaxImageSide, 1, 52);
        gpu_->setImage(in);
        const Kernel k = randomKernel(5, 9, KernelKind::Rank1, 53);
        ConvolveParams p;
        p.kernel = k;
        p.device = Device::Cpu;
        p.method = Method::Separable;
        const Image want = convolve(in, p);
        const Image got = gpu_->run(p);
        QVERIFY(relativeError(got, want, k, in) <= toleranceFor(Method::Separable));
    }

#if defined(CONVLAB_TEST_HAVE_CUDA)
    // Issue 51, defect 5: an output= array offset by 4 bytes (a view into a larger buffer) gets
    // the result without a misaligned vector store, and the session works after it.
    void outputOffsetByFourBytes()
    {
        CONVLAB_REQUIRE_GPU();
        const int w = 256, h = 70;
        const Image in = randomImage(w, h, 1, 54);
        const std::size_t n = static_cast<std::size_t>(w) * h;
        float *din = nullptr, *dout = nullptr;
        QCOMPARE(cudaMalloc(&din, n * sizeof(float)), cudaSuccess);
        QCOMPARE(cudaMalloc(&dout, (n + 4) * sizeof(float)), cudaSuccess);
        QCOMPARE(cudaMemcpy(din, in.data.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
        ConvolveParams p;
        p.kernel = randomKernel(3, 3, KernelKind::Dense, 55);
        p.device = Device::Cpu;
        p.method = Method::Direct;
        const Image want = convolve(in, p);
        DevicePlanes planes;
        planes.in = din;
        planes.out = dout + 1;
        planes.width = w;
        planes.height = h;
        planes.channels = 1;
        p.device = Device::Cuda;
        gpu_->runOnDevice(p, planes, nullptr);
        Image got(w, h, 1);
        QCOMPARE(cudaMemcpy(got.data.data(), dout + 1, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
        cudaFree(din);
        cudaFree(dout);
        QVERIFY(relativeError(got, want, p.kernel, in) <= toleranceFor(Method::Direct));
        QVERIFY(!gpu_->run(p).data.empty()); // the context survived
    }
#endif

    void tiledDirectAtBlockEdges()
    {
        // Small enough for compute-sanitizer's racecheck: block edges, the vector-load interior,
        // widths that are not multiples of 4, every anchor alignment.
        CONVLAB_REQUIRE_GPU();
        for (auto [w, h] : {std::pair{260, 70}, std::pair{389, 37}, std::pair{7, 3}}) {
            const Image in = randomImage(w, h, 2, 21u + w);
            gpu_->setImage(in);
            for (auto [kw, kh] : {std::pair{3, 3}, std::pair{6, 5}, std::pair{9, 1}}) {
                Kernel k = randomKernel(kw, kh, KernelKind::Dense, 3u + kw);
                for (const BorderModeInfo& mode : borderModes()) {
                    ConvolveParams p;
                    p.kernel = k;
                    p.border = {mode.mode, -0.5f};
                    p.device = Device::Cpu;
                    p.method = Method::Reference;
                    const Image want = convolve(in, p);
                    p.method = Method::Direct;
                    const Image got = gpu_->run(p);
                    QVERIFY2(relativeError(got, want, k, in) <= toleranceFor(Method::Direct),
                             qPrintable(QString("%1x%2 k%3x%4 %5").arg(w).arg(h).arg(kw).arg(kh).arg(mode.name)));
                }
            }
        }
    }

    // The session times the tiled kernel on one block per tile and on a persistent grid at its
    // first direct run and keeps the persistent grid only where it gives the same bits; here it
    // must give them (the grid only changes which block takes which tile).
    void tiledGridIsTunedOnTheDevice()
    {
        CONVLAB_REQUIRE_GPU();
        const Image in = randomImage(300, 200, 3, 4);
        gpu_->setImage(in);
        ConvolveParams p;
        p.kernel = randomKernel(5, 5, KernelKind::Dense, 9);
        p.method = Method::Direct;
        const Image first = gpu_->run(p);
        const std::string choices = gpu_->kernelChoices();
        // The tiled kernel's note (its own lines; the FFT's and the transfers' follow) names the
        // candidate kept. The FFT layout lines' "max difference" is no concern of this test.
        const std::size_t at = choices.find("tiled direct grid");
        QVERIFY2(at != std::string::npos, choices.c_str());
        std::size_t end = choices.find("\nFFT", at);
        end = std::min(end, choices.find("\nhost transfers", at));
        const std::string tiled = choices.substr(at, end == std::string::npos ? std::string::npos : end - at);
        QVERIFY2(tiled.find("using") != std::string::npos, tiled.c_str());
        QCOMPARE(gpu_->run(p).data, first.data); // the same run again: the same bits
    }

    void packedUploadMatchesFloat()
    {
        // 8-bit BGR with padded rows and 16-bit gray+alpha, converted on the device, give the
        // same results as their float images uploaded as floats.
        CONVLAB_REQUIRE_GPU();
        for (int depthBits : {8, 16}) {
            PackedImage pk;
            pk.width = 131;
            pk.height = 45;
            pk.channels = depthBits == 8 ? 3 : 2;
            pk.depth = depthBits == 8 ? SampleDepth::U8 : SampleDepth::U16;
            pk.hasAlpha = depthBits == 16;
            if (depthBits == 8) pk.order = {2, 1, 0, 3};
            pk.stride = static_cast<std::size_t>(pk.width) * pk.channels * pk.sampleBytes() + 6;
            pk.bytes.resize(pk.stride * pk.height);
            std::uint32_t state = 12345;
            for (auto& b : pk.bytes) b = std::uint8_t((state = state * 1664525u + 1013904223u) >> 24);
            const Image asFloat = unpackImage(pk);
            ConvolveParams p;
            p.kernel = randomKernel(5, 5, KernelKind::Dense, 4);
            p.border = {BorderMode::Reflect, 0.0f};
            for (Method m : requestableMethods()) {
                p.method = m;
                gpu_->setImage(asFloat);
                const Image want = gpu_->run(p);
                gpu_->setImage(pk);
                gpu_->runResident(p);
                Image got;
                gpu_->downloadLastResult(got);
                QVERIFY(got.sameShape(want));
                QCOMPARE(got.hasAlpha, pk.hasAlpha);
                QCOMPARE(got.depth, pk.depth);
                QVERIFY2(got.data == want.data, depthBits == 8 ? "8-bit" : "16-bit");
            }
        }
    }

    // The device counts the histogram of its result as the CPU does, bin for bin: real values,
    // whole values (a bin per level), non-finite ones, a single pixel, and bins beyond what a
    // block holds in shared memory.
    void histogramIsCountedOnTheDevice()
    {
        CONVLAB_REQUIRE_GPU();
        struct Case {
            const char* name;
            Image in;
            Kernel kernel;
            bool normalize;
        };
        Image nonFinite = randomImage(61, 47, 2, 17);
        nonFinite.at(0, 5, 5) = std::numeric_limits<float>::quiet_NaN();
        nonFinite.at(1, 30, 40) = std::numeric_limits<float>::infinity();
        nonFinite.at(1, 10, 3) = -std::numeric_limits<float>::infinity();
        const Case cases[] = {
            {"real values", randomImage(300, 200, 3, 31), randomKernel(7, 7, KernelKind::Rank2, 9), false},
            {"whole values", randomImage(257, 129, 3, 8, true), parseKernelText("1 2 1; 0 0 0; -1 -2 -1"), false},
            {"non-finite values", nonFinite, randomKernel(3, 3, KernelKind::Dense, 2), false},
            {"one pixel", randomImage(1, 1, 1, 4), parseKernelText("1 1 1; 1 1 1; 1 1 1"), true},
        };
        for (const Case& c : cases) {
            gpu_->setImage(c.in);
            ConvolveParams p;
            p.kernel = c.kernel;
            p.normalize = c.normalize;
            p.method = Method::Direct;
            const Image result = gpu_->run(p);
            for (int bins : {256, 20000}) {
                const Histogram want = imageHistogram(result, bins);
                const Histogram got = gpu_->histogramOfLastResult(bins, nullptr);
                const QString diff = histogramDifference(got, want);
                QVERIFY2(diff.isEmpty(), qPrintable(QString("%1, %2 bins: %3").arg(c.name).arg(bins).arg(diff)));
            }
        }
        std::atomic<bool> cancel{true};
        QVERIFY_THROWS_EXCEPTION(Cancelled, gpu_->histogramOfLastResult(256, &cancel));
        QVERIFY_THROWS_EXCEPTION(Error, gpu_->histogramOfLastResult(0, nullptr));
    }

    void residentRunThenDownload()
    {
        CONVLAB_REQUIRE_GPU();
        const Image in = randomImage(300, 200, 3, 31);
        gpu_->setImage(in);
        ConvolveParams p;
        p.kernel = randomKernel(7, 7, KernelKind::Rank2, 9);
        const Image viaRun = gpu_->run(p);
        Image buffer(300, 200, 3); // a recycled buffer of the right shape is reused
        const float* storage = buffer.data.data();
        gpu_->runResident(p);
        gpu_->downloadLastResult(buffer);
        QCOMPARE(buffer.data.data(), storage);
        QVERIFY(buffer.data == viaRun.data);
        // One pixel read from the device: the corners, an inner pixel, and refusals outside.
        for (const auto& [x, y] : {std::pair{0, 0}, {299, 0}, {0, 199}, {299, 199}, {123, 77}}) {
            float px[3] = {-1.0f, -1.0f, -1.0f};
            gpu_->readLastResultPixel(x, y, px);
            for (int c = 0; c < 3; ++c) QCOMPARE(px[c], viaRun.at(c, y, x));
        }
        float px[3];
        QVERIFY_THROWS_EXCEPTION(Error, gpu_->readLastResultPixel(300, 0, px));
        QVERIFY_THROWS_EXCEPTION(Error, gpu_->readLastResultPixel(0, -1, px));
        // A new image of another size: the old result is not handed out as if it were its own.
        gpu_->setImage(randomImage(10, 10, 1, 2));
        QVERIFY_THROWS_EXCEPTION(Error, gpu_->downloadLastResult(buffer));
    }

    void zeroKernelGivesOffset()
    {
        CONVLAB_REQUIRE_GPU();
        const Image in = randomImage(37, 19, 3, 8);
        gpu_->setImage(in);
        for (const MethodInfo& m : methods()) {
            ConvolveParams p;
            p.kernel = Kernel(5, 3, std::vector<float>(15, 0.0f));
            p.normalize = false;
            p.offset = 0.25;
            p.method = m.method;
            const Image out = gpu_->run(p);
            for (float v : out.data)
                QVERIFY2(std::fabs(v - 0.25f) <= 1e-6f, qPrintable(QString("%1: %2").arg(m.name).arg(v)));
        }
    }

    void alphaPassesThrough()
    {
        CONVLAB_REQUIRE_GPU();
        Image in = randomImage(33, 21, 4, 7);
        in.hasAlpha = true;
        gpu_->setImage(in);
        ConvolveParams p;
        p.kernel = Kernel(3, 3, std::vector<float>(9, 1.0f / 9));
        const Image out = gpu_->run(p);
        QVERIFY(std::equal(in.plane(3), in.plane(3) + in.planeSize(), out.plane(3)));
    }
};

QTEST_APPLESS_MAIN(TestGpu)
#include "test_gpu.moc"
