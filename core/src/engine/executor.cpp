// SPDX-License-Identifier: GPL-3.0-or-later
// Where a run goes and what happens when the GPU cannot take it (convlab/executor.h).
#include "convlab/executor.h"

#include <utility>

#include "convlab/error.h"
#include "methods/methods.h"
#include "engine/plan.h"
#include "engine/planner.h"
#include "engine/threadpool.h"

namespace convlab {
namespace {

// The CPU planner's estimate of the run as planned (auto's choice of method, or the method
// asked for). Below 0 when the planner does not price that method.
// Every priced method's estimate for the run of `p`, and the method its plan takes.
std::vector<MethodEstimate> cpuEstimates(const ConvolveParams& p, const detail::ImageShape& shape,
                                         detail::StageClock& clock, Method& planned)
{
    const int threads = detail::resolveThreads(p.threads);
    detail::MethodCosts cpuCosts;
    cpuCosts.measuredOn = "this CPU";
    cpuCosts.estimate = [&](const Kernel& k, int rank, int channels) {
        bool calibrated = false;
        const CostModel& model = detail::cpuCostModel(&calibrated);
        if (calibrated) clock.mark("calibrate planner (once per machine)", true);
        return detail::correctedEstimates(detail::estimateCpu(model, shape.width, shape.height, channels, k, rank, threads),
                                          correctionClassOf(k, threads, rank));
    };
    RunReport scratch;
    const detail::Plan plan = detail::makePlan(p, shape, cpuCosts, scratch, nullptr);
    std::vector<MethodEstimate> estimates = std::move(scratch.estimates);
    if (estimates.empty()) estimates = cpuCosts.estimate(plan.kernel, plan.factors.rank > 0 ? plan.factors.rank : 1, plan.channels);
    planned = plan.method;
    return estimates;
}

double cpuEstimateMs(const ConvolveParams& p, const detail::ImageShape& shape, detail::StageClock& clock)
{
    Method planned = Method::Auto;
    for (const MethodEstimate& e : cpuEstimates(p, shape, clock, planned))
        if (e.method == planned) return e.ms;
    return -1.0;
}

detail::ImageShape shapeOf(const RunFootprint& f) { return {f.width, f.height, f.channels, f.hasAlpha}; }

} // namespace

RunFootprint footprintOf(const ImagePlanes& image)
{
    const double bytes = sizeof(float) * static_cast<double>(image.planeSize()) * image.channels;
    return {image.width, image.height, image.channels, image.hasAlpha, bytes, bytes};
}

RunFootprint footprintOf(const PackedImage& image)
{
    const double down = sizeof(float) * static_cast<double>(image.width) * image.height * image.channels;
    return {image.width, image.height, image.channels, image.hasAlpha, static_cast<double>(image.samples().size()), down};
}

double estimateCpuMs(const ConvolveParams& params, int width, int height, int channels, bool hasAlpha)
{
    std::vector<StageTiming> unused;
    detail::StageClock clock(&unused);
    return cpuEstimateMs(params, {width, height, channels, hasAlpha}, clock);
}

std::vector<MethodEstimate> estimateCpuMethods(const ConvolveParams& params, int width, int height, int channels,
                                               bool hasAlpha)
{
    ConvolveParams p = params;
    p.method = Method::Auto; // auto's plan prices every method, with the kernel's rank
    std::vector<StageTiming> unused;
    detail::StageClock clock(&unused);
    Method planned = Method::Auto;
    return cpuEstimates(p, {width, height, channels, hasAlpha}, clock, planned);
}

Executor::Executor(ExplicitCuda explicitCuda, SessionFactory factory)
    : explicitCuda_(explicitCuda), factory_(std::move(factory))
{
}

Executor::~Executor() = default;

Executor& Executor::shared()
{
    static Executor* executor = new Executor(ExplicitCuda::Throws);
    return *executor;
}

void Executor::setSessionFactory(SessionFactory factory)
{
    factory_ = std::move(factory);
    dropSession();
    tried_ = false;
}

GpuSession* Executor::session(std::string* why, bool askAgain)
{
    if (session_) return session_.get();
    if (tried_ && !askAgain) {
        if (why) *why = why_;
        return nullptr;
    }
    std::string reason;
    std::unique_ptr<GpuSession> fresh = factory_ ? factory_(&reason) : GpuSession::create(&reason);
    tried_ = true;
    if (!fresh) {
        why_ = reason.empty() ? "no CUDA session" : reason;
        if (why) *why = why_;
        return nullptr;
    }
    std::lock_guard lock(sessionMutex_);
    session_ = std::move(fresh);
    return session_.get();
}

std::shared_ptr<GpuSession> Executor::sessionHandle() const
{
    std::lock_guard lock(sessionMutex_);
    return session_;
}

void Executor::dropSession()
{
    std::lock_guard lock(sessionMutex_);
    session_.reset();
    held_.reset();
    bus_ = {};
    tried_ = false; // a fresh session is tried next time
}

bool Executor::holds(const std::shared_ptr<const void>& key) const { return key && session_ && held_ == key; }

void Executor::noteHeld(std::shared_ptr<const void> key) { held_ = std::move(key); }

BusCosts Executor::busFigures(std::vector<StageTiming>* stages)
{
    if (bus_.known()) return bus_;
    detail::StageClock clock(stages);
    bus_ = session_->busCosts();
    if (!factory_) saveBusCosts(bus_); // a stand-in's figures are not this machine's
    clock.mark("measure the bus (once per process)", true);
    return bus_;
}

DeviceChoice Executor::place(const ConvolveParams& p, const RunFootprint& f, std::vector<StageTiming>* stages)
{
    if (p.device != Device::Auto) return {p.device, {}};
    detail::StageClock clock(stages);
    const auto unavailable = [&] { return DeviceChoice{Device::Cpu, "CUDA unavailable (" + why_ + ")"}; };
    const auto start = [&] {
        const bool fresh = !session_ && !tried_;
        GpuSession* s = session();
        if (fresh) clock.mark(s ? "start CUDA (once per process)" : "look for CUDA (once per process)", true);
        return s;
    };
    if (tried_ && !session_) return unavailable();
    // The bus figures kept from an earlier process decide first: work the transfers alone
    // would lose stays on the CPU without CUDA being started.
    const BusCosts kept = session_ ? bus_ : (factory_ ? BusCosts{} : cachedBusCosts());
    if (!kept.known() && !start()) return unavailable();
    const double cpuMs = cpuEstimateMs(p, shapeOf(f), clock);
    if (cpuMs < 0) return {Device::Cpu, "the planner prices " + methodName(p.method) + " on the CPU only"};
    if (kept.known()) {
        DeviceChoice early = chooseDevice({cpuMs, -1.0, kept.uploadMs(f.uploadBytes), kept.downloadMs(f.downloadBytes)});
        if (early.device == Device::Cpu) return early;
    }
    GpuSession* s = start();
    if (!s) return unavailable();
    const BusCosts bus = busFigures(stages);
    clock.restart();
    const double gpuMs = s->estimateMs(p, f.width, f.height, f.channels, f.hasAlpha);
    if (gpuMs < 0) return {Device::Cpu, methodName(p.method) + " has no CUDA path"};
    // Nothing to move costs nothing, not even the bus's latency.
    const double up = f.uploadBytes > 0 ? bus.uploadMs(f.uploadBytes) : 0.0;
    const double down = f.downloadBytes > 0 ? bus.downloadMs(f.downloadBytes) : 0.0;
    return chooseDevice({cpuMs, gpuMs, up, down});
}

Executor::Attempt Executor::tryGpu(const ConvolveParams& p, const RunFootprint& f, std::vector<StageTiming>* stages,
                                   const std::function<void(GpuSession&)>& onGpu)
{
    Attempt a;
    if (p.device == Device::Cpu) return a;
    const bool fallsBack = p.device == Device::Auto || explicitCuda_ == ExplicitCuda::FallsBack;
    GpuSession* s = nullptr;
    if (p.device == Device::Auto) {
        const DeviceChoice choice = place(p, f, stages);
        a.reason = choice.reason;
        if (choice.device == Device::Cpu) return a;
        s = session_.get();
    } else {
        std::string why;
        detail::StageClock clock(stages);
        const bool fresh = !session_;
        s = session(&why, true); // the caller asked for CUDA: ask again
        if (fresh && s) clock.mark("start CUDA (once per process)", true);
        if (!s) {
            if (!fallsBack) throw Error("CUDA unavailable: " + why);
            a.deviceFailed = true;
            a.failure = "CUDA unavailable: " + why;
            return a;
        }
    }
    try {
        onGpu(*s);
        a.ran = true;
    } catch (const NoGpuPath& e) {
        if (!fallsBack) throw;
        a.notice = std::string(e.what()) + ": ran on the CPU"; // the session stays usable
    } catch (const Error& e) {
        dropSession(); // whatever failed may have left the device unusable
        if (!fallsBack) throw;
        a.deviceFailed = true;
        a.failure = e.what();
    }
    return a;
}

bool convolveOnDevice(const ConvolveParams& params, const DevicePlanes& planes, RunReport* report)
{
    if (params.device == Device::Cpu)
        throw Error("the array is in GPU memory and device is cpu: copy it to the host first, or pass device "
                    "auto or cuda");
    Executor& executor = Executor::shared();
    std::lock_guard lock(executor.runMutex());
    std::vector<StageTiming> once;
    std::string why;
    detail::StageClock clock(&once);
    const bool fresh = !executor.sessionHandle();
    GpuSession* session = executor.session(&why, true);
    if (!session) throw Error("the array is in GPU memory, but CUDA cannot run here: " + why);
    if (fresh) clock.mark("start CUDA (once per process)", true);
    executor.noteHeld(nullptr); // the session's image is these planes from now on
    RunReport local;
    RunReport& rep = report ? *report : local;
    try {
        const bool nonFinite = session->runOnDevice(params, planes, &rep);
        rep.stages.insert(rep.stages.begin(), once.begin(), once.end());
        return nonFinite;
    } catch (const NoGpuPath& e) {
        throw Error(std::string(e.what()) + ": an array in GPU memory runs only on the GPU (method auto, direct, "
                    "separable or fft)");
    } catch (const Error&) {
        executor.dropSession(); // whatever failed may have left the device unusable
        throw;
    }
}

} // namespace convlab
