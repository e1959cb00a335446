// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU FFT method's layouts (core/backends/cuda/fftlayout.h) checked on the CPU: the transform's
// inputs come from paddedSample, each transform is replaced by what the forward transform, the
// product with the kernel's spectrum and the inverse transform compute together (the circular
// correlation of the transform's input with the kernel), and the outputs are taken out as the
// separate crop pass does (transformIndex) and as the fused store callback does
// (outputIndex). Both must give the reference convolution for every border mode, the plane and
// overlap-save tiles, tight and loose transform sizes, odd and tiny images and off-centre
// anchors; and every output must be written exactly once. The separate passes also run end to
// end with FFTW in cuFFT's place (the same R2C layout, n0 x (n1/2 + 1) values a transform): the
// kernel scattered by kernelTapIndex with the inverse's 1/(n0 n1), its spectrum broadcast over
// the batch of channels and tiles. Needs no GPU.
#include <QtTest>

#include <fftw3.h>

#include <complex>
#include <limits>
#include <vector>

#include "convlab/convolve.h"
#include "fftlayout.h"
#include "gpugeometry.h"
#include "testutil.h"

using namespace convlab;
using namespace convlab::test;
using cuda::FftLayout;

namespace {

// Every transform's input, as the pad pass (or the load callback) gives it: paddedSample.
std::vector<float> paddedInputs(const Image& in, const cuda::Geometry& g, const FftLayout& l)
{
    const int batch = l.batch(g.channels);
    std::vector<float> input(static_cast<size_t>(l.realPer()) * batch);
    for (int b = 0; b < batch; ++b)
        for (int i = 0; i < l.n0; ++i)
            for (int j = 0; j < l.n1; ++j)
                input[(static_cast<size_t>(b) * l.n0 + i) * l.n1 + j] = cuda::paddedSample(in.data.data(), g, l, b, i, j);
    return input;
}

// Every transform of the layout: its input from paddedSample, then the circular correlation
// with the (correlation-form) kernel, i.e. forward, product and inverse without their rounding.
std::vector<double> simulateTransforms(const Image& in, const Kernel& k, const cuda::Geometry& g, const FftLayout& l)
{
    const int batch = l.batch(g.channels);
    const std::vector<float> input = paddedInputs(in, g, l);
    std::vector<double> result(input.size(), 0.0);
    for (int b = 0; b < batch; ++b)
        for (int i = 0; i < l.n0; ++i)
            for (int j = 0; j < l.n1; ++j) {
                double sum = 0;
                for (int v = 0; v < k.height; ++v)
                    for (int u = 0; u < k.width; ++u)
                        sum += double(k.at(v, u)) *
                               input[(static_cast<size_t>(b) * l.n0 + (i + v) % l.n0) * l.n1 + (j + u) % l.n1];
                result[(static_cast<size_t>(b) * l.n0 + i) * l.n1 + j] = sum;
            }
    return result;
}

Image poisoned(const Image& like)
{
    Image out(like.width, like.height, like.channels);
    std::fill(out.data.begin(), out.data.end(), std::numeric_limits<float>::quiet_NaN());
    return out;
}

// The separate crop pass (kernels.cu, crop): each output reads its transform value.
Image cropped(const std::vector<double>& t, const cuda::Geometry& g, const FftLayout& l, const Image& like)
{
    Image out = poisoned(like);
    for (int c = 0; c < g.channels; ++c)
        for (int y = 0; y < g.h; ++y)
            for (int x = 0; x < g.w; ++x)
                out.data[(static_cast<size_t>(c) * g.h + y) * g.w + x] =
                    static_cast<float>(g.scale * t[cuda::transformIndex(g, l, c, y, x)] + g.offset);
    return out;
}

// The fused inverse's store callback (fftcallbacks.cu): each transform value goes to its output
// or nowhere. `writes` counts the stores per output.
Image stored(const std::vector<double>& t, const cuda::Geometry& g, const FftLayout& l, const Image& like,
             std::vector<int>& writes)
{
    Image out = poisoned(like);
    writes.assign(out.data.size(), 0);
    for (int b = 0; b < l.batch(g.channels); ++b)
        for (int i = 0; i < l.n0; ++i)
            for (int j = 0; j < l.n1; ++j) {
                const long long at = cuda::outputIndex(g, l, b, i, j);
                if (at < 0) continue;
                ++writes[static_cast<size_t>(at)];
                out.data[static_cast<size_t>(at)] =
                    static_cast<float>(g.scale * t[(static_cast<size_t>(b) * l.n0 + i) * l.n1 + j] + g.offset);
            }
    return out;
}


// The separate passes of kernels.cu with FFTW's batched transforms in cuFFT's place: pad into
// every batch's input, the kernel's spectrum at the layout's size (taps at kernelTapIndex,
// scaled by 1/(n0 n1)), forward, the product broadcast over the batch, inverse, crop.
Image throughFftw(const Image& in, const Kernel& k, const cuda::Geometry& g, const FftLayout& l)
{
    const int batch = l.batch(g.channels);
    const size_t realPer = static_cast<size_t>(l.realPer()), specPer = static_cast<size_t>(l.specPer());
    std::vector<float> real = paddedInputs(in, g, l), kernelReal(realPer, 0.0f);
    std::vector<std::complex<float>> spec(specPer * batch), kernelSpec(specPer);
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u)
            kernelReal[cuda::kernelTapIndex(v, u, l.n0, l.n1)] = k.at(v, u) / static_cast<float>(l.realPer());
    int dims[2] = {l.n0, l.n1};
    auto* specData = reinterpret_cast<fftwf_complex*>(spec.data());
    auto* kernelSpecData = reinterpret_cast<fftwf_complex*>(kernelSpec.data());
    fftwf_plan kernelPlan = fftwf_plan_dft_r2c_2d(l.n0, l.n1, kernelReal.data(), kernelSpecData, FFTW_ESTIMATE);
    fftwf_plan forward = fftwf_plan_many_dft_r2c(2, dims, batch, real.data(), nullptr, 1, static_cast<int>(realPer),
                                                 specData, nullptr, 1, static_cast<int>(specPer), FFTW_ESTIMATE);
    fftwf_plan inverse = fftwf_plan_many_dft_c2r(2, dims, batch, specData, nullptr, 1, static_cast<int>(specPer),
                                                 real.data(), nullptr, 1, static_cast<int>(realPer), FFTW_ESTIMATE);
    fftwf_execute(kernelPlan);
    fftwf_execute(forward);
    for (size_t i = 0; i < spec.size(); ++i) spec[i] *= kernelSpec[i % specPer]; // launchSpectrumProduct
    fftwf_execute(inverse);
    fftwf_destroy_plan(kernelPlan);
    fftwf_destroy_plan(forward);
    fftwf_destroy_plan(inverse);
    Image out = poisoned(in);
    for (int c = 0; c < g.channels; ++c)
        for (int y = 0; y < g.h; ++y)
            for (int x = 0; x < g.w; ++x)
                out.data[(static_cast<size_t>(c) * g.h + y) * g.w + x] =
                    std::fma(g.scale, real[cuda::transformIndex(g, l, c, y, x)], g.offset);
    return out;
}

} // namespace

