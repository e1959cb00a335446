// SPDX-License-Identifier: GPL-3.0-or-later
// Internal interface between the engine (engine.cpp, plan.cpp, planner.cpp) and the CPU
// methods (core/src/methods/, one file each). Every method computes a correlation with an
// already flipped kernel (correlationKernel), so the semantics live in one place:
//   out(y,x) = sum_{v,u} K(v,u) * in(y - ay + v, x - ax + u).
// Each method file ends with its MethodEngine, the row that the method's entry in
// convlab/modes.h points to: the engine and the planner reach a method only through it.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/costs.h"

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

struct SeparableFactors {
    int rank = 0;
    std::vector<std::vector<float>> columns; // rank x height (vertical factors, sqrt(s) folded)
    std::vector<std::vector<float>> rows;    // rank x width
    std::vector<double> singularValues;
};
SeparableFactors separableFactors(const Kernel& k);

struct Job {
    // The source: float planes (`in`), or, for direct and separable, 8/16-bit samples
    // converted as rows are padded (`packed`; `in` is then null).
    const ImagePlanes* in = nullptr;
    const PackedImage* packed = nullptr;
    int width = 0, height = 0;
    int channels = 0;          // planes 0..channels-1 are filtered
    // The output rows to compute, [rowBegin, rowEnd) (rowEnd 0: to the last): a band, for
    // methods whose engine runs bands (MethodEngine::runsBands), whose output then holds
    // only those rows (OutputPlanes::firstRow).
    int rowBegin = 0, rowEnd = 0;
    // The source (`in`) and the output are whole interleaved pixels of `channels` samples
    // (pixelStep == channels, plane c at sample c of the pixel, in and out alike), for methods
    // whose engine runs them (MethodEngine::runsWholePixels): each row is filtered as one row of
    // width * channels samples whose taps lie a pixel apart, every channel in one pass.
    bool wholePixels = false;
    Kernel kernel;             // correlation form, anchor resolved in ax()/ay()
    Border border;
    double scale = 1.0;        // final = scale * sum + offset
    double offset = 0.0;
    int threads = 1;
    const std::atomic<bool>* cancel = nullptr;
    const SeparableFactors* factors = nullptr; // the kernel's SVD, for methods that need it

    int lastRowEnd() const { return rowEnd > 0 ? rowEnd : height; }
    int rowCount() const { return lastRowEnd() - rowBegin; }

    void checkCancel() const
    {
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    }
};

// scale, divided by the kernel's sum when normalizing (zero-sum kernels are left alone, with
// a notice).
double effectiveScale(const ConvolveParams& p, std::vector<std::string>& notices);

// The shape of a run, as the planner prices it.
struct RunShape {
    int width = 0, height = 0, channels = 0;
    const Kernel* kernel = nullptr; // correlation form
    int rank = -1;                  // the kernel's rank (-1: not computed)
    int threads = 1;
};

// What a run costs in the units of the method's MethodCost (convlab/costs.h): estimated ns =
// (values x perValueNs + work x perWorkNs) / parallelism.
struct CostTerms {
    double values = 0.0;
    double work = 0.0;
    int parallelism = 1;
};

struct MethodEngine {
    bool readsPacked;  // converts 8/16-bit samples itself while it pads rows (else gets float planes)
    bool needsFactors; // runs from the kernel's SVD (Job::factors); auto weighs it only when the rank is known
    // Reads interleaved planes (ImagePlanes::pixelStep > 1) and computes any band of output rows
    // (Job::rowBegin..rowEnd), so the engine filters interleaved pixels in bands with no copy of
    // the whole image (else it makes planar copies).
    bool runsBands;
    // Filters whole interleaved pixels in place when the source and the output both are
    // (Job::wholePixels): no planar rows, no band, nothing interleaved afterwards.
    bool runsWholePixels;
    // Writes planes 0..job.channels-1 of `out` (the input's shape, or the job's band of rows;
    // pixelStep 1) and marks its stages on the clock.
    void (*run)(const Job& job, const OutputPlanes& out, StageClock& clock);
    // For the planner (both null for a method auto does not weigh): the terms of a run, and
    // the method's constants measured on small synthetic runs, single-threaded, once per
    // machine. `before` holds the constants of the methods measured before it (table order).
    CostTerms (*costTerms)(const RunShape& shape);
    MethodCost (*calibrate)(const CostModel& before);
    // Whether the method can run a shape at all (null: every shape); when not, `why` (if given)
    // says so in words. Auto weighs only methods that apply, and a method asked for by name that
    // does not is refused with the reason before anything runs.
    bool (*applies)(const RunShape& shape, std::string* why) = nullptr;
};

// Whether `engine` applies to `shape` (MethodEngine::applies; true when it has no rule).
bool methodApplies(const MethodEngine& engine, const RunShape& shape, std::string* why = nullptr);

// The engine of a method (throws convlab::Error for auto, which has none).
const MethodEngine& engineOf(Method method);

// Calibration helpers for the methods' `calibrate`: a single-channel job of random samples
// with a kw x kh kernel of equal taps, reflect border, one thread, on an image of the given
// shape (Streaming: 4096 x 256, rows streamed through the caches as on large images; Tile:
// 1024 x 144, one FFT tile); its output buffer and value count; and the best time of `runs`
// calls in the calling thread's CPU time, in ns.
enum class CalibrationShape { Streaming, Tile };
Job calibrationJob(int kw, int kh, CalibrationShape shape = CalibrationShape::Streaming);
Image& calibrationOutput(CalibrationShape shape = CalibrationShape::Streaming);
double bestOfNs(int runs, const std::function<void()>& fn);
double calibrationValues(CalibrationShape shape = CalibrationShape::Streaming);
// The two constants of a method whose work per value is `workA` in run `a` and `workB` in run
// `b` (taps, say): the difference of the two best times is the per-work cost; the per-value
// cost is the rest of `a`'s time when `a` runs again on a plane streamed from memory.
MethodCost fitTwoRuns(const Job& a, double workA, const Job& b, double workB,
                      void (*run)(const Job&, const OutputPlanes&, StageClock&));

// The methods, called directly by their engines and by the calibrations.
void runReference(const Job& job, const OutputPlanes& out, StageClock& clock);
void runDirect(const Job& job, const OutputPlanes& out, StageClock& clock);
void runSeparable(const Job& job, const OutputPlanes& out, StageClock& clock); // from *job.factors
void runFft(const Job& job, const OutputPlanes& out, StageClock& clock);

// Smallest n' >= n of the form 2^a 3^b 5^c 7^d (the CUDA session's sides).
int fftFriendlySize(int n);
// The CPU's transform sides: what a point of side n costs FFTW relative to a side of 2s and at
// most one 3 (1), or 0 where n is not offered; and the smallest offered side at least n.
double fftSideWeight(int n);
int fastFftSideAtLeast(int n);
// Smallest n' >= n whose prime factors are at most largestPrime (2, 3, 5 or 7).
int smoothSizeAtLeast(int n, int largestPrime);

// Overlap-save tiling of a w x h image for a kw x kh kernel: transform size n0 x n1, output
// tile outW x outH, tilesX x tilesY tiles.
struct FftTiling {
    int n0 = 0, n1 = 0, outW = 0, outH = 0, tilesX = 0, tilesY = 0;
};
FftTiling fftTiling(int w, int h, int kw, int kh);

} // namespace convlab::detail
