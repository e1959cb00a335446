// SPDX-License-Identifier: GPL-3.0-or-later
// Where a run goes and what happens when the GPU cannot take it (convlab/executor.h).
#include "convlab/executor.h"

#include <optional>
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
    return {image.width, image.height, image.channels, image.hasAlpha, bytes, bytes, nullptr};
}

RunFootprint footprintOf(const PackedImage& image)
{
    const double down = sizeof(float) * static_cast<double>(image.width) * image.height * image.channels;
    return {image.width, image.height, image.channels, image.hasAlpha, static_cast<double>(image.samples().size()), down,
            nullptr};
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

// One GPU backend as the executor keeps it.
struct Executor::Backend {
    Device device = Device::Cuda;
    const char* label = "";  // "CUDA", for the stages and the notices
    SessionFactory standIn;  // empty: the row's startSession
    std::shared_ptr<GpuSession> session;
    std::shared_ptr<const void> held; // what the session holds (noteHeld)
    bool tried = false;      // a start was tried since the last drop
    std::string why;         // why the last start failed
    BusCosts bus;            // the session's measured transfers (unknown until device auto asks)
    std::unique_ptr<GpuSession> startFresh(std::string* reason) const
    {
        if (standIn) return standIn(reason);
        return backendInfo(device).startSession(reason);
    }
};

// A GPU backend's verdict for one run of device auto.
struct Executor::Weighed {
    DeviceChoice choice;
    double totalMs = 0.0; // compute and bus, when the choice is this backend
};

BudgetVerdict judgeBudget(const ConvolveParams& p, int width, int height, int channels, bool hasAlpha,
                          double budgetSeconds)
{
    BudgetVerdict v;
    if (p.method == Method::Auto || (p.device != Device::Cpu && p.device != Device::Auto)) return v;
    // The asked method's own plan first: it needs the kernel's rank only for separable, where
    // auto's plan (which prices every method) takes an SVD, 1.7 s for a 1025x1025 kernel.
    v.askedSeconds = estimateCpuMs(p, width, height, channels, hasAlpha) / 1000.0;
    if (!(v.askedSeconds > budgetSeconds)) return v; // below 0 (not priced): not judged
    v.over = true;
    v.fastest = p.method;
    v.fastestSeconds = v.askedSeconds;
    for (const MethodEstimate& e : estimateCpuMethods(p, width, height, channels, hasAlpha))
        if (e.ms >= 0 && e.ms / 1000.0 < v.fastestSeconds) {
            v.fastest = e.method;
            v.fastestSeconds = e.ms / 1000.0;
        }
    return v;
}

Executor::Executor(ExplicitCuda explicitCuda, SessionFactory cudaStandIn) : explicitCuda_(explicitCuda)
{
    backends_.resize(kDeviceValues);
    for (const BackendInfo& info : backends()) {
        if (!info.startSession) continue;
        auto b = std::make_unique<Backend>();
        b->device = info.device;
        b->label = info.label;
        backends_[static_cast<int>(info.device)] = std::move(b);
    }
    backend(Device::Cuda).standIn = std::move(cudaStandIn);
}

Executor::~Executor() = default;

Executor& Executor::shared()
{
    static Executor* executor = new Executor(ExplicitCuda::Throws);
    return *executor;
}

Executor::Backend& Executor::backend(Device device)
{
    return const_cast<Backend&>(std::as_const(*this).backend(device));
}

const Executor::Backend& Executor::backend(Device device) const
{
    const int i = static_cast<int>(device);
    if (i < 0 || i >= static_cast<int>(backends_.size()) || !backends_[i])
        throw Error(backendInfo(device).name + std::string(" is not a GPU backend"));
    return *backends_[i];
}

void Executor::setSessionFactory(SessionFactory factory, Device device)
{
    Backend& b = backend(device);
    b.standIn = std::move(factory);
    drop(b);
}

GpuSession* Executor::start(Backend& b, std::string* why, bool askAgain)
{
    if (b.session) return b.session.get();
    if (b.tried && !askAgain) {
        if (why) *why = b.why;
        return nullptr;
    }
    std::string reason;
    std::unique_ptr<GpuSession> fresh = b.startFresh(&reason);
    b.tried = true;
    if (!fresh) {
        b.why = reason.empty() ? std::string("no ") + b.label + " session" : reason;
        if (why) *why = b.why;
        return nullptr;
    }
    std::lock_guard lock(sessionMutex_);
    b.session = std::move(fresh);
    return b.session.get();
}

GpuSession* Executor::session(Device device, std::string* why, bool askAgain)
{
    Backend& b = backend(device);
    GpuSession* s = start(b, why, askAgain);
    if (s) current_ = device;
    return s;
}

std::shared_ptr<GpuSession> Executor::sessionHandle() const
{
    std::lock_guard lock(sessionMutex_);
    return backend(current_).session;
}

std::shared_ptr<GpuSession> Executor::sessionHandle(Device device) const
{
    std::lock_guard lock(sessionMutex_);
    return backend(device).session;
}

void Executor::drop(Backend& b)
{
    std::lock_guard lock(sessionMutex_);
    b.session.reset();
    b.held.reset();
    b.bus = {};
    b.tried = false; // a fresh session is tried next time
}

void Executor::dropSession() { drop(backend(current_)); }

bool Executor::holds(const std::shared_ptr<const void>& key) const
{
    const Backend& b = backend(current_);
    return key && b.session && b.held == key;
}

void Executor::noteHeld(std::shared_ptr<const void> key) { backend(current_).held = std::move(key); }

BusCosts Executor::busFigures(Backend& b, std::vector<StageTiming>* stages)
{
    if (b.bus.known()) return b.bus;
    detail::StageClock clock(stages);
    b.bus = b.session->busCosts();
    if (!b.standIn) saveBusCosts(b.bus, b.device); // a stand-in's figures are not this machine's
    clock.mark("measure the bus (once per process)", true);
    return b.bus;
}

Executor::Weighed Executor::weigh(Backend& b, const ConvolveParams& p, const RunFootprint& f,
                                  const std::function<double()>& cpuMs, std::vector<StageTiming>* stages)
{
    detail::StageClock clock(stages);
    const std::string label = b.label;
    const auto unavailable = [&] { return Weighed{{Device::Cpu, label + " unavailable (" + b.why + ")"}}; };
    const auto started = [&] {
        const bool fresh = !b.session && !b.tried;
        GpuSession* s = start(b, nullptr, false);
        if (fresh) clock.mark(((s ? "start " : "look for ") + label + " (once per process)").c_str(), true);
        return s;
    };
    if (b.tried && !b.session) return unavailable();
    // The image on the device already costs no upload on this backend.
    const double upBytes = f.image && b.session && b.held == f.image ? 0.0 : f.uploadBytes;
    // The bus figures kept from an earlier process decide first: work the transfers alone
    // would lose stays on the CPU without the session being started.
    const BusCosts kept = b.session ? b.bus : (b.standIn ? BusCosts{} : cachedBusCosts(b.device));
    if (!kept.known() && !started()) return unavailable();
    const double cpu = cpuMs();
    if (cpu < 0) return {{Device::Cpu, "the planner prices " + methodName(p.method) + " on the CPU only"}};
    // Nothing to move costs nothing, not even the bus's latency.
    const auto upMs = [&](const BusCosts& bus) { return upBytes > 0 ? bus.uploadMs(upBytes) : 0.0; };
    const auto downMs = [&](const BusCosts& bus) { return f.downloadBytes > 0 ? bus.downloadMs(f.downloadBytes) : 0.0; };
    if (kept.known()) {
        DeviceChoice early = chooseDevice({cpu, -1.0, upMs(kept), downMs(kept), b.device});
        if (early.device == Device::Cpu) return {early};
    }
    GpuSession* s = started();
    if (!s) return unavailable();
    const BusCosts bus = busFigures(b, stages);
    const double gpuMs = s->estimateMs(p, f.width, f.height, f.channels, f.hasAlpha);
    if (gpuMs < 0) return {{Device::Cpu, methodName(p.method) + " has no " + label + " path"}};
    const double up = upMs(bus), down = downMs(bus);
    return {chooseDevice({cpu, gpuMs, up, down, b.device}), gpuMs + up + down};
}

Executor::Weighed Executor::weighOrDrop(Backend& b, const ConvolveParams& p, const RunFootprint& f,
                                        const std::function<double()>& cpuMs, std::vector<StageTiming>* stages)
{
    try {
        return weigh(b, p, f, cpuMs, stages);
    } catch (const Error& e) {
        // Timing the bus or the costs failed (a full device, a failed cuFFT plan): this run goes
        // to the CPU, and the session, which may be half-calibrated or unusable, is dropped so
        // that the next run starts a fresh one instead of failing the same way.
        drop(b);
        return {{Device::Cpu, std::string(b.label) + " failed while weighing the run (" + e.what() + "): ran on the CPU"}};
    }
}

DeviceChoice Executor::place(const ConvolveParams& p, const RunFootprint& f, std::vector<StageTiming>* stages)
{
    if (p.device != Device::Auto) return {p.device, {}};
    double cpuMs = 0.0;
    bool cpuKnown = false;
    const std::function<double()> cpuEstimate = [&] {
        if (!cpuKnown) {
            detail::StageClock clock(stages);
            cpuMs = cpuEstimateMs(p, shapeOf(f), clock);
            cpuKnown = true;
        }
        return cpuMs;
    };
    // The cheapest GPU backend that beats the CPU; else the CPU, with every backend's reason.
    std::optional<Weighed> best;
    DeviceChoice cpu{Device::Cpu, "no GPU backend in this build"};
    bool first = true;
    for (const std::unique_ptr<Backend>& b : backends_) {
        if (!b) continue;
        Weighed w = weighOrDrop(*b, p, f, cpuEstimate, stages);
        if (w.choice.device == Device::Cpu) {
            cpu.reason = first ? w.choice.reason : cpu.reason + "; " + w.choice.reason;
            first = false;
        } else if (!best || w.totalMs < best->totalMs) {
            best = std::move(w);
        }
    }
    return best ? best->choice : cpu;
}

Executor::Attempt Executor::tryGpu(const ConvolveParams& p, const RunFootprint& f, std::vector<StageTiming>* stages,
                                   const std::function<void(GpuSession&)>& onGpu)
{
    Attempt a;
    if (p.device == Device::Cpu) return a;
    const bool fallsBack = p.device == Device::Auto || explicitCuda_ == ExplicitCuda::FallsBack;
    Device device = p.device;
    if (device == Device::Auto) {
        const DeviceChoice choice = place(p, f, stages);
        a.reason = choice.reason;
        if (choice.device == Device::Cpu) return a;
        device = choice.device;
    }
    Backend& b = backend(device);
    std::string why;
    detail::StageClock clock(stages);
    const bool fresh = !b.session;
    GpuSession* s = session(device, &why, true); // placed there, or asked for: ask again
    if (fresh && s) clock.mark(("start " + std::string(b.label) + " (once per process)").c_str(), true);
    a.device = device;
    if (!s) {
        const std::string failure = std::string(b.label).append(" unavailable: ").append(why);
        if (!fallsBack) throw Error(failure);
        a.deviceFailed = true;
        a.failure = failure;
        return a;
    }
    try {
        onGpu(*s);
        a.ran = true;
    } catch (const NoGpuPath& e) {
        if (!fallsBack) throw;
        a.notice = std::string(e.what()) + ": ran on the CPU"; // the session stays usable
    } catch (const Error& e) {
        drop(b); // whatever failed may have left the device unusable
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
    const bool fresh = !executor.sessionHandle(Device::Cuda);
    GpuSession* session = executor.session(Device::Cuda, &why, true);
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
