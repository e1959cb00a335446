// SPDX-License-Identifier: GPL-3.0-or-later
// Windowed-sinc designs (docs/semantics.md, *Filter design*). Every design is built from
// low-passes whose taps sum to 1, combined in float after rounding, so the spectral inversions
// (delta minus a low-pass or a band-pass) are exact off the centre tap.
#include "convlab/design.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>

#include "convlab/analysis.h"
#include "convlab/error.h"

namespace convlab {

namespace {

using std::numbers::pi;

std::string numberText(double v)
{
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::string presetName(const FilterDesign& d) { return filterBandNames()[static_cast<std::size_t>(d.band)]; }

[[noreturn]] void fail(const FilterDesign& d, const std::string& problem)
{
    throw Error("preset '" + presetName(d) + "': " + problem);
}

void checkFrequency(const FilterDesign& d, const char* name, double f)
{
    if (!(f > 0.0 && f < 0.5))
        fail(d, std::string(name) + "=" + numberText(f) +
                    " must lie strictly between 0 and 0.5 cycles/pixel (0.5 is the Nyquist frequency)");
}

// sin(pi x) / (pi x), 1 at 0.
double sinc(double x) { return x == 0.0 ? 1.0 : std::sin(pi * x) / (pi * x); }

// The ideal circular low-pass of radius f (cycles/pixel) sampled at distance r from its centre:
// the inverse transform of the disc, f J1(2 pi f r) / r, which tends to pi f^2 at r = 0.
double circularLowPass(double f, double r)
{
    return r == 0.0 ? pi * f * f : f * std::cyl_bessel_j(1.0, 2.0 * pi * f * r) / r;
}

// n x n taps of a low-pass summing to 1, in double.
std::vector<double> lowPassGrid(const FilterDesign& d, double f)
{
    const int n = d.size, m = n / 2;
    std::vector<double> g(std::size_t(n) * n);
    if (d.shape == DesignShape::Separable) {
        const std::vector<double> h = lowPassTaps(f, n, d.window, d.beta);
        for (int v = 0; v < n; ++v)
            for (int u = 0; u < n; ++u) g[std::size_t(v) * n + u] = h[v] * h[u];
        return g;
    }
    double sum = 0.0;
    for (int v = 0; v < n; ++v)
        for (int u = 0; u < n; ++u) {
            // Integer squared distance: taps at the same distance get bit-identical values, so
            // the kernel is exactly symmetric under rotation by 90 degrees and transposition.
            const int r2 = (u - m) * (u - m) + (v - m) * (v - m);
            const double r = std::sqrt(double(r2));
            const double x = r >= m + 1 ? 0.0 : circularLowPass(f, r) * designWindow(d.window, d.beta, r / (m + 1));
            g[std::size_t(v) * n + u] = x;
            sum += x;
        }
    for (double& x : g) x /= sum;
    return g;
}

std::vector<float> rounded(const std::vector<double>& g)
{
    std::vector<float> out(g.size());
    std::transform(g.begin(), g.end(), out.begin(), [](double x) { return static_cast<float>(x); });
    return out;
}

// delta - taps, in float: exact for every tap but the centre.
std::vector<float> inverted(std::vector<float> taps)
{
    for (float& x : taps) x = -x;
    float& centre = taps[taps.size() / 2];
    centre = 1.0f + centre;
    return taps;
}

std::vector<float> designTaps(const FilterDesign& d)
{
    const std::vector<float> low = rounded(lowPassGrid(d, d.f1));
    if (d.band == FilterBand::LowPass) return low;
    if (d.band == FilterBand::HighPass) return inverted(low);
    std::vector<float> band = rounded(lowPassGrid(d, d.f2));
    for (std::size_t i = 0; i < band.size(); ++i) band[i] -= low[i];
    return d.band == FilterBand::BandPass ? band : inverted(std::move(band));
}

// Kaiser's attenuation A (dB) for a beta, inverting his empirical formula
// beta = 0.1102 (A - 8.7) above 50 dB, 0.5842 (A - 21)^0.4 + 0.07886 (A - 21) from 21 to 50.
double kaiserAttenuation(double beta)
{
    const auto betaOf = [](double a) { return 0.5842 * std::pow(a - 21.0, 0.4) + 0.07886 * (a - 21.0); };
    if (beta >= 0.1102 * (50.0 - 8.7)) return beta / 0.1102 + 8.7;
    double lo = 21.0, hi = 50.0;
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (betaOf(mid) < beta ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// The ideal low-pass of cut-off f: a disc for radial designs, a square for separable ones.
bool lowPassPasses(const FilterDesign& d, double f, double fx, double fy)
{
    if (d.shape == DesignShape::Radial) return std::hypot(fx, fy) <= f;
    return std::fabs(fx) <= f && std::fabs(fy) <= f;
}

// Whether (fx, fy) lies within `half` of an edge of the ideal response.
bool nearEdge(const FilterDesign& d, double fx, double fy, double half)
{
    std::vector<double> edges{d.f1};
    if (d.hasBand()) edges.push_back(d.f2);
    for (double e : edges) {
        if (d.shape == DesignShape::Radial) {
            if (std::fabs(std::hypot(fx, fy) - e) < half) return true;
        } else if (std::fabs(std::fabs(fx) - e) < half || std::fabs(std::fabs(fy) - e) < half) {
            return true;
        }
    }
    return false;
}

} // namespace

const std::vector<std::string>& filterBandNames()
{
    static const std::vector<std::string> names{"lowpass", "highpass", "bandpass", "bandstop"};
    return names;
}

const std::vector<std::string>& designWindowNames()
{
    static const std::vector<std::string> names{"rectangular", "hann", "hamming", "blackman", "kaiser"};
    return names;
}

const std::vector<std::string>& designShapeNames()
{
    static const std::vector<std::string> names{"separable", "radial"};
    return names;
}

void validateDesign(const FilterDesign& d)
{
    checkFrequency(d, d.hasBand() ? "f1" : "cutoff", d.f1);
    if (d.hasBand()) {
        checkFrequency(d, "f2", d.f2);
        if (d.f1 >= d.f2) fail(d, "f1=" + numberText(d.f1) + " must be below f2=" + numberText(d.f2));
    }
    if (d.size < 3 || d.size > kMaxKernelSide)
        fail(d, "size=" + std::to_string(d.size) + " is outside the range 3.." + std::to_string(kMaxKernelSide));
    if (d.size % 2 == 0)
        fail(d, "size=" + std::to_string(d.size) + " must be odd (the design is centred on one tap)");
    if (!(d.beta >= 0.0 && d.beta <= 50.0)) fail(d, "beta=" + numberText(d.beta) + " is outside the range 0..50");
}

double designWindow(DesignWindow w, double beta, double t)
{
    const double c = std::cos(pi * t);
    switch (w) {
    case DesignWindow::Rectangular:
        return 1.0;
    case DesignWindow::Hann:
        return 0.5 + 0.5 * c;
    case DesignWindow::Hamming:
        return 0.54 + 0.46 * c;
    case DesignWindow::Blackman:
        return 0.42 + 0.5 * c + 0.08 * std::cos(2.0 * pi * t);
    case DesignWindow::Kaiser:
        return std::cyl_bessel_i(0.0, beta * std::sqrt(std::max(0.0, 1.0 - t * t))) / std::cyl_bessel_i(0.0, beta);
    }
    return 1.0;
}

std::vector<double> lowPassTaps(double f, int size, DesignWindow w, double beta)
{
    const int m = size / 2;
    std::vector<double> h(size);
    double sum = 0.0;
    for (int i = 0; i < size; ++i) {
        const int n = i - m;
        h[i] = 2.0 * f * sinc(2.0 * f * n) * designWindow(w, beta, double(n) / (m + 1));
        sum += h[i];
    }
    for (double& x : h) x /= sum;
    return h;
}

Kernel designKernel(const FilterDesign& d)
{
    validateDesign(d);
    Kernel k(d.size, d.size, designTaps(d));
    k.name = designText(d);
    return k;
}

std::string designText(const FilterDesign& d)
{
    std::string s = presetName(d) + ":";
    s += d.hasBand() ? "f1=" + numberText(d.f1) + ",f2=" + numberText(d.f2) : "cutoff=" + numberText(d.f1);
    s += ",size=" + std::to_string(d.size) + ",window=" + designWindowNames()[static_cast<std::size_t>(d.window)];
    if (d.window == DesignWindow::Kaiser) s += ",beta=" + numberText(d.beta);
    s += ",shape=" + designShapeNames()[static_cast<std::size_t>(d.shape)];
    return s;
}

std::optional<FilterDesign> designOf(const Kernel& k)
{
    const auto colon = k.name.find(':');
    if (colon == std::string::npos) return std::nullopt;
    std::optional<FilterDesign> d;
    try {
        d = designFromPreset(std::string_view(k.name).substr(0, colon), std::string_view(k.name).substr(colon + 1));
    } catch (const Error&) {
        return std::nullopt; // a name that merely looks like a design
    }
    if (!d || d->size != k.width || d->size != k.height || designTaps(*d) != k.values) return std::nullopt;
    return d;
}

double idealGain(const FilterDesign& d, double fx, double fy)
{
    const double low = lowPassPasses(d, d.f1, fx, fy) ? 1.0 : 0.0;
    switch (d.band) {
    case FilterBand::LowPass:
        return low;
    case FilterBand::HighPass:
        return 1.0 - low;
    case FilterBand::BandPass:
        return (lowPassPasses(d, d.f2, fx, fy) ? 1.0 : 0.0) - low;
    case FilterBand::BandStop:
        return 1.0 - (lowPassPasses(d, d.f2, fx, fy) ? 1.0 : 0.0) + low;
    }
    return 0.0;
}

Image idealResponse(const FilterDesign& d, int size, bool logScale)
{
    if (size < 2 || size > kMaxResponseSize)
        throw Error("frequency response size " + std::to_string(size) + " is outside 2.." +
                    std::to_string(kMaxResponseSize));
    Image out(size, size, 1);
    for (int j = 0; j < size; ++j)
        for (int i = 0; i < size; ++i) {
            const double g = idealGain(d, double(i - size / 2) / size, double(j - size / 2) / size);
            out.data[std::size_t(j) * size + i] = static_cast<float>(logScale ? (g > 0 ? 0.0 : kResponseFloorDb) : g);
        }
    return out;
}

double transitionWidth(DesignWindow w, double beta, int size)
{
    double widthTimesSize = 0.9;
    switch (w) {
    case DesignWindow::Rectangular:
        widthTimesSize = 0.9;
        break;
    case DesignWindow::Hann:
        widthTimesSize = 3.1;
        break;
    case DesignWindow::Hamming:
        widthTimesSize = 3.3;
        break;
    case DesignWindow::Blackman:
        widthTimesSize = 5.5;
        break;
    case DesignWindow::Kaiser:
        widthTimesSize = (kaiserAttenuation(beta) - 7.95) / 14.36;
        break;
    }
    return widthTimesSize / size;
}

DesignFit measureDesign(const FilterDesign& d, const Image& linearResponse)
{
    const Image& r = linearResponse;
    if (r.channels != 1 || r.width != r.height || r.width < 2)
        throw Error("a design is measured on a square one-channel frequency response");
    DesignFit fit;
    fit.transition = transitionWidth(d.window, d.beta, d.size);
    const int n = r.width;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const double fx = double(i - n / 2) / n, fy = double(j - n / 2) / n;
            if (nearEdge(d, fx, fy, fit.transition / 2)) continue;
            const double h = r.at(0, j, i);
            if (idealGain(d, fx, fy) > 0.5) {
                fit.passDeviation = std::max(fit.passDeviation, std::fabs(h - 1.0));
                ++fit.passSamples;
            } else {
                fit.stopGain = std::max(fit.stopGain, std::fabs(h));
                ++fit.stopSamples;
            }
        }
    return fit;
}

} // namespace convlab
