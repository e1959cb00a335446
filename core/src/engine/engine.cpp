// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's prologue (validate, resolve semantics and scale, choose the method) and its
// epilogue (alpha pass-through, report). The methods themselves live in their own files.
#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <cmath>
#include <sstream>
#include <type_traits>

#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/error.h"
#include "convlab/executor.h"
#include "convlab/gpu.h"
#include "engine/interleave.h"
#include "methods/methods.h"
#include "engine/plan.h"
#include "engine/planner.h"
#include "simd/rowkernels.h"
#include "engine/threadpool.h"

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

using detail::copyPlanes;
using detail::Job;
using detail::MethodEngine;
using detail::planarCopy;
using detail::rowsOf;
using detail::StageClock;

// The planner's corrected estimate of `job` by `method` on `threads` threads, when it prices
// the method and has a model loaded (none is calibrated for an explicitly chosen method).
std::optional<double> loadedEstimateMs(const detail::Job& job, Method method, int rank, int threads)
{
    if (!detail::engineOf(method).costTerms) return std::nullopt; // a method the planner does not price
    const CostModel* model = detail::cpuCostModelIfLoaded();
    if (!model) return std::nullopt;
    const int factorRank = detail::engineOf(method).needsFactors ? rank : -1;
    const auto estimates =
        detail::correctedEstimates(detail::estimateCpu(*model, job.width, job.height, job.channels, job.kernel,
                                                       factorRank, threads),
                                   correctionClassOf(job.kernel, threads, rank));
    for (const MethodEstimate& e : estimates)
        if (e.method == method) return e.ms;
    return std::nullopt;
}

// Compares the run's own time with the planner's estimate for the method that ran and lets
// the planner correct itself when they differ by more than 2x (auto then agrees with what is
// measured). Runs the planner has no model for yet are left alone.
void learnFromRun(const detail::Job& job, Method method, int rank, RunReport& rep)
{
    const auto estimate = loadedEstimateMs(job, method, rank, job.threads);
    if (!estimate) return;
    const CorrectionClass runClass = correctionClassOf(job.kernel, job.threads, rank);
    if (auto note = detail::recordMeasurement(method, runClass, *estimate, rep.computeMs)) rep.notices.push_back(*note);
}

// Every thread a run wakes costs its wake-up, 20-50 us on the 2-core machines measured: a 64x64
// image with a 3x3 kernel took 17 us on one thread and 60 on two, where 256x256 with 9x9 took
// 170 on one and 128 on two. A run takes one thread per kUsPerThread of its estimated one-thread
// time, up to the threads asked for, so small images are not slower for the threads offered.
// Without a loaded cost model (an explicit method before any calibration) it takes them all.
// The results do not depend on the threads (docs/architecture.md).
constexpr int kUsPerThread = 50;

int threadsWorthWaking(const detail::Job& job, Method method, int rank, int threads)
{
    if (threads <= 1 || detail::threadsAsAskedForTests()) return threads;
    const auto oneThread = loadedEstimateMs(job, method, rank, 1);
    return oneThread ? std::clamp(static_cast<int>(*oneThread * 1000.0 / kUsPerThread), 1, threads) : threads;
}

// Writes one value into every 4 KiB page of a freshly allocated output, on the run's threads.
// The kernel supplies fresh memory at a page's first write, zeroing it; that is paid here, in
// the stage "allocate output", instead of inside the method, whose time the planner compares
// with its estimate of a run over memory already in use (a first run would otherwise teach it
// that direct costs ten times what it does).
void touchEveryPage(Image& out, int threads)
{
    constexpr std::size_t kValuesPerPage = 4096 / sizeof(float);
    float* values = out.data.data();
    const std::size_t pages = (out.data.size() + kValuesPerPage - 1) / kValuesPerPage;
    detail::parallelFor(static_cast<int>(pages), threads, [&](int begin, int end) {
        for (int i = begin; i < end; ++i) values[static_cast<std::size_t>(i) * kValuesPerPage] = 0.0f;
    });
}

// The engine for either kind of source: float planes (ImagePlanes) or 8/16-bit samples
// (PackedImage); both carry width, height, channels, depth and hasAlpha under the same names.
// Output is an Image (allocated here unless it has the input's shape) or the caller's
// OutputPlanes (which must have it).
template <class Output> void checkOutput(const ImagePlanes& in, const Output& out)
{
    // The methods read source rows while they write output rows, and a reshaped output frees
    // its old storage: the two must not share memory.
    bool shared = false;
    if constexpr (std::is_same_v<Output, Image>)
        shared = in.overlaps(out.data.data(), out.data.data() + out.data.size());
    else
        shared = out.overlaps(in);
    if (shared) throw Error("the output image must not share memory with the input image");
}

