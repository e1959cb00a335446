// SPDX-License-Identifier: GPL-3.0-or-later
// Host <-> device copies at the bus's speed. A copy from pageable memory is staged by the driver
// through a small pinned buffer, one piece after another on one host thread: 8.9 GB/s up and
// 16.5 down on the H200's host where pinned memory moved 55 each way. Three ways are built and
// the session times each on its first large transfer (a calibration, once per device: the ways
// kept are stored, engine/calibrations.h):
//   pageable   - cudaMemcpyAsync from the caller's memory, as the driver does it;
//   staged     - two pinned chunks of 8 MiB: the host threads copy chunk i+1 into one while
//                the DMA engine moves chunk i out of the other;
//   registered - the caller's memory pinned for the call (cudaHostRegister), moved in one DMA,
//                unpinned; pays the pinning, saves the host copy.
// Each direction keeps the fastest. The figures are the bus costs the device choice reads.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "convlab/costs.h"

namespace convlab::cuda {

enum class TransferWay { Pageable, Staged, Registered };
const char* transferWayName(TransferWay w);
// The way of that name (nullopt for another text).
std::optional<TransferWay> transferWayNamed(const std::string& name);

struct TransferFigures {
    TransferWay up = TransferWay::Pageable, down = TransferWay::Pageable;
    BusCosts bus; // the ways kept, pinned memory (the yardstick) and a small copy's round trip
    std::string note;                          // every way's figures, for kernelChoices()
};

class HostLink {
public:
    HostLink() = default;
    HostLink(const HostLink&) = delete;
    HostLink& operator=(const HostLink&) = delete;
    ~HostLink();

    // Host memory to device memory; returns when the copy is complete on `stream`.
    void upload(const void* host, void* device, std::size_t bytes, cudaStream_t stream);
    // Device memory to host memory, after the work queued on `stream`; returns when the host
    // holds it. `cancel`, raised, stops between chunks (convlab::Cancelled, the host memory
    // partly written).
    void download(const void* device, void* host, std::size_t bytes, cudaStream_t stream,
                  const std::atomic<bool>* cancel = nullptr);

    // Times the three ways each way (about 60 ms, once); later transfers use the fastest.
    const TransferFigures& calibrate(cudaStream_t stream);
    bool calibrated() const { return calibrated_; }
    const TransferFigures& figures() const { return figures_; }
    // Forces a way for both directions (CONVLAB_GPU_TRANSFER, the device check's A/B runs).
    void force(TransferWay way);
    bool forced() const { return forced_; }
    // Takes figures measured by an earlier process on this device (the calibration store)
    // instead of timing the ways again.
    void restore(const TransferFigures& figures);
    // Called once the ways have been timed here (not when forced or restored), to keep them.
    void setOnCalibrated(std::function<void(const TransferFigures&)> keep) { onCalibrated_ = std::move(keep); }

private:
    void uploadAs(TransferWay way, const void* host, void* device, std::size_t bytes, cudaStream_t stream);
    void downloadAs(TransferWay way, const void* device, void* host, std::size_t bytes, cudaStream_t stream,
                    const std::atomic<bool>* cancel);
    void stagedUpload(const char* host, char* device, std::size_t bytes, cudaStream_t stream);
    void stagedDownload(const char* device, char* host, std::size_t bytes, cudaStream_t stream,
                        const std::atomic<bool>* cancel);
    bool registeredCopy(const void* host, void* hostWritable, const void* device, void* deviceWritable,
                        std::size_t bytes, cudaStream_t stream);
    void ensureStaging();

    static constexpr std::size_t kChunkBytes = std::size_t(8) << 20;
    // Below this a transfer goes pageable: one driver copy costs less than any set-up.
    static constexpr std::size_t kSmallBytes = std::size_t(1) << 20;
    char* pinned_[2] = {nullptr, nullptr};
    cudaEvent_t chunkDone_[2] = {nullptr, nullptr};
    TransferFigures figures_;
    bool calibrated_ = false;
    bool forced_ = false;
    std::function<void(const TransferFigures&)> onCalibrated_;
};

// Device-side regrouping of interleaved pixels: `pixels` (width*height pixels `step` floats
// apart, plane c at sample order[c]) into planes of their own, and back (step = channels).
void launchGatherPixels(const float* pixels, float* planes, long long planeSize, int channels, int step,
                        const int order[4], cudaStream_t stream);
void launchScatterPixels(const float* planes, float* pixels, long long planeSize, int channels, const int order[4],
                         cudaStream_t stream);
// Sets *flag (device memory, zeroed first) to 1 when any of `n` values is NaN or infinite.
void launchFlagNonFinite(const float* values, long long n, int* flag, cudaStream_t stream);

} // namespace convlab::cuda
