// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA session's measurements: the planner's cost constants, the tiled grid's choice, the estimates.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cudacheck.h"
#include "convlab/error.h"
#include "launchers.h"
#include "engine/planner.h"
#include "methods/methods.h"
#include "session_internal.h"

namespace convlab::cuda {

namespace {

constexpr const char* kSessionSection = "gpu-session";
constexpr int kSessionVersion = 1;

#ifndef CONVLAB_VERSION
#define CONVLAB_VERSION "unknown"
#endif

} // namespace

std::string Session::calibrationIdentity() const
{
    // The version too: the constants and the grid's timings are this build's kernels'.
    return name_ + " | sm_" + std::to_string(computeCapability_) + " | convlab " + CONVLAB_VERSION;
}

detail::CalibrationValues& Session::keptSection()
{
    if (!kept_) kept_ = detail::loadCalibration(kSessionSection, kSessionVersion, calibrationIdentity())
                            .value_or(detail::CalibrationValues{});
    return *kept_;
}

std::optional<std::string> Session::keptValue(const std::string& key)
{
    const detail::CalibrationValues& kept = keptSection();
    const auto it = kept.find(key);
    return it == kept.end() ? std::nullopt : std::optional<std::string>(it->second);
}

void Session::keepValues(const detail::CalibrationValues& values)
{
    detail::CalibrationValues& kept = keptSection(); // the section as stored: the other values stay
    for (const auto& [key, value] : values) kept[key] = value;
    detail::saveCalibration(kSessionSection, kSessionVersion, calibrationIdentity(), kept);
}

void Session::restoreTransfers()
{
    link_.setOnCalibrated([this](const TransferFigures& f) {
        keepValues({{"transfer_up", transferWayName(f.up)}, {"transfer_down", transferWayName(f.down)}});
    });
    const auto up = keptValue("transfer_up"), down = keptValue("transfer_down");
    if (!up || !down) return;
    const auto upWay = transferWayNamed(*up), downWay = transferWayNamed(*down);
    const BusCosts bus = cachedBusCosts(); // the figures that go with the ways, kept by the executor
    if (!upWay || !downWay || !bus.known() || bus.device != name_) return;
    TransferFigures f;
    f.up = *upWay;
    f.down = *downWay;
    f.bus = bus;
    f.note = "host transfers: " + *up + " up, " + *down + " down (timed by an earlier process on this device)";
    link_.restore(f);
}

namespace {

// The device's constants in the planner's model; the FFT's per-value cost is the direct pass's
// (the embedding and the crop), as the CPU's calibration takes it.
CostModel gpuCostModel(double directPerPixel, double directPerTap, double separablePerPixel, double separablePerTap,
                       double fftPerPoint)
{
    CostModel m;
    m.cpu = "this GPU";
    m.of(Method::Direct) = {directPerPixel, directPerTap};
    m.of(Method::Separable) = {separablePerPixel, separablePerTap};
    m.of(Method::Fft) = {directPerPixel, fftPerPoint};
    return m;
}

} // namespace

const CostModel& Session::costs()
{
    if (costs_) return *costs_;
    chooseTiledGrid();
    // Kept by an earlier process on this device: no scratch runs.
    auto kept = [this](const char* key) { return detail::calibrationNumberAt(keptSection(), key); };
    const auto dPix = kept("direct_per_pixel"), dTap = kept("direct_per_tap"), sPix = kept("separable_per_pixel"),
               sTap = kept("separable_per_tap"), fPoint = kept("fft_per_point");
    if (dPix && dTap && sPix && sTap && fPoint) {
        costs_ = gpuCostModel(*dPix, *dTap, *sPix, *sTap, *fPoint);
        return *costs_;
    }
    const int n = 2048;
    Buffer<float> in, out, tmp, k;
    in.reserve(size_t(n) * n);
    out.reserve(size_t(n) * n);
    tmp.reserve(size_t(n) * (n + 63));
    k.reserve(64 * 64);
    check(cudaMemsetAsync(in.get(), 0, sizeof(float) * n * n, stream_), "scratch");
    check(cudaMemsetAsync(k.get(), 0, sizeof(float) * 64 * 64, stream_), "scratch");
    auto geometry = [n](int kw, int kh) { return scratchGeometry(n, kw, kh); };
    const double mpx = double(n) * n / 1e6;
    chooseTiledGrid();
    auto direct = [&](const Geometry& g) { // zero taps in k: any layout reads zeros
        launchDirectPlanned(in.get(), out.get(), g, directPlanFor(g, tiledGrid_, deviceSharedOptinBytes()), k.get(),
                            stream_);
    };
    // ms per million outputs is ns per output: the units of the planner's constants.
    const double d3 = bestOfThree([&] { direct(geometry(3, 3)); });
    const double d15 = bestOfThree([&] { direct(geometry(15, 15)); });
    const double directPerTap = std::max((d15 - d3) / (225 - 9), 1e-9) / mpx;
    const double directPerPixel = std::max(d3 / mpx - 9 * directPerTap, 0.0);
    auto pair = [&](int len) {
        const Geometry g = geometry(len, len);
        launchRowPass(in.get(), tmp.get(), g, k.get(), stream_);
        launchColPass(tmp.get(), out.get(), g, k.get(), false, true, stream_);
    };
    const double s3 = bestOfThree([&] { pair(3); }), s31 = bestOfThree([&] { pair(31); });
    const double separablePerTap = std::max((s31 - s3) / (62 - 6), 1e-9) / mpx;
    const double separablePerPixel = std::max(s3 / mpx - 6 * separablePerTap, 0.0);
    // FFT: forward, product and inverse at the transform size of a 9x9 kernel; the embedding
    // and the crop move the data as the direct pass does (its per-value cost, as on the CPU).
    const int n0 = detail::fftFriendlySize(n + 8), n1 = n0, n1c = n1 / 2 + 1;
    const Plans plans = plansFor(n0, n1, 1);
    Buffer<float> real;
    Buffer<float2> spec;
    real.reserve(size_t(n0) * n1);
    spec.reserve(size_t(n0) * n1c);
    const Geometry g9 = geometry(9, 9);
    const double f = bestOfThree([&] {
        launchPadEmbed(in.get(), real.get(), g9, planeLayout(g9, n0, n1), stream_);
        cufftExecR2C(plans.forward, real.get(), reinterpret_cast<cufftComplex*>(spec.get()));
        launchSpectrumProduct(spec.get(), spec.get(), (long long)n0 * n1c, 1, stream_);
        cufftExecC2R(plans.backward, reinterpret_cast<cufftComplex*>(spec.get()), real.get());
        launchCrop(real.get(), out.get(), g9, planeLayout(g9, n0, n1), stream_);
    });
    const double points = double(n0) * n1 * std::log2(double(n0) * n1) / 1e6;
    const double fftPerPoint = std::max((f - directPerPixel * mpx) / points, 1e-9);
    costs_ = gpuCostModel(directPerPixel, directPerTap, separablePerPixel, separablePerTap, fftPerPoint);
    costsTimed_ = true;
    keepValues({{"direct_per_pixel", detail::calibrationNumber(directPerPixel)},
                {"direct_per_tap", detail::calibrationNumber(directPerTap)},
                {"separable_per_pixel", detail::calibrationNumber(separablePerPixel)},
                {"separable_per_tap", detail::calibrationNumber(separablePerTap)},
                {"fft_per_point", detail::calibrationNumber(fftPerPoint)}});
    return *costs_;
}

// One n x n channel, a kw x kh kernel anchored at its centre, border reflect: the scratch
// runs of the calibration and of chooseTiledGrid.
Geometry Session::scratchGeometry(int n, int kw, int kh)
{
    Geometry g;
    g.w = g.h = n;
    g.channels = 1;
    g.kw = kw;
    g.kh = kh;
    g.ax = kw / 2;
    g.ay = kh / 2;
    g.mode = BorderMode::Reflect;
    return g;
}

// The tiled direct kernel's candidate (launchers.h, tiledVariants: grids, loads, tile shapes,
// register caps), chosen once by measurement: each runs a 3x3 kernel over the same 2048x2048
// image (the bandwidth-bound case the candidates aim at), and the fastest whose outputs are
// the default's bits is kept; one whose outputs differ is never used. CONVLAB_GPU_TILED_GRID=
// <name> sets one instead (the sanitizer runs of tests/gpu/device-check.sh check each so).
void Session::chooseTiledGrid()
{
    if (!choices_.empty()) return;
    const std::vector<TiledVariantInfo>& variants = tiledVariants();
    if (const char* forced = std::getenv("CONVLAB_GPU_TILED_GRID")) {
        const std::string name = forced;
        std::string names;
        for (const TiledVariantInfo& v : variants) {
            if (name == v.name) {
                tiledGrid_ = v.grid;
                choices_ = "tiled direct grid: " + name + " (CONVLAB_GPU_TILED_GRID)";
                return;
            }
            names += (names.empty() ? "" : ", ") + std::string(v.name);
        }
        throw Error("CONVLAB_GPU_TILED_GRID is '" + name + "': one of " + names);
    }
    if (const auto kept = keptValue("tiled_grid"))
        for (const TiledVariantInfo& v : variants)
            if (*kept == v.name) {
                tiledGrid_ = v.grid;
                choices_ = "tiled direct grid: using " + *kept + " (timed by an earlier process on this device)";
                return;
            }
    const int n = 2048;
    const size_t values = size_t(n) * n;
    std::vector<float> host(values);
    for (size_t i = 0; i < values; ++i) // values in [-0.5, 0.5) from a multiplicative hash: no pattern to the tiles
        host[i] = static_cast<float>((static_cast<std::uint32_t>(i) * 2654435761u) >> 8) / 16777216.0f - 0.5f;
    // 3 kernel rows padded to 4 values (tiled::shapeFor(g).kwp), any taps but zero.
    const float taps[12] = {0.25f, -1.0f, 0.5f, 0.0f, 2.0f, 0.125f, -0.75f, 0.0f, 1.0f, 0.375f, -0.5f, 0.0f};
    const Geometry g = scratchGeometry(n, 3, 3);
    DeviceBuffer<float> in, taps3, out;
    in.reserve(values);
    taps3.reserve(12);
    out.reserve(values);
    check(cudaMemcpyAsync(in.get(), host.data(), sizeof(float) * values, cudaMemcpyHostToDevice, stream_), "scratch");
    check(cudaMemcpyAsync(taps3.get(), taps, sizeof taps, cudaMemcpyHostToDevice, stream_), "scratch");
    std::vector<float> want(values), got(values);
    std::ostringstream note;
    note.precision(4);
    note << "tiled direct grid (3x3, " << n << "x" << n << "):";
    double bestMs = 0;
    const char* bestName = variants.front().name;
    tiledGrid_ = variants.front().grid;
    for (size_t i = 0; i < variants.size(); ++i) {
        const TiledVariantInfo& v = variants[i];
        note << (i ? ", " : " ") << v.name << " ";
        double ms = 0;
        try {
            // NaN bits first, so that an output a candidate leaves unwritten cannot match.
            check(cudaMemsetAsync(out.get(), 0xff, sizeof(float) * values, stream_), "scratch");
            ms = bestOfThree([&] { launchDirectTiled(in.get(), out.get(), g, taps3.get(), v.grid, stream_); });
            check(cudaMemcpyAsync((i ? got : want).data(), out.get(), sizeof(float) * values, cudaMemcpyDeviceToHost,
                                  stream_), "download");
            check(cudaStreamSynchronize(stream_), "download");
        } catch (const Error& e) {
            if (i == 0) throw; // the default must run
            note << "failed (" << e.what() << ")";
            continue;
        }
        note << ms << " ms";
        if (i > 0 && std::memcmp(want.data(), got.data(), sizeof(float) * values) != 0) {
            note << " (its outputs differ: not used)";
            continue;
        }
        if (i == 0 || ms < bestMs) {
            bestMs = ms;
            bestName = v.name;
            tiledGrid_ = v.grid;
        }
    }
    note << "; using " << bestName;
    choices_ = note.str();
    tiledGridTimed_ = true;
    keepValues({{"tiled_grid", bestName}});
}

// Each method's time on this device for the image held: the planner's pricing of the
// methods' own cost terms (engine/planner.h priceMethods) with this device's constants, one
// "thread" (the constants are whole-device times). Only the FFT's terms are this backend's:
// one transform of cuFFT's sides per channel, where the CPU tiles FFTW's.
std::vector<MethodEstimate> Session::estimateGpu(const Kernel& k, int rank, int channels, int w, int h)
{
    const CostModel& model = costs();
    const detail::RunShape shape{w, h, channels, &k, rank, 1};
    auto cufftTerms = [this](Method m, const detail::RunShape& s) -> std::optional<detail::CostTerms> {
        if (m != Method::Fft) return std::nullopt;
        const auto [n0, n1] = knownFftSides(s.height + s.kernel->height - 1, s.width + s.kernel->width - 1, s.channels);
        const double points = double(n0) * n1 * std::log2(double(n0) * n1) * s.channels;
        return detail::CostTerms{double(s.width) * s.height * s.channels, points, 1};
    };
    std::vector<MethodEstimate> estimates =
        detail::priceMethods(model, shape, {Method::Direct, Method::Separable, Method::Fft}, cufftTerms);
    // The model knows only the plane with separate passes; once fftChoiceFor has timed the
    // layouts for this image and kernel size, the time of the one it kept is the estimate.
    const auto timed = fftLayoutMs_.find(std::make_tuple(w, h, k.width, k.height, channels));
    if (timed != fftLayoutMs_.end())
        for (MethodEstimate& e : estimates)
            if (e.method == Method::Fft) e.ms = timed->second;
    return estimates;
}

} // namespace convlab::cuda
