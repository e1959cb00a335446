// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-gpu-bench: the CUDA backend's methods (those of convlab/modes.h but the reference) on
// float32 images, kernel time from CUDA events and end-to-end (upload + run + download) reported
// apart, in GB/s and as a share of the device's measured copy bandwidth. `--json FILE` writes
// the records.
#include <algorithm>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/gpu.h"
#include "convlab/modes.h"

using namespace convlab;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Case {
    std::string name;
    Kernel kernel;
};

// Every method of the table but the oracle (which the GPU runs as direct): those auto weighs,
// then auto.
std::vector<Method> benchedMethods()
{
    std::vector<Method> out;
    for (bool candidates : {true, false})
        for (const MethodInfo& m : methods())
            if (m.autoCandidate == candidates && m.accuracy != Accuracy::Oracle) out.push_back(m.method);
    return out;
}

// One border for every case (peers_gpu.py reads it from the records and pads its peers alike).
constexpr BorderMode kBorder = BorderMode::Reflect;

// The median over `runs` resident runs of the device's own stages (CUDA events; the kernel's
// upload excluded); `rep` is left holding the last run's report.
double residentKernelMs(GpuSession& gpu, const ConvolveParams& p, int runs, RunReport& rep)
{
    std::vector<double> kernelMs;
    for (int r = 0; r < runs; ++r) {
        rep = RunReport{};
        gpu.runResident(p, &rep);
        double k = 0.0;
        for (const StageTiming& s : rep.stages)
            if (s.name != "upload") k += s.ms;
        kernelMs.push_back(k);
    }
    return median(kernelMs);
}

} // namespace

