// SPDX-License-Identifier: GPL-3.0-or-later
// convolve64 (convlab/convolve64.h): the arguments checked, the kernel put in correlation form
// and factored when it is rank 1, the method chosen and run, the report filled.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "convlab/error.h"
#include "engine/threadpool.h"
#include "float64/passes64.h"

namespace convlab {

namespace {

using detail::Run64;

std::string sizeText(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

void checkArguments(const Samples64& in, const Convolve64Params& p, const Output64& out)
{
    if (!in.data || !out.data) throw Error("float64 run without an input or output array");
    if (in.channels < 1) throw Error("float64 input has " + std::to_string(in.channels) + " channels");
    checkImageSize(in.width, in.height, 1);
    if (in.values() > kMaxImageValues) // the float32 engine's limit on values, for the same reason
        throw Error("float64 input of " + std::to_string(in.values()) + " values is over the limit of " +
                    std::to_string(kMaxImageValues));
    if (out.width != in.width || out.height != in.height || out.channels != in.channels)
        throw Error("float64 output's shape differs from the input's");
    const auto* inBegin = reinterpret_cast<const std::uint8_t*>(in.data);
    const auto* outBegin = reinterpret_cast<const std::uint8_t*>(out.data);
    const std::size_t bytes = in.values() * sizeof(double);
    if (inBegin < outBegin + bytes && outBegin < inBegin + bytes)
        throw Error("float64 output shares memory with the input");
    if (p.kernelWidth < 1 || p.kernelHeight < 1 || p.kernelWidth > kMaxKernelSide || p.kernelHeight > kMaxKernelSide)
        throw Error("weights of " + sizeText(p.kernelWidth, p.kernelHeight) + " are outside 1.." +
                    std::to_string(kMaxKernelSide) + " per side");
    if (p.weights.size() != static_cast<std::size_t>(p.kernelWidth) * p.kernelHeight)
        throw Error("weights hold " + std::to_string(p.weights.size()) + " values for a " +
                    sizeText(p.kernelWidth, p.kernelHeight) + " kernel");
    if (!std::all_of(p.weights.begin(), p.weights.end(), [](double v) { return std::isfinite(v); }))
        throw Error("weights hold a value that is not finite");
    if (p.anchorX >= p.kernelWidth || p.anchorY >= p.kernelHeight)
        throw Error("anchor (" + std::to_string(p.anchorX) + ", " + std::to_string(p.anchorY) + ") lies outside the " +
                    sizeText(p.kernelWidth, p.kernelHeight) + " kernel");
    if (p.border == BorderMode::Constant && !std::isfinite(p.cval))
        throw Error("cval " + std::to_string(p.cval) + " is not finite");
}

// The kernel in correlation form and its anchor (as correlationKernel does for float kernels).
struct CorrelationForm {
    std::vector<double> k;
    int ax = 0;
    int ay = 0;
};

CorrelationForm correlationForm(const Convolve64Params& p)
{
    const int kw = p.kernelWidth, kh = p.kernelHeight;
    CorrelationForm f{p.weights, p.anchorX >= 0 ? p.anchorX : kw / 2, p.anchorY >= 0 ? p.anchorY : kh / 2};
    if (p.semantics == Semantics::Correlation) return f;
    std::reverse(f.k.begin(), f.k.end()); // k'(v, u) = k(kh-1-v, kw-1-u)
    f.ax = kw - 1 - f.ax;
    f.ay = kh - 1 - f.ay;
    return f;
}

// k = column * row^T when the kernel is rank 1 to within the rounding of an outer product
// (each value within 1e-14 of the largest magnitude): the factors from its largest value's row
// and column. Empty factors otherwise.
struct Factors {
    std::vector<double> column;
    std::vector<double> row;
    bool found() const { return !column.empty(); }
};

Factors rankOneFactors(const std::vector<double>& k, int kw, int kh)
{
    const auto largest = std::max_element(k.begin(), k.end(), [](double a, double b) { return std::abs(a) < std::abs(b); });
    const double peak = std::abs(*largest);
    if (peak == 0.0) return {};
    const int at = static_cast<int>(largest - k.begin()), i = at / kw, j = at % kw;
    Factors f{std::vector<double>(kh), std::vector<double>(kw)};
    for (int v = 0; v < kh; ++v) f.column[v] = k[static_cast<std::size_t>(v) * kw + j];
    for (int u = 0; u < kw; ++u) f.row[u] = k[static_cast<std::size_t>(i) * kw + u] / *largest;
    for (int v = 0; v < kh; ++v)
        for (int u = 0; u < kw; ++u)
            if (std::abs(k[static_cast<std::size_t>(v) * kw + u] - f.column[v] * f.row[u]) > 1e-14 * peak) return {};
    return f;
}

// Separable pays where it saves taps: kw + kh of them against kw * kh, the row pass's own pass
// over the data counted as a few taps (a 3x3 kernel runs faster direct).
bool separablePays(int kw, int kh) { return kw > 1 && kh > 1 && kw * kh >= 16; }

struct Choice {
    Method method;
    std::string reason;
};

Choice chooseMethod(Method asked, int kw, int kh, bool rankOne)
{
    if (asked == Method::Reference) return {Method::Reference, "requested"};
    if (asked == Method::Direct) return {Method::Direct, "requested"};
    if (asked == Method::Separable)
        return rankOne ? Choice{Method::Separable, "requested"}
                       : Choice{Method::Direct, "separable asked for a kernel that is not rank 1: direct"};
    const std::string why = asked == Method::Fft ? "no float64 FFT yet: " : "";
    if (rankOne && separablePays(kw, kh))
        return {Method::Separable, why + "rank-1 kernel: " + std::to_string(kw + kh) + " taps an output, not " +
                                       std::to_string(kw * kh)};
    return {Method::Direct, why + (rankOne ? "rank-1 kernel too small to pay for a second pass" : "kernel of rank above 1")};
}

Choice choiceFor(const Convolve64Params& p, const CorrelationForm& f, Factors* factors)
{
    Factors found;
    if (p.method != Method::Direct && p.method != Method::Reference && p.kernelWidth > 1 && p.kernelHeight > 1)
        found = rankOneFactors(f.k, p.kernelWidth, p.kernelHeight);
    const Choice c = chooseMethod(p.method, p.kernelWidth, p.kernelHeight, found.found());
    if (factors) *factors = std::move(found);
    return c;
}

} // namespace

Method method64For(const Convolve64Params& p)
{
    return choiceFor(p, correlationForm(p), nullptr).method;
}

void convolve64(const Samples64& in, const Convolve64Params& p, const Output64& out, RunReport* report)
{
    const auto start = std::chrono::steady_clock::now();
    checkArguments(in, p, out);
    const CorrelationForm f = correlationForm(p);
    Factors factors;
    const Choice choice = choiceFor(p, f, &factors);
    const Run64 run{in, out, f.k.data(), p.kernelWidth, p.kernelHeight, f.ax, f.ay, p.border, p.cval, p.threads, p.cancel};
    const auto computeStart = std::chrono::steady_clock::now();
    if (choice.method == Method::Reference)
        detail::runReference64(run);
    else if (choice.method == Method::Separable)
        detail::runSeparable64(run, factors.column.data(), factors.row.data());
    else
        detail::runDirect64(run);
    if (!report) return;
    const auto end = std::chrono::steady_clock::now();
    const double computeMs = std::chrono::duration<double, std::milli>(end - computeStart).count();
    *report = RunReport{};
    report->method = choice.method;
    report->device = Device::Cpu;
    report->reason = choice.reason;
    report->rank = factors.found() ? 1 : -1;
    report->threads = std::min(detail::resolveThreads(p.threads), in.height);
    report->stages.push_back({"convolve", computeMs, false});
    report->computeMs = computeMs;
    closeStages(*report, std::chrono::duration<double, std::milli>(end - start).count());
}

} // namespace convlab
