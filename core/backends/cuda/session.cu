// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA session: the source image stays resident on the device, each run uploads only the
// kernel (constant memory while it fits), one stream, host transfers at the bus's speed
// (transfer.h: read from and written to the caller's memory, no host-side copies of the image),
// cuFFT plans and kernel spectra cached, and an interop path that writes the result straight
// into an OpenGL buffer object given only its id.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cudacheck.h"
#include "convlab/error.h"
#include "convlab/gpu.h"
#include "histogram.h"
#include "engine/hostspans.h"
#include "engine/interleave.h"
#include "launchers.h"
#include "engine/plan.h"
#include "session_internal.h"
#include "transfer.h"

namespace convlab {
namespace cuda {

Session::Session()
{
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream creation");
    cudaDeviceProp prop{};
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
        name_ = prop.name;
        computeCapability_ = prop.major * 10 + prop.minor;
    }
    if (const char* forced = std::getenv("CONVLAB_GPU_TRANSFER")) {
        const std::string way = forced;
        if (way == "pageable") link_.force(TransferWay::Pageable);
        else if (way == "staged") link_.force(TransferWay::Staged);
        else if (way == "registered") link_.force(TransferWay::Registered);
        else if (way != "fastest") {
            cudaStreamDestroy(stream_);
            throw Error("CONVLAB_GPU_TRANSFER is '" + way + "': fastest, pageable, staged or registered");
        }
    }
    if (!link_.forced()) restoreTransfers();
}

Session::~Session()
{
    for (auto& [id, reg] : glBuffers_) cudaGraphicsUnregisterResource(reg.resource);
    if (displayStream_) cudaStreamDestroy(displayStream_);
    for (auto& [key, plan] : plans_) {
        cufftDestroy(plan.forward);
        cufftDestroy(plan.backward);
    }
    cudaStreamDestroy(stream_);
}

void Session::setImage(const ImagePlanes& image)
{
    image.validate();
    const size_t plane = image.planeSize();
    const size_t n = plane * static_cast<size_t>(image.channels);
    w_ = 0; // no image held until this one is complete
    src_.reserve(n);
    if (!image.interleaved()) {
        detail::HostRun<const float> runs[4];
        const int count = detail::planarRuns(image, runs);
        for (int i = 0; i < count; ++i)
            link_.upload(runs[i].host, src_.get() + runs[i].deviceOffset, sizeof(float) * runs[i].values, stream_);
    } else if (const auto span = detail::pixelSpan(image, false)) {
        // Pixels travel as they lie and are regrouped into planes on the device.
        pixels_.reserve(span->values);
        link_.upload(detail::spanBase(image), pixels_.get(), sizeof(float) * span->values, stream_);
        launchGatherPixels(pixels_.get(), src_.get(), static_cast<long long>(plane), image.channels, span->step,
                           span->order, stream_);
    } else { // planes interleaved in no pixel order (not made by any array library): host gather
        const Image planar = detail::planarCopy(image, 0);
        link_.upload(planar.data.data(), src_.get(), sizeof(float) * n, stream_);
    }
    // The FFT would spread a non-finite sample over the whole plane, so compute() runs
    // direct for such an image.
    holdImage(image.width, image.height, image.channels, image.depth, image.hasAlpha);
}

// The image in src_ is complete (its copies queued): its shape, and whether a sample is NaN or
// infinite, checked on the device and read when an FFT asks.
void Session::holdImage(int width, int height, int channels, SampleDepth depth, bool hasAlpha)
{
    nonFiniteFlag_.reserve(1);
    launchFlagNonFinite(src_.get(), static_cast<long long>(width) * height * channels, nonFiniteFlag_.get(), stream_);
    nonFinite_.reset();
    w_ = width;
    h_ = height;
    c_ = channels;
    depth_ = depth;
    hasAlpha_ = hasAlpha;
}

void Session::setImage(const PackedImage& packed)
{
    packed.validate();
    w_ = 0; // no image held until this one is complete
    const size_t bytes = packed.stride * (static_cast<size_t>(packed.height) - 1) +
                         static_cast<size_t>(packed.width) * packed.channels * packed.sampleBytes();
    const size_t n = static_cast<size_t>(packed.width) * packed.height * packed.channels;
    packed_.reserve(bytes);
    src_.reserve(n);
    link_.upload(packed.samples().data(), packed_.get(), bytes, stream_);
    ChannelOrder order{};
    for (int c = 0; c < 4; ++c) order.c[c] = packed.order[c];
    nonFinite_ = false; // 8/16-bit samples are always finite
    launchUnpack(packed_.get(), packed.depth == SampleDepth::U16, packed.width, packed.height, packed.channels,
                 packed.stride, order, src_.get(), stream_);
    check(cudaStreamSynchronize(stream_), "upload");
    w_ = packed.width;
    h_ = packed.height;
    c_ = packed.channels;
    depth_ = packed.depth;
    hasAlpha_ = packed.hasAlpha;
}

std::string Session::kernelChoices() const
{
    std::string all;
    for (const std::string* part : {&choices_, &fftChoices_, &link_.figures().note})
        if (!part->empty()) all += (all.empty() ? "" : "\n") + *part;
    return all;
}

double Session::copyBandwidthGBs()
{
    const size_t n = size_t(256) << 20; // floats: 1 GiB each way
    DeviceBuffer<float> a, b;
    a.reserve(n);
    b.reserve(n);
    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "event");
    check(cudaEventCreate(&e1), "event");
    float best = 1e30f;
    for (int i = 0; i < 4; ++i) {
        cudaEventRecord(e0, stream_);
        check(cudaMemcpyAsync(b.get(), a.get(), n * sizeof(float), cudaMemcpyDeviceToDevice, stream_), "copy");
        cudaEventRecord(e1, stream_);
        check(cudaEventSynchronize(e1), "copy");
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        if (i > 0) best = std::min(best, ms); // the first copy warms up
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 2.0 * n * sizeof(float) / (best * 1e-3) / 1e9;
}

Image Session::run(const ConvolveParams& params, RunReport* report)
{
    requireImage();
    Image out = Image::uninitialized(w_, h_, c_, depth_); // every sample is downloaded into
    out.hasAlpha = hasAlpha_;
    runInto(params, out, report);
    return out;
}

void Session::runInto(const ConvolveParams& params, const OutputPlanes& out, RunReport* report)
{
    requireImage();
    requireShape(out);
    RunReport local;
    RunReport& rep = report ? *report : local;
    runResident(params, &rep); // the result stays on the device, then comes down
    const auto t0 = std::chrono::steady_clock::now();
    downloadLastResult(out, params.cancel);
    rep.stages.push_back({"download", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()});
}

void Session::runResident(const ConvolveParams& params, RunReport* report)
{
    RunReport local;
    RunReport& rep = report ? *report : local;
    EventClock clock(stream_);
    clock.mark("start");
    const int slot = computeIntoNextSlot(params, rep, clock);
    check(cudaStreamSynchronize(stream_), "run");
    clock.collect(rep.stages);
    publish(slot, static_cast<size_t>(w_) * h_ * c_);
}

void Session::waitForCallerStream(std::uintptr_t stream)
{
    if (stream == 0) return; // nothing queued
    cudaEvent_t queued;
    check(cudaEventCreateWithFlags(&queued, cudaEventDisableTiming), "event");
    const cudaError_t recorded = cudaEventRecord(queued, reinterpret_cast<cudaStream_t>(stream));
    const cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(stream_, queued, 0) : recorded;
    cudaEventDestroy(queued);
    check(waited, "waiting for the caller's stream");
}

bool Session::runOnDevice(const ConvolveParams& params, const DevicePlanes& planes, RunReport* report)
{
    if (!planes.in || !planes.out || planes.width < 1 || planes.height < 1 || planes.channels < 1 || planes.channels > 4)
        throw Error("device planes of " + std::to_string(planes.width) + "x" + std::to_string(planes.height) + "x" +
                    std::to_string(planes.channels) + " (or a null pointer): 1..4 planes of at least 1x1 are needed");
    for (const void* p : {static_cast<const void*>(planes.in), static_cast<const void*>(planes.out)}) {
        cudaPointerAttributes a{};
        if (cudaPointerGetAttributes(&a, p) != cudaSuccess || a.type != cudaMemoryTypeDevice) {
            cudaGetLastError(); // clears the error the query left
            throw Error("the array is not in this device's memory (a CUDA array of another device, or host memory)");
        }
    }
    RunReport local;
    RunReport& rep = report ? *report : local;
    EventClock clock(stream_);
    clock.mark("start");
    // After what the caller queued on the input's stream and on the output's.
    waitForCallerStream(planes.stream);
    if (planes.outStream != planes.stream) waitForCallerStream(planes.outStream);
    // The planes are copied into the session's image buffer (device to device, about a
    // thousandth of the bus's time): every method then reads the image it was written for, and
    // an output that is the input is written only after the input was read.
    const size_t n = size_t(planes.width) * planes.height * planes.channels;
    w_ = 0; // no image held until this one is complete
    src_.reserve(n);
    check(cudaMemcpyAsync(src_.get(), planes.in, sizeof(float) * n, cudaMemcpyDeviceToDevice, stream_), "device copy");
    holdImage(planes.width, planes.height, planes.channels, SampleDepth::F32, false);
    clock.mark("device copy in");
    compute(params, planes.out, rep, clock);
    check(cudaStreamSynchronize(stream_), "run");
    clock.collect(rep.stages);
    return imageHasNonFinite();
}

void Session::downloadLastResult(Image& out)
{
    lastResultSlot(); // before anything is allocated
    if (out.width != w_ || out.height != h_ || out.channels != c_) out = Image::uninitialized(w_, h_, c_, depth_);
    out.depth = depth_;
    out.hasAlpha = hasAlpha_;
    downloadLastResult(OutputPlanes(out), nullptr);
}

void Session::downloadLastResult(const OutputPlanes& out, const std::atomic<bool>* cancel)
{
    const int slot = lastResultSlot();
    requireShape(out);
    downloadInto(results_[slot].get(), out, cancel);
}

void Session::readLastResultPixel(int x, int y, float* values)
{
    const int slot = lastResultSlot();
    if (x < 0 || y < 0 || x >= w_ || y >= h_)
        throw Error("pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") lies outside the " +
                    std::to_string(w_) + "x" + std::to_string(h_) + " result");
    // One float from each plane: a 2D copy whose rows are the channels.
    const size_t plane = static_cast<size_t>(w_) * h_;
    const float* at = results_[slot].get() + static_cast<size_t>(y) * w_ + x;
    check(cudaMemcpy2DAsync(values, sizeof(float), at, plane * sizeof(float), sizeof(float), c_,
                            cudaMemcpyDeviceToHost, stream_),
          "pixel download");
    check(cudaStreamSynchronize(stream_), "pixel download");
}

