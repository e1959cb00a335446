// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA session: the source image stays resident on the device, each run uploads only the
// kernel (constant memory while it fits), one stream, host transfers at the bus's speed
// (transfer.h: read from and written to the caller's memory, no host-side copies of the image),
// cuFFT plans and kernel spectra cached, and an interop path that writes the result straight
// into an OpenGL buffer object given only its id.
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>
#include <dlfcn.h>
#include <nvJitLink.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "convlab/error.h"
#include "convlab/gpu.h"
#include "fftcallbacks.h"
#include "histogram.h"
#include "engine/hostspans.h"
#include "engine/interleave.h"
#include "launchers.h"
#include "methods/methods.h"
#include "engine/plan.h"
#include "transfer.h"

namespace convlab {
namespace cuda {
namespace {

void check(cudaError_t err, const char* what)
{
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
    }
}

void checkFft(cufftResult r, const char* what)
{
    if (r != CUFFT_SUCCESS) throw Error(std::string("cuFFT ") + what + " failed (code " + std::to_string(int(r)) + ")");
}

// RAII memory that grows on demand: device memory, or pinned host memory for staging.
template <class T, bool kPinned = false> class Buffer {
public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { release(); }
    T* get() const { return ptr_; }
    void reserve(size_t n)
    {
        if (n <= size_) return;
        release();
        const size_t bytes = sizeof(T) * std::max<size_t>(n, 1);
        void* p = nullptr;
        check(kPinned ? cudaMallocHost(&p, bytes) : cudaMalloc(&p, bytes),
              kPinned ? "pinned allocation" : "allocation (out of device memory?)");
        ptr_ = static_cast<T*>(p);
        size_ = n;
    }

private:
    void release()
    {
        if (ptr_) kPinned ? cudaFreeHost(ptr_) : cudaFree(ptr_);
        ptr_ = nullptr;
        size_ = 0;
    }
    T* ptr_ = nullptr;
    size_t size_ = 0;
};
template <class T> using DeviceBuffer = Buffer<T>;

// Named stage timings from CUDA events recorded on the session's stream.
class EventClock {
public:
    explicit EventClock(cudaStream_t s) : stream_(s) {}
    ~EventClock()
    {
        for (auto& m : marks_) cudaEventDestroy(m.event);
    }
    // `once` marks a one-time cost (StageTiming::once): the device's calibration, a new FFT size.
    void mark(const char* name, bool once = false)
    {
        cudaEvent_t e;
        check(cudaEventCreate(&e), "event");
        check(cudaEventRecord(e, stream_), "event record");
        marks_.push_back({name, e, once});
    }
    // Call after the stream is synchronised.
    void collect(std::vector<StageTiming>& out) const
    {
        for (size_t i = 1; i < marks_.size(); ++i) {
            float ms = 0.0f;
            cudaEventElapsedTime(&ms, marks_[i - 1].event, marks_[i].event);
            out.push_back({marks_[i].name, ms, marks_[i].once});
        }
    }

private:
    struct Mark {
        const char* name;
        cudaEvent_t event;
        bool once;
    };
    cudaStream_t stream_;
    std::vector<Mark> marks_;
};

class Session final : public GpuSession {
public:
    Session()
    {
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream creation");
        cudaDeviceProp prop{};
        int dev = 0;
        cudaGetDevice(&dev);
        if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess) name_ = prop.name;
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
    }
    ~Session() override
    {
        for (auto& [id, reg] : glBuffers_) cudaGraphicsUnregisterResource(reg.resource);
        if (displayStream_) cudaStreamDestroy(displayStream_);
        for (auto& [key, plan] : plans_) {
            cufftDestroy(plan.forward);
            cufftDestroy(plan.backward);
        }
        cudaStreamDestroy(stream_);
    }

    void setImage(const ImagePlanes& image) override
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
        // direct for such an image; the check runs on the device and is read when an FFT asks.
        nonFiniteFlag_.reserve(1);
        launchFlagNonFinite(src_.get(), static_cast<long long>(n), nonFiniteFlag_.get(), stream_);
        nonFinite_.reset();
        w_ = image.width;
        h_ = image.height;
        c_ = image.channels;
        depth_ = image.depth;
        hasAlpha_ = image.hasAlpha;
    }
    void setImage(const PackedImage& packed) override
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
    bool hasImage() const override { return w_ > 0; }
    std::string deviceName() const override { return name_; }
    std::string kernelChoices() const override
    {
        std::string all;
        for (const std::string* part : {&choices_, &fftChoices_, &link_.figures().note})
            if (!part->empty()) all += (all.empty() ? "" : "\n") + *part;
        return all;
    }

    double copyBandwidthGBs() override
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

    Image run(const ConvolveParams& params, RunReport* report) override
    {
        requireImage();
        Image out = Image::uninitialized(w_, h_, c_, depth_); // every sample is downloaded into
        out.hasAlpha = hasAlpha_;
        runInto(params, out, report);
        return out;
    }

    void runInto(const ConvolveParams& params, const OutputPlanes& out, RunReport* report) override
    {
        requireImage();
        requireShape(out);
        RunReport local;
        RunReport& rep = report ? *report : local;
        EventClock clock(stream_);
        clock.mark("start");
        const int slot = computeIntoNextSlot(params, rep, clock);
        check(cudaStreamSynchronize(stream_), "run");
        clock.collect(rep.stages);
        const size_t n = static_cast<size_t>(w_) * h_ * c_;
        publish(slot, n);
        const auto t0 = std::chrono::steady_clock::now();
        downloadInto(results_[slot].get(), out, params.cancel);
        rep.stages.push_back({"download", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()});
    }

    void runResident(const ConvolveParams& params, RunReport* report) override
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

    void downloadLastResult(Image& out) override
    {
        lastResultSlot(); // before anything is allocated
        if (out.width != w_ || out.height != h_ || out.channels != c_) out = Image::uninitialized(w_, h_, c_, depth_);
        out.depth = depth_;
        out.hasAlpha = hasAlpha_;
        downloadLastResult(OutputPlanes(out), nullptr);
    }

