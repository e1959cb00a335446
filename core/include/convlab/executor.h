// SPDX-License-Identifier: GPL-3.0-or-later
// The executor: the one place that decides where a run goes and what happens when the GPU
// cannot take it (docs/architecture.md, The executor). convolve() (and through it the CLI,
// Python, Dask, the probe and export) uses the process's shared executor; the workbench keeps
// its own, whose session holds the image on the device between edits. Both follow the same
// rule: device auto weighs the CPU planner's estimate against each GPU backend's compute plus
// what its bus would move (chooseDevice, convlab/costs.h); a method without a GPU path runs on
// the CPU, the session kept; a failing device is dropped (the next run starts a fresh one) and
// the run repeated on the CPU, with a notice.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/gpu.h"

namespace convlab {

// What a run is, for placing it: the image's shape and what the bus would have to move.
struct RunFootprint {
    int width = 0, height = 0, channels = 0;
    bool hasAlpha = false;
    double uploadBytes = 0.0;   // the image as it travels (8/16-bit samples are fewer); 0: on the device already
    double downloadBytes = 0.0; // the float result; 0: nobody reads it on the host (it is drawn from the device)
    // The image as its caller names it (the workbench's source, see noteHeld): a backend whose
    // session holds it uploads nothing, the others pay uploadBytes.
    std::shared_ptr<const void> image;
};
// The footprint of a run over `image` that uploads it and downloads every result.
RunFootprint footprintOf(const ImagePlanes& image);
RunFootprint footprintOf(const PackedImage& image);

// One session per GPU backend of backends() (each row's startSession), started on first use and
// kept. "The session" below is the one of the backend the last GPU run went to (or was asked
// for): it holds the last result, which the display, the pixel read and the host copy read.
class Executor {
public:
    // Where a backend's sessions come from (default its row's startSession): the one seam for a
    // stand-in device. Figures measured through a stand-in are not kept in the cache directory.
    using SessionFactory = std::function<std::unique_ptr<GpuSession>(std::string* why)>;
    // What an explicit GPU run (-d cuda) does when the device fails or cannot start: convolve()
    // throws (the caller asked for that device and is told); the workbench runs on the CPU and
    // says so, so that an edit always shows a result.
    enum class ExplicitCuda { Throws, FallsBack };

    // `cudaStandIn`: the CUDA backend's factory (setSessionFactory for any backend).
    explicit Executor(ExplicitCuda explicitCuda = ExplicitCuda::Throws, SessionFactory cudaStandIn = {});
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    // convolve()'s executor: one session per backend per process, kept (its buffers, plans and
    // measured costs serve every later call). Never destroyed: the driver frees the device at exit.
    static Executor& shared();

    // Replaces `device`'s factory (an empty one: its row's startSession) and drops its session.
    void setSessionFactory(SessionFactory factory, Device device = Device::Cuda);

    // How a run was placed and, on the GPU, how it went.
    struct Attempt {
        bool ran = false;           // on the GPU, to the end
        bool deviceFailed = false;  // the device failed (or could not start): repeat on the CPU
        Device device = Device::Cpu; // the GPU backend it went to (Cpu: placed on the CPU)
        std::string failure;        // what failed, for the notice (rerunOnCpuAfterGpuFailure)
        std::string notice;         // a method without a GPU path: the CPU run should say this
        std::string reason;         // device auto's reason (empty for an explicit device)
    };
    // Places the run (Device::Cpu: nothing to do) and, on a GPU, calls `onGpu` with that
    // backend's session; one-time stages (starting the session, measuring the bus, the planner's
    // calibration) are added to `stages`. Whatever `onGpu` throws other than convlab::Error
    // (Cancelled, bad_alloc) passes through. Call with runMutex() held when the executor is shared.
    Attempt tryGpu(const ConvolveParams& p, const RunFootprint& footprint, std::vector<StageTiming>* stages,
                   const std::function<void(GpuSession&)>& onGpu);

    // Device auto's choice (an explicit device is returned as it is): the CPU planner's estimate
    // against each available GPU backend's compute plus its bus. May start sessions.
    DeviceChoice place(const ConvolveParams& p, const RunFootprint& footprint, std::vector<StageTiming>* stages);

    // `device`'s session, started on first use, from now on "the session"; null (and `why`)
    // when that backend cannot run here. A failed start is remembered for device auto;
    // `askAgain` (an explicit run) tries once more.
    GpuSession* session(Device device, std::string* why = nullptr, bool askAgain = false);
    // The session for a reader on another thread (the display's OpenGL copy); null when none.
    std::shared_ptr<GpuSession> sessionHandle() const;
    std::shared_ptr<GpuSession> sessionHandle(Device device) const; // that backend's, started or not
    // After a device failure: the next run on that backend starts a fresh session (or runs on
    // the CPU).
    void dropSession();

    // What the session holds on the device, as its caller names it (the workbench's source
    // image): a run over it uploads nothing. Forgotten with the session.
    bool holds(const std::shared_ptr<const void>& key) const;
    void noteHeld(std::shared_ptr<const void> key);

    // Serialises callers that share the executor (convolve() from several threads).
    std::mutex& runMutex() { return runMutex_; }

private:
    struct Backend; // one GPU backend's session and what the executor knows of it
    Backend& backend(Device device);
    const Backend& backend(Device device) const;
    GpuSession* start(Backend& b, std::string* why, bool askAgain);
    void drop(Backend& b);
    BusCosts busFigures(Backend& b, std::vector<StageTiming>* stages);
    struct Weighed;
    Weighed weigh(Backend& b, const ConvolveParams& p, const RunFootprint& f, const std::function<double()>& cpuMs,
                  std::vector<StageTiming>* stages);
    // weigh, with a failure while weighing (timing the bus or the costs) dropping the session
    // and answering the CPU.
    Weighed weighOrDrop(Backend& b, const ConvolveParams& p, const RunFootprint& f,
                        const std::function<double()>& cpuMs, std::vector<StageTiming>* stages);

    const ExplicitCuda explicitCuda_;
    std::mutex runMutex_;
    mutable std::mutex sessionMutex_; // guards the session pointers for sessionHandle(), not the sessions
    std::vector<std::unique_ptr<Backend>> backends_; // indexed by the Device value
    Device current_ = Device::Cuda;                   // "the session"'s backend
};

// The CPU's answer after a failed GPU run: `report` is replaced by the CPU run's, with a notice
// that says why the GPU run failed.
void rerunOnCpuAfterGpuFailure(const ImagePlanes& in, ConvolveParams params, Image& out, RunReport& report,
                               const std::string& why);
void rerunOnCpuAfterGpuFailure(const ImagePlanes& in, ConvolveParams params, const OutputPlanes& out,
                               RunReport& report, const std::string& why);

// A run over planes in GPU memory (convlab's Python arrays on CUDA), on the shared executor's
// session, the result written where the caller said: nothing crosses the bus and nothing falls
// back to the CPU (the values are not on the host). Returns whether the input held a NaN or an
// infinity. Throws convlab::Error when CUDA cannot run here, for device cpu, or for a method
// without a CUDA path.
bool convolveOnDevice(const ConvolveParams& params, const DevicePlanes& planes, RunReport* report = nullptr);

} // namespace convlab