class TestGpuFftLayout : public QObject {
    Q_OBJECT
private slots:
    void layoutsGiveTheConvolution_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("channels");
        const int sizes[][3] = {{1, 1, 1}, {2, 3, 1}, {23, 37, 2}, {40, 17, 1}, {9, 30, 3}};
        for (const auto& s : sizes) QTest::addRow("%dx%dx%d", s[0], s[1], s[2]) << s[0] << s[1] << s[2];
    }
    void layoutsGiveTheConvolution()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, channels);
        const Image in = randomImage(w, h, channels, 31u + w + 7 * h);
        struct Case {
            int kw, kh, ax, ay;
        };
        // Centred, off-centre and corner anchors, even and non-square shapes, kernels larger than the image.
        const Case cases[] = {{3, 3, -1, -1}, {5, 7, -1, -1}, {4, 2, 0, 1}, {6, 5, 5, 4}, {1, 9, 0, 2}};
        for (const Case& kc : cases) {
            Kernel k = randomKernel(kc.kw, kc.kh, KernelKind::Dense, 3u + kc.kw * 5 + kc.kh);
            k.anchorX = kc.ax;
            k.anchorY = kc.ay;
            for (const BorderModeInfo& mode : borderModes()) {
                const Image want = referenceFor(in, k, mode.mode, -0.5f, 1.25f, -3.0f);
                const cuda::Geometry g = geometryFor(in, k, mode.mode, -0.5f, 1.25f, -3.0f);
                const int ph = h + kc.kh - 1, pw = w + kc.kw - 1, side = std::max(kc.kw, kc.kh);
                struct Named {
                    const char* name;
                    FftLayout l;
                };
                const Named layouts[] = {{"tight plane", cuda::planeLayout(g, ph, pw)},
                                         {"loose plane", cuda::planeLayout(g, ph + 5, pw + 2)},
                                         {"tiles of side+1", cuda::tiledLayout(g, side + 1)},
                                         {"tiles of 2 side", cuda::tiledLayout(g, 2 * side)},
                                         {"tiles of 16", cuda::tiledLayout(g, std::max(16, side + 1))}};
                for (const Named& n : layouts) {
                    const std::vector<double> t = simulateTransforms(in, k, g, n.l);
                    std::vector<int> writes;
                    const Image viaCrop = cropped(t, g, n.l, in), viaStore = stored(t, g, n.l, in, writes);
                    const QString what = QString("%1 k%2x%3 anchor %4,%5 %6")
                                             .arg(n.name)
                                             .arg(kc.kw)
                                             .arg(kc.kh)
                                             .arg(k.ax())
                                             .arg(k.ay())
                                             .arg(mode.name);
                    QVERIFY2(relativeError(viaCrop, want, k, in) <= 1e-6, qPrintable(what + " (crop)"));
                    QVERIFY2(relativeError(viaStore, want, k, in) <= 1e-6, qPrintable(what + " (store)"));
                    QVERIFY2(std::all_of(writes.begin(), writes.end(), [](int n) { return n == 1; }),
                             qPrintable(what + ": an output stored other than once"));
                }
            }
        }
    }

    // The separate passes end to end with FFTW's transforms: every border mode, the plane and
    // tiles, three channels, an oblong kernel with an off-centre anchor, against the reference.
    void separatePassesThroughFftw()
    {
        const Image in = randomImage(203, 151, 3, 77);
        Kernel k = randomKernel(13, 7, KernelKind::Dense, 78);
        k.anchorX = 9;
        k.anchorY = 2;
        for (const BorderModeInfo& mode : borderModes()) {
            const Image want = referenceFor(in, k, mode.mode, 0.25f, 2.0f, 0.5f);
            const cuda::Geometry g = geometryFor(in, k, mode.mode, 0.25f, 2.0f, 0.5f);
            for (const FftLayout& l : {cuda::planeLayout(g, 151 + 6 + 3, 203 + 12 + 1), cuda::tiledLayout(g, 32),
                                       cuda::tiledLayout(g, 64)}) {
                const double err = relativeError(throughFftw(in, k, g, l), want, k, in);
                QVERIFY2(err <= toleranceFor(Method::Fft),
                         qPrintable(QString("%1, %2x%3 tiles of %4: %5").arg(mode.name).arg(l.tilesX).arg(l.tilesY).arg(l.n0).arg(err)));
            }
        }
    }

    // What the session times (fftlayout.h, fftCandidates): for 4096 x 4096 with 63 x 63 the
    // plane, then fused, then 10 x 10 tiles of 512 (the fewest points x log2 points), fused too,
    // then tiles of 256; none fused without callbacks; below 4 M padded points only the plane
    // unless all are asked for; no fused batch of 2^31 values or more.
    void candidatesForTheTargetCases()
    {
        cuda::Geometry g;
        g.w = g.h = 4096;
        g.kw = g.kh = 63;
        g.channels = 1;
        auto c = cuda::fftCandidates(g, 4200, 4200, true, false);
        QCOMPARE(int(c.size()), 5);
        QVERIFY(!c[0].tiled && !c[0].fused && c[0].layout == cuda::planeLayout(g, 4200, 4200));
        QVERIFY(!c[1].tiled && c[1].fused);
        QVERIFY(c[2].tiled && !c[2].fused && c[2].layout.n0 == 512 && c[2].layout.tiles() == 100);
        QVERIFY(c[3].tiled && c[3].fused && c[3].layout == c[2].layout);
        QVERIFY(c[4].tiled && !c[4].fused && c[4].layout.n0 == 256);
        c = cuda::fftCandidates(g, 4200, 4200, false, false);
        QCOMPARE(int(c.size()), 3);
        QVERIFY(std::none_of(c.begin(), c.end(), [](const cuda::FftCandidate& x) { return x.fused; }));

        g.w = 1000;
        g.h = 700;
        g.kw = g.kh = 31;
        QCOMPARE(int(cuda::fftCandidates(g, 735, 1050, true, false).size()), 1);
        c = cuda::fftCandidates(g, 735, 1050, true, true);
        QVERIFY(c.size() > 2);
        for (const cuda::FftCandidate& x : c)
            if (x.tiled) QVERIFY(x.layout.n0 >= 2 * 31 && x.layout.n0 < 1050);

        g.w = g.h = 30000; // 3 planes of 30030^2 points, and their tiles: beyond 32-bit offsets
        g.channels = 3;
        c = cuda::fftCandidates(g, 30030, 30030, true, false);
        QVERIFY(c.size() > 1); // tiles, separate
        for (const cuda::FftCandidate& x : c) {
            QVERIFY(!x.fused);
            QVERIFY(x.layout.batch(3) <= 65535);
        }
    }

    // The tile grid covers the image and no more: the last tile row and column reach past the
    // image by less than one step, and the plane layout is one tile.
    void tileGridsCoverTheImage()
    {
        cuda::Geometry g;
        g.channels = 3;
        for (auto [w, h, kw, kh, side] : {std::tuple{4096, 4096, 63, 63, 512}, {4096, 4096, 31, 31, 1024},
                                          {1920, 1080, 17, 9, 256}, {7, 5, 3, 3, 4}, {1, 1, 1, 1, 2}}) {
            g.w = w;
            g.h = h;
            g.kw = kw;
            g.kh = kh;
            const FftLayout l = cuda::tiledLayout(g, side);
            QCOMPARE(l.stepY, side - kh + 1);
            QCOMPARE(l.stepX, side - kw + 1);
            QVERIFY(l.tilesY * l.stepY >= h && (l.tilesY - 1) * l.stepY < h);
            QVERIFY(l.tilesX * l.stepX >= w && (l.tilesX - 1) * l.stepX < w);
            QCOMPARE(l.batch(3), 3 * l.tilesX * l.tilesY);
            const FftLayout plane = cuda::planeLayout(g, h + kh - 1, w + kw - 1);
            QCOMPARE(plane.tiles(), 1);
            QCOMPARE(plane.stepY, h);
            QCOMPARE(plane.stepX, w);
        }
        // 4096 x 4096 with 63 x 63 in 512-point tiles: 10 x 10 tiles of 450 outputs a side.
        g.w = g.h = 4096;
        g.kw = g.kh = 63;
        const FftLayout l = cuda::tiledLayout(g, 512);
        QCOMPARE(l.tilesX, 10);
        QCOMPARE(l.stepX, 450);
    }
};

QTEST_APPLESS_MAIN(TestGpuFftLayout)
#include "test_gpu_fft_layout.moc"

