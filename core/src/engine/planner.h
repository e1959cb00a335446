// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "methods/methods.h"

namespace convlab::detail {

// A backend's schedule of a method that moves other values than the CPU's (the GPU's FFT:
// cuFFT's sides, one transform, no tiles) gives that method's terms here; nullopt keeps the
// method's own (MethodEngine::costTerms).
using CostTermsOverride = std::function<std::optional<CostTerms>(Method, const RunShape&)>;

// The one pricing of every backend: each of `candidates` that the planner weighs and that
// applies to `shape`, its cost terms priced by the model's constants (ns = (values x perValue +
// work x perWork) / parallelism). The CPU passes its threads in the shape; a GPU passes one
// thread, its constants being whole-device times.
std::vector<MethodEstimate> priceMethods(const CostModel& m, const RunShape& shape,
                                         const std::vector<Method>& candidates,
                                         const CostTermsOverride& termsFor = {});

// Estimated wall time of each CPU method for a w x h x channels image and correlation-form
// kernel k; separable is included when rank >= 0.
std::vector<MethodEstimate> estimateCpu(const CostModel& m, int w, int h, int channels, const Kernel& k,
                                        int rank, int threads);

// The cost model, measured (and cached) on first use; `measuredNow` tells whether this call
// paid for the calibration.
const CostModel& cpuCostModel(bool* measuredNow);
// The model if it is already known in this process (null otherwise: nothing is measured).
const CostModel* cpuCostModelIfLoaded();

// The estimates of a run of class c scaled by the corrections learnt from measured runs.
std::vector<MethodEstimate> correctedEstimates(std::vector<MethodEstimate> estimates, CorrectionClass c);
// Records that `method`, estimated at `estimateMs` (corrected) for a run of class c, took
// `measuredMs`. When they differ by more than 2x (and the estimate is long enough to be measured
// reliably) for the second run in a row of that method and class, on the same side, the
// correction is scaled by the smaller of the two ratios; the returned text says so. A run within
// 2x clears a first one.
std::optional<std::string> recordMeasurement(Method method, CorrectionClass c, double estimateMs, double measuredMs);

} // namespace convlab::detail
