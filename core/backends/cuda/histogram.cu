// SPDX-License-Identifier: GPL-3.0-or-later
#include "histogram.h"
#include "cudacheck.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/error.h"

namespace convlab::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 512;        // per plane (count) or per image (range): enough to fill a GPU
constexpr int kSharedBins = 8192;      // 32 KiB of 32-bit counts a block; more bins count in global memory
constexpr int kSpecial = 5;            // below, above, NaN, +inf, -inf

// Device memory for one call, freed in stream order (the pool makes it cheap).
template <class T> class StreamMemory {
public:
    StreamMemory(size_t n, cudaStream_t s) : stream_(s)
    {
        check(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), sizeof(T) * std::max<size_t>(n, 1), s), "histogram allocation");
    }
    ~StreamMemory() { cudaFreeAsync(ptr_, stream_); }
    StreamMemory(const StreamMemory&) = delete;
    StreamMemory& operator=(const StreamMemory&) = delete;
    T* get() const { return ptr_; }

private:
    T* ptr_ = nullptr;
    cudaStream_t stream_;
};

struct RangePart {
    float lo, hi; // +inf, -inf when the block saw no finite value
    int whole;    // 1 when every finite value it saw is a whole number
};

template <class T, class Op> __device__ T blockReduce(T v, T* shared, Op op)
{
    shared[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + s]);
        __syncthreads();
    }
    const T r = shared[0];
    __syncthreads();
    return r;
}

struct MinOp {
    __device__ float operator()(float a, float b) const { return fminf(a, b); }
};
struct MaxOp {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct AndOp {
    __device__ int operator()(int a, int b) const { return a & b; }
};

__global__ void finiteRange(const float* values, long long n, RangePart* parts)
{
    __shared__ float sf[kThreads];
    __shared__ int si[kThreads];
    float lo = INFINITY, hi = -INFINITY;
    int whole = 1;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const float v = values[i];
        if (!isfinite(v)) continue;
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
        whole &= v == floorf(v);
    }
    lo = blockReduce(lo, sf, MinOp{});
    hi = blockReduce(hi, sf, MaxOp{});
    whole = blockReduce(whole, si, AndOp{});
    if (threadIdx.x == 0) parts[blockIdx.x] = {lo, hi, whole};
}

// Grid (blocks, channels). counts: channels x bins, special: channels x kSpecial (both zeroed
// before), ranges: channels x gridDim.x partial finite ranges.
__global__ void countBins(const float* planes, long long plane, int bins, double lo, double hi, double scale,
                          bool sharedBins, unsigned long long* counts, unsigned long long* special,
                          RangePart* ranges)
{
    extern __shared__ unsigned int local[]; // bins counts, then kSpecial
    const int c = blockIdx.y;
    const float* p = planes + plane * c;
    unsigned long long* globalCounts = counts + static_cast<long long>(bins) * c;
    unsigned int* localSpecial = local + (sharedBins ? bins : 0);
    for (int i = threadIdx.x; i < (sharedBins ? bins : 0) + kSpecial; i += blockDim.x) local[i] = 0;
    __syncthreads();
    float fmin = INFINITY, fmax = -INFINITY;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < plane;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const float v = p[i];
        if (!isfinite(v)) {
            atomicAdd(&localSpecial[isnan(v) ? 2 : v > 0 ? 3 : 4], 1u);
            continue;
        }
        fmin = fminf(fmin, v);
        fmax = fmaxf(fmax, v);
        if (v < lo) {
            atomicAdd(&localSpecial[0], 1u);
        } else if (v > hi) {
            atomicAdd(&localSpecial[1], 1u);
        } else {
            // As on the CPU: hi itself, or rounding at the top, belongs to the last bin.
            const unsigned long long b = static_cast<unsigned long long>((double(v) - lo) * scale);
            const int bin = static_cast<int>(b < static_cast<unsigned long long>(bins - 1) ? b : bins - 1);
            if (sharedBins)
                atomicAdd(&local[bin], 1u);
            else
                atomicAdd(&globalCounts[bin], 1ull);
        }
    }
    __shared__ float sf[kThreads];
    fmin = blockReduce(fmin, sf, MinOp{});
    fmax = blockReduce(fmax, sf, MaxOp{});
    __syncthreads();
    if (sharedBins)
        for (int i = threadIdx.x; i < bins; i += blockDim.x)
            if (local[i]) atomicAdd(&globalCounts[i], static_cast<unsigned long long>(local[i]));
    for (int i = threadIdx.x; i < kSpecial; i += blockDim.x)
        if (localSpecial[i]) atomicAdd(&special[kSpecial * c + i], static_cast<unsigned long long>(localSpecial[i]));
    if (threadIdx.x == 0) ranges[static_cast<long long>(gridDim.x) * c + blockIdx.x] = {fmin, fmax, 1};
}

int blocksFor(long long n) { return static_cast<int>(std::clamp<long long>((n + kThreads * 16 - 1) / (kThreads * 16), 1, kMaxBlocks)); }

