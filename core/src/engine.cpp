// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's prologue (validate, resolve semantics and scale, choose the method) and its
// epilogue (alpha pass-through, report). The methods themselves live in their own files.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <type_traits>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/gpu.h"
#include "methods.h"
#include "planner.h"
#include "threadpool.h"

namespace convlab {
namespace detail {

void StageClock::mark(const char* name, bool once)
{
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - t0_).count();
    t0_ = now;
    if (!sink_) return;
    for (StageTiming& s : *sink_)
        if (s.name == name) {
            s.ms += ms;
            return;
        }
    sink_->push_back({name, ms, once});
}

namespace {

struct Choice {
    Method method;
    std::string reason;
};

// Picks the cheapest method by the measured cost model and says why, with the numbers.
Choice chooseMethod(const Kernel& k, const SeparableFactors& f, const std::vector<MethodEstimate>& est)
{
    if (k.width * k.height == 1) return {Method::Direct, "1x1 kernel: a single multiply per pixel"};
    const auto best = std::min_element(est.begin(), est.end(),
                                       [](const MethodEstimate& a, const MethodEstimate& b) { return a.ms < b.ms; });
    std::ostringstream why;
    why.precision(3);
    why << methodName(best->method);
    if (best->method == Method::Separable) why << " (rank " << f.rank << ")";
    why << " estimated " << best->ms << " ms, the cheapest of";
    for (const MethodEstimate& e : est) {
        why << ' ' << methodName(e.method);
        if (e.method == Method::Separable) why << "/rank " << e.rank;
        why << ' ' << e.ms << " ms" << (&e == &est.back() ? "" : ",");
    }
    why << " (cost model measured on this CPU)";
    return {best->method, why.str()};
}

} // namespace
} // namespace detail

void closeStages(RunReport& r, double totalMs)
{
    if (r.computeMs <= 0.0) // a backend that does not say: its computing stages by name
        for (const StageTiming& s : r.stages)
            if (!s.once && (s.name == "convolve" || s.name == "pad" || s.name == "transform" || s.name == "crop"))
                r.computeMs += s.ms;
    double named = 0.0;
    for (const StageTiming& s : r.stages)
        if (s.name != "other") named += s.ms;
    r.totalMs = std::max(totalMs, named);
    const double rest = r.totalMs - named;
    for (StageTiming& s : r.stages)
        if (s.name == "other") {
            s.ms = rest;
            return;
        }
    if (rest > 0.01) r.stages.push_back({"other", rest, false}); // below 10 us it is only noise
}

double perRunMs(const RunReport& r)
{
    double ms = 0.0;
    for (const StageTiming& s : r.stages)
        if (!s.once) ms += s.ms;
    return ms;
}

double detail::effectiveScale(const ConvolveParams& p, std::vector<std::string>& notices)
{
    if (!p.normalize) return p.scale;
    const double s = p.kernel.sum();
    if (std::fabs(s) > 1e-12 * std::max(1.0, p.kernel.absSum())) return p.scale / s;
    notices.push_back("zero-sum kernel left unnormalized");
    return p.scale;
}

Kernel correlationKernel(const Kernel& k, Semantics s)
{
    Kernel out = k;
    out.anchorX = k.ax();
    out.anchorY = k.ay();
    if (s == Semantics::Correlation) return out;
    // out(y,x) = sum K(v,u) in(y + ay - v, x + ax - u): with v' = h-1-v this is a correlation
    // with the flipped kernel and the anchor mirrored.
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u)
            out.values[static_cast<std::size_t>(v) * k.width + u] = k.at(k.height - 1 - v, k.width - 1 - u);
    out.anchorX = k.width - 1 - k.ax();
    out.anchorY = k.height - 1 - k.ay();
    return out;
}

SvdInfo analyzeRank(const Kernel& k)
{
    k.validate();
    const detail::SeparableFactors f = detail::separableFactors(k);
    return {f.singularValues, f.rank};
}

Image convolve(const Image& in, const ConvolveParams& p, RunReport* report)
{
    Image out;
    convolveInto(in, p, out, report);
    return out;
}

