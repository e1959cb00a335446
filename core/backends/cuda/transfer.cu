// SPDX-License-Identifier: GPL-3.0-or-later
#include "transfer.h"
#include "cudacheck.h"
#include "launchplan.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "engine/threadpool.h"

namespace convlab::cuda {
namespace {

// memcpy over the process's threads: one thread moves 10-20 GB/s, short of the bus; slices of
// at least 1 MiB, so small copies stay on the calling thread.
void parallelCopy(char* to, const char* from, std::size_t bytes)
{
    constexpr std::size_t kSlice = std::size_t(1) << 20;
    const int slices = static_cast<int>((bytes + kSlice - 1) / kSlice);
    if (slices <= 1) {
        std::memcpy(to, from, bytes);
        return;
    }
    detail::parallelFor(slices, detail::resolveThreads(0), [&](int begin, int end) {
        const std::size_t a = std::size_t(begin) * kSlice, b = std::min(bytes, std::size_t(end) * kSlice);
        std::memcpy(to + a, from + a, b - a);
    });
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

__global__ void gatherPixelsKernel(const float* __restrict__ pixels, float* __restrict__ planes, long long planeSize,
                                   int channels, int step, int4 order)
{
    const int at[4] = {order.x, order.y, order.z, order.w};
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < planeSize;
         i += (long long)gridDim.x * blockDim.x)
        for (int c = 0; c < channels; ++c) planes[c * planeSize + i] = pixels[i * step + at[c]];
}

__global__ void scatterPixelsKernel(const float* __restrict__ planes, float* __restrict__ pixels, long long planeSize,
                                    int channels, int4 order)
{
    const int at[4] = {order.x, order.y, order.z, order.w};
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < planeSize;
         i += (long long)gridDim.x * blockDim.x)
        for (int c = 0; c < channels; ++c) pixels[i * channels + at[c]] = planes[c * planeSize + i];
}

__global__ void flagNonFiniteKernel(const float* __restrict__ values, long long n, int* flag)
{
    bool bad = false;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        bad |= !isfinite(values[i]);
    if (__syncthreads_or(bad) && threadIdx.x == 0) *flag = 1;
}

unsigned gridFor(long long n)
{
    return static_cast<unsigned>(transferLaunch(n).grid.x);
}

} // namespace

const char* transferWayName(TransferWay w)
{
    switch (w) {
    case TransferWay::Pageable: return "pageable";
    case TransferWay::Staged: return "staged";
    case TransferWay::Registered: return "registered";
    }
    return "?";
}

std::optional<TransferWay> transferWayNamed(const std::string& name)
{
    for (TransferWay w : {TransferWay::Pageable, TransferWay::Staged, TransferWay::Registered})
        if (name == transferWayName(w)) return w;
    return std::nullopt;
}

void HostLink::restore(const TransferFigures& figures)
{
    figures_ = figures;
    calibrated_ = true;
}

HostLink::~HostLink()
{
    for (int i = 0; i < 2; ++i) {
        if (chunkDone_[i]) cudaEventDestroy(chunkDone_[i]);
        if (pinned_[i]) cudaFreeHost(pinned_[i]);
    }
}

void HostLink::ensureStaging()
{
    for (int i = 0; i < 2; ++i) {
        if (!pinned_[i]) {
            void* p = nullptr;
            check(cudaMallocHost(&p, kChunkBytes), "pinned allocation");
            pinned_[i] = static_cast<char*>(p);
        }
        if (!chunkDone_[i]) check(cudaEventCreateWithFlags(&chunkDone_[i], cudaEventDisableTiming), "event");
    }
}

void HostLink::force(TransferWay way)
{
    figures_.up = figures_.down = way;
    forced_ = true;
}

void HostLink::upload(const void* host, void* device, std::size_t bytes, cudaStream_t stream)
{
    if (bytes == 0) return;
    if (!calibrated_ && !forced_ && bytes >= 4 * kChunkBytes) calibrate(stream);
    uploadAs(bytes < kSmallBytes ? TransferWay::Pageable : figures_.up, host, device, bytes, stream);
}

void HostLink::download(const void* device, void* host, std::size_t bytes, cudaStream_t stream,
                        const std::atomic<bool>* cancel)
{
    if (bytes == 0) return;
    if (!calibrated_ && !forced_ && bytes >= 4 * kChunkBytes) calibrate(stream);
    downloadAs(bytes < kSmallBytes ? TransferWay::Pageable : figures_.down, device, host, bytes, stream, cancel);
}

