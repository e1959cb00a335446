// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA session's class and the device helpers its files share (session*.cu).
#pragma once
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cudacheck.h"
#include "convlab/error.h"
#include "convlab/gpu.h"
#include "launchers.h"
#include "engine/calibrations.h"
#include "engine/plan.h"
#include "transfer.h"

namespace convlab::cuda {

inline void checkFft(cufftResult r, const char* what)
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
    Session();
    ~Session() override;

    void setImage(const ImagePlanes& image) override;
    void setImage(const PackedImage& packed) override;
    bool hasImage() const override { return w_ > 0; }
    std::string deviceName() const override { return name_; }
    std::string kernelChoices() const override;

    double copyBandwidthGBs() override;

    Image run(const ConvolveParams& params, RunReport* report) override;
    void runInto(const ConvolveParams& params, const OutputPlanes& out, RunReport* report) override;
    void runResident(const ConvolveParams& params, RunReport* report) override;
    void downloadLastResult(Image& out) override;
    void downloadLastResult(const OutputPlanes& out, const std::atomic<bool>* cancel) override;
    void readLastResultPixel(int x, int y, float* values) override;
    Histogram histogramOfLastResult(int maxBins, const std::atomic<bool>* cancel) override;
    double estimateMs(const ConvolveParams& params, int width, int height, int channels, bool hasAlpha) override;
    BusCosts busCosts() override;
    bool runOnDevice(const ConvolveParams& params, const DevicePlanes& planes, RunReport* report) override;
    // Orders the session's stream after the work queued so far on a caller's stream (0: none).
    void waitForCallerStream(std::uintptr_t stream);

    // The OpenGL interop (session_display.cu).
    void copyLastResultToGlBuffer(unsigned int glBuffer, size_t values) override;
    void runToGlBuffer(const ConvolveParams& params, unsigned int glBuffer, RunReport* report) override;
    void releaseGlBuffer(unsigned int glBuffer) override;

private:
    cudaGraphicsResource_t registered(unsigned int glBuffer, size_t bytes);
    void holdImage(int width, int height, int channels, SampleDepth depth, bool hasAlpha);

    struct Plans {
        cufftHandle forward = 0, backward = 0;
    };
    using PlanKey = std::tuple<int, int, int, bool>; // n0, n1, batch, callbacks

    void requireImage() const;
    void requireShape(const OutputPlanes& out) const;
    int lastResultSlot();
    void downloadInto(const float* planes, const OutputPlanes& out, const std::atomic<bool>* cancel);
    bool imageHasNonFinite();
    int computeIntoNextSlot(const ConvolveParams& params, RunReport& rep, EventClock& clock);
    void publish(int slot, size_t values);
    void compute(const ConvolveParams& p, float* out, RunReport& rep, EventClock& clock);

    // The measurements (session_tuning.cu).
    // The planner's constants for the methods this device runs (convlab/costs.h CostModel: ns
    // per value moved and per unit of the method's work, the units of its CostTerms), measured
    // once per device with CUDA events on a scratch 2048x2048 image and kept in the calibration
    // store, so auto prices GPU runs with the same terms as CPU runs (engine/planner.h).
    const CostModel& costs();
    static Geometry scratchGeometry(int n, int kw, int kh);

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

    void chooseTiledGrid();
    // The session's measurements kept between processes (engine/calibrations.h, section
    // "gpu-session", identity the device's name, compute capability and this build's version):
    // the planner's constants, the tiled grid and the transfer ways. Forced choices (the
    // CONVLAB_GPU_* variables) are neither read from nor written to it.
    std::string calibrationIdentity() const;
    detail::CalibrationValues& keptSection(); // read from the store on first use
    std::optional<std::string> keptValue(const std::string& key);
    void keepValues(const detail::CalibrationValues& values);
    // The transfer ways and bus figures of an earlier process on this device, when kept.
    void restoreTransfers();
    std::vector<MethodEstimate> estimateGpu(const Kernel& k, int rank, int channels, int w, int h);

    // The runs, method by method (session.cu).
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
    static const GpuMethod* gpuMethodFor(Method m);
    void runDirectPlan(const Geometry& g, const detail::Plan& p, float* out, EventClock& c);
    void runSeparablePlan(const Geometry& g, const detail::Plan& p, float* out, EventClock& c);
    void runFftPlan(const Geometry& g, const detail::Plan& p, float* out, EventClock& c);
    void runDirect(const Geometry& g, const Kernel& k, float* out, EventClock& clock);
    void runSeparable(const Geometry& g, const detail::SeparableFactors& f, float* out, EventClock& clock);

    // The FFT path (session_fft.cu).
    std::pair<int, int> knownFftSides(int ph, int pw, int channels) const;
    std::pair<int, int> fftSidesFor(int ph, int pw, int channels, EventClock& clock);
    void dropPlansMadeFor(const std::vector<PlanKey>& madeHere, const PlanKey& kept);
    static std::string describe(const FftCandidate& c);
    void runFft(const Geometry& g, const Kernel& k, float* out, EventClock& clock);
    static PlanKey planKeyOf(const FftCandidate& c, int channels);
    void preparePlans(const FftCandidate& c, int channels);
    void uploadKernelSpectrum(const Kernel& k, const FftLayout& l);
    void runFftAs(const FftCandidate& c, const Geometry& g, float* out, EventClock* clock);
    FftCandidate fftChoiceFor(const Geometry& g, const Kernel& k, int n0, int n1, EventClock& clock);
    FftCandidate forcedCandidate(const std::string& policy, const std::vector<FftCandidate>& candidates) const;
    double largestOutput(const Geometry& g, const Kernel& k, size_t values, float* scratch2);

    // One candidate run on the resident image into `dst`: its plans made (and timed), best of
    // three timed runs, and its largest difference from `reference` when one is given; or why
    // it failed, and whether that was while its plans were made.
    struct Trial {
        double ms = 0, planMs = 0, difference = 0;
        std::string failure;
        bool inPlanning = false;
    };
    Trial tryCandidate(const FftCandidate& c, const Geometry& g, const Kernel& k, float* dst, const float* reference,
                       size_t values, float* scratch2);
    void probeFusedFft();
    static std::string dlerrorText();
    static void* openNvJitLink();
    Plans plansFor(int n0, int n1, int batch, bool fused = false);
    void attachCallbacks(Plans& p);

    cudaStream_t stream_ = nullptr;
    std::string name_ = "CUDA device";
    int computeCapability_ = 0; // major * 10 + minor
    std::optional<detail::CalibrationValues> kept_; // the store's section, read on first use
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
    std::optional<CostModel> costs_;
    bool costsTimed_ = false;      // costs_ measured here (not read from the calibration store)
    bool tiledGridTimed_ = false;  // the same for tiledGrid_
    TiledGrid tiledGrid_ = TiledGrid::BlockPerTile; // until chooseTiledGrid has timed every candidate
    std::string choices_;                           // what the tuning chose, and its times
    std::map<std::tuple<int, int, int>, std::pair<int, int>> fftSides_; // padded h, w, planes -> sides
    std::string fftChoices_;                                            // fftSidesFor's times, one line a size
};

} // namespace convlab::cuda