Histogram Session::histogramOfLastResult(int maxBins, const std::atomic<bool>* cancel)
{
    const int slot = lastResultSlot();
    return deviceHistogram(results_[slot].get(), w_, h_, c_, maxBins, stream_, cancel);
}

double Session::estimateMs(const ConvolveParams& params, int width, int height, int channels, bool hasAlpha)
{
    detail::MethodCosts gpuCosts;
    gpuCosts.measuredOn = "this GPU";
    gpuCosts.estimate = [&](const Kernel& k, int rank, int planes) {
        return estimateGpu(k, rank, planes, width, height);
    };
    RunReport scratch;
    const detail::Plan plan = detail::makePlan(params, {width, height, channels, hasAlpha}, gpuCosts, scratch, nullptr);
    if (!gpuMethodFor(plan.method)) return -1.0; // runs on the CPU whatever the device
    for (const MethodEstimate& e : scratch.estimates)
        if (e.method == plan.method) return e.ms;
    const int rank = plan.factors.rank > 0 ? plan.factors.rank : 1;
    for (const MethodEstimate& e : estimateGpu(plan.kernel, rank, plan.channels, width, height))
        if (e.method == gpuMethodFor(plan.method)->runs) return e.ms;
    return -1.0;
}

BusCosts Session::busCosts()
{
    BusCosts b = link_.calibrate(stream_).bus;
    b.device = name_;
    return b;
}