void HostLink::uploadAs(TransferWay way, const void* host, void* device, std::size_t bytes, cudaStream_t stream)
{
    if (way == TransferWay::Registered && registeredCopy(host, nullptr, nullptr, device, bytes, stream)) return;
    if (way == TransferWay::Staged || way == TransferWay::Registered) // registering refused: staged instead
        return stagedUpload(static_cast<const char*>(host), static_cast<char*>(device), bytes, stream);
    check(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream), "upload");
    check(cudaStreamSynchronize(stream), "upload");
}

void HostLink::downloadAs(TransferWay way, const void* device, void* host, std::size_t bytes, cudaStream_t stream,
                          const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load()) throw Cancelled();
    if (way == TransferWay::Registered && registeredCopy(nullptr, host, device, nullptr, bytes, stream)) return;
    if (way == TransferWay::Staged || way == TransferWay::Registered)
        return stagedDownload(static_cast<const char*>(device), static_cast<char*>(host), bytes, stream, cancel);
    check(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream), "download");
    check(cudaStreamSynchronize(stream), "download");
}

// Chunk i is copied into pinned buffer i % 2 by the host threads once the DMA of chunk i - 2
// has left it; the DMA of chunk i - 1 runs meanwhile.
void HostLink::stagedUpload(const char* host, char* device, std::size_t bytes, cudaStream_t stream)
{
    ensureStaging();
    const std::size_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
    for (std::size_t i = 0; i < chunks; ++i) {
        const int b = static_cast<int>(i % 2);
        const std::size_t at = i * kChunkBytes, n = std::min(kChunkBytes, bytes - at);
        if (i >= 2) check(cudaEventSynchronize(chunkDone_[b]), "upload");
        parallelCopy(pinned_[b], host + at, n);
        check(cudaMemcpyAsync(device + at, pinned_[b], n, cudaMemcpyHostToDevice, stream), "upload");
        check(cudaEventRecord(chunkDone_[b], stream), "upload");
    }
    check(cudaStreamSynchronize(stream), "upload");
}

// Chunks 0 and 1 are queued behind the stream's work; as chunk i lands, the host threads copy
// it out and chunk i + 2 is queued into the buffer it leaves, so the DMA of chunk i + 1 runs
// while the host copies chunk i.
void HostLink::stagedDownload(const char* device, char* host, std::size_t bytes, cudaStream_t stream,
                              const std::atomic<bool>* cancel)
{
    ensureStaging();
    const std::size_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
    auto queue = [&](std::size_t i) {
        const int b = static_cast<int>(i % 2);
        const std::size_t at = i * kChunkBytes, n = std::min(kChunkBytes, bytes - at);
        check(cudaMemcpyAsync(pinned_[b], device + at, n, cudaMemcpyDeviceToHost, stream), "download");
        check(cudaEventRecord(chunkDone_[b], stream), "download");
    };
    for (std::size_t i = 0; i < std::min<std::size_t>(chunks, 2); ++i) queue(i);
    for (std::size_t i = 0; i < chunks; ++i) {
        const int b = static_cast<int>(i % 2);
        const std::size_t at = i * kChunkBytes, n = std::min(kChunkBytes, bytes - at);
        check(cudaEventSynchronize(chunkDone_[b]), "download");
        if (cancel && cancel->load()) {
            cudaStreamSynchronize(stream); // the queued chunk must land before its buffer is reused
            throw Cancelled();
        }
        parallelCopy(host + at, pinned_[b], n);
        if (i + 2 < chunks) queue(i + 2);
    }
}

