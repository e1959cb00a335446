// SPDX-License-Identifier: GPL-3.0-or-later
// The auto planner's cost model. Each method's time is modelled as a per-value cost plus a
// per-work-unit cost (taps, transform points: the method's CostTerms say which); each method
// measures its constants (MethodEngine::calibrate) on small synthetic runs, single-threaded,
// and the model is kept per CPU in the calibration store (engine/calibrations.h).
#include <algorithm>
#include <array>
#include <bit>
#include <atomic>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>

#include "convlab/costs.h"
#include "convlab/error.h"
#include "engine/calibrations.h"
#include "methods/methods.h"
#include "engine/planner.h"
#include "simd/rowkernels.h"
#include "engine/threadpool.h"

namespace convlab {
namespace detail {
namespace {

constexpr int kModelVersion = 7; // 2: constants per method by name; 3: per-value costs from memory-sized planes;
                                  // 4: the eight-sum pair kernels and the four-row column pass;
                                  // 5: the FFT's work weighted by what a point of each side costs;
                                  // 6: kept in the calibration store; 7: separable's row taps over
                                  // the padded rows

std::string cpuIdentity()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line, model = "unknown cpu";
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            model = line.substr(line.find(':') + 2);
            break;
        }
    // The version too: the constants price this build's loops, which change between versions.
    return model + " | " + rowKernels().isa + " | " + std::to_string(hardwareThreads()) + " threads | convlab " +
           CONVLAB_VERSION;
}


CostModel measure()
{
    CostModel m;
    for (const MethodInfo& info : methods()) // in table order: a calibration may use earlier ones
        if (info.engine && info.engine->calibrate) m.of(info.method) = info.engine->calibrate(m);
    m.cpu = cpuIdentity();
    return m;
}

// The methods the model prices: those auto weighs.
bool priced(const MethodInfo& info) { return info.autoCandidate && info.engine && info.engine->costTerms; }

// The constants as the calibration store keeps them (engine/calibrations.h): section
// "cpu-planner", identity the CPU, "<method>.per_value_ns" and "<method>.per_work_ns" each.
constexpr const char* kPlannerSection = "cpu-planner";

bool load(CostModel& m)
{
    const std::string cpu = cpuIdentity();
    const auto values = loadCalibration(kPlannerSection, kModelVersion, cpu);
    if (!values) return false;
    for (const MethodInfo& info : methods()) {
        if (!priced(info)) continue;
        // A method new since the store was written: measure again.
        const auto perValue = calibrationNumberAt(*values, std::string(info.name) + ".per_value_ns");
        const auto perWork = calibrationNumberAt(*values, std::string(info.name) + ".per_work_ns");
        if (!perValue || !perWork || !(*perWork > 0)) return false;
        m.of(info.method) = {*perValue, *perWork};
    }
    m.cpu = cpu;
    m.fromCache = true;
    return true;
}

void save(const CostModel& m)
{
    CalibrationValues values;
    for (const MethodInfo& info : methods())
        if (priced(info)) {
            values[std::string(info.name) + ".per_value_ns"] = calibrationNumber(m.of(info.method).perValueNs);
            values[std::string(info.name) + ".per_work_ns"] = calibrationNumber(m.of(info.method).perWorkNs);
        }
    saveCalibration(kPlannerSection, kModelVersion, m.cpu, values);
}

std::mutex gModelMutex;
std::unique_ptr<CostModel> gModel;
std::atomic<bool> gModelReady{false};

// Measured/estimated ratios learnt in this process, per method (by value; 1 for the unpriced).
constexpr double kCorrectionThreshold = 2.0; // ratios within [1/2, 2] are the model's noise
constexpr double kMinEstimateMs = 2.0;       // shorter runs are dominated by fixed costs
constexpr double kMaxCorrection = 256.0; // a safety net, not a model
std::mutex gCorrectionMutex;
std::map<std::pair<Method, CorrectionClass>, double> gCorrection; // absent: 1
// A run past the threshold whose class has no confirmation yet: its ratio. One run is not
// enough on a machine whose other load can double a run's time now and then: in a benchmark
// process here, one 13x13 direct run that took 89 ms where 43 were estimated (and measured on the
// runs around it) sent the rest of that kernel's runs to the FFT at 69 ms.
std::map<std::pair<Method, CorrectionClass>, double> gPending;

// The class a method's correction is kept under: the rank class only for methods whose cost
// depends on the rank (those that run from the kernel's factors).
CorrectionClass classFor(Method m, CorrectionClass c)
{
    if (!engineOf(m).needsFactors) c.rankLog2 = 0;
    return c;
}

double correctionOf(Method m, CorrectionClass c) // under gCorrectionMutex
{
    const auto it = gCorrection.find({m, classFor(m, c)});
    return it == gCorrection.end() ? 1.0 : it->second;
}

} // namespace