    void downloadLastResult(const OutputPlanes& out, const std::atomic<bool>* cancel) override
    {
        const int slot = lastResultSlot();
        requireShape(out);
        downloadInto(results_[slot].get(), out, cancel);
    }

    void readLastResultPixel(int x, int y, float* values) override
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

    Histogram histogramOfLastResult(int maxBins, const std::atomic<bool>* cancel) override
    {
        const int slot = lastResultSlot();
        return deviceHistogram(results_[slot].get(), w_, h_, c_, maxBins, stream_, cancel);
    }

    double estimateMs(const ConvolveParams& params, int width, int height, int channels, bool hasAlpha) override
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

    BusCosts busCosts() override
    {
        BusCosts b = link_.calibrate(stream_).bus;
        b.device = name_;
        return b;
    }

    void copyLastResultToGlBuffer(unsigned int glBuffer, size_t values) override
    {
        std::lock_guard lock(lastMutex_); // the next run may not reuse this slot meanwhile
        if (lastSlot_ < 0 || lastValues_ != values)
            throw Error("the GPU holds no result of that size to display");
        if (!displayStream_) check(cudaStreamCreateWithFlags(&displayStream_, cudaStreamNonBlocking), "stream creation");
        const size_t bytes = values * sizeof(float);
        cudaGraphicsResource_t res = registered(glBuffer, bytes);
        check(cudaGraphicsMapResources(1, &res, displayStream_), "OpenGL buffer map");
        void* ptr = nullptr;
        size_t mapped = 0;
        cudaError_t err = cudaGraphicsResourceGetMappedPointer(&ptr, &mapped, res);
        if (err == cudaSuccess && mapped < bytes) err = cudaErrorInvalidValue;
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(ptr, results_[lastSlot_].get(), bytes, cudaMemcpyDeviceToDevice, displayStream_);
        const cudaError_t unmap = cudaGraphicsUnmapResources(1, &res, displayStream_);
        check(err, "copy into the OpenGL buffer");
        check(unmap, "OpenGL buffer unmap");
        check(cudaStreamSynchronize(displayStream_), "display copy");
    }

    void runToGlBuffer(const ConvolveParams& params, unsigned int glBuffer, RunReport* report) override
    {
        requireImage();
        cudaGraphicsResource_t res = registered(glBuffer, sizeof(float) * w_ * h_ * c_);
        RunReport local;
        RunReport& rep = report ? *report : local;
        EventClock clock(stream_);
        clock.mark("start");
        check(cudaGraphicsMapResources(1, &res, stream_), "OpenGL buffer map");
        try {
            void* ptr = nullptr;
            size_t bytes = 0;
            check(cudaGraphicsResourceGetMappedPointer(&ptr, &bytes, res), "OpenGL buffer pointer");
            if (bytes < sizeof(float) * w_ * h_ * c_) throw Error("the OpenGL buffer is smaller than the result");
            clock.mark("interop");
            compute(params, static_cast<float*>(ptr), rep, clock);
        } catch (...) {
            cudaGraphicsUnmapResources(1, &res, stream_);
            throw;
        }
        check(cudaGraphicsUnmapResources(1, &res, stream_), "OpenGL buffer unmap");
        clock.mark("interop");
        check(cudaStreamSynchronize(stream_), "run");
        clock.collect(rep.stages);
    }

    void releaseGlBuffer(unsigned int glBuffer) override
    {
        if (auto it = glBuffers_.find(glBuffer); it != glBuffers_.end()) {
            cudaGraphicsUnregisterResource(it->second.resource);
            glBuffers_.erase(it);
        }
    }

private:
    // The CUDA registration of a GL buffer, made once per buffer id and size: a buffer given
    // new storage (glBufferData at another size) is registered again.
    cudaGraphicsResource_t registered(unsigned int glBuffer, size_t bytes)
    {
        if (auto it = glBuffers_.find(glBuffer); it != glBuffers_.end()) {
            if (it->second.bytes == bytes) return it->second.resource;
            releaseGlBuffer(glBuffer);
        }
        cudaGraphicsResource_t res = nullptr;
        check(cudaGraphicsGLRegisterBuffer(&res, glBuffer, cudaGraphicsRegisterFlagsWriteDiscard),
              "OpenGL buffer registration (is the GL context on this device?)");
        glBuffers_[glBuffer] = {res, bytes};
        return res;
    }

    struct Plans {
        cufftHandle forward = 0, backward = 0;
    };
    using PlanKey = std::tuple<int, int, int, bool>; // n0, n1, batch, callbacks

    void requireImage() const
    {
        if (!hasImage()) throw Error("no image on the GPU: call setImage first");
    }

    void requireShape(const OutputPlanes& out) const
    {
        if (out.width != w_ || out.height != h_ || out.channels != c_)
            throw Error("the output planes are " + std::to_string(out.width) + "x" + std::to_string(out.height) + "x" +
                        std::to_string(out.channels) + ", the GPU's result " + std::to_string(w_) + "x" +
                        std::to_string(h_) + "x" + std::to_string(c_));
        for (int c = 0; c < out.channels; ++c)
            if (!out.plane(c)) throw Error("the output planes are malformed");
    }

    // The slot of the last finished run, or an error when none of the image held is there.
    int lastResultSlot()
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
    void downloadInto(const float* planes, const OutputPlanes& out, const std::atomic<bool>* cancel)
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
    bool imageHasNonFinite()
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
    int computeIntoNextSlot(const ConvolveParams& params, RunReport& rep, EventClock& clock)
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

    void publish(int slot, size_t values)
    {
        std::lock_guard lock(lastMutex_);
        lastSlot_ = slot;
        lastValues_ = values;
    }

