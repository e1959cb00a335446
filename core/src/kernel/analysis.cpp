// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel analysis (sums, symmetry, rank and factors, frequency response and its class) and the
// border preview. The response is the kernel's DTFT evaluated directly in double precision:
// first along each kernel row, then down the columns, with one table of twiddle factors.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <sstream>

#include "convlab/analysis.h"
#include "convlab/probe.h"
#include "convlab/border.h"
#include "convlab/error.h"
#include "methods/methods.h"
#include "methods/rowcache.h"

namespace convlab {
namespace {

// exp(-2 pi i m / n) for m in [0, n).
struct Twiddles {
    std::vector<std::complex<double>> table;
    explicit Twiddles(int n) : table(n)
    {
        for (int m = 0; m < n; ++m) table[m] = std::polar(1.0, -2.0 * std::numbers::pi * m / n);
    }
    // exp(-2 pi i f t / n) for any integers f, t.
    std::complex<double> operator()(long long f, long long t) const
    {
        const long long n = static_cast<long long>(table.size());
        long long m = (f * t) % n;
        if (m < 0) m += n;
        return table[static_cast<std::size_t>(m)];
    }
};

void checkResponseSize(int size)
{
    if (size < 2 || size > kMaxResponseSize)
        throw Error("frequency response size " + std::to_string(size) + " is outside 2.." +
                    std::to_string(kMaxResponseSize));
}

// |H| on the centred size x size grid, row-major (row = fy).
std::vector<double> magnitudeGrid(const Kernel& k, int size)
{
    const Twiddles tw(size);
    const int half = size / 2;
    // rowsH[v * size + i]: the DTFT of kernel row v at wx of column i.
    std::vector<std::complex<double>> rowsH(static_cast<std::size_t>(k.height) * size);
    for (int v = 0; v < k.height; ++v)
        for (int i = 0; i < size; ++i) {
            std::complex<double> acc;
            for (int u = 0; u < k.width; ++u) acc += double(k.at(v, u)) * tw(i - half, u);
            rowsH[static_cast<std::size_t>(v) * size + i] = acc;
        }
    std::vector<double> mag(static_cast<std::size_t>(size) * size);
    std::vector<std::complex<double>> colTw(k.height);
    for (int j = 0; j < size; ++j) {
        for (int v = 0; v < k.height; ++v) colTw[v] = tw(j - half, v);
        for (int i = 0; i < size; ++i) {
            std::complex<double> acc;
            for (int v = 0; v < k.height; ++v) acc += rowsH[static_cast<std::size_t>(v) * size + i] * colTw[v];
            mag[static_cast<std::size_t>(j) * size + i] = std::abs(acc);
        }
    }
    return mag;
}

double toDb(double magnitude)
{
    return magnitude > 0 ? std::max(20.0 * std::log10(magnitude), kResponseFloorDb) : kResponseFloorDb;
}

std::string num(double v)
{
    std::ostringstream s;
    s.precision(4);
    s << v;
    return s.str();
}

// Classifies by where the response lives: the RMS gain in three radial bands of normalized
// frequency r = |w| / pi (low r < 1/3, mid < 2/3, high beyond, corners included) and the DC
// gain against the peak (within 3 dB or not).
void classify(const Kernel& k, KernelAnalysis& a)
{
    constexpr int n = 64, half = n / 2;
    const std::vector<double> mag = magnitudeGrid(k, n);
    double band[3] = {0, 0, 0};
    int count[3] = {0, 0, 0};
    a.maxGain = -1.0;
    // Backwards, so that of a pair of mirrored maxima the one at non-negative frequencies counts.
    for (int j = n - 1; j >= 0; --j)
        for (int i = n - 1; i >= 0; --i) {
            const double m = mag[static_cast<std::size_t>(j) * n + i];
            const double r = std::hypot(i - half, j - half) / half;
            const int b = r < 1.0 / 3 ? 0 : r < 2.0 / 3 ? 1 : 2;
            band[b] += m * m;
            ++count[b];
            if (m > a.maxGain * (1 + 1e-12)) {
                a.maxGain = m;
                a.peakFx = std::numbers::pi * (i - half) / half;
                a.peakFy = std::numbers::pi * (j - half) / half;
            }
        }
    a.dcGain = mag[static_cast<std::size_t>(half) * n + half];
    a.nyquistGain = mag[0]; // (-pi, -pi), the same as (pi, pi)
    for (int b = 0; b < 3; ++b) band[b] = std::sqrt(band[b] / count[b]);

    const int top = int(std::max_element(band, band + 3) - band);
    const double low = *std::min_element(band, band + 3);
    const bool dcPasses = a.dcGain >= a.maxGain / std::numbers::sqrt2;
    const std::string bands = "band RMS gain low " + num(band[0]) + ", mid " + num(band[1]) + ", high " + num(band[2]);
    const std::string dc = "DC gain " + num(a.dcGain) + ", peak " + num(a.maxGain);
    if (a.maxGain <= 0.0) {
        a.filterClass = FilterClass::Other;
        a.classReason = "the kernel is zero: it passes nothing";
    } else if (low >= band[top] * std::pow(10.0, -1.0 / 20)) {
        a.filterClass = FilterClass::Other;
        a.classReason = "all-pass: the gain stays within 1 dB across the bands (" + bands + ")";
    } else if (top == 0 && dcPasses) {
        a.filterClass = FilterClass::LowPass;
        a.classReason = "low-pass: " + dc + " (within 3 dB); " + bands;
    } else if (top == 2 && !dcPasses) {
        a.filterClass = FilterClass::HighPass;
        a.classReason = "high-pass: " + dc + " (more than 3 dB below); " + bands;
    } else if (!dcPasses) {
        a.filterClass = FilterClass::BandPass;
        a.classReason = "band-pass: " + dc + " (more than 3 dB below), the peak at |w| = " +
                        num(std::hypot(a.peakFx, a.peakFy)) + " rad; " + bands;
    } else {
        a.filterClass = FilterClass::Other;
        a.classReason = "passes DC and the " + std::string(top == 1 ? "mid" : "high") + " band most: " + dc + "; " +
                        bands;
    }
}

} // namespace

std::string filterClassName(FilterClass c)
{
    switch (c) {
    case FilterClass::LowPass: return "low-pass";
    case FilterClass::HighPass: return "high-pass";
    case FilterClass::BandPass: return "band-pass";
    case FilterClass::Other: return "other";
    }
    return "other";
}

KernelAnalysis analyzeKernel(const Kernel& k)
{
    k.validate();
    KernelAnalysis a;
    a.sum = k.sum();
    a.absSum = k.absSum();
    a.zeroSum = std::fabs(a.sum) <= 1e-6 * a.absSum;

    double maxAbs = 0.0;
    for (float v : k.values) maxAbs = std::max(maxAbs, double(std::fabs(v)));
    const double tol = 1e-6 * maxAbs;
    a.evenX = a.oddX = a.evenY = a.oddY = true;
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) {
            const double here = k.at(v, u), acrossX = k.at(v, k.width - 1 - u), acrossY = k.at(k.height - 1 - v, u);
            a.evenX = a.evenX && std::fabs(acrossX - here) <= tol;
            a.oddX = a.oddX && std::fabs(acrossX + here) <= tol;
            a.evenY = a.evenY && std::fabs(acrossY - here) <= tol;
            a.oddY = a.oddY && std::fabs(acrossY + here) <= tol;
        }

