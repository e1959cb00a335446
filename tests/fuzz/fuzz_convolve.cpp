// SPDX-License-Identifier: GPL-3.0-or-later
// The engine (convolve) on small images and kernels built from the input bytes: any size from
// 1x1, kernels larger than the image, any anchor, every border mode and both semantics, 1-4
// channels with or without alpha, normalize and offset, one or two threads. Each fast method
// must stay within its tolerance of the reference (docs/semantics.md, Tolerances).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/image.h"
#include "convlab/kernel.h"
#include "fuzz_support.h"

using namespace convlab;

namespace {

// Reads the input front to back; past its end every read is 0, so short inputs still make a case.
class ByteReader {
public:
    ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
    int upTo(int n) { return byte() % (n + 1); } // 0..n
    // Small whole and half values, signed: sums stay exact enough that the tolerance means something.
    float value() { return float(std::int8_t(byte())) / 8.0f; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

// Small enough for thousands of runs a second, large enough for every path: kernels larger than
// the image, FFT tiles with their borders (the FFT plans sizes this small by estimate, quickly).
constexpr int kMaxSide = 40;
constexpr int kMaxKernelSideHere = 17;

Kernel makeKernel(ByteReader& in)
{
    const int w = 1 + in.upTo(kMaxKernelSideHere - 1), h = 1 + in.upTo(kMaxKernelSideHere - 1);
    Kernel k(w, h, std::vector<float>(std::size_t(w) * h));
    for (float& v : k.values) v = in.value();
    if (in.byte() & 1) {
        k.anchorX = in.upTo(w - 1);
        k.anchorY = in.upTo(h - 1);
    }
    return k;
}

Image makeImage(ByteReader& in)
{
    const int w = 1 + in.upTo(kMaxSide - 1), h = 1 + in.upTo(kMaxSide - 1), c = 1 + in.upTo(3);
    Image img(w, h, c);
    img.hasAlpha = (c == 2 || c == 4) && (in.byte() & 1);
    for (float& v : img.data) v = in.value() * 16.0f;
    return img;
}

// The scale of a result value (docs/semantics.md, Tolerances): |effective scale| * sum|taps| *
// the largest |sample| of the padded input (the border constant counts when it is read), plus
// |offset|. A result's own rounding is relative to that, not to the image alone: a 1x1 image
// of 0.3 under a constant border of 8 and an offset of 6.625 is a result near 55.
double resultScale(const Kernel& k, const Image& in, const ConvolveParams& p, double effectiveScale)
{
    double maxIn = p.border.mode == BorderMode::Constant ? std::fabs(double(p.border.value)) : 0.0;
    for (float v : in.data) maxIn = std::max(maxIn, double(std::fabs(v)));
    return std::max(std::fabs(effectiveScale) * k.absSum() * std::max(maxIn, 0.5) + std::fabs(p.offset), 1e-3);
}

double worstError(const Image& got, const Image& want)
{
    fuzz::require(got.sameShape(want), "result has another shape than the reference");
    double worst = 0.0;
    for (std::size_t i = 0; i < got.data.size(); ++i) {
        const double e = std::fabs(double(got.data[i]) - double(want.data[i]));
        if (!(e <= worst)) worst = e; // NaN counts as the worst
    }
    return worst;
}

// docs/semantics.md, Tolerances: 1e-6 for direct, and for separable up to rank 2; past that
// r/2 times as much, each pass pair rounding its own partial result (rank 10 measured 1.15e-6
// here). 1e-5 for the FFT. (Separable at rank 10 once measured 1e-4: the SVD's factors were
// wrong, not its float passes; see test_methods, separableFactorsReproduceTheKernel.)
double toleranceFor(Method m, int rank)
{
    if (m == Method::Fft) return 1e-5;
    if (m == Method::Separable) return 1e-6 * std::max(1.0, rank / 2.0);
    return 1e-6;
}

ConvolveParams makeParams(ByteReader& in, const Kernel& k)
{
    ConvolveParams p;
    p.kernel = k;
    p.border.mode = static_cast<BorderMode>(in.upTo(kBorderModeValues - 1));
    p.border.value = in.value();
    p.semantics = in.byte() & 1 ? Semantics::Correlation : Semantics::Convolution;
    p.filterAlpha = in.byte() & 1;
    p.normalize = (in.byte() & 3) == 0;
    p.offset = in.value();
    p.device = Device::Cpu;
    p.threads = 1 + in.upTo(1);
    return p;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    ByteReader in(data, size);
    const Kernel k = makeKernel(in);
    const Image img = makeImage(in);
    ConvolveParams p = makeParams(in, k);

    p.method = Method::Reference;
    Image want;
    RunReport reference;
    try {
        want = convolve(img, p, &reference);
    } catch (const Error& e) {
        fuzz::fail(std::string("the reference refused a valid case: ") + e.what());
    }
    const double scale = resultScale(k, img, p, reference.effectiveScale);
    for (Method m : {Method::Direct, Method::Separable, Method::Fft}) {
        p.method = m;
        RunReport report;
        const double err = worstError(convolve(img, p, &report), want) / scale;
        const double tol = toleranceFor(m, report.rank);
        fuzz::require(err <= tol, methodName(m) + " is " + std::to_string(err) + " from the reference (tolerance " +
                                      std::to_string(tol) + ") on a " + std::to_string(img.width) + "x" +
                                      std::to_string(img.height) + "x" + std::to_string(img.channels) + " image, " +
                                      std::to_string(k.width) + "x" + std::to_string(k.height) + " kernel of rank " +
                                      std::to_string(report.rank) + ", border " + borderName(p.border.mode));
    }
    return 0;
}