// The caller's memory pinned for one DMA. False (nothing copied) when the driver refuses to pin
// it (memory already registered, a mapping it cannot pin): the caller stages instead.
bool HostLink::registeredCopy(const void* host, void* hostWritable, const void* device, void* deviceWritable,
                              std::size_t bytes, cudaStream_t stream)
{
    void* pin = hostWritable ? hostWritable : const_cast<void*>(host);
    // Sources are only read: read-only registration also takes memory mapped read-only (a
    // NumPy memmap of a .npy file).
    const unsigned flags = hostWritable ? cudaHostRegisterDefault : cudaHostRegisterReadOnly;
    if (cudaHostRegister(pin, bytes, flags) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    cudaError_t err = hostWritable ? cudaMemcpyAsync(hostWritable, device, bytes, cudaMemcpyDeviceToHost, stream)
                                   : cudaMemcpyAsync(deviceWritable, host, bytes, cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
    cudaHostUnregister(pin);
    check(err, hostWritable ? "download" : "upload");
    return true;
}

const TransferFigures& HostLink::calibrate(cudaStream_t stream)
{
    if (calibrated_) return figures_;
    // Marked calibrated only once measured (at the end): a failure here leaves the link as it was.
    constexpr std::size_t kBytes = std::size_t(64) << 20; // a 4096x4096 float plane
    std::vector<char> host(kBytes);
    std::memset(host.data(), 1, kBytes); // pages backed before they are timed
    void* device = nullptr;
    void* pinned = nullptr;
    check(cudaMalloc(&device, kBytes), "allocation (out of device memory?)");
    if (cudaMallocHost(&pinned, kBytes) != cudaSuccess) {
        cudaFree(device);
        check(cudaGetLastError(), "pinned allocation");
    }
    auto best = [&](auto&& copy) {
        double ms = 1e30;
        for (int i = 0; i < 3; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            copy();
            ms = std::min(ms, msSince(t0));
        }
        return ms;
    };
    auto gbs = [](std::size_t bytes, double ms) { return double(bytes) / (ms * 1e6); };
    std::ostringstream note;
    note.precision(3);
    try {
        figures_.bus.pinnedUpGBs = gbs(kBytes, best([&] {
            check(cudaMemcpyAsync(device, pinned, kBytes, cudaMemcpyHostToDevice, stream), "upload");
            check(cudaStreamSynchronize(stream), "upload");
        }));
        figures_.bus.pinnedDownGBs = gbs(kBytes, best([&] {
            check(cudaMemcpyAsync(pinned, device, kBytes, cudaMemcpyDeviceToHost, stream), "download");
            check(cudaStreamSynchronize(stream), "download");
        }));
        figures_.bus.latencyMs = best([&] {
            check(cudaMemcpyAsync(pinned, device, 4, cudaMemcpyDeviceToHost, stream), "download");
            check(cudaStreamSynchronize(stream), "download");
        });
        note << "host transfers (64 MiB; pinned memory " << figures_.bus.pinnedUpGBs << " GB/s up, "
             << figures_.bus.pinnedDownGBs << " down, round trip " << figures_.bus.latencyMs * 1e3 << " us):";
        double upBest = 0, downBest = 0;
        for (TransferWay way : {TransferWay::Pageable, TransferWay::Staged, TransferWay::Registered}) {
            const double up = gbs(kBytes, best([&] { uploadAs(way, host.data(), device, kBytes, stream); }));
            const double down = gbs(kBytes, best([&] { downloadAs(way, device, host.data(), kBytes, stream, nullptr); }));
            note << " " << transferWayName(way) << " " << up << " up, " << down << " down;";
            if (!forced_ && up > upBest) {
                upBest = up;
                figures_.up = way;
            }
            if (!forced_ && down > downBest) {
                downBest = down;
                figures_.down = way;
            }
            if (forced_ && way == figures_.up) upBest = up;
            if (forced_ && way == figures_.down) downBest = down;
        }
        figures_.bus.uploadGBs = upBest;
        figures_.bus.downloadGBs = downBest;
        note << " using " << transferWayName(figures_.up) << " up, " << transferWayName(figures_.down) << " down"
             << (forced_ ? " (CONVLAB_GPU_TRANSFER)" : "");
        figures_.note = note.str();
    } catch (...) {
        cudaFreeHost(pinned);
        cudaFree(device);
        throw;
    }
    cudaFreeHost(pinned);
    cudaFree(device);
    calibrated_ = true;
    if (!forced_ && onCalibrated_) onCalibrated_(figures_);
    return figures_;
}

void launchGatherPixels(const float* pixels, float* planes, long long planeSize, int channels, int step,
                        const int order[4], cudaStream_t stream)
{
    gatherPixelsKernel<<<gridFor(planeSize), 256, 0, stream>>>(pixels, planes, planeSize, channels, step,
                                                               make_int4(order[0], order[1], order[2], order[3]));
    check(cudaGetLastError(), "gather pixels");
}

void launchScatterPixels(const float* planes, float* pixels, long long planeSize, int channels, const int order[4],
                         cudaStream_t stream)
{
    scatterPixelsKernel<<<gridFor(planeSize), 256, 0, stream>>>(planes, pixels, planeSize, channels,
                                                                make_int4(order[0], order[1], order[2], order[3]));
    check(cudaGetLastError(), "scatter pixels");
}

void launchFlagNonFinite(const float* values, long long n, int* flag, cudaStream_t stream)
{
    check(cudaMemsetAsync(flag, 0, sizeof(int), stream), "non-finite flag");
    flagNonFiniteKernel<<<gridFor(n), 256, 0, stream>>>(values, n, flag);
    check(cudaGetLastError(), "non-finite check");
}

} // namespace convlab::cuda
