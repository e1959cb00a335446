// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's one entry point: convolve(image, params) -> image. The algorithm
// (docs/semantics.md, Convolution and correlation) is fixed; the schedule (method, device,
// threads) is chosen separately and reported in RunReport.
#pragma once
#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convlab/border.h"
#include "convlab/image.h"
#include "convlab/kernel.h"

namespace convlab {

enum class Method { Auto, Reference, Direct, Separable, Fft };
enum class Device { Auto, Cpu, Cuda };

struct Border {
    BorderMode mode = BorderMode::Reflect;
    float value = 0.0f; // for Constant
};

struct ConvolveParams {
    Kernel kernel;
    Border border;
    Semantics semantics = Semantics::Convolution;
    double scale = 1.0;
    double offset = 0.0;
    bool normalize = false;     // scale = 1/sum(K) when sum != 0 (multiplies `scale`)
    bool filterAlpha = false;   // alpha channel is passed through unless this is set
    Method method = Method::Auto;
    Device device = Device::Auto;
    int threads = 0;            // 0: all hardware threads
    const std::atomic<bool>* cancel = nullptr; // set to true to abandon the run (throws Cancelled)
};

class Cancelled : public std::exception {
public:
    const char* what() const noexcept override { return "cancelled"; }
};

struct StageTiming {
    std::string name; // upload, pad, transform, convolve, download, ...
    double ms = 0.0;
    // A cost paid once (per machine, per transform size, per device) and not by the next run:
    // calibrating the planner, planning an FFT size. Shown apart from the per-run stages.
    bool once = false;
};

// The planner's estimate for one method on one run (auto compares these).
struct MethodEstimate {
    Method method = Method::Direct;
    double ms = 0.0;
    int rank = 0; // passes for separable
};

struct RunReport {
    Method method = Method::Direct;   // the method that ran
    Device device = Device::Cpu;      // the device that ran
    std::string reason;               // why auto chose it (or "requested")
    std::vector<MethodEstimate> estimates; // what auto compared (empty unless auto ran)
    int rank = -1;                    // separable rank used (-1: not computed)
    std::vector<double> singularValues;
    double effectiveScale = 1.0;      // scale after normalize
    std::vector<std::string> notices; // e.g. "zero-sum kernel left unnormalized"
    // Every millisecond of totalMs is in exactly one stage: what no named stage accounts for
    // is the stage "other" (closeStages).
    std::vector<StageTiming> stages;
    double totalMs = 0.0;
    // The method's own time: its stages without the one-time costs (throughput is this over
    // the pixels; the planner compares it with its estimate).
    double computeMs = 0.0;
    int threads = 1;
};

// Sets r.totalMs and appends (or grows) the stage "other" by whatever the named stages leave
// of it, so that the stages add up to the total.
void closeStages(RunReport& r, double totalMs);
// Sum of the stages that are not one-time costs.
double perRunMs(const RunReport& r);

// Convolves (or correlates) every channel of `in` as a batch. Output has the input's size,
// channels, depth and alpha flag. Throws convlab::Error for invalid kernels/params, Cancelled
// when params.cancel is raised.
Image convolve(const Image& in, const ConvolveParams& params, RunReport* report = nullptr);
// The same, writing into `out`, whose storage is reused when it already has the input's shape
// (no allocation, no page faults: the form for repeated runs). `out` must not be `in`.
void convolveInto(const Image& in, const ConvolveParams& params, Image& out, RunReport* report = nullptr);
// The same from 8/16-bit samples as decoded (io.h decodeImage): direct and separable convert
// each row to float as they pad it, inside their first pass, so no float copy of the source is
// made; the FFT and the reference convert the planes first; CUDA uploads the samples and
// converts them on the device. Results equal convolve(unpackImage(in), ...).
Image convolve(const PackedImage& in, const ConvolveParams& params, RunReport* report = nullptr);
void convolveInto(const PackedImage& in, const ConvolveParams& params, Image& out, RunReport* report = nullptr);

// ---- names (all case-insensitive; aliases from OpenCV, scipy, MATLAB, GIMP, G'MIC) ----
// "constant[:VALUE]", "replicate", "nearest", "clamp", "reflect", "symmetric", "mirror",
// "reflect101", "wrap", "circular", "periodic", ... Throws convlab::Error listing valid names.
Border parseBorder(std::string_view text);
std::string borderName(BorderMode mode);
Method parseMethod(std::string_view text);
std::string methodName(Method m);
Device parseDevice(std::string_view text);
std::string deviceName(Device d);

// Whether the CUDA backend can run here; `reason` says why not.
bool cudaAvailable(std::string* reason = nullptr);

// Separable analysis of a kernel (Eigen SVD, double precision).
struct SvdInfo {
    std::vector<double> singularValues; // descending
    int rank = 0;                       // number kept to float precision
};
SvdInfo analyzeRank(const Kernel& k);

// Kernel after semantics: correlation-form kernel (flipped for convolution) and its anchor.
Kernel correlationKernel(const Kernel& k, Semantics s);

// The CPU planner's cost model: constants measured on this machine by a short calibration
// (a fraction of a second), cached in the user's cache directory and measured again when the
// CPU changes. Times in nanoseconds, single thread.
struct CostModel {
    double directPerTap = 0;   // per output value and kernel tap
    double directPerPixel = 0; // per output value
    double separablePerTap = 0;
    double separablePerPixel = 0;
    double fftPerPoint = 0;    // per transform point and log2(size), both directions together
    double fftPerPixel = 0;
    std::string cpu;           // what the constants were measured on
    bool fromCache = false;
};
const CostModel& cpuCostModel();

// The planner corrects itself from what runs measure: when a method's measured time differs
// from its (corrected) estimate by more than 2x, its estimates on this CPU are scaled by the
// ratio from then on (for this process). 1.0 until then.
double plannerCorrection(Method m);
void resetPlannerCorrections();

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

// Statistics of a - b over every channel (same shape required), OIIO CompareResults-style.
struct DiffStats {
    double maxAbs = 0.0;
    double meanAbs = 0.0;
    double rmse = 0.0;
    double psnr = 0.0; // dB, against the larger magnitude of a; +inf when identical
    int maxX = 0, maxY = 0, maxC = 0;
};
DiffStats compareImages(const Image& a, const Image& b);

} // namespace convlab
