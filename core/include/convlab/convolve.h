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
#include "convlab/modes.h"

namespace convlab {

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
    std::string deviceReason;         // why device auto chose it (empty for an explicit device)
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
// The same from float planes owned by the caller (a NumPy array, say), read where they are: no
// copy of the source is made. The planes must not share memory with `out`.
void convolveInto(const ImagePlanes& in, const ConvolveParams& params, Image& out, RunReport* report = nullptr);
// The same into planes owned by the caller, which hold the result when it returns: no result
// image is made (no allocation, no copy). They must have the input's width, height and channel
// count, and not share memory with it; a channel the filter skips (alpha) is copied through.
// Either side may be interleaved pixels (ImagePlanes::pixelStep): read and written in place.
void convolveInto(const ImagePlanes& in, const ConvolveParams& params, const OutputPlanes& out,
                  RunReport* report = nullptr);
// The same from 8/16-bit samples as decoded (io.h decodeImage): direct and separable convert
// each row to float as they pad it, inside their first pass, so no float copy of the source is
// made; the FFT and the reference convert the planes first; CUDA uploads the samples and
// converts them on the device. Results equal convolve(unpackImage(in), ...).
Image convolve(const PackedImage& in, const ConvolveParams& params, RunReport* report = nullptr);
void convolveInto(const PackedImage& in, const ConvolveParams& params, Image& out, RunReport* report = nullptr);
void convolveInto(const PackedImage& in, const ConvolveParams& params, const OutputPlanes& out,
                  RunReport* report = nullptr);

// ---- names (all case-insensitive; aliases from OpenCV, scipy, MATLAB, GIMP, G'MIC) ----
// "constant[:VALUE]", "replicate", "nearest", "clamp", "reflect", "symmetric", "mirror",
// "reflect101", "wrap", "circular", "periodic", ... Throws convlab::Error listing valid names.
Border parseBorder(std::string_view text);
std::string borderName(BorderMode mode);
Method parseMethod(std::string_view text);
std::string methodName(Method m);
Device parseDevice(std::string_view text);
std::string deviceName(Device d);

// Whether the CUDA backend can run here; `reason` says why not (its row in backends()).
bool cudaAvailable(std::string* reason = nullptr);

// The CPU planner's estimate, in ms, of the run these parameters make on the CPU for an image
// of that shape (auto's method, or the method asked for): what device auto weighs against the
// GPU (chooseDevice, costs.h). Below 0 when the planner does not price that method. The first
// call may calibrate the planner (once per machine).
double estimateCpuMs(const ConvolveParams& params, int width, int height, int channels, bool hasAlpha);
// Every method the CPU planner prices, estimated for these parameters (whatever method they
// ask for) from one plan: the kernel's rank is computed once.
std::vector<MethodEstimate> estimateCpuMethods(const ConvolveParams& params, int width, int height, int channels,
                                               bool hasAlpha);

// Whether a method asked for by name would run past a time budget on the CPU: what the CLI's
// --max-seconds and the workbench's interactive budget refuse before anything runs, naming the
// estimate and the fastest method. Not over for auto (it takes the fastest), for an explicit
// GPU device (no CPU estimate to judge by), for a method the planner does not price, or within
// the budget.
struct BudgetVerdict {
    bool over = false;
    double askedSeconds = -1.0;    // the asked method's estimate (below 0: none)
    Method fastest = Method::Auto; // when over: the fastest priced method (the asked one if none is faster)
    double fastestSeconds = -1.0;
};
BudgetVerdict judgeBudget(const ConvolveParams& params, int width, int height, int channels, bool hasAlpha,
                          double budgetSeconds);

// Kernel after semantics: correlation-form kernel (flipped for convolution) and its anchor.
Kernel correlationKernel(const Kernel& k, Semantics s);

} // namespace convlab