// The same for 8/16-bit samples, which may be borrowed from the caller (PackedImage::borrowed).
template <class Output> void checkOutput(const PackedImage& in, const Output& out)
{
    const std::span<const std::uint8_t> samples = in.samples();
    bool shared = false;
    if constexpr (std::is_same_v<Output, Image>) {
        const auto a = reinterpret_cast<std::uintptr_t>(samples.data()), b = a + samples.size();
        const auto p = reinterpret_cast<std::uintptr_t>(out.data.data());
        shared = !out.data.empty() && p < b && a < p + sizeof(float) * out.data.size();
    } else {
        shared = out.overlaps(samples);
    }
    if (shared) throw Error("the output image must not share memory with the input image");
}

void checkOutputShape(int width, int height, int channels, const OutputPlanes& out)
{
    if (out.width != width || out.height != height || out.channels != channels)
        throw Error("the output planes are " + std::to_string(out.width) + "x" + std::to_string(out.height) + "x" +
                    std::to_string(out.channels) + ", the input " + std::to_string(width) + "x" +
                    std::to_string(height) + "x" + std::to_string(channels));
    for (int c = 0; c < channels; ++c)
        if (!out.plane(c)) throw Error("the output planes are malformed");
}

// Whether copies into `out` go past the caches: all of it is larger than the last-level cache.
bool streamsInto(const OutputPlanes& out)
{
    return detail::outputsBypassCaches(sizeof(float) * out.planeSize() * out.channels);
}

// The output for a GPU run: the caller's planes, or the Image (made when its shape differs;
// every sample is downloaded into it).
template <class Source> OutputPlanes gpuOutput(const Source&, const OutputPlanes& out, StageClock&) { return out; }
template <class Source> OutputPlanes gpuOutput(const Source& in, Image& out, StageClock& clock)
{
    if (out.width != in.width || out.height != in.height || out.channels != in.channels) {
        out = Image::uninitialized(in.width, in.height, in.channels);
        clock.mark("allocate output");
    }
    out.depth = in.depth;
    out.hasAlpha = in.hasAlpha;
    return out;
}

// Rows per band when a method writes interleaved pixels (runInBands): about 4 MiB of planar
// results, which the interleaving then reads from the caches, and enough rows that every
// thread's share of a band is several of the kernel's heights (the separable method filters
// the kernel's height of rows more per share).
int bandRows(const Job& job)
{
    constexpr std::size_t kBandBytes = std::size_t(4) << 20;
    const std::size_t rowBytes = sizeof(float) * static_cast<std::size_t>(job.width) * job.channels;
    const int byBytes = static_cast<int>((kBandBytes + rowBytes - 1) / rowBytes);
    return std::clamp(std::max(byBytes, 8 * job.threads * job.kernel.height), 1, job.height);
}

// The method into interleaved pixels: band by band of output rows into planar rows, each band
// interleaved into `out` as soon as it is done.
void runInBands(const MethodEngine& engine, Job job, const OutputPlanes& out, StageClock& clock)
{
    const int rows = bandRows(job);
    Image band = Image::uninitialized(job.width, rows, job.channels);
    for (int y0 = 0; y0 < job.height; y0 += rows) {
        const int y1 = std::min(job.height, y0 + rows);
        job.rowBegin = y0;
        job.rowEnd = y1;
        OutputPlanes bandOut = band;
        bandOut.firstRow = y0;
        engine.run(job, bandOut, clock);
        ImagePlanes done = band;
        done.height = y1 - y0;
        copyPlanes(done, rowsOf(out, y0, y1), 0, job.channels, job.threads, streamsInto(out));
        clock.mark("interleave output");
    }
}

// The method into the output, whatever its pixel step: the methods write planes of their own.
void runMethod(const MethodEngine& engine, const Job& job, Image& out, StageClock& clock)
{
    engine.run(job, out, clock);
}
// Whether the job's source (float planes or 8/16-bit samples) and `out` are both whole
// interleaved pixels of the job's channels, each channel at its sample of the pixel
// (Job::wholePixels).
bool wholePixels(const Job& job, const OutputPlanes& out)
{
    if (out.pixelStep != job.channels) return false;
    for (int c = 1; c < job.channels; ++c)
        if (out.plane(c) != out.plane(0) + c) return false;
    if (const PackedImage* packed = job.packed) {
        for (int c = 0; c < job.channels; ++c)
            if (packed->order[c] != c) return false;
        return packed->channels == job.channels;
    }
    const ImagePlanes* in = job.in;
    if (!in || in->channels != job.channels || in->pixelStep != job.channels) return false;
    for (int c = 1; c < job.channels; ++c)
        if (in->plane(c) != in->plane(0) + c) return false;
    return true;
}

