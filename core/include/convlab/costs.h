// SPDX-License-Identifier: GPL-3.0-or-later
// What the planner knows: the kernel's rank, the measured cost of each method on this CPU,
// the corrections learnt from runs, and how FFT sizes are planned (docs/architecture.md,
// The plan step).
#pragma once
#include <compare>
#include <array>
#include <string>
#include <vector>

#include "convlab/kernel.h"
#include "convlab/convolve.h"
#include "convlab/modes.h"

namespace convlab {

// Separable analysis of a kernel (Eigen SVD, double precision).
struct SvdInfo {
    std::vector<double> singularValues; // descending
    int rank = 0;                       // number kept to float precision
};
SvdInfo analyzeRank(const Kernel& k);

// The CPU planner's cost model: constants measured on this machine by a short calibration
// (a fraction of a second), cached in the user's cache directory and measured again when the
// CPU changes. Times in nanoseconds, single thread.
//
// A method's time is modelled as perValue x (values it moves) + perWork x (units of work it
// does); each method says what its values and work units are (core/src/methods/methods.h, CostTerms):
// direct counts taps, separable row and column taps per pass, the FFT transform points.
struct MethodCost {
    double perValueNs = 0.0;
    double perWorkNs = 0.0;
};
struct CostModel {
    std::array<MethodCost, kMethodCount> byMethod{}; // indexed by the Method's value
    std::string cpu;                                  // what the constants were measured on
    bool fromCache = false;

    const MethodCost& of(Method m) const { return byMethod[static_cast<std::size_t>(m)]; }
    MethodCost& of(Method m) { return byMethod[static_cast<std::size_t>(m)]; }
};
const CostModel& cpuCostModel();

// The planner corrects itself from what runs measure: when a method's measured time differs
// from its (corrected) estimate by more than 2x in two runs in a row (the same side, the same
// class), its estimates on this CPU are scaled by the smaller of the two ratios from then on (for this process), for runs of the same class: the same thread count and
// kernel size class (taps rounded down to a power of two), and for the separable method the
// same rank class (rounded down to a power of two). A memory-bound 3x3 run on two threads,
// slower than a model that divides all its work by the threads, says nothing about an 11x11
// kernel on one; a 31x31 kernel of rank 31, whose 31 pass pairs on two threads took 2.3 times
// their estimate, says nothing about a 31x31 Gaussian's one pass pair. 1.0 until then.
struct CorrectionClass {
    int threads = 1;
    int tapsLog2 = 0;
    int rankLog2 = 0; // the separable method's rank class; the other methods ignore it
    auto operator<=>(const CorrectionClass&) const = default;
};
// `rank`: the kernel's separable rank where known (below 1: unknown, taken as 1).
CorrectionClass correctionClassOf(const Kernel& k, int threads, int rank = 1);
double plannerCorrection(Method m, CorrectionClass c);
void resetPlannerCorrections();

// What moving an image between host and GPU costs, as the GPU session measured it (its
// transfers' calibration, core/backends/cuda/transfer.h), kept in the cache directory beside the CPU's
// model so that a later process can weigh the bus before it starts CUDA.
struct BusCosts {
    double uploadGBs = 0.0, downloadGBs = 0.0;      // what transfers achieve, the way kept
    double pinnedUpGBs = 0.0, pinnedDownGBs = 0.0;  // pinned memory: the bus's own speed
    double latencyMs = 0.0;                         // one small copy's round trip
    std::string device;                             // what they were measured on
    bool known() const { return uploadGBs > 0.0 && downloadGBs > 0.0; }
    double uploadMs(double bytes) const { return latencyMs + bytes / (uploadGBs * 1e6); }
    double downloadMs(double bytes) const { return latencyMs + bytes / (downloadGBs * 1e6); }
};
// The figures kept by the last session of GPU backend `device` on this machine (unknown when
// none is kept).
BusCosts cachedBusCosts(Device device = Device::Cuda);
void saveBusCosts(const BusCosts& bus, Device device = Device::Cuda);

// The choice between CPU and GPU for device auto (docs/architecture.md, The device choice):
// the GPU pays for moving the image up (unless it is already there) and the result down; the
// CPU pays nothing of that. Each side's time is its planner's estimate of its fastest method.
struct DeviceCosts {
    double cpuMs = 0.0;
    // Below 0: not known yet. The CPU is chosen when the bus alone takes longer than the CPU's
    // estimate; otherwise the choice is Device::Auto (undecided: ask the GPU for its estimate),
    // so that CUDA is not started for work the transfers already lose.
    double gpuComputeMs = -1.0;
    double uploadMs = 0.0;      // 0 when the image is resident on the device
    double downloadMs = 0.0;    // 0 when the result stays there (displayed from the device)
    Device gpu = Device::Cuda;  // the GPU backend weighed, returned when it wins
};
struct DeviceChoice {
    Device device = Device::Cpu;
    std::string reason;
};
DeviceChoice chooseDevice(const DeviceCosts& costs);

// How the FFT method plans a transform size it has not planned before. MeasureNow: FFTW
// measures (up to ~1 s per size, once; wisdom is kept in the cache directory), the default for
// batch work. EstimateNow: a quick estimated plan now, a measured one prepared on a
// background thread and used from the next run on (interactive use: no planning stall).
// Sizes found in the wisdom file use the measured plan at once under either policy.
enum class FftPlanning { MeasureNow, EstimateNow };
void setFftPlanning(FftPlanning policy);
FftPlanning fftPlanning();
// Blocks until no background planning is queued or running.
void waitForFftPlanning();

} // namespace convlab
