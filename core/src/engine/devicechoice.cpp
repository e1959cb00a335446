// SPDX-License-Identifier: GPL-3.0-or-later
// Device auto: CPU or GPU by what each would cost the caller, the bus included
// (docs/architecture.md, The device choice).
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "convlab/costs.h"
#include "convlab/error.h"
#include "io/fsutil.h"

namespace convlab {
namespace {

constexpr int kBusVersion = 1;

std::filesystem::path busPath()
{
    const auto dir = detail::cacheDirectory();
    return dir.empty() ? dir : dir / "gpu-bus.json";
}

std::string ms(double v)
{
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 3);
    return std::string(buf, r.ptr) + " ms";
}

std::mutex gBusMutex;

} // namespace

BusCosts cachedBusCosts()
{
    std::lock_guard lock(gBusMutex);
    BusCosts bus;
    const auto path = busPath();
    std::ifstream f(path);
    if (path.empty() || !f) return bus;
    try {
        const auto j = nlohmann::json::parse(f);
        if (j.at("version").get<int>() != kBusVersion) return {};
        bus.uploadGBs = j.at("upload_gbs");
        bus.downloadGBs = j.at("download_gbs");
        bus.pinnedUpGBs = j.value("pinned_up_gbs", 0.0);
        bus.pinnedDownGBs = j.value("pinned_down_gbs", 0.0);
        bus.latencyMs = j.value("latency_ms", 0.0);
        bus.device = j.value("device", std::string());
        if (!(bus.uploadGBs > 0 && bus.downloadGBs > 0 && std::isfinite(bus.uploadGBs) && std::isfinite(bus.downloadGBs)))
            return {};
    } catch (const std::exception&) {
        return {}; // a damaged cache is measured again
    }
    return bus;
}

void saveBusCosts(const BusCosts& bus)
{
    if (!bus.known()) return;
    std::lock_guard lock(gBusMutex);
    const auto path = busPath();
    if (path.empty()) return;
    const nlohmann::json j{{"version", kBusVersion},           {"device", bus.device},
                           {"upload_gbs", bus.uploadGBs},      {"download_gbs", bus.downloadGBs},
                           {"pinned_up_gbs", bus.pinnedUpGBs}, {"pinned_down_gbs", bus.pinnedDownGBs},
                           {"latency_ms", bus.latencyMs}};
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    try {
        detail::writeFileAtomically(path.string(), [&](const std::string& tmp) {
            std::ofstream f(tmp);
            f << j.dump(2) << '\n';
            f.close();
            if (!f) throw Error("cannot write '" + tmp + "'");
        });
    } catch (const std::exception&) {
        // A cache: failing to keep it costs a calibration next time.
    }
}

DeviceChoice chooseDevice(const DeviceCosts& c)
{
    const double bus = c.uploadMs + c.downloadMs;
    const std::string transfers = c.uploadMs > 0 ? "moving the image up and the result down " + ms(bus)
                                                 : "moving the result down " + ms(bus) + " (the image is on the GPU)";
    if (c.gpuComputeMs < 0) {
        if (bus >= c.cpuMs)
            return {Device::Cpu, "the CPU's estimate " + ms(c.cpuMs) + " is under the GPU's transfers alone (" +
                                     transfers + ")"};
        return {Device::Auto, "the GPU's transfers (" + transfers + ") are under the CPU's estimate " + ms(c.cpuMs) +
                                  ": the GPU's own estimate decides"};
    }
    const double gpu = c.gpuComputeMs + bus;
    if (gpu < c.cpuMs)
        return {Device::Cuda, "the GPU's " + ms(gpu) + " (computing " + ms(c.gpuComputeMs) + ", " + transfers +
                                  ") against the CPU's " + ms(c.cpuMs)};
    return {Device::Cpu, "the CPU's " + ms(c.cpuMs) + " against the GPU's " + ms(gpu) + " (computing " +
                             ms(c.gpuComputeMs) + ", " + transfers + ")"};
}

} // namespace convlab