void runMethod(const MethodEngine& engine, const Job& job, const OutputPlanes& out, StageClock& clock)
{
    if (!out.interleaved()) return engine.run(job, out, clock);
    if (engine.runsWholePixels && wholePixels(job, out)) {
        Job pixels = job;
        pixels.wholePixels = true;
        return engine.run(pixels, out, clock);
    }
    if (engine.runsBands) return runInBands(engine, job, out, clock);
    Image planar = Image::uninitialized(job.width, job.height, job.channels);
    engine.run(job, planar, clock);
    copyPlanes(planar, out, 0, job.channels, job.threads, streamsInto(out));
    clock.mark("interleave output");
}

// Planes [from, to) of the source (the channels the method leaves, alpha) into the output as
// they are.
void copyUnfiltered(const Job& job, int from, int to, const OutputPlanes& out)
{
    if (job.in) return copyPlanes(*job.in, out, from, to, job.threads, false);
    std::vector<float> row(out.interleaved() ? static_cast<std::size_t>(job.width) : 0);
    for (int c = from; c < to; ++c) {
        if (!out.interleaved()) {
            unpackPlane(*job.packed, c, out.plane(c));
            continue;
        }
        for (int y = 0; y < job.height; ++y) {
            unpackRow(*job.packed, c, y, row.data());
            float* o = out.row(c, y);
            for (int x = 0; x < job.width; ++x) o[static_cast<std::size_t>(x) * out.pixelStep] = row[x];
        }
    }
}