namespace {

// Compares the run's own time with the planner's estimate for the method that ran and lets
// the planner correct itself when they differ by more than 2x (auto then agrees with what is
// measured). Runs the planner has no model for yet are left alone: no calibration is started
// for an explicitly chosen method.
void learnFromRun(const detail::Job& job, Method method, int rank, RunReport& rep)
{
    if (method == Method::Reference || method == Method::Auto) return;
    const CostModel* model = detail::cpuCostModelIfLoaded();
    if (!model) return;
    auto estimates = detail::correctedEstimates(detail::estimateCpu(
        *model, job.width, job.height, job.channels, job.kernel, method == Method::Separable ? rank : -1, job.threads));
    for (const MethodEstimate& e : estimates)
        if (e.method == method) {
            if (auto note = detail::recordMeasurement(method, e.ms, rep.computeMs)) rep.notices.push_back(*note);
            return;
        }
}

// The engine for either kind of source: float planes (Image) or 8/16-bit samples (PackedImage);
// both carry width, height, channels, depth and hasAlpha under the same names.
template <class Source> void runEngine(const Source& in, const ConvolveParams& p, Image& out, RunReport* report)
{
    using namespace detail;
    constexpr bool kPacked = std::is_same_v<Source, PackedImage>;
    const auto t0 = std::chrono::steady_clock::now();
    if constexpr (kPacked) {
        in.validate();
    } else {
        if (&in == &out) throw Error("the output image must not be the input image");
        if (in.empty() || in.channels < 1 || in.channels > 4 ||
            in.data.size() != in.planeSize() * static_cast<std::size_t>(in.channels))
            throw Error("input image is empty or malformed");
    }
    p.kernel.validate();
    if (!std::isfinite(p.scale) || !std::isfinite(p.offset) || !std::isfinite(p.border.value))
        throw Error("scale, offset and border constant must be finite numbers");

    RunReport local;
    RunReport& rep = report ? *report : local;
    rep = RunReport{};
    StageClock clock(&rep.stages);

    if (p.device != Device::Cpu) {
        std::string why;
        if (auto gpu = GpuSession::create(&why)) {
            try {
                gpu->setImage(in); // 8/16-bit samples travel as they are; the device converts them
                clock.mark("upload");
                out = gpu->run(p, &rep);
                closeStages(rep, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
                return;
            } catch (const Error& e) {
                if (p.device == Device::Cuda) throw;
                rep = RunReport{};
                rep.notices.push_back(std::string("the GPU run failed (") + e.what() + "): ran on the CPU instead");
                clock.restart();
            }
        } else if (p.device == Device::Cuda) {
            throw Error("CUDA unavailable: " + why);
        } else {
            rep.notices.push_back("running on the CPU: CUDA unavailable (" + why + ")");
        }
    }
    rep.device = Device::Cpu;

    Job job;
    if constexpr (kPacked)
        job.packed = &in;
    else
        job.in = &in;
    job.width = in.width;
    job.height = in.height;
    job.channels = (in.hasAlpha && !p.filterAlpha && in.channels > 1) ? in.channels - 1 : in.channels;
    job.kernel = correlationKernel(p.kernel, p.semantics);
    job.border = p.border;
    job.scale = effectiveScale(p, rep.notices);
    job.offset = p.offset;
    job.threads = resolveThreads(p.threads);
    job.cancel = p.cancel;
    rep.effectiveScale = job.scale;
    rep.threads = job.threads;

    // The SVD is cheap next to any image; it drives both auto and the separable method.
    SeparableFactors factors;
    const bool needFactors = p.method == Method::Auto || p.method == Method::Separable;
    if (needFactors) {
        factors = separableFactors(job.kernel);
        rep.rank = factors.rank;
        rep.singularValues = factors.singularValues;
        clock.mark("analyze");
    }
    Method method = p.method;
    if (method == Method::Auto) {
        bool calibrated = false;
        const CostModel& model = cpuCostModel(&calibrated);
        if (calibrated) clock.mark("calibrate planner (once per machine)", true);
        rep.estimates = correctedEstimates(
            estimateCpu(model, in.width, in.height, job.channels, job.kernel, factors.rank, job.threads));
        const Choice c = chooseMethod(job.kernel, factors, rep.estimates);
        method = c.method;
        rep.reason = c.reason;
        clock.mark("plan");
    } else {
        rep.reason = "requested";
    }
    rep.method = method;

    if (out.width != in.width || out.height != in.height || out.channels != in.channels) {
        out = Image(in.width, in.height, in.channels); // else reused as is
        clock.mark("allocate output");
    }
    out.depth = in.depth;
    out.hasAlpha = in.hasAlpha;
    const std::size_t firstMethodStage = rep.stages.size();
    clock.restart();
    // Direct and separable convert samples while padding rows; the FFT and the reference read
    // whole float planes, so they get them converted first.
    Image unpacked;
    if (job.packed && (method == Method::Reference || method == Method::Fft)) {
        unpacked = unpackImage(*job.packed);
        job.in = &unpacked;
        job.packed = nullptr;
        clock.mark("unpack");
    }
    switch (method) {
    case Method::Reference: runReference(job, out); clock.mark("convolve"); break;
    case Method::Direct: runDirect(job, out, clock); break;
    case Method::Separable: runSeparable(job, factors, out, clock); break;
    case Method::Fft: runFft(job, out, clock); break;
    case Method::Auto: break;
    }
    for (std::size_t i = firstMethodStage; i < rep.stages.size(); ++i)
        if (!rep.stages[i].once) rep.computeMs += rep.stages[i].ms;
    for (int c = job.channels; c < in.channels; ++c) {
        if (job.in)
            std::copy(job.in->plane(c), job.in->plane(c) + job.in->planeSize(), out.plane(c));
        else
            unpackPlane(*job.packed, c, out.plane(c));
    }
    if (job.channels < in.channels) clock.mark("copy alpha");
    learnFromRun(job, method, factors.rank, rep);
    closeStages(rep, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

} // namespace

void convolveInto(const Image& in, const ConvolveParams& p, Image& out, RunReport* report)
{
    runEngine(in, p, out, report);
}

Image convolve(const PackedImage& in, const ConvolveParams& p, RunReport* report)
{
    Image out;
    convolveInto(in, p, out, report);
    return out;
}

void convolveInto(const PackedImage& in, const ConvolveParams& p, Image& out, RunReport* report)
{
    runEngine(in, p, out, report);
}

} // namespace convlab