std::vector<MethodEstimate> correctedEstimates(std::vector<MethodEstimate> estimates, CorrectionClass c)
{
    std::lock_guard lock(gCorrectionMutex);
    for (MethodEstimate& e : estimates)
        if (priced(methodInfo(e.method))) e.ms *= correctionOf(e.method, c);
    return estimates;
}

std::optional<std::string> recordMeasurement(Method method, CorrectionClass c, double estimateMs, double measuredMs)
{
    if (!priced(methodInfo(method)) || !(estimateMs >= kMinEstimateMs) || !(measuredMs > 0.0)) return std::nullopt;
    const double ratio = measuredMs / estimateMs;
    const std::pair<Method, CorrectionClass> key{method, classFor(method, c)};
    double applied = 1.0;
    {
        std::lock_guard lock(gCorrectionMutex);
        if (ratio <= kCorrectionThreshold && ratio >= 1.0 / kCorrectionThreshold) {
            gPending.erase(key);
            return std::nullopt;
        }
        // The second run in a row past the threshold, on the same side, confirms the first; the
        // smaller of the two departures is applied.
        const auto pending = gPending.find(key);
        if (pending == gPending.end() || (pending->second > 1.0) != (ratio > 1.0)) {
            gPending[key] = ratio;
            return std::nullopt;
        }
        const double confirmed = ratio > 1.0 ? std::min(ratio, pending->second) : std::max(ratio, pending->second);
        gPending.erase(pending);
        const double before = correctionOf(method, c);
        const double after = std::clamp(before * confirmed, 1.0 / kMaxCorrection, kMaxCorrection);
        gCorrection[key] = after;
        applied = after / before;
    }
    std::ostringstream note;
    note.precision(3);
    note << "the planner estimated " << methodName(method) << " at " << estimateMs << " ms and it took "
         << measuredMs << " ms, the second run in a row beyond twice or half its estimate: its estimates for "
         << methodName(method) << " are scaled by " << applied
         << " from now on (runs on " << c.threads << " thread" << (c.threads == 1 ? "" : "s") << ", kernels of "
         << (1 << c.tapsLog2) << "-" << (2 << c.tapsLog2) - 1 << " taps";
    if (engineOf(method).needsFactors) note << ", rank " << (1 << c.rankLog2) << "-" << (2 << c.rankLog2) - 1;
    note << ")";
    return note.str();
}

const CostModel& cpuCostModel(bool* measuredNow)
{
    // A caller that finds the model not ready pays for it: measuring it, or waiting while
    // another thread does (a warm-up started at launch, say).
    const bool ready = gModelReady.load(std::memory_order_acquire);
    std::lock_guard lock(gModelMutex);
    bool measured = false;
    if (!gModel) {
        auto m = std::make_unique<CostModel>();
        if (!load(*m)) {
            *m = measure();
            save(*m);
            measured = true;
        }
        gModel = std::move(m);
        gModelReady.store(true, std::memory_order_release);
    }
    if (measuredNow) *measuredNow = !ready && (measured || !gModel->fromCache);
    return *gModel;
}