template <class Source, class Output> void runEngine(const Source& in, const ConvolveParams& p, Output& out, RunReport* report)
{
    using namespace detail;
    constexpr bool kPacked = std::is_same_v<Source, PackedImage>;
    constexpr bool kPlanes = std::is_same_v<std::remove_const_t<Output>, OutputPlanes>;
    const auto t0 = std::chrono::steady_clock::now();
    in.validate();
    if constexpr (kPlanes) checkOutputShape(in.width, in.height, in.channels, out);
    checkOutput(in, out);
    validateParams(p); // before any backend: a bad parameter is the caller's error, not a GPU failure
    RunReport local;
    RunReport& rep = report ? *report : local;
    rep = RunReport{};
    StageClock clock(&rep.stages);

    if (p.device != Device::Cpu) {
        Executor& executor = Executor::shared();
        std::lock_guard lock(executor.runMutex()); // one session, one caller at a time
        const Executor::Attempt gpu = executor.tryGpu(p, footprintOf(in), &rep.stages, [&](GpuSession& session) {
            clock.restart();
            session.setImage(in);
            clock.mark("upload image");
            session.runInto(p, gpuOutput(in, out, clock), &rep);
        });
        if (gpu.ran) {
            rep.deviceReason = gpu.reason;
            closeStages(rep, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            return;
        }
        if (gpu.deviceFailed) {
            if constexpr (kPacked) {
                rerunOnCpuAfterGpuFailure(unpackImage(in), p, out, rep, gpu.failure);
            } else {
                rerunOnCpuAfterGpuFailure(in, p, out, rep, gpu.failure);
            }
            rep.deviceReason = gpu.reason;
            return;
        }
        if (!gpu.notice.empty()) {
            rep = RunReport{};
            rep.notices.push_back(gpu.notice);
        }
        rep.deviceReason = gpu.reason;
        clock.restart();
    }
    rep.device = Device::Cpu;

    const int threads = resolveThreads(p.threads);
    MethodCosts cpuCosts;
    cpuCosts.measuredOn = "this CPU";
    cpuCosts.estimate = [&](const Kernel& k, int rank, int channels) {
        bool calibrated = false;
        const CostModel& model = cpuCostModel(&calibrated);
        if (calibrated) clock.mark("calibrate planner (once per machine)", true);
        return correctedEstimates(estimateCpu(model, in.width, in.height, channels, k, rank, threads),
                                  correctionClassOf(k, threads, rank));
    };
    Plan plan = makePlan(p, {in.width, in.height, in.channels, in.hasAlpha}, cpuCosts, rep, &clock);
    const Method method = plan.method;

    Job job;
    if constexpr (kPacked)
        job.packed = &in;
    else
        job.in = &in;
    job.width = in.width;
    job.height = in.height;
    job.channels = plan.channels;
    job.kernel = std::move(plan.kernel);
    job.border = plan.border;
    job.scale = plan.scale;
    job.offset = plan.offset;
    job.cancel = p.cancel;
    job.factors = &plan.factors;
    job.threads = threadsWorthWaking(job, method, plan.factors.rank, threads);
    rep.threads = job.threads;
    if (p.threads > 1 && job.threads < threads)
        rep.notices.push_back("ran on " + std::to_string(job.threads) + " of the " + std::to_string(threads) +
                              " threads asked for: a run takes one thread per " + std::to_string(kUsPerThread) +
                              " us of its estimated one-thread time, since waking more would cost more than they save");
    const MethodEngine& engine = engineOf(method);

    // The caller's planes may be memory never written yet (a fresh NumPy array), whose page
    // faults the method would pay: runs into them are not learnt from, as a fresh output's.
    bool freshOutput = kPlanes;
    if constexpr (!kPlanes) {
        freshOutput = out.width != in.width || out.height != in.height || out.channels != in.channels;
        if (freshOutput) {
            out = Image::uninitialized(in.width, in.height, in.channels); // every sample is written below; else reused
            touchEveryPage(out, job.threads);
            clock.mark("allocate output");
        }
        out.depth = in.depth;
        out.hasAlpha = in.hasAlpha;
    }
    const std::size_t firstMethodStage = rep.stages.size();
    clock.restart();
    // Methods that convert samples while padding rows read them packed; the others get whole
    // float planes, converted first.
    Image unpacked;
    ImagePlanes unpackedPlanes;
    if (job.packed && !engine.readsPacked) {
        unpacked = unpackImage(*job.packed);
        unpackedPlanes = unpacked;
        job.in = &unpackedPlanes;
        job.packed = nullptr;
        clock.mark("unpack");
    }
    // Interleaved pixels: the methods that run bands read them where they are; the others get
    // planes of their own.
    Image planar;
    ImagePlanes planarPlanes;
    if (job.in && job.in->interleaved() && !engine.runsBands) {
        planar = planarCopy(*job.in, job.threads);
        planarPlanes = planar;
        job.in = &planarPlanes;
        clock.mark("gather channels");
    }
    runMethod(engine, job, out, clock);
    for (std::size_t i = firstMethodStage; i < rep.stages.size(); ++i)
        if (!rep.stages[i].once) rep.computeMs += rep.stages[i].ms;
    copyUnfiltered(job, job.channels, in.channels, out);
    if (job.channels < in.channels) clock.mark("copy alpha");
    // The first run into a new output is not learnt from: it is the first over that memory, and
    // whoever just made the image (decoding it, drawing it) is often still busy beside it. The
    // workbench's first run of a 4000x3000 photo under software OpenGL took 28.9 ms against an
    // estimate of 9.5 and scaled every later direct estimate of its class by 3. Nor is a run
    // over interleaved pixels: its gathers are not in the estimates, which price planes.
    bool interleavedSource = false;
    if constexpr (!kPacked) interleavedSource = in.interleaved();
    if (!freshOutput && !interleavedSource) learnFromRun(job, method, plan.factors.rank, rep);
    closeStages(rep, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

} // namespace

void convolveInto(const Image& in, const ConvolveParams& p, Image& out, RunReport* report)
{
    if (&in == &out) throw Error("the output image must not be the input image");
    runEngine(ImagePlanes(in), p, out, report);
}

void convolveInto(const ImagePlanes& in, const ConvolveParams& p, Image& out, RunReport* report)
{
    runEngine(in, p, out, report);
}

void convolveInto(const ImagePlanes& in, const ConvolveParams& p, const OutputPlanes& out, RunReport* report)
{
    runEngine(in, p, out, report);
}

namespace {
template <class Output>
void rerunOnCpu(const ImagePlanes& in, ConvolveParams params, Output& out, RunReport& report, const std::string& why)
{
    params.device = Device::Cpu;
    report = RunReport{};
    runEngine(in, params, out, &report);
    report.notices.push_back("the GPU run failed (" + why + "): ran on the CPU instead");
}
} // namespace

void rerunOnCpuAfterGpuFailure(const ImagePlanes& in, ConvolveParams params, Image& out, RunReport& report,
                               const std::string& why)
{
    rerunOnCpu(in, std::move(params), out, report, why);
}

void rerunOnCpuAfterGpuFailure(const ImagePlanes& in, ConvolveParams params, const OutputPlanes& out,
                               RunReport& report, const std::string& why)
{
    rerunOnCpu(in, std::move(params), out, report, why);
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

void convolveInto(const PackedImage& in, const ConvolveParams& p, const OutputPlanes& out, RunReport* report)
{
    runEngine(in, p, out, report);
}

} // namespace convlab