    // The plan step is the engine's (plan.h): validation, kernel flip, scale, alpha rule, rank
    // and, for auto, the choice among this device's measured costs. Only executing is here.
    void compute(const ConvolveParams& p, float* out, RunReport& rep, EventClock& clock)
    {
        detail::MethodCosts gpuCosts;
        gpuCosts.measuredOn = "this GPU";
        gpuCosts.estimate = [this, &clock](const Kernel& k, int rank, int channels) {
            const bool calibrated = costs_.has_value();
            auto estimates = estimateGpu(k, rank, channels, w_, h_);
            if (!calibrated) clock.mark("calibrate GPU planner (once per process)", true);
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

    // Cost constants of the three methods on this device, in ms per million outputs (and per
    // million transform points x log2 size for the FFT), measured once per session with CUDA
    // events on a scratch 2048x2048 image, so auto compares measured costs, not guesses.
    struct GpuCosts {
        double directPerTap = 0, directPerPixel = 0;
        double separablePerTap = 0, separablePerPixel = 0;
        double fftPerPoint = 0;
    };

    const GpuCosts& costs()
    {
        if (costs_) return *costs_;
        const int n = 2048;
        Buffer<float> in, out, tmp, k;
        in.reserve(size_t(n) * n);
        out.reserve(size_t(n) * n);
        tmp.reserve(size_t(n) * (n + 63));
        k.reserve(64 * 64);
        check(cudaMemsetAsync(in.get(), 0, sizeof(float) * n * n, stream_), "scratch");
        check(cudaMemsetAsync(k.get(), 0, sizeof(float) * 64 * 64, stream_), "scratch");
        auto geometry = [n](int kw, int kh) { return scratchGeometry(n, kw, kh); };
        const double mpx = double(n) * n / 1e6;
        GpuCosts c;
        chooseTiledGrid();
        auto direct = [&](const Geometry& g) {
            if (!launchDirectTiled(in.get(), out.get(), g, k.get(), tiledGrid_, stream_))
                launchDirect(in.get(), out.get(), g, k.get(), false, stream_);
        };
        const double d3 = bestOfThree([&] { direct(geometry(3, 3)); });
        const double d15 = bestOfThree([&] { direct(geometry(15, 15)); });
        c.directPerTap = std::max((d15 - d3) / (225 - 9), 1e-9) / mpx;
        c.directPerPixel = std::max(d3 / mpx - 9 * c.directPerTap, 0.0);
        auto pair = [&](int len) {
            const Geometry g = geometry(len, len);
            launchRowPass(in.get(), tmp.get(), g, k.get(), stream_);
            launchColPass(tmp.get(), out.get(), g, k.get(), false, true, stream_);
        };
        const double s3 = bestOfThree([&] { pair(3); }), s31 = bestOfThree([&] { pair(31); });
        c.separablePerTap = std::max((s31 - s3) / (62 - 6), 1e-9) / mpx;
        c.separablePerPixel = std::max(s3 / mpx - 6 * c.separablePerTap, 0.0);
        // FFT: forward, product and inverse at the transform size of a 9x9 kernel.
        const int n0 = detail::fftFriendlySize(n + 8), n1 = n0, n1c = n1 / 2 + 1;
        const Plans plans = plansFor(n0, n1, 1);
        Buffer<float> real;
        Buffer<float2> spec;
        real.reserve(size_t(n0) * n1);
        spec.reserve(size_t(n0) * n1c);
        const Geometry g9 = geometry(9, 9);
        const double f = bestOfThree([&] {
            launchPadEmbed(in.get(), real.get(), g9, planeLayout(g9, n0, n1), stream_);
            cufftExecR2C(plans.forward, real.get(), reinterpret_cast<cufftComplex*>(spec.get()));
            launchSpectrumProduct(spec.get(), spec.get(), (long long)n0 * n1c, 1, stream_);
            cufftExecC2R(plans.backward, reinterpret_cast<cufftComplex*>(spec.get()), real.get());
            launchCrop(real.get(), out.get(), g9, planeLayout(g9, n0, n1), stream_);
        });
        const double points = double(n0) * n1 * std::log2(double(n0) * n1) / 1e6;
        c.fftPerPoint = std::max((f - c.directPerPixel * mpx) / points, 1e-9);
        costs_ = c;
        return *costs_;
    }

    // One n x n channel, a kw x kh kernel anchored at its centre, border reflect: the scratch
    // runs of the calibration and of chooseTiledGrid.
    static Geometry scratchGeometry(int n, int kw, int kh)
    {
        Geometry g;
        g.w = g.h = n;
        g.channels = 1;
        g.kw = kw;
        g.kh = kh;
        g.ax = kw / 2;
        g.ay = kh / 2;
        g.mode = BorderMode::Reflect;
        return g;
    }

    // The best of three timed launches after a warm-up, in ms (CUDA events on the stream).
    template <class Launch> double bestOfThree(Launch&& launch)
    {
        cudaEvent_t e0, e1;
        check(cudaEventCreate(&e0), "event");
        check(cudaEventCreate(&e1), "event");
        launch(); // warm-up
        float bestMs = 1e30f;
        for (int i = 0; i < 3; ++i) {
            cudaEventRecord(e0, stream_);
            launch();
            cudaEventRecord(e1, stream_);
            const cudaError_t done = cudaEventSynchronize(e1);
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            bestMs = std::min(bestMs, ms);
            if (done != cudaSuccess) {
                cudaEventDestroy(e0);
                cudaEventDestroy(e1);
                check(done, "calibration");
            }
        }
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        return double(bestMs);
    }

    // The tiled direct kernel's candidate (launchers.h, tiledVariants: grids, loads, tile shapes,
    // register caps), chosen once by measurement: each runs a 3x3 kernel over the same 2048x2048
    // image (the bandwidth-bound case the candidates aim at), and the fastest whose outputs are
    // the default's bits is kept; one whose outputs differ is never used. CONVLAB_GPU_TILED_GRID=
    // <name> sets one instead (the sanitizer runs of tests/gpu/device-check.sh check each so).
    void chooseTiledGrid()
    {
        if (!choices_.empty()) return;
        const std::vector<TiledVariantInfo>& variants = tiledVariants();
        if (const char* forced = std::getenv("CONVLAB_GPU_TILED_GRID")) {
            const std::string name = forced;
            std::string names;
            for (const TiledVariantInfo& v : variants) {
                if (name == v.name) {
                    tiledGrid_ = v.grid;
                    choices_ = "tiled direct grid: " + name + " (CONVLAB_GPU_TILED_GRID)";
                    return;
                }
                names += (names.empty() ? "" : ", ") + std::string(v.name);
            }
            throw Error("CONVLAB_GPU_TILED_GRID is '" + name + "': one of " + names);
        }
        const int n = 2048;
        const size_t values = size_t(n) * n;
        std::vector<float> host(values);
        for (size_t i = 0; i < values; ++i) // values in [-0.5, 0.5) from a multiplicative hash: no pattern to the tiles
            host[i] = static_cast<float>((static_cast<std::uint32_t>(i) * 2654435761u) >> 8) / 16777216.0f - 0.5f;
        // 3 kernel rows padded to 4 values (tiled::shapeFor(g).kwp), any taps but zero.
        const float taps[12] = {0.25f, -1.0f, 0.5f, 0.0f, 2.0f, 0.125f, -0.75f, 0.0f, 1.0f, 0.375f, -0.5f, 0.0f};
        const Geometry g = scratchGeometry(n, 3, 3);
        DeviceBuffer<float> in, taps3, out;
        in.reserve(values);
        taps3.reserve(12);
        out.reserve(values);
        check(cudaMemcpyAsync(in.get(), host.data(), sizeof(float) * values, cudaMemcpyHostToDevice, stream_), "scratch");
        check(cudaMemcpyAsync(taps3.get(), taps, sizeof taps, cudaMemcpyHostToDevice, stream_), "scratch");
        std::vector<float> want(values), got(values);
        std::ostringstream note;
        note.precision(4);
        note << "tiled direct grid (3x3, " << n << "x" << n << "):";
        double bestMs = 0;
        const char* bestName = variants.front().name;
        tiledGrid_ = variants.front().grid;
        for (size_t i = 0; i < variants.size(); ++i) {
            const TiledVariantInfo& v = variants[i];
            note << (i ? ", " : " ") << v.name << " ";
            double ms = 0;
            try {
                // NaN bits first, so that an output a candidate leaves unwritten cannot match.
                check(cudaMemsetAsync(out.get(), 0xff, sizeof(float) * values, stream_), "scratch");
                ms = bestOfThree([&] { launchDirectTiled(in.get(), out.get(), g, taps3.get(), v.grid, stream_); });
                check(cudaMemcpyAsync((i ? got : want).data(), out.get(), sizeof(float) * values, cudaMemcpyDeviceToHost,
                                      stream_), "download");
                check(cudaStreamSynchronize(stream_), "download");
            } catch (const Error& e) {
                if (i == 0) throw; // the default must run
                note << "failed (" << e.what() << ")";
                continue;
            }
            note << ms << " ms";
            if (i > 0 && std::memcmp(want.data(), got.data(), sizeof(float) * values) != 0) {
                note << " (its outputs differ: not used)";
                continue;
            }
            if (i == 0 || ms < bestMs) {
                bestMs = ms;
                bestName = v.name;
                tiledGrid_ = v.grid;
            }
        }
        note << "; using " << bestName;
        choices_ = note.str();
    }

    // Each method's time on this device for the image held, from the measured costs.
    std::vector<MethodEstimate> estimateGpu(const Kernel& k, int rank, int channels, int w, int h)
    {
        const GpuCosts& c = costs();
        const double mpx = double(w) * h * channels / 1e6;
        const auto [n0, n1] = knownFftSides(h + k.height - 1, w + k.width - 1, channels);
        const double points = double(n0) * n1 * std::log2(double(n0) * n1) / 1e6 * channels;
        const double direct = mpx * (c.directPerPixel + c.directPerTap * k.width * k.height);
        const double separable = rank * mpx * (c.separablePerPixel + c.separablePerTap * (k.width + k.height));
        // The model knows only the plane with separate passes; once fftChoiceFor has timed the
        // layouts for this image and kernel size, the time of the one it kept is the estimate.
        const auto timed = fftLayoutMs_.find(std::make_tuple(w, h, k.width, k.height, channels));
        const double fft = timed != fftLayoutMs_.end() ? timed->second : mpx * c.directPerPixel + points * c.fftPerPoint;
        return {{Method::Direct, direct, 0}, {Method::Separable, separable, rank}, {Method::Fft, fft, 0}};
    }

    // The methods this device runs. A method absent here is run by the engine on the CPU
    // (NoGpuPath), with a notice; the reference, whose point is double precision, runs as
    // direct on the device and says so.
    using GpuRun = void (Session::*)(const Geometry&, const detail::Plan&, float*, EventClock&);
    struct GpuMethod {
        Method method;      // asked for
        Method runs;        // what runs (reported)
        GpuRun run;
        const char* notice; // or nullptr
    };
    static const GpuMethod* gpuMethodFor(Method m)
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
    void runDirectPlan(const Geometry& g, const detail::Plan& p, float* out, EventClock& c) { runDirect(g, p.kernel, out, c); }
    void runSeparablePlan(const Geometry& g, const detail::Plan& p, float* out, EventClock& c)
    {
        runSeparable(g, p.factors, out, c);
    }
    void runFftPlan(const Geometry& g, const detail::Plan& p, float* out, EventClock& c) { runFft(g, p.kernel, out, c); }

    void runDirect(const Geometry& g, const Kernel& k, float* out, EventClock& clock)
    {
        if (choices_.empty()) {
            chooseTiledGrid();
            clock.mark("choose the tiled grid (once per process)", true);
        }
        // The tiled kernel takes the kernel's rows padded with zeros to a multiple of 4 values.
        const int kwp = tiled::shapeFor(g).kwp;
        std::vector<float> padded(static_cast<size_t>(kwp) * k.height, 0.0f);
        for (int v = 0; v < k.height; ++v)
            std::copy_n(k.values.begin() + static_cast<size_t>(v) * k.width, k.width, padded.begin() + static_cast<size_t>(v) * kwp);
        kernel_.reserve(padded.size());
        check(cudaMemcpyAsync(kernel_.get(), padded.data(), sizeof(float) * padded.size(), cudaMemcpyHostToDevice, stream_),
              "kernel upload");
        clock.mark("upload");
        if (launchDirectTiled(src_.get(), out, g, kernel_.get(), tiledGrid_, stream_)) {
            clock.mark("convolve");
            return;
        }
        // A kernel whose tile exceeds this device's shared memory: the one-output-per-thread kernels.
        const bool constant = uploadConstantKernel(k.values.data(), static_cast<int>(k.values.size()), stream_);
        if (!constant) {
            kernel_.reserve(k.values.size());
            check(cudaMemcpyAsync(kernel_.get(), k.values.data(), sizeof(float) * k.values.size(), cudaMemcpyHostToDevice,
                                  stream_), "kernel upload");
        }
        launchDirect(src_.get(), out, g, kernel_.get(), constant, stream_);
        clock.mark("convolve");
    }

    void runSeparable(const Geometry& g, const detail::SeparableFactors& f, float* out, EventClock& clock)
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

    // The transform sides for a padded ph x pw image of `channels` planes, chosen once per padded
    // size. cuFFT's time per point depends on the sides' factors (tests/gpu/results, run 3: 0.61
    // ms at 4116 = 2^2 3 7^3 a side, 0.67 ms at 4200 = 2^3 3 5^2 7), so the smallest sides whose
    // factors go up to 7, to 5 and to 3 are each timed over the transform stage (forward,
    // product, inverse) and the fastest is kept; sides with over 30% more points than the
    // smallest are not tried. CONVLAB_GPU_FFT_SIZE=smallest keeps the smallest sides untimed.
    // The sides fftSidesFor chose for this padded size, or the smallest ones before it has.
    std::pair<int, int> knownFftSides(int ph, int pw, int channels) const
    {
        const auto chosen = fftSides_.find(std::make_tuple(ph, pw, channels));
        return chosen != fftSides_.end() ? chosen->second
                                         : std::pair{detail::fftFriendlySize(ph), detail::fftFriendlySize(pw)};
    }

    std::pair<int, int> fftSidesFor(int ph, int pw, int channels, EventClock& clock)
    {
        const auto key = std::make_tuple(ph, pw, channels);
        if (auto it = fftSides_.find(key); it != fftSides_.end()) return it->second;
        std::vector<std::pair<int, int>> candidates;
        for (int p : {7, 5, 3}) {
            const std::pair<int, int> s{detail::smoothSizeAtLeast(ph, p), detail::smoothSizeAtLeast(pw, p)};
            const double points = double(s.first) * s.second;
            if (std::find(candidates.begin(), candidates.end(), s) == candidates.end() &&
                (candidates.empty() || points <= 1.3 * double(candidates[0].first) * candidates[0].second))
                candidates.push_back(s);
        }
        const char* forced = std::getenv("CONVLAB_GPU_FFT_SIZE");
        const std::string policy = forced ? forced : "fastest";
        if (policy != "fastest" && policy != "smallest")
            throw Error("CONVLAB_GPU_FFT_SIZE is '" + policy + "': fastest or smallest");
        if (candidates.size() == 1 || policy == "smallest") return fftSides_[key] = candidates[0];
        std::ostringstream note;
        note.precision(4);
        note << "FFT sides for " << pw << "x" << ph << " padded, " << channels << " plane(s), width x height:";
        std::pair<int, int> best = candidates[0];
        double bestMs = INFINITY;
        std::vector<PlanKey> plannedHere;
        for (const auto& [n0, n1] : candidates) {
            const size_t realPer = size_t(n0) * n1, specPer = size_t(n0) * (n1 / 2 + 1);
            if (!plans_.count({n0, n1, channels, false})) plannedHere.push_back({n0, n1, channels, false});
            const Plans plans = plansFor(n0, n1, channels);
            fftReal_.reserve(realPer * channels);
            fftSpec_.reserve(specPer * channels);
            kernelSpec_.reserve(specPer);
            check(cudaMemsetAsync(fftReal_.get(), 0, sizeof(float) * realPer * channels, stream_), "scratch");
            check(cudaMemsetAsync(kernelSpec_.get(), 0, sizeof(float2) * specPer, stream_), "scratch");
            const double ms = bestOfThree([&] {
                checkFft(cufftExecR2C(plans.forward, fftReal_.get(), reinterpret_cast<cufftComplex*>(fftSpec_.get())),
                         "forward");
                launchSpectrumProduct(fftSpec_.get(), kernelSpec_.get(), static_cast<long long>(specPer), channels, stream_);
                checkFft(cufftExecC2R(plans.backward, reinterpret_cast<cufftComplex*>(fftSpec_.get()), fftReal_.get()),
                         "inverse");
            });
            note << " " << n1 << "x" << n0 << " " << ms << " ms";
            if (ms < bestMs) {
                bestMs = ms;
                best = {n0, n1};
            }
        }
        dropPlansMadeFor(plannedHere, {best.first, best.second, channels, false});
        note << "; using " << best.second << "x" << best.first;
        fftChoices_ += (fftChoices_.empty() ? "" : "\n") + note.str();
        spectrumKey_ = {}; // the timing ran over the kernel spectrum's buffer
        clock.mark("choose the FFT size (once per size)", true);
        return fftSides_[key] = best;
    }

    // The plans a timed choice made for the candidates it did not keep: their work areas go.
    void dropPlansMadeFor(const std::vector<PlanKey>& madeHere, const PlanKey& kept)
    {
        for (const PlanKey& key : madeHere) {
            const auto it = plans_.find(key);
            if (key == kept || it == plans_.end()) continue;
            cufftDestroy(it->second.forward);
            cufftDestroy(it->second.backward);
            plans_.erase(it);
        }
    }

    // A candidate (fftlayout.h, FftCandidate) in the choices' notes.
    static std::string describe(const FftCandidate& c)
    {
        std::ostringstream s;
        if (c.layout.tiles() == 1)
            s << "plane " << c.layout.n1 << "x" << c.layout.n0;
        else
            s << c.layout.tilesX << "x" << c.layout.tilesY << " tiles of " << c.layout.n1 << "x" << c.layout.n0;
        s << (c.fused ? ", passes fused" : ", separate passes");
        return s.str();
    }

    void runFft(const Geometry& g, const Kernel& k, float* out, EventClock& clock)
    {
        const auto [n0, n1] = fftSidesFor(g.h + g.kh - 1, g.w + g.kw - 1, g.channels, clock);
        const FftCandidate choice = fftChoiceFor(g, k, n0, n1, clock);
        const bool newPlans = !plans_.count(planKeyOf(choice, g.channels));
        preparePlans(choice, g.channels);
        if (newPlans) clock.mark(choice.fused ? "plan FFT size, link its callbacks (once)" : "plan FFT size (once)", true);
        uploadKernelSpectrum(k, choice.layout);
        clock.mark("upload");
        runFftAs(choice, g, out, &clock);
    }

    static PlanKey planKeyOf(const FftCandidate& c, int channels)
    {
        return {c.layout.n0, c.layout.n1, c.layout.batch(channels), c.fused};
    }

    // Plans and scratch for a choice (cached plans are reused).
    void preparePlans(const FftCandidate& c, int channels)
    {
        const FftLayout& l = c.layout;
        plansFor(l.n0, l.n1, l.batch(channels), c.fused);
        plansFor(l.n0, l.n1, 1); // the kernel's transform
        fftReal_.reserve(static_cast<size_t>(l.realPer()) * l.batch(channels));
        fftSpec_.reserve(static_cast<size_t>(l.specPer()) * l.batch(channels));
    }

    // The kernel's spectrum at the layout's transform size, scaled by 1/(n0 n1), cached by content
    // and size. Only the kw x kh taps travel; the plane is built on the device.
    void uploadKernelSpectrum(const Kernel& k, const FftLayout& l)
    {
        const auto key = std::make_tuple(l.n0, l.n1, k.width, k.height, k.values);
        if (key == spectrumKey_) return;
        const Plans kernelPlans = plansFor(l.n0, l.n1, 1);
        kernel_.reserve(k.values.size());
        check(cudaMemcpyAsync(kernel_.get(), k.values.data(), sizeof(float) * k.values.size(), cudaMemcpyHostToDevice,
                              stream_), "kernel upload");
        kernelReal_.reserve(static_cast<size_t>(l.realPer()));
        kernelSpec_.reserve(static_cast<size_t>(l.specPer()));
        launchKernelScatter(kernel_.get(), k.width, k.height, 1.0f / static_cast<float>(l.realPer()), kernelReal_.get(),
                            l.n0, l.n1, stream_);
        checkFft(cufftExecR2C(kernelPlans.forward, kernelReal_.get(), reinterpret_cast<cufftComplex*>(kernelSpec_.get())),
                 "kernel transform");
        spectrumKey_ = key;
    }

    // The transforms of a prepared choice, from the resident image into `out`; stage marks when
    // `clock` is given (none while choices are timed).
    void runFftAs(const FftCandidate& c, const Geometry& g, float* out, EventClock* clock)
    {
        const FftLayout& l = c.layout;
        const int batch = l.batch(g.channels);
        const Plans plans = plansFor(l.n0, l.n1, batch, c.fused);
        auto* spec = reinterpret_cast<cufftComplex*>(fftSpec_.get());
        if (c.fused) {
            FftFusion f;
            std::memset(&f, 0, sizeof f); // padding too: compared bytewise below
            f.src = src_.get();
            f.kernelSpectrum = kernelSpec_.get();
            f.out = out;
            f.g = g;
            f.l = l;
            // Uploaded when it changed (the result slots alternate, so usually every run). From
            // pageable memory: staged by the driver when the call returns, in stream order.
            if (std::memcmp(&f, &fusionUploaded_, sizeof f) != 0) {
                check(cudaMemcpyAsync(fusion_.get(), &f, sizeof f, cudaMemcpyHostToDevice, stream_), "callback data");
                fusionUploaded_ = f;
            }
            checkFft(cufftExecR2C(plans.forward, fftReal_.get(), spec), "forward (image loaded, product stored)");
            checkFft(cufftExecC2R(plans.backward, spec, fftReal_.get()), "inverse (outputs stored)");
            if (clock) clock->mark("transform (pad and crop fused)");
            return;
        }
        launchPadEmbed(src_.get(), fftReal_.get(), g, l, stream_);
        if (clock) clock->mark("pad");
        checkFft(cufftExecR2C(plans.forward, fftReal_.get(), spec), "forward");
        launchSpectrumProduct(fftSpec_.get(), kernelSpec_.get(), l.specPer(), batch, stream_);
        checkFft(cufftExecC2R(plans.backward, spec, fftReal_.get()), "inverse");
        if (clock) clock->mark("transform");
        launchCrop(fftReal_.get(), out, g, l, stream_);
        if (clock) clock->mark("crop");
    }

    // The FFT layout for this geometry, chosen once per image size, kernel size, planes and
    // border: every candidate runs on the resident image with this kernel, is timed (best of
    // three), and is kept only when its outputs agree with the plane's separate passes (the
    // path the tests hold to the CPU) within 5e-6 of the largest output the sum can give.
    // CONVLAB_GPU_FFT_LAYOUT=plane|plane-fused|tiles|tiles-fused takes that candidate untimed.
    FftCandidate fftChoiceFor(const Geometry& g, const Kernel& k, int n0, int n1, EventClock& clock)
    {
        const auto key = std::make_tuple(g.w, g.h, g.kw, g.kh, g.channels, static_cast<int>(g.mode), n0, n1);
        if (auto it = fftLayouts_.find(key); it != fftLayouts_.end()) return it->second;
        probeFusedFft();
        const char* forced = std::getenv("CONVLAB_GPU_FFT_LAYOUT");
        const std::string policy = forced ? forced : "fastest";
        const std::vector<FftCandidate> candidates = fftCandidates(g, n0, n1, fusedFft_, policy != "fastest");
        if (policy != "fastest") return fftLayouts_[key] = forcedCandidate(policy, candidates);
        if (candidates.size() == 1) return fftLayouts_[key] = candidates[0];

        const size_t values = static_cast<size_t>(g.w) * g.h * g.channels;
        DeviceBuffer<float> reference, trial, stats;
        reference.reserve(values);
        trial.reserve(values);
        stats.reserve(2);
        // The FFT's contract is 1e-5 of the largest output the sum can give (docs/semantics.md,
        // Tolerances); the reference's own error measured 1e-7 to 5e-7 of it on the CPU's
        // benchmarks, so a candidate allowed 5e-6 more stays within the contract.
        const double tolerance = 5e-6 * std::max(largestOutput(g, k, values, stats.get()), 1e-30);

        std::ostringstream note;
        note.precision(4);
        note << "FFT layout for " << g.w << "x" << g.h << ", " << g.kw << "x" << g.kh << ", " << g.channels
             << " plane(s), " << borderName(g.mode) << ":";
        FftCandidate best = candidates[0];
        double bestMs = INFINITY;
        std::vector<PlanKey> plannedHere;
        for (const FftCandidate& c : candidates) {
            const bool isReference = &c == &candidates[0];
            if (!plans_.count(planKeyOf(c, g.channels))) plannedHere.push_back(planKeyOf(c, g.channels));
            if (c.fused && !fusedFft_) continue; // an earlier fused candidate could not be linked
            const Trial t = tryCandidate(c, g, k, isReference ? reference.get() : trial.get(),
                                         isReference ? nullptr : reference.get(), values, stats.get());
            if (!t.failure.empty()) {
                if (isReference) throw Error(t.failure); // the path every other is checked against
                note << "\n  " << describe(c) << ": failed (" << t.failure << ")";
                if (c.fused && t.inPlanning) { // not tried again in this session: each try links anew
                    fusedFft_ = false;
                    fusedFftReason_ = t.failure;
                }
                continue;
            }
            const bool agrees = t.difference <= tolerance;
            note << "\n  " << describe(c) << ": " << t.ms << " ms (plans " << t.planMs << " ms)";
            if (!isReference) note << ", max difference " << t.difference << (agrees ? "" : ", too large: not used");
            if (agrees && t.ms < bestMs) {
                bestMs = t.ms;
                best = c;
            }
        }
        dropPlansMadeFor(plannedHere, planKeyOf(best, g.channels));
        spectrumKey_ = {}; // computed for the last candidate's size
        note << "\n  using " << describe(best);
        if (std::isfinite(bestMs)) fftLayoutMs_[std::make_tuple(g.w, g.h, g.kw, g.kh, g.channels)] = bestMs;
        fftChoices_ += (fftChoices_.empty() ? "" : "\n") + note.str();
        clock.mark("choose the FFT layout (once per size and border)", true);
        return fftLayouts_[key] = best;
    }

    // The candidate CONVLAB_GPU_FFT_LAYOUT names (plane, plane-fused, tiles, tiles-fused).
    FftCandidate forcedCandidate(const std::string& policy, const std::vector<FftCandidate>& candidates) const
    {
        const bool tiles = policy == "tiles" || policy == "tiles-fused";
        const bool fused = policy == "plane-fused" || policy == "tiles-fused";
        if (!tiles && !fused && policy != "plane")
            throw Error("CONVLAB_GPU_FFT_LAYOUT is '" + policy + "': fastest, plane, plane-fused, tiles or tiles-fused");
        for (const FftCandidate& c : candidates)
            if (c.tiled == tiles && c.fused == fused) return c;
        throw Error("CONVLAB_GPU_FFT_LAYOUT=" + policy + " has no candidate here" +
                    (fused && !fusedFft_ ? " (" + fusedFftReason_ + ")" : std::string()));
    }

    // |scale| max|image| sum|k| + |offset|: the largest output magnitude the sum can give.
    double largestOutput(const Geometry& g, const Kernel& k, size_t values, float* scratch2)
    {
        launchMaxDifference(src_.get(), src_.get(), static_cast<long long>(values), scratch2, stream_); // [1]: max|image|
        float stats[2] = {0, 0};
        check(cudaMemcpyAsync(stats, scratch2, sizeof stats, cudaMemcpyDeviceToHost, stream_), "download");
        check(cudaStreamSynchronize(stream_), "download");
        double taps = 0;
        for (float v : k.values) taps += std::fabs(v);
        return std::fabs(g.scale) * stats[1] * taps + std::fabs(g.offset);
    }

    // One candidate run on the resident image into `dst`: its plans made (and timed), best of
    // three timed runs, and its largest difference from `reference` when one is given; or why
    // it failed, and whether that was while its plans were made.
    struct Trial {
        double ms = 0, planMs = 0, difference = 0;
        std::string failure;
        bool inPlanning = false;
    };
    Trial tryCandidate(const FftCandidate& c, const Geometry& g, const Kernel& k, float* dst, const float* reference,
                       size_t values, float* scratch2)
    {
        Trial t;
        try {
            t.inPlanning = true;
            const auto t0 = std::chrono::steady_clock::now();
            preparePlans(c, g.channels);
            t.planMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            t.inPlanning = false;
            uploadKernelSpectrum(k, c.layout);
            t.ms = bestOfThree([&] { runFftAs(c, g, dst, nullptr); });
            if (reference) {
                launchMaxDifference(dst, reference, static_cast<long long>(values), scratch2, stream_);
                float diff[2] = {0, 0};
                check(cudaMemcpyAsync(diff, scratch2, sizeof diff, cudaMemcpyDeviceToHost, stream_), "download");
                check(cudaStreamSynchronize(stream_), "download");
                t.difference = diff[0];
            }
        } catch (const Error& e) {
            cudaGetLastError();
            t.failure = e.what();
        }
        return t;
    }

    // Whether cuFFT can take this library's callbacks: nvJitLink's version, or why not. cuFFT
    // opens nvJitLink by name when it links a callback; the library is not linked into the
    // binaries (it would add some 30 MB to every process), so it is opened here, from the
    // loader's path or else beside libcufft, and made global, so that cuFFT finds it loaded.
    void probeFusedFft()
    {
        if (fusedFftProbed_) return;
        fusedFftProbed_ = true;
        unsigned major = 0, minor = 0;
        void* lib = openNvJitLink();
        using Version = nvJitLinkResult (*)(unsigned*, unsigned*);
        const auto version = lib ? reinterpret_cast<Version>(dlsym(lib, "nvJitLinkVersion")) : nullptr;
        if (!lib) {
            fusedFftReason_ = "nvJitLink not found (" + dlerrorText() + ")";
        } else if (!version || version(&major, &minor) != NVJITLINK_SUCCESS) {
            fusedFftReason_ = "nvJitLink did not answer";
        } else if (fftCallbacksFatbin().empty()) {
            fusedFftReason_ = "no callbacks were built";
        } else {
            fusion_.reserve(1);
            fusedFft_ = true;
        }
        fftChoices_ += (fftChoices_.empty() ? "" : "\n") + std::string("FFT callbacks: ") +
                       (fusedFft_ ? "nvJitLink " + std::to_string(major) + "." + std::to_string(minor)
                                  : "unavailable, " + fusedFftReason_);
    }

    static std::string dlerrorText()
    {
        const char* e = dlerror();
        return e ? e : "no reason given";
    }

    // nvJitLink of this toolkit's major version (the one cuFFT asks for), kept open for the process.
    static void* openNvJitLink()
    {
        const std::string name = "libnvJitLink.so." + std::to_string(CUDART_VERSION / 1000);
        if (void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL)) return lib;
        Dl_info info{};
        if (dladdr(reinterpret_cast<void*>(&cufftCreate), &info) == 0 || !info.dli_fname) return nullptr;
        std::string path = info.dli_fname;
        path = path.substr(0, path.rfind('/') + 1) + name;
        return dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    }

    Plans plansFor(int n0, int n1, int batch, bool fused = false)
    {
        const auto key = std::make_tuple(n0, n1, batch, fused);
        if (auto it = plans_.find(key); it != plans_.end()) return it->second;
        int dims[2] = {n0, n1};
        const int realDist = n0 * n1, specDist = n0 * (n1 / 2 + 1);
        Plans p;
        checkFft(cufftCreate(&p.forward), "plan");
        if (cufftCreate(&p.backward) != CUFFT_SUCCESS) {
            cufftDestroy(p.forward);
            throw Error("cuFFT plan failed");
        }
        try {
            if (fused) attachCallbacks(p);
            size_t work = 0;
            checkFft(cufftMakePlanMany(p.forward, 2, dims, nullptr, 1, realDist, nullptr, 1, specDist, CUFFT_R2C, batch,
                                       &work), "plan");
            checkFft(cufftMakePlanMany(p.backward, 2, dims, nullptr, 1, specDist, nullptr, 1, realDist, CUFFT_C2R, batch,
                                       &work), "plan");
            checkFft(cufftSetStream(p.forward, stream_), "plan stream");
            checkFft(cufftSetStream(p.backward, stream_), "plan stream");
        } catch (...) {
            cufftDestroy(p.forward);
            cufftDestroy(p.backward);
            throw;
        }
        plans_[key] = p;
        return p;
    }

    // The three callbacks (fftcallbacks.h), set before the plans are made, as cuFFT requires;
    // all read the one FftFusion in device memory that runFftAs fills before each run.
    void attachCallbacks(Plans& p)
    {
        const auto fatbin = fftCallbacksFatbin();
        // cuFFT takes an array of callerInfo pointers (one per GPU); it lives with the session in
        // case cuFFT reads it again after this call.
        fusionInfo_ = fusion_.get();
        auto attach = [&](cufftHandle plan, const char* name, cufftXtCallbackType type) {
            checkFft(cufftXtSetJITCallback(plan, name, fatbin.data(), fatbin.size(), type, &fusionInfo_), name);
        };
        attach(p.forward, kFftLoadPadded, CUFFT_CB_LD_REAL);
        attach(p.forward, kFftStoreProduct, CUFFT_CB_ST_COMPLEX);
        attach(p.backward, kFftStoreCropped, CUFFT_CB_ST_REAL);
    }

    cudaStream_t stream_ = nullptr;
    std::string name_ = "CUDA device";
    int w_ = 0, h_ = 0, c_ = 0;
    SampleDepth depth_ = SampleDepth::F32;
    bool hasAlpha_ = false;
    std::optional<bool> nonFinite_; // the resident image has a NaN or infinite sample (unread: the device's flag)
    DeviceBuffer<int> nonFiniteFlag_;
    DeviceBuffer<float> pixels_;    // interleaved pixels as they travel
    HostLink link_;
    DeviceBuffer<float> src_, tmp_, kernel_, fftReal_, kernelReal_;
    DeviceBuffer<float> results_[2];
    std::mutex lastMutex_;
    int lastSlot_ = -1;      // the slot of the last finished run(), -1 before the first
    size_t lastValues_ = 0;
    cudaStream_t displayStream_ = nullptr;
    DeviceBuffer<float2> fftSpec_, kernelSpec_;
    DeviceBuffer<std::uint8_t> packed_;
    std::map<PlanKey, Plans> plans_;
    DeviceBuffer<FftFusion> fusion_;                          // the callbacks' data
    FftFusion fusionUploaded_{};                              // what fusion_ holds
    void* fusionInfo_ = nullptr;                              // fusion_ as cuFFT's callerInfo
    bool fusedFftProbed_ = false, fusedFft_ = false;
    std::string fusedFftReason_;
    std::map<std::tuple<int, int, int, int, int, int, int, int>, FftCandidate> fftLayouts_; // fftChoiceFor's choices
    std::map<std::tuple<int, int, int, int, int>, double> fftLayoutMs_; // the kept layout's ms (w, h, kw, kh, planes)
    std::tuple<int, int, int, int, std::vector<float>> spectrumKey_;
    struct Registration {
        cudaGraphicsResource_t resource = nullptr;
        size_t bytes = 0;
    };
    std::map<unsigned int, Registration> glBuffers_;
    std::optional<GpuCosts> costs_;
    TiledGrid tiledGrid_ = TiledGrid::BlockPerTile; // until chooseTiledGrid has timed every candidate
    std::string choices_;                           // what the tuning chose, and its times
    std::map<std::tuple<int, int, int>, std::pair<int, int>> fftSides_; // padded h, w, planes -> sides
    std::string fftChoices_;                                            // fftSidesFor's times, one line a size
};

} // namespace
} // namespace cuda

std::unique_ptr<GpuSession> GpuSession::create(std::string* reason)
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
