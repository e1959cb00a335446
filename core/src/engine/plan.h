// SPDX-License-Identifier: GPL-3.0-or-later
// The plan step, written once for every backend: from the parameters and the image's shape to
// what a backend executes. Validate -> correlation kernel and anchor -> effective scale ->
// alpha rule -> rank (SVD) -> method. The CPU engine (engine.cpp) and the CUDA session
// (core/backends/cuda/session.cu) both execute a Plan; only the cost of each method differs between
// them, and that comes in as MethodCosts.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "methods/methods.h"

namespace convlab::detail {

struct ImageShape {
    int width = 0, height = 0, channels = 0;
    bool hasAlpha = false;
};

// A backend's estimates of each method, for the planned kernel (correlation form), its rank
// and the channels filtered. `measuredOn` ends the reason auto gives ("this CPU", "this GPU").
struct MethodCosts {
    std::function<std::vector<MethodEstimate>(const Kernel& kernel, int rank, int channels)> estimate;
    std::string measuredOn;
};

struct Plan {
    Kernel kernel;            // correlation form, anchor resolved (correlationKernel)
    int channels = 0;         // planes 0..channels-1 are filtered; the rest (alpha) pass through
    double scale = 1.0;       // after normalize
    double offset = 0.0;
    Border border;
    SeparableFactors factors; // when auto or separable asked for them (rank in report)
    Method method = Method::Direct; // never Auto
};

// Throws convlab::Error for parameters no backend can run (a kernel that does not validate,
// non-finite scale, offset or border constant).
void validateParams(const ConvolveParams& p);

// The planes filtered: an alpha channel passes through unless filterAlpha is set.
int filteredChannels(const ImageShape& shape, const ConvolveParams& p);

// Plans a run; throws convlab::Error for invalid parameters. Fills the report's effective
// scale, rank, singular values, estimates, reason and notices. `clock`, when given, gets the
// stages "analyze" (the SVD) and "plan" (auto's choice); a backend's costs may mark their own
// one-time stages on it.
Plan makePlan(const ConvolveParams& p, const ImageShape& shape, const MethodCosts& costs, RunReport& rep,
              StageClock* clock);

} // namespace convlab::detail