const CostModel* cpuCostModelIfLoaded()
{
    std::lock_guard lock(gModelMutex);
    return gModel.get();
}

std::vector<MethodEstimate> priceMethods(const CostModel& m, const RunShape& shape,
                                         const std::vector<Method>& candidates, const CostTermsOverride& termsFor)
{
    std::vector<MethodEstimate> e;
    for (const Method method : candidates) {
        const MethodInfo& info = methodInfo(method);
        if (!priced(info) || !methodApplies(*info.engine, shape)) continue;
        std::optional<CostTerms> terms = termsFor ? termsFor(method, shape) : std::nullopt;
        const CostTerms t = terms ? *terms : info.engine->costTerms(shape);
        const MethodCost& c = m.of(method);
        e.push_back({method, (t.values * c.perValueNs + t.work * c.perWorkNs) / std::max(1, t.parallelism) / 1e6,
                     info.engine->needsFactors ? shape.rank : 0});
    }
    return e;
}

std::vector<MethodEstimate> estimateCpu(const CostModel& m, int w, int h, int channels, const Kernel& k,
                                        int rank, int threads)
{
    std::vector<Method> all;
    for (const MethodInfo& info : methods()) all.push_back(info.method);
    return priceMethods(m, RunShape{w, h, channels, &k, rank, threads}, all);
}

bool methodApplies(const MethodEngine& engine, const RunShape& shape, std::string* why)
{
    return !engine.applies || engine.applies(shape, why);
}

const MethodEngine& engineOf(Method method)
{
    const MethodEngine* engine = methodInfo(method).engine;
    if (!engine) throw Error(methodName(method) + " is a choice among methods, not a method the engine runs");
    return *engine;
}

namespace {

// The calibration images. The spatial methods stream rows through the caches as they do on
// large images: 4096x256 (a 4 MiB plane in and one out, past the second-level cache) prices them
// within 10% of 4096x4096 runs on the development machine, where 384x384 had priced a 3x3 pass
// pair at half its cost there and, with its margins, an 11x11 kernel at twice. The FFT is priced
// on one tile: 1024x144 is a single transform like the tiles of large images.
struct CalibrationImage {
    int width, height;
};
constexpr CalibrationImage kCalibrationSizes[] = {{4096, 256}, {1024, 144}};

const CalibrationImage& sizeOf(CalibrationShape shape) { return kCalibrationSizes[static_cast<int>(shape)]; }

} // namespace

Job calibrationJob(int kw, int kh, CalibrationShape shape)
{
    static const std::array<Image, 2> images = [] {
        std::array<Image, 2> all;
        for (int i = 0; i < 2; ++i) {
            all[i] = Image(kCalibrationSizes[i].width, kCalibrationSizes[i].height, 1);
            std::mt19937 rng(7);
            std::uniform_real_distribution<float> uni(0.0f, 255.0f);
            for (float& v : all[i].data) v = uni(rng);
        }
        return all;
    }();
    static const std::array<ImagePlanes, 2> views{images[0], images[1]};
    const Image& img = images[static_cast<int>(shape)];
    Job j;
    j.in = &views[static_cast<int>(shape)];
    j.width = img.width;
    j.height = img.height;
    j.channels = 1;
    j.kernel = Kernel(kw, kh, std::vector<float>(static_cast<std::size_t>(kw) * kh, 0.01f));
    j.border = {BorderMode::Reflect, 0.0f};
    j.threads = 1;
    return j;
}

Image& calibrationOutput(CalibrationShape shape)
{
    // One calibration at a time (the model's mutex).
    static std::array<Image, 2> outs{Image(kCalibrationSizes[0].width, kCalibrationSizes[0].height, 1),
                                     Image(kCalibrationSizes[1].width, kCalibrationSizes[1].height, 1)};
    return outs[static_cast<int>(shape)];
}

double calibrationValues(CalibrationShape shape) { return double(sizeOf(shape).width) * sizeOf(shape).height; }