int main(int argc, char** argv)
{
    std::string jsonPath;
    std::vector<int> sizes = {4096, 8192};
    int runs = 7;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--json" && i + 1 < argc) jsonPath = argv[++i];
        else if (a == "--quick") sizes = {1024}, runs = 3;
        else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else {
            std::cerr << "usage: convlab-gpu-bench [--quick] [--runs N] [--json FILE]\n";
            return 2;
        }
    }
    std::string why;
    auto gpu = startCudaSession(&why);
    if (!gpu) {
        std::cerr << "convlab-gpu-bench: CUDA unavailable: " << why << "\n";
        return 1;
    }
    try {
        const double copyGBs = gpu->copyBandwidthGBs();
        std::printf("device: %s, device-to-device copy %.0f GB/s\n\n", gpu->deviceName().c_str(), copyGBs);
        std::mt19937 rng(5);
        std::normal_distribution<float> nd;
        auto dense = [&](int n) {
            std::vector<float> v(std::size_t(n) * n);
            for (float& x : v) x = nd(rng);
            return Kernel(n, n, v);
        };
        const std::vector<Case> cases = {
            {"3x3 edge8", parseKernelText("1 1 1; 1 -8 1; 1 1 1")},
            {"5x5 gaussian", makePreset("gaussian", "sigma=1,size=5")},
            {"11x11 dense", dense(11)},
            {"17x17 dense", dense(17)},
            {"31x31 dense", dense(31)},
            {"31x31 gaussian", makePreset("gaussian", "sigma=5,size=31")},
            {"63x63 dense", dense(63)},
        };
        nlohmann::json records = nlohmann::json::array();
        std::printf("kernel ms: median of %d resident runs (CUDA events, the kernel upload excluded); e2e ms: float "
                    "upload + run + download, host clock, median of 3\n", runs);
        std::printf("%-6s %-15s %-16s %10s %10s %9s %8s %10s\n", "size", "kernel", "method", "kernel ms", "e2e ms",
                    "GB/s", "% copy", "Mpx/s");
        for (int n : sizes) {
            Image img(n, n, 1);
            for (float& x : img.data) x = nd(rng);
            gpu->setImage(img);
            for (const Case& c : cases)
                for (Method m : benchedMethods()) {
                    ConvolveParams p;
                    p.kernel = c.kernel;
                    p.border = {kBorder, 0.0f};
                    p.method = m;
                    RunReport rep;
                    gpu->runResident(p, &rep); // warm-up: plans, spectra, calibration, first launch
                    const double km = residentKernelMs(*gpu, p, runs, rep);
                    std::vector<double> e2eMs;
                    for (int r = 0; r < 3; ++r) {
                        const auto t0 = std::chrono::steady_clock::now();
                        gpu->setImage(img);
                        gpu->run(p);
                        e2eMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
                    }
                    const double em = median(e2eMs);
                    const double bytes = 2.0 * double(n) * n * sizeof(float); // read the image, write the result
                    const double gbs = bytes / (km * 1e-3) / 1e9;
                    std::printf("%-6d %-15s %-16s %10.3f %10.3f %9.1f %7.1f%% %10.0f\n", n, c.name.c_str(),
                                (methodName(m) + (rep.method != m ? "->" + methodName(rep.method) : "")).c_str(), km,
                                em, gbs, 100.0 * gbs / copyGBs, double(n) * n / (km * 1e-3) / 1e6);
                    std::fflush(stdout);
                    records.push_back({{"size", n},
                                       {"kernel", c.name},
                                       {"border", borderName(kBorder)},
                                       {"method", methodName(m)},
                                       {"chosen", methodName(rep.method)},
                                       {"kernel_ms", km},
                                       {"end_to_end_ms", em},
                                       {"gb_per_s", gbs},
                                       {"copy_gb_per_s", copyGBs}});
                }
        }
        // RGB and RGBA: every channel in one launch (grid z), so the share of the copy bandwidth
        // should be that of one channel. Kernel time only, 4096x4096, the small kernels.
        std::printf("\nchannels at 4096x4096 (kernel ms as above; GB/s counts every channel read and written)\n");
        for (int channels : {1, 3, 4}) {
            Image img(4096, 4096, channels);
            for (float& x : img.data) x = nd(rng);
            gpu->setImage(img);
            for (std::size_t ci = 0; ci < 2; ++ci) {
                const Case& c = cases[ci];
                ConvolveParams p;
                p.kernel = c.kernel;
                p.border = {kBorder, 0.0f};
                p.method = Method::Direct;
                RunReport rep;
                gpu->runResident(p, &rep); // warm-up
                const double km = residentKernelMs(*gpu, p, runs, rep);
                const double gbs = 2.0 * 4096.0 * 4096.0 * channels * sizeof(float) / (km * 1e-3) / 1e9;
                std::printf("%-6d %-15s %-16s %10.3f %10s %9.1f %7.1f%%  %d channel%s\n", 4096, c.name.c_str(), "direct", km,
                            "-", gbs, 100.0 * gbs / copyGBs, channels, channels == 1 ? "" : "s");
                records.push_back({{"size", 4096},
                                   {"kernel", c.name},
                                   {"channels", channels},
                                   {"method", "direct"},
                                   {"kernel_ms", km},
                                   {"gb_per_s", gbs},
                                   {"copy_gb_per_s", copyGBs}});
            }
        }
        // Source upload: float32 against 8-bit samples converted on the device (RGB, 3840x2160).
        {
            PackedImage pk;
            pk.width = 3840;
            pk.height = 2160;
            pk.channels = 3;
            pk.order = {2, 1, 0, 3};
            pk.stride = std::size_t(pk.width) * 3;
            pk.bytes.resize(pk.stride * pk.height);
            for (auto& b : pk.bytes) b = static_cast<std::uint8_t>(rng());
            const Image asFloat = unpackImage(pk);
            auto timeIt = [&](auto&& f) {
                std::vector<double> t;
                for (int r = 0; r < 5; ++r) {
                    const auto t0 = std::chrono::steady_clock::now();
                    f();
                    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
                }
                return median(t);
            };
            const double f32 = timeIt([&] { gpu->setImage(asFloat); });
            const double u8 = timeIt([&] { gpu->setImage(pk); });
            std::printf("\nsource upload, 3840x2160 RGB: float32 %.2f ms, 8-bit converted on the GPU %.2f ms (%.1fx)\n",
                        f32, u8, f32 / u8);
            records.push_back({{"upload_float_ms", f32}, {"upload_8bit_ms", u8}});
        }
        // What the session tuned on this device, with the times it chose by (the FFT sides are
        // chosen per padded size as the cases first need them).
        std::printf("\ntuned on this device:\n%s\n", gpu->kernelChoices().c_str());
        records.push_back({{"kernel_choices", gpu->kernelChoices()}});
        if (!jsonPath.empty()) std::ofstream(jsonPath) << records.dump(2) << "\n";
    } catch (const Error& e) {
        std::cerr << "convlab-gpu-bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
