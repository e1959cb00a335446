// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend against the CPU: every method x border mode x semantics x channels, sizes
// from 1x1 to 4099x4097, kernels 1x1, even, non-square, larger than the image, 63x63. Skips,
// saying why, where CUDA cannot run.
#include <QtTest>

#include <memory>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/gpu.h"
#include "testutil.h"

using namespace convlab;
using namespace convlab::test;

// QSKIP returns from the calling function, so this must be a macro used in each test slot.
#define CONVLAB_REQUIRE_GPU()                                                                      \
    do {                                                                                           \
        if (!gpu_) QSKIP(qPrintable(QString("no usable CUDA device: %1").arg(QString::fromStdString(why_)))); \
    } while (0)

class TestGpu : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<GpuSession> gpu_;
    std::string why_;


private slots:
    void initTestCase() { gpu_ = GpuSession::create(&why_); }

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
            for (int mode = 0; mode < 5; ++mode)
                for (Semantics sem : {Semantics::Convolution, Semantics::Correlation}) {
                    ConvolveParams p;
                    p.kernel = k;
                    p.border = {BorderMode(mode), 1.5f};
                    p.semantics = sem;
                    p.scale = 0.75;
                    p.offset = 2.0;
                    p.device = Device::Cpu;
                    p.method = (double(w) * h * k.width * k.height < 5e6) ? Method::Reference : Method::Direct;
                    const Image want = convolve(in, p);
                    for (Method m : {Method::Direct, Method::Separable, Method::Fft, Method::Auto}) {
                        p.method = m;
                        RunReport rep;
                        const Image got = gpu_->run(p, &rep);
                        QCOMPARE(rep.device, Device::Cuda);
                        const double err = relativeError(got, want, k, in);
                        const double tol = rep.method == Method::Fft ? 1e-5 : 1e-6;
                        QVERIFY2(err <= tol, qPrintable(QString("k%1x%2 %3 %4 %5: %6")
                                                            .arg(k.width)
                                                            .arg(k.height)
                                                            .arg(QString::fromStdString(borderName(BorderMode(mode))),
                                                                 sem == Semantics::Convolution ? "conv" : "corr",
                                                                 QString::fromStdString(methodName(rep.method)))
                                                            .arg(err)));
                    }
                }
        }
    }

    void largeImage()
    {
        CONVLAB_REQUIRE_GPU();
        const Image in = randomImage(4099, 4097, 3, 99);
        gpu_->setImage(in);
        for (auto [kw, kh] : {std::pair{3, 3}, std::pair{63, 63}}) {
            const Kernel k = randomKernel(kw, kh, KernelKind::Dense, 5);
            for (int mode : {0, 3, 4}) {
                ConvolveParams p;
                p.kernel = k;
                p.border = {BorderMode(mode), 0.0f};
                p.device = Device::Cpu;
                p.method = kw > 3 ? Method::Fft : Method::Direct;
                const Image want = convolve(in, p);
                for (Method m : {Method::Direct, Method::Fft}) {
                    p.method = m;
                    const Image got = gpu_->run(p);
                    QVERIFY(relativeError(got, want, k, in) <= 2e-5);
                }
            }
        }
    }

    void zeroKernelGivesOffset()
    {
        CONVLAB_REQUIRE_GPU();
        const Image in = randomImage(37, 19, 3, 8);
        gpu_->setImage(in);
        for (Method m : {Method::Direct, Method::Separable, Method::Fft, Method::Auto}) {
            ConvolveParams p;
            p.kernel = Kernel(5, 3, std::vector<float>(15, 0.0f));
            p.normalize = false;
            p.offset = 0.25;
            p.method = m;
            const Image out = gpu_->run(p);
            for (float v : out.data) QVERIFY2(std::fabs(v - 0.25f) <= 1e-6f, qPrintable(QString::number(v)));
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