void Session::requireImage() const
{
    if (!hasImage()) throw Error("no image on the GPU: call setImage first");
}

void Session::requireShape(const OutputPlanes& out) const
{
    if (out.width != w_ || out.height != h_ || out.channels != c_)
        throw Error("the output planes are " + std::to_string(out.width) + "x" + std::to_string(out.height) + "x" +
                    std::to_string(out.channels) + ", the GPU's result " + std::to_string(w_) + "x" +
                    std::to_string(h_) + "x" + std::to_string(c_));
    for (int c = 0; c < out.channels; ++c)
        if (!out.plane(c)) throw Error("the output planes are malformed");
}

// The slot of the last finished run, or an error when none of the image held is there.
int Session::lastResultSlot()
{
    std::lock_guard lock(lastMutex_);
    if (lastSlot_ < 0 || lastValues_ != static_cast<size_t>(w_) * h_ * c_)
        throw Error("the GPU holds no result to download");
    return lastSlot_;
}

// Device planes (c_ planes of w_ x h_) into the caller's planes, by their layout: planar
// planes as one copy each (one for all when they follow one another), whole interleaved
// pixels regrouped on the device and moved as one span, and anything else (some channels
// of wider pixels, which a whole span would overwrite) through a planar host image.
void Session::downloadInto(const float* planes, const OutputPlanes& out, const std::atomic<bool>* cancel)
{
    const size_t plane = static_cast<size_t>(w_) * h_;
    if (!out.interleaved()) {
        detail::HostRun<float> runs[4];
        const int count = detail::planarRuns(out, runs);
        for (int i = 0; i < count; ++i)
            link_.download(planes + runs[i].deviceOffset, runs[i].host, sizeof(float) * runs[i].values, stream_,
                           cancel);
    } else if (const auto span = detail::pixelSpan(out, true)) {
        pixels_.reserve(span->values);
        launchScatterPixels(planes, pixels_.get(), static_cast<long long>(plane), c_, span->order, stream_);
        link_.download(pixels_.get(), detail::spanBase(out), sizeof(float) * span->values, stream_, cancel);
    } else {
        Image planar = Image::uninitialized(w_, h_, c_);
        link_.download(planes, planar.data.data(), sizeof(float) * plane * c_, stream_, cancel);
        detail::copyPlanes(planar, out, 0, c_, 0, false);
    }
}