    const SvdInfo svd = analyzeRank(k);
    a.rank = svd.rank;
    a.singularValues = svd.singularValues;
    if (a.rank == 1) {
        const detail::SeparableFactors f = detail::separableFactors(k);
        a.column = f.columns.front();
        a.row = f.rows.front();
        // The SVD's sign is arbitrary: make the column's largest-magnitude value positive.
        const auto big = std::max_element(a.column.begin(), a.column.end(),
                                          [](float p, float q) { return std::fabs(p) < std::fabs(q); });
        if (*big < 0) {
            for (float& x : a.row) x = -x;
            for (float& x : a.column) x = -x;
        }
    }
    classify(k, a);
    return a;
}

Image frequencyResponse(const Kernel& k, int size, bool logScale)
{
    k.validate();
    checkResponseSize(size);
    const std::vector<double> mag = magnitudeGrid(k, size);
    Image out(size, size, 1);
    for (std::size_t i = 0; i < mag.size(); ++i) out.data[i] = static_cast<float>(logScale ? toDb(mag[i]) : mag[i]);
    return out;
}

std::vector<double> frequencyResponseRow(const Kernel& k, int size, bool logScale)
{
    k.validate();
    checkResponseSize(size);
    // At wy = 0 the response is the 1-D DTFT of the column sums.
    std::vector<double> colSum(k.width, 0.0);
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) colSum[u] += k.at(v, u);
    const Twiddles tw(size);
    std::vector<double> row(size);
    for (int i = 0; i < size; ++i) {
        std::complex<double> acc;
        for (int u = 0; u < k.width; ++u) acc += colSum[u] * tw(i - size / 2, u);
        row[i] = logScale ? toDb(std::abs(acc)) : std::abs(acc);
    }
    return row;
}

Image padPreview(const Image& in, const Border& border, int margin)
{
    if (in.empty() || in.channels < 1 || in.data.size() != in.planeSize() * static_cast<std::size_t>(in.channels))
        throw Error("padding preview: the image is empty or malformed");
    if (margin < 0 || margin > kMaxImageSide)
        throw Error("padding margin " + std::to_string(margin) + " is outside 0.." + std::to_string(kMaxImageSide));
    Image out(in.width + 2 * margin, in.height + 2 * margin, in.channels, in.depth);
    out.hasAlpha = in.hasAlpha;
    // The same padded rows the spatial methods read.
    detail::PaddedRows rows(in.width, in.height, border, margin, margin, margin, 1);
    for (int c = 0; c < in.channels; ++c) {
        rows.reset(in.plane(c));
        for (int y = 0; y < out.height; ++y)
            std::copy_n(rows.row(y), out.width, out.plane(c) + static_cast<std::size_t>(y) * out.width);
    }
    return out;
}

} // namespace convlab