namespace {

// Rows of the memory-sized calibration plane: 4096 x 1024 floats, 16 MiB in and 16 out, past the
// last-level cache of the machines measured (32 MiB) as the planes of large images are.
constexpr int kMemoryRows = 1024;

// The best time per value, in ns, of job `a`'s run on a 4096 x kMemoryRows plane (the Streaming
// image repeated down it). Its planes exist only for this measurement: 32 MiB the process does
// not keep.
double nsPerValueFromMemory(const Job& a, void (*run)(const Job&, const OutputPlanes&, StageClock&))
{
    const CalibrationImage& streaming = sizeOf(CalibrationShape::Streaming);
    const Job source = calibrationJob(1, 1);
    Image big = Image::uninitialized(streaming.width, kMemoryRows, 1);
    const std::size_t block = static_cast<std::size_t>(streaming.width) * streaming.height;
    for (std::size_t at = 0; at < big.data.size(); at += block)
        std::copy_n(source.in->plane(0), std::min(block, big.data.size() - at), big.data.data() + at);
    const ImagePlanes view(big);
    Job job = a;
    job.in = &view;
    job.height = kMemoryRows;
    Image out = Image::uninitialized(streaming.width, kMemoryRows, 1);
    StageClock clock(nullptr);
    run(job, out, clock); // the output's page faults outside the timing
    return bestOfNs(3, [&] { run(job, out, clock); }) / (double(streaming.width) * kMemoryRows);
}

} // namespace

MethodCost fitTwoRuns(const Job& a, double workA, const Job& b, double workB,
                      void (*run)(const Job&, const OutputPlanes&, StageClock&))
{
    StageClock clock(nullptr);
    Image& out = calibrationOutput(CalibrationShape::Streaming);
    const double px = calibrationValues(CalibrationShape::Streaming);
    const double ta = bestOfNs(5, [&] { run(a, out, clock); }) / px;
    const double tb = bestOfNs(5, [&] { run(b, out, clock); }) / px;
    MethodCost c;
    c.perWorkNs = std::max((tb - ta) / (workB - workA), 1e-3);
    // The per-work cost is the cache-resident difference of the two kernels; what every value
    // costs besides is taken where large images pay it, from memory. On a machine whose
    // last-level cache holds the 4 MiB Streaming planes (32 MiB here) their 3x3 direct pass ran
    // at twice the speed of a 4096x4096 one, and auto ran 5x5 and 3x3 kernels by the method
    // that cost more.
    c.perValueNs = std::max(nsPerValueFromMemory(a, run) - workA * c.perWorkNs, 0.0);
    return c;
}

// The calling thread's CPU time, not the wall clock: the calibration runs once per machine and
// is cached, so a first launch beside a compile or another busy program must not price the
// methods by how often they were preempted. (Calibration jobs run on one thread, the caller's.)
double bestOfNs(int runs, const std::function<void()>& fn)
{
    const auto now = [] {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
    };
    double best = INFINITY;
    for (int i = 0; i < runs; ++i) {
        const double t0 = now();
        fn();
        best = std::min(best, now() - t0);
    }
    return best;
}

} // namespace detail

const CostModel& cpuCostModel() { return detail::cpuCostModel(nullptr); }

CorrectionClass correctionClassOf(const Kernel& k, int threads, int rank)
{
    const auto log2Of = [](long long n) {
        return static_cast<int>(std::bit_width(static_cast<unsigned long long>(std::max(1LL, n)))) - 1;
    };
    return {std::max(threads, 1), log2Of(static_cast<long long>(k.width) * k.height), log2Of(rank)};
}

double plannerCorrection(Method m, CorrectionClass c)
{
    std::lock_guard lock(detail::gCorrectionMutex);
    return detail::correctionOf(m, c);
}

void resetPlannerCorrections()
{
    std::lock_guard lock(detail::gCorrectionMutex);
    detail::gCorrection.clear();
    detail::gPending.clear();
}

} // namespace convlab