// Whether the image held has a NaN or infinite sample: the device's flag, read once.
bool Session::imageHasNonFinite()
{
    if (!nonFinite_) {
        int flag = 0;
        check(cudaMemcpyAsync(&flag, nonFiniteFlag_.get(), sizeof flag, cudaMemcpyDeviceToHost, stream_), "download");
        check(cudaStreamSynchronize(stream_), "download");
        nonFinite_ = flag != 0;
    }
    return *nonFinite_;
}

// Computes into the result slot that no display copy may be reading (results alternate
// between two device buffers, so the last finished one can be copied to the display by
// copyLastResultToGlBuffer, on another thread, while the next run writes). Asynchronous.
int Session::computeIntoNextSlot(const ConvolveParams& params, RunReport& rep, EventClock& clock)
{
    requireImage();
    int slot = 0;
    {
        std::lock_guard lock(lastMutex_);
        slot = lastSlot_ < 0 ? 0 : 1 - lastSlot_;
    }
    results_[slot].reserve(static_cast<size_t>(w_) * h_ * c_);
    compute(params, results_[slot].get(), rep, clock);
    return slot;
}

void Session::publish(int slot, size_t values)
{
    std::lock_guard lock(lastMutex_);
    lastSlot_ = slot;
    lastValues_ = values;
}

// The plan step is the engine's (plan.h): validation, kernel flip, scale, alpha rule, rank
// and, for auto, the choice among this device's measured costs. Only executing is here.
void Session::compute(const ConvolveParams& p, float* out, RunReport& rep, EventClock& clock)
{
    detail::MethodCosts gpuCosts;
    gpuCosts.measuredOn = "this GPU";
    gpuCosts.estimate = [this, &clock](const Kernel& k, int rank, int channels) {
        const bool timedBefore = costsTimed_;
        auto estimates = estimateGpu(k, rank, channels, w_, h_);
        if (costsTimed_ != timedBefore) clock.mark("calibrate GPU planner (once per device)", true);
        return estimates;
    };
    const detail::Plan plan = detail::makePlan(p, {w_, h_, c_, hasAlpha_}, gpuCosts, rep, nullptr);
    const Kernel& k = plan.kernel;
    rep.device = Device::Cuda;
    rep.threads = 1;
    Geometry g;
    g.w = w_;
    g.h = h_;
    g.channels = plan.channels;
    g.kw = k.width;
    g.kh = k.height;
    g.ax = k.ax();
    g.ay = k.ay();
    g.mode = plan.border.mode;
    g.cval = plan.border.value;
    g.scale = static_cast<float>(plan.scale);
    g.offset = static_cast<float>(plan.offset);

    const GpuMethod* gpu = gpuMethodFor(plan.method);
    if (!gpu) throw NoGpuPath(methodName(plan.method) + " has no CUDA path");
    if (plan.method == Method::Fft && imageHasNonFinite()) {
        // docs/semantics.md, Non-finite values: a NaN or infinity reaches only the outputs
        // whose window covers it. cuFFT would spread it over the plane; direct does not.
        gpu = gpuMethodFor(Method::Direct);
        rep.notices.push_back("the image has NaN or infinite samples: ran direct instead of fft on the GPU");
    }
    if (gpu->notice) rep.notices.push_back(gpu->notice);
    rep.method = gpu->runs;
    (this->*(gpu->run))(g, plan, out, clock);
    // Alpha (not filtered) copied through on the device.
    if (g.channels < c_) {
        const size_t plane = static_cast<size_t>(w_) * h_;
        check(cudaMemcpyAsync(out + plane * g.channels, src_.get() + plane * g.channels, sizeof(float) * plane,
                              cudaMemcpyDeviceToDevice, stream_), "alpha copy");
    }
}

