// SPDX-License-Identifier: GPL-3.0-or-later
// Internal interface between the engine's prologue (engine.cpp) and the CPU methods. Every
// method computes a correlation with an already flipped kernel (correlationKernel), so the
// semantics live in one place:  out(y,x) = sum_{v,u} K(v,u) * in(y - ay + v, x - ax + u).
#pragma once
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "convlab/convolve.h"

namespace convlab::detail {

// Records named stage durations into a RunReport (or nowhere).
class StageClock {
public:
    explicit StageClock(std::vector<StageTiming>* sink) : sink_(sink) { restart(); }
    void restart() { t0_ = std::chrono::steady_clock::now(); }
    // Adds the time since the last mark to stage `name` (merging repeated names) and restarts;
    // `once` marks a one-time cost (StageTiming::once).
    void mark(const char* name, bool once = false);

private:
    std::vector<StageTiming>* sink_;
    std::chrono::steady_clock::time_point t0_;
};

struct Job {
    // The source: float planes (`in`), or, for direct and separable, 8/16-bit samples
    // converted as rows are padded (`packed`; `in` is then null).
    const Image* in = nullptr;
    const PackedImage* packed = nullptr;
    int width = 0, height = 0;
    int channels = 0;          // planes 0..channels-1 are filtered
    Kernel kernel;             // correlation form, anchor resolved in ax()/ay()
    Border border;
    double scale = 1.0;        // final = scale * sum + offset
    double offset = 0.0;
    int threads = 1;
    const std::atomic<bool>* cancel = nullptr;

    void checkCancel() const
    {
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    }
};

// scale, divided by the kernel's sum when normalizing (zero-sum kernels are left alone, with
// a notice).
double effectiveScale(const ConvolveParams& p, std::vector<std::string>& notices);

// Each writes planes 0..job.channels-1 of `out` (already allocated with the input's shape).
void runReference(const Job& job, Image& out);
void runDirect(const Job& job, Image& out, StageClock& clock);
struct SeparableFactors {
    int rank = 0;
    std::vector<std::vector<float>> columns; // rank x height (vertical factors, sqrt(s) folded)
    std::vector<std::vector<float>> rows;    // rank x width
    std::vector<double> singularValues;
};
SeparableFactors separableFactors(const Kernel& k);
void runSeparable(const Job& job, const SeparableFactors& f, Image& out, StageClock& clock);
void runFft(const Job& job, Image& out, StageClock& clock);

// Smallest n' >= n of the form 2^a 3^b 5^c 7^d.
int fftFriendlySize(int n);

// Overlap-save tiling of a w x h image for a kw x kh kernel: transform size n0 x n1, output
// tile outW x outH, tilesX x tilesY tiles.
struct FftTiling {
    int n0 = 0, n1 = 0, outW = 0, outH = 0, tilesX = 0, tilesY = 0;
};
FftTiling fftTiling(int w, int h, int kw, int kh);

} // namespace convlab::detail
