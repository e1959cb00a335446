// SPDX-License-Identifier: GPL-3.0-or-later
// The executor: the one place that decides where a run goes and what happens when the GPU
// cannot take it (docs/architecture.md, The executor). convolve() (and through it the CLI,
// Python, Dask, the probe and export) uses the process's shared executor; the workbench keeps
// its own, whose session holds the image on the device between edits. Both follow the same
// rule: device auto weighs the CPU planner's estimate against the GPU's compute plus what the
// bus would move (chooseDevice, convlab/costs.h); a method without a CUDA path runs on the
// CPU, the session kept; a failing device is dropped (the next run starts a fresh one) and the
// run repeated on the CPU, with a notice.
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
};
// The footprint of a run over `image` that uploads it and downloads every result.
RunFootprint footprintOf(const ImagePlanes& image);
RunFootprint footprintOf(const PackedImage& image);

class Executor {
public:
    // Where sessions come from (default GpuSession::create): the one seam for a stand-in device.
    // Figures measured through another factory are not kept in the cache directory.
    using SessionFactory = std::function<std::unique_ptr<GpuSession>(std::string* why)>;
    // What an explicit `Device::Cuda` run does when the device fails or cannot start: convolve()
    // throws (the caller asked for CUDA and is told); the workbench runs on the CPU and says so,
    // so that an edit always shows a result.
    enum class ExplicitCuda { Throws, FallsBack };

    explicit Executor(ExplicitCuda explicitCuda = ExplicitCuda::Throws, SessionFactory factory = {});
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    // convolve()'s executor: one session per process, kept (its buffers, plans and measured
    // costs serve every later call). Never destroyed: the driver frees the device at exit.
    static Executor& shared();

    void setSessionFactory(SessionFactory factory);

    // How a run was placed and, on the GPU, how it went.
    struct Attempt {
        bool ran = false;           // on the GPU, to the end
        bool deviceFailed = false;  // the device failed (or could not start): repeat on the CPU
        std::string failure;        // what failed, for the notice (rerunOnCpuAfterGpuFailure)
        std::string notice;         // a method without a CUDA path: the CPU run should say this
        std::string reason;         // device auto's reason (empty for an explicit device)
    };
    // Places the run (Device::Cpu: nothing to do) and, on the GPU, calls `onGpu` with the
    // session; one-time stages (starting CUDA, measuring the bus, the planner's calibration)
    // are added to `stages`. Whatever `onGpu` throws other than convlab::Error (Cancelled,
    // bad_alloc) passes through. Call with runMutex() held when the executor is shared.
    Attempt tryGpu(const ConvolveParams& p, const RunFootprint& footprint, std::vector<StageTiming>* stages,
                   const std::function<void(GpuSession&)>& onGpu);

    // Device auto's choice (an explicit device is returned as it is). May start the session.
    DeviceChoice place(const ConvolveParams& p, const RunFootprint& footprint, std::vector<StageTiming>* stages);

    // The session, started on first use; null (and `why`) when CUDA cannot run here. A failed
    // start is remembered for device auto; `askAgain` (an explicit CUDA run) tries once more.
    GpuSession* session(std::string* why = nullptr, bool askAgain = false);
    // The session for a reader on another thread (the display's OpenGL copy); null when none.
    std::shared_ptr<GpuSession> sessionHandle() const;
    // After a device failure: the next run starts a fresh session (or runs on the CPU).
    void dropSession();

    // What the session holds on the device, as its caller names it (the workbench's source
    // image): a run over it uploads nothing. Forgotten with the session.
    bool holds(const std::shared_ptr<const void>& key) const;
    void noteHeld(std::shared_ptr<const void> key);

    // Serialises callers that share the executor (convolve() from several threads).
    std::mutex& runMutex() { return runMutex_; }

private:
    BusCosts busFigures(std::vector<StageTiming>* stages);

    const ExplicitCuda explicitCuda_;
    SessionFactory factory_;
    std::mutex runMutex_;
    mutable std::mutex sessionMutex_; // guards the pointer for sessionHandle(), not the session
    std::shared_ptr<GpuSession> session_;
    std::shared_ptr<const void> held_;
    bool tried_ = false;
    std::string why_;
    BusCosts bus_; // the session's measured transfers (unknown until device auto asks)
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