const Session::GpuMethod* Session::gpuMethodFor(Method m)
{
    static const GpuMethod table[] = {
        {Method::Direct, Method::Direct, &Session::runDirectPlan, nullptr},
        {Method::Separable, Method::Separable, &Session::runSeparablePlan, nullptr},
        {Method::Fft, Method::Fft, &Session::runFftPlan, nullptr},
        {Method::Reference, Method::Direct, &Session::runDirectPlan,
         "the GPU has no double-precision reference: ran direct"},
    };
    for (const GpuMethod& row : table)
        if (row.method == m) return &row;
    return nullptr;
}

void Session::runDirectPlan(const Geometry& g, const detail::Plan& p, float* out, EventClock& c) { runDirect(g, p.kernel, out, c); }

void Session::runSeparablePlan(const Geometry& g, const detail::Plan& p, float* out, EventClock& c)
{
    runSeparable(g, p.factors, out, c);
}

void Session::runFftPlan(const Geometry& g, const detail::Plan& p, float* out, EventClock& c) { runFft(g, p.kernel, out, c); }

void Session::runDirect(const Geometry& g, const Kernel& k, float* out, EventClock& clock)
{
    if (choices_.empty()) {
        const bool timedBefore = tiledGridTimed_;
        chooseTiledGrid();
        if (tiledGridTimed_ != timedBefore) clock.mark("choose the tiled grid (once per device)", true);
    }
    // One plan says which kernel runs and how it reads the taps; they are uploaded so.
    const DirectPlan plan = directPlanFor(g, tiledGrid_, deviceSharedOptinBytes());
    const std::vector<float> taps = laidOutTaps(plan.layout, k.values.data(), k.width, k.height);
    if (plan.layout.constantMemory) {
        if (!uploadConstantKernel(taps.data(), static_cast<int>(taps.size()), stream_))
            throw Error("the direct plan put more taps in constant memory than it holds");
    } else {
        kernel_.reserve(taps.size());
        check(cudaMemcpyAsync(kernel_.get(), taps.data(), sizeof(float) * taps.size(), cudaMemcpyHostToDevice, stream_),
              "kernel upload");
    }
    clock.mark("upload");
    launchDirectPlanned(src_.get(), out, g, plan, kernel_.get(), stream_);
    clock.mark("convolve");
}

void Session::runSeparable(const Geometry& g, const detail::SeparableFactors& f, float* out, EventClock& clock)
{
    std::vector<float> host;
    for (int i = 0; i < f.rank; ++i) {
        host.insert(host.end(), f.rows[i].begin(), f.rows[i].end());
        host.insert(host.end(), f.columns[i].begin(), f.columns[i].end());
    }
    kernel_.reserve(std::max<size_t>(host.size(), 1));
    if (!host.empty())
        check(cudaMemcpyAsync(kernel_.get(), host.data(), sizeof(float) * host.size(), cudaMemcpyHostToDevice, stream_),
              "factor upload");
    tmp_.reserve(static_cast<size_t>(g.w) * (g.h + g.kh - 1) * g.channels);
    clock.mark("upload");
    if (f.rank == 0) // an all-zero kernel: the result is the offset
        launchFill(out, static_cast<long long>(g.w) * g.h * g.channels, g.offset, stream_);
    for (int i = 0; i < f.rank; ++i) {
        const float* rowF = kernel_.get() + static_cast<size_t>(i) * (g.kw + g.kh);
        launchRowPass(src_.get(), tmp_.get(), g, rowF, stream_);
        launchColPass(tmp_.get(), out, g, rowF + g.kw, i > 0, i == f.rank - 1, stream_);
    }
    clock.mark("convolve");
}

} // namespace cuda

std::unique_ptr<GpuSession> startCudaSession(std::string* reason)
{
    if (!cudaAvailable(reason)) return nullptr;
    try {
        return std::make_unique<cuda::Session>();
    } catch (const Error& e) {
        if (reason) *reason = e.what();
        return nullptr;
    }
}

} // namespace convlab
