// SPDX-License-Identifier: GPL-3.0-or-later
// The one list of methods and the one list of backends, with everything said about each (names,
// descriptions, the accuracy), beside the list of border modes (convlab/border.h, with their
// rule). Names, combo boxes, the border-mode lab, code export and the command-line help all read
// these tables, so a new mode, method or backend is described once (docs/semantics.md, Border
// modes and Methods; docs/architecture.md, The executor).
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "convlab/border.h"

namespace convlab {

// The methods, in the order of their values (methods() below lists them in display order).
// A new method is a new enumerator before the end, its row in detail::kMethods, and its
// engine (core/src/methods/NAME.cpp), which the row names.
enum class Method { Auto, Reference, Direct, Separable, Fft };
inline constexpr int kMethodValues = 5; // the enumerators above, 0..N-1

namespace detail {
// How the engine runs a method and how the planner prices it (core/src/methods/methods.h). Defined
// next to each method's code; auto, a choice among the others, has none.
struct MethodEngine;
extern const MethodEngine kReferenceEngine;
extern const MethodEngine kDirectEngine;
extern const MethodEngine kSeparableEngine;
extern const MethodEngine kFftEngine;
} // namespace detail

// A name as the look-ups compare it: lower case, '-' and ' ' read as '_'.
std::string normalizedName(std::string_view text);

// ---- methods ----

// How close to the reference a method's result is (docs/semantics.md, Tolerances).
enum class Accuracy {
    Oracle,   // the definition in double precision: the reference itself
    Float,    // float sums: 1e-6
    Fft,      // transform rounding: 1e-5
    OfItsPick // auto: that of the method it runs
};

struct MethodInfo {
    Method method;
    const char* name;                     // parseMethod / methodName, combos, CLI
    std::span<const char* const> aliases; // other names parseMethod accepts, lower case with '_'
    const char* description;              // one line, for tooltips and help
    Accuracy accuracy;
    bool autoCandidate; // auto weighs it (and the crossover sweep times it)
    const detail::MethodEngine* engine; // how the CPU runs and prices it (null for auto)
};

namespace detail {
inline constexpr MethodInfo kMethods[] = {
    {Method::Auto, "auto", {}, "the cheapest by the cost model; the choice is reported", Accuracy::OfItsPick, false,
     nullptr},
    {Method::Direct, "direct", {}, "the spatial sum", Accuracy::Float, true, &kDirectEngine},
    {Method::Separable, "separable", {}, "rank-r row and column passes from the kernel's SVD", Accuracy::Float, true,
     &kSeparableEngine},
    {Method::Fft, "fft", {}, "pad, real FFT, pointwise product, crop", Accuracy::Fft, true, &kFftEngine},
    {Method::Reference, "reference", {}, "double-precision direct sum: the oracle (slow)", Accuracy::Oracle, false,
     &kReferenceEngine},
};
} // namespace detail

// In display order (auto first).
constexpr std::span<const MethodInfo> methods() { return detail::kMethods; }
inline constexpr std::size_t kMethodCount = std::size(detail::kMethods);

// The methods auto weighs, in display order (the crossover sweep times these).
inline constexpr std::size_t kAutoCandidateCount = [] {
    std::size_t n = 0;
    for (const MethodInfo& m : detail::kMethods) n += m.autoCandidate;
    return n;
}();
constexpr std::array<Method, kAutoCandidateCount> autoCandidates()
{
    std::array<Method, kAutoCandidateCount> out{};
    std::size_t i = 0;
    for (const MethodInfo& m : detail::kMethods)
        if (m.autoCandidate) out[i++] = m.method;
    return out;
}

// Throws convlab::Error for a value that is not an enumerator.
const MethodInfo& methodInfo(Method method);
const MethodInfo* findMethod(std::string_view name);

// The relative tolerance against the reference (0 for the reference itself; for OfItsPick the
// loosest of the methods auto weighs).
constexpr double toleranceOf(Accuracy a)
{
    switch (a) {
    case Accuracy::Oracle: return 0.0;
    case Accuracy::Float: return 1e-6;
    case Accuracy::Fft: return 1e-5;
    case Accuracy::OfItsPick: {
        double loosest = 0.0;
        for (const MethodInfo& m : detail::kMethods)
            if (m.autoCandidate && toleranceOf(m.accuracy) > loosest) loosest = toleranceOf(m.accuracy);
        return loosest;
    }
    }
    return 0.0;
}

// Where a run goes: a backend, or auto (the executor's choice between them by measured cost,
// convlab/executor.h). A new backend is a new enumerator before the end and its row in
// detail::kBackends.
enum class Device { Auto, Cpu, Cuda };
inline constexpr int kDeviceValues = 3;

class GpuSession; // convlab/gpu.h

// Whether the CUDA backend can run here; `reason` says why not. Its session on the default
// device, or null and why not. Both defined by the CUDA backend, or by the build without it.
bool cudaAvailable(std::string* reason);
std::unique_ptr<GpuSession> startCudaSession(std::string* reason);

struct BackendInfo {
    Device device;
    const char* name;        // parseDevice / deviceName: the CLI's -d, Python's device=, settings
    const char* label;       // the Backend combo's entry
    const char* description; // one line, for tooltips and help
    bool (*available)(std::string* why); // whether it can run on this machine (null: always)
    // A GPU backend's session (the executor starts one per backend and keeps it); null for the
    // CPU, which the engine runs itself, and for auto.
    std::unique_ptr<GpuSession> (*startSession)(std::string* why);
};

namespace detail {
inline constexpr BackendInfo kBackends[] = {
    {Device::Cpu, "cpu", "CPU", "the engine's threads and SIMD bodies", nullptr, nullptr},
    {Device::Cuda, "cuda", "CUDA", "an NVIDIA GPU: one kept session, shared-memory tiles, cuFFT", &cudaAvailable,
     &startCudaSession},
    {Device::Auto, "auto", "auto",
     "for each run the cheaper backend by measured costs, the bus included: an image already on the GPU "
     "costs no upload, a result nobody reads no download (the CPU where CUDA cannot run)",
     nullptr, nullptr},
};
} // namespace detail

// In display order (auto last).
constexpr std::span<const BackendInfo> backends() { return detail::kBackends; }
inline constexpr std::size_t kBackendCount = std::size(detail::kBackends);
// Throws convlab::Error for a value that is not an enumerator.
const BackendInfo& backendInfo(Device device);

} // namespace convlab