void checkCancel(const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

} // namespace

Histogram deviceHistogram(const float* planes, int width, int height, int channels, int maxBins,
                          cudaStream_t stream, const std::atomic<bool>* cancel)
{
    if (maxBins < 1 || maxBins > kMaxHistogramBins)
        throw Error("histogram: " + std::to_string(maxBins) + " bins is outside 1.." + std::to_string(kMaxHistogramBins));
    if (width < 1 || height < 1 || channels < 1) throw Error("histogram: the image is empty");
    const long long plane = static_cast<long long>(width) * height;

    // Pass 1: the finite range of every channel together, and whether all values are whole.
    const int rangeBlocks = blocksFor(plane * channels);
    std::vector<RangePart> parts(static_cast<size_t>(rangeBlocks));
    {
        StreamMemory<RangePart> d(parts.size(), stream);
        finiteRange<<<rangeBlocks, kThreads, 0, stream>>>(planes, plane * channels, d.get());
        check(cudaGetLastError(), "histogram range pass");
        check(cudaMemcpyAsync(parts.data(), d.get(), sizeof(RangePart) * parts.size(), cudaMemcpyDeviceToHost, stream),
              "histogram range download");
        check(cudaStreamSynchronize(stream), "histogram range pass");
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    bool whole = true;
    for (const RangePart& p : parts) {
        lo = std::min(lo, double(p.lo));
        hi = std::max(hi, double(p.hi));
        whole = whole && p.whole;
    }
    checkCancel(cancel);
    const HistogramBins b = autoHistogramBins(lo <= hi, lo, hi, whole, maxBins);

    // Pass 2: the counts of each channel.
    Histogram h;
    h.lo = b.lo;
    h.hi = b.hi;
    h.bins = b.bins;
    const int blocks = blocksFor(plane);
    const bool sharedBins = b.bins <= kSharedBins;
    const size_t countValues = static_cast<size_t>(b.bins) * channels;
    std::vector<unsigned long long> counts(countValues), special(static_cast<size_t>(kSpecial) * channels);
    std::vector<RangePart> ranges(static_cast<size_t>(blocks) * channels);
    {
        StreamMemory<unsigned long long> dCounts(countValues, stream), dSpecial(special.size(), stream);
        StreamMemory<RangePart> dRanges(ranges.size(), stream);
        check(cudaMemsetAsync(dCounts.get(), 0, sizeof(unsigned long long) * countValues, stream), "histogram clear");
        check(cudaMemsetAsync(dSpecial.get(), 0, sizeof(unsigned long long) * special.size(), stream), "histogram clear");
        const size_t shared = sizeof(unsigned int) * ((sharedBins ? b.bins : 0) + kSpecial);
        countBins<<<dim3(blocks, channels), kThreads, shared, stream>>>(planes, plane, b.bins, b.lo, b.hi,
                                                                       b.bins / (b.hi - b.lo), sharedBins,
                                                                       dCounts.get(), dSpecial.get(), dRanges.get());
        check(cudaGetLastError(), "histogram count pass");
        check(cudaMemcpyAsync(counts.data(), dCounts.get(), sizeof(unsigned long long) * countValues,
                              cudaMemcpyDeviceToHost, stream), "histogram count download");
        check(cudaMemcpyAsync(special.data(), dSpecial.get(), sizeof(unsigned long long) * special.size(),
                              cudaMemcpyDeviceToHost, stream), "histogram count download");
        check(cudaMemcpyAsync(ranges.data(), dRanges.get(), sizeof(RangePart) * ranges.size(),
                              cudaMemcpyDeviceToHost, stream), "histogram count download");
        check(cudaStreamSynchronize(stream), "histogram count pass");
    }
    h.channels.resize(static_cast<size_t>(channels));
    for (int c = 0; c < channels; ++c) {
        ChannelHistogram& ch = h.channels[static_cast<size_t>(c)];
        const unsigned long long* cc = counts.data() + static_cast<size_t>(b.bins) * c;
        ch.counts.assign(cc, cc + b.bins);
        const unsigned long long* sp = special.data() + static_cast<size_t>(kSpecial) * c;
        ch.below = sp[0];
        ch.above = sp[1];
        ch.nan = sp[2];
        ch.posInf = sp[3];
        ch.negInf = sp[4];
        ch.finite = static_cast<std::uint64_t>(plane) - ch.nonFinite();
        float fmin = std::numeric_limits<float>::infinity(), fmax = -fmin;
        for (int k = 0; k < blocks; ++k) {
            fmin = std::min(fmin, ranges[static_cast<size_t>(blocks) * c + k].lo);
            fmax = std::max(fmax, ranges[static_cast<size_t>(blocks) * c + k].hi);
        }
        if (ch.finite) {
            ch.min = fmin;
            ch.max = fmax;
        }
    }
    return h;
}

} // namespace convlab::cuda
