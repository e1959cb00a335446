// SPDX-License-Identifier: GPL-3.0-or-later
// The auto planner's cost model. Each method's time is modelled as a per-pixel cost plus a
// per-tap (direct, separable) or per-transform-point (FFT) cost; the constants are measured
// here on small synthetic runs, single-threaded, and cached per CPU.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "convlab/error.h"
#include "fsutil.h"
#include "methods.h"
#include "planner.h"
#include "rowkernels.h"
#include "threadpool.h"

namespace convlab {
namespace detail {
namespace {

constexpr int kModelVersion = 1;

std::string cpuIdentity()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line, model = "unknown cpu";
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            model = line.substr(line.find(':') + 2);
            break;
        }
    return model + " | " + rowKernels().isa + " | " + std::to_string(hardwareThreads()) + " threads";
}

std::filesystem::path cachePath()
{
    const auto dir = cacheDirectory();
    return dir.empty() ? dir : dir / "cpu-planner.json";
}

// Best of `runs` wall times of fn(), in ns.
template <class F> double bestNs(int runs, F&& fn)
{
    double best = INFINITY;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        best = std::min(best, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

CostModel measure()
{
    const int w = 384, h = 384;
    Image img(w, h, 1);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uni(0.0f, 255.0f);
    for (float& v : img.data) v = uni(rng);
    Image out(w, h, 1);
    auto job = [&](int kw, int kh) {
        Job j;
        j.in = &img;
        j.width = w;
        j.height = h;
        j.channels = 1;
        j.kernel = Kernel(kw, kh, std::vector<float>(static_cast<std::size_t>(kw) * kh, 0.01f));
        j.border = {BorderMode::Reflect, 0.0f};
        j.threads = 1;
        return j;
    };
    StageClock clock(nullptr);
    const double px = double(w) * h;
    CostModel m;
    // Direct: 9 and 121 taps.
    const Job d3 = job(3, 3), d11 = job(11, 11);
    const double tD3 = bestNs(3, [&] { runDirect(d3, out, clock); }) / px;
    const double tD11 = bestNs(3, [&] { runDirect(d11, out, clock); }) / px;
    m.directPerTap = std::max((tD11 - tD3) / (121 - 9), 1e-3);
    m.directPerPixel = std::max(tD3 - 9 * m.directPerTap, 0.0);
    // Separable, rank 1: 3+3 and 31+31 taps.
    const Job s3 = job(3, 3), s31 = job(31, 31);
    const SeparableFactors f3 = separableFactors(s3.kernel), f31 = separableFactors(s31.kernel);
    const double tS3 = bestNs(3, [&] { runSeparable(s3, f3, out, clock); }) / px;
    const double tS31 = bestNs(3, [&] { runSeparable(s31, f31, out, clock); }) / px;
    m.separablePerTap = std::max((tS31 - tS3) / (62 - 6), 1e-3);
    m.separablePerPixel = std::max(tS3 - 6 * m.separablePerTap, 0.0);
    // FFT: one tile of the whole image with a 9x9 and a tiled run with a 31x31 kernel on a
    // wider image, to separate the per-point transform cost from the per-pixel gather.
    const Job f9 = job(9, 9);
    runFft(f9, out, clock); // plans and spectra outside the timing
    const double tF = bestNs(3, [&] { runFft(f9, out, clock); });
    const FftTiling t = fftTiling(w, h, 9, 9);
    const double points = double(t.n0) * t.n1 * std::log2(double(t.n0) * t.n1) * t.tilesX * t.tilesY;
    m.fftPerPixel = m.directPerPixel; // gather and crop move the data like the direct pass does
    m.fftPerPoint = std::max((tF - m.fftPerPixel * px) / points, 1e-4);
    m.cpu = cpuIdentity();
    return m;
}

bool load(CostModel& m)
{
    const auto path = cachePath();
    std::ifstream f(path);
    if (path.empty() || !f) return false;
    try {
        const auto j = nlohmann::json::parse(f);
        if (j.at("version").get<int>() != kModelVersion || j.at("cpu").get<std::string>() != cpuIdentity())
            return false;
        m.directPerTap = j.at("direct_per_tap_ns");
        m.directPerPixel = j.at("direct_per_pixel_ns");
        m.separablePerTap = j.at("separable_per_tap_ns");
        m.separablePerPixel = j.at("separable_per_pixel_ns");
        m.fftPerPoint = j.at("fft_per_point_ns");
        m.fftPerPixel = j.at("fft_per_pixel_ns");
        m.cpu = j.at("cpu");
        m.fromCache = true;
        return m.directPerTap > 0 && m.separablePerTap > 0 && m.fftPerPoint > 0;
    } catch (const std::exception&) {
        return false; // a damaged cache is measured again
    }
}

void save(const CostModel& m)
{
    const auto path = cachePath();
    if (path.empty()) return;
    nlohmann::json j{{"version", kModelVersion},           {"cpu", m.cpu},
                     {"direct_per_tap_ns", m.directPerTap}, {"direct_per_pixel_ns", m.directPerPixel},
                     {"separable_per_tap_ns", m.separablePerTap}, {"separable_per_pixel_ns", m.separablePerPixel},
                     {"fft_per_point_ns", m.fftPerPoint},   {"fft_per_pixel_ns", m.fftPerPixel}};
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    try {
        writeFileAtomically(path.string(), [&](const std::string& tmp) {
            std::ofstream f(tmp);
            f << j.dump(2) << '\n';
            f.close();
            if (!f) throw Error("cannot write '" + tmp + "'");
        });
    } catch (const std::exception&) {
        // A cache: failing to keep it costs a calibration next time.
    }
}

std::mutex gModelMutex;
std::unique_ptr<CostModel> gModel;
std::atomic<bool> gModelReady{false};

// Measured/estimated ratios learnt in this process, per method (Direct, Separable, Fft).
constexpr double kCorrectionThreshold = 2.0; // ratios within [1/2, 2] are the model's noise
constexpr double kMinEstimateMs = 2.0;       // shorter runs are dominated by fixed costs
constexpr double kMaxCorrection = 256.0; // a safety net, not a model
std::mutex gCorrectionMutex;
double gCorrection[3] = {1.0, 1.0, 1.0};

int correctionSlot(Method m)
{
    switch (m) {
    case Method::Direct: return 0;
    case Method::Separable: return 1;
    case Method::Fft: return 2;
    case Method::Auto:
    case Method::Reference: return -1;
    }
    return -1;
}

} // namespace

std::vector<MethodEstimate> correctedEstimates(std::vector<MethodEstimate> estimates)
{
    std::lock_guard lock(gCorrectionMutex);
    for (MethodEstimate& e : estimates)
        if (const int slot = correctionSlot(e.method); slot >= 0) e.ms *= gCorrection[slot];
    return estimates;
}

std::optional<std::string> recordMeasurement(Method method, double estimateMs, double measuredMs)
{
    const int slot = correctionSlot(method);
    if (slot < 0 || !(estimateMs >= kMinEstimateMs) || !(measuredMs > 0.0)) return std::nullopt;
    const double ratio = measuredMs / estimateMs;
    if (ratio <= kCorrectionThreshold && ratio >= 1.0 / kCorrectionThreshold) return std::nullopt;
    double applied = 1.0;
    {
        std::lock_guard lock(gCorrectionMutex);
        const double before = gCorrection[slot];
        gCorrection[slot] = std::clamp(before * ratio, 1.0 / kMaxCorrection, kMaxCorrection);
        applied = gCorrection[slot] / before;
    }
    std::ostringstream note;
    note.precision(3);
    note << "the planner estimated " << methodName(method) << " at " << estimateMs << " ms and it took "
         << measuredMs << " ms: its estimates for " << methodName(method) << " are scaled by " << applied
         << " from now on";
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

std::vector<MethodEstimate> estimateCpu(const CostModel& m, int w, int h, int channels, const Kernel& k,
                                        int rank, int threads)
{
    const double values = double(w) * h * channels;
    const double par = std::max(1, std::min(threads, h));
    const int taps = k.width * k.height;
    std::vector<MethodEstimate> e;
    e.push_back({Method::Direct, values * (m.directPerPixel + m.directPerTap * taps) / par / 1e6, 0});
    if (rank >= 0)
        e.push_back({Method::Separable,
                     // every pass pair moves the rows once more
                     values * std::max(rank, 1) * (m.separablePerPixel + m.separablePerTap * (k.width + k.height)) /
                         par / 1e6,
                     rank});
    const FftTiling t = fftTiling(w, h, k.width, k.height);
    const double n = double(t.n0) * t.n1;
    const double points = n * std::log2(std::max(n, 2.0)) * t.tilesX * t.tilesY * channels;
    const double fftPar = std::max(1, std::min(threads, t.tilesX * t.tilesY));
    e.push_back({Method::Fft, (values * m.fftPerPixel + points * m.fftPerPoint) / fftPar / 1e6, 0});
    return e;
}

} // namespace detail

const CostModel& cpuCostModel() { return detail::cpuCostModel(nullptr); }

double plannerCorrection(Method m)
{
    const int slot = detail::correctionSlot(m);
    if (slot < 0) return 1.0;
    std::lock_guard lock(detail::gCorrectionMutex);
    return detail::gCorrection[slot];
}

void resetPlannerCorrections()
{
    std::lock_guard lock(detail::gCorrectionMutex);
    for (double& c : detail::gCorrection) c = 1.0;
}

} // namespace convlab
