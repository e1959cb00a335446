// SPDX-License-Identifier: GPL-3.0-or-later
// Device auto: CPU or GPU by what each would cost the caller, the bus included
// (docs/architecture.md, The device choice).
#include <charconv>
#include <cmath>
#include <mutex>

#include "convlab/costs.h"
#include "convlab/error.h"
#include "engine/calibrations.h"

namespace convlab {
namespace {

constexpr int kBusVersion = 2; // 2: kept in the calibration store
// CUDA's section keeps the name it had when it was the only GPU backend.
std::string busSection(Device device)
{
    return device == Device::Cuda ? std::string("gpu-bus") : backendInfo(device).name + std::string("-bus");
}

std::string ms(double v)
{
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 3);
    return std::string(buf, r.ptr) + " ms";
}

std::mutex gBusMutex;

} // namespace

// The bus figures in the calibration store (engine/calibrations.h), one section per GPU backend
// ("gpu-bus" for CUDA, NAME-bus for another). They are read before the session starts (that is
// what they are for), so the section has no identity to check; the device they were measured on
// is kept among the values.
BusCosts cachedBusCosts(Device device)
{
    std::lock_guard lock(gBusMutex);
    const auto stored = detail::loadCalibration(busSection(device), kBusVersion, "");
    if (!stored) return {};
    auto number = [&](const char* key) { return detail::calibrationNumberAt(*stored, key).value_or(0.0); };
    BusCosts bus;
    bus.uploadGBs = number("upload_gbs");
    bus.downloadGBs = number("download_gbs");
    bus.pinnedUpGBs = number("pinned_up_gbs");
    bus.pinnedDownGBs = number("pinned_down_gbs");
    bus.latencyMs = number("latency_ms");
    if (const auto it = stored->find("device"); it != stored->end()) bus.device = it->second;
    if (!(bus.uploadGBs > 0 && bus.downloadGBs > 0)) return {}; // damaged: measured again
    return bus;
}

void saveBusCosts(const BusCosts& bus, Device device)
{
    if (!bus.known()) return;
    std::lock_guard lock(gBusMutex);
    detail::saveCalibration(busSection(device), kBusVersion, "",
                            {{"device", bus.device},
                             {"upload_gbs", detail::calibrationNumber(bus.uploadGBs)},
                             {"download_gbs", detail::calibrationNumber(bus.downloadGBs)},
                             {"pinned_up_gbs", detail::calibrationNumber(bus.pinnedUpGBs)},
                             {"pinned_down_gbs", detail::calibrationNumber(bus.pinnedDownGBs)},
                             {"latency_ms", detail::calibrationNumber(bus.latencyMs)}});
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
        return {c.gpu, "the GPU's " + ms(gpu) + " (computing " + ms(c.gpuComputeMs) + ", " + transfers +
                                  ") against the CPU's " + ms(c.cpuMs)};
    return {Device::Cpu, "the CPU's " + ms(c.cpuMs) + " against the GPU's " + ms(gpu) + " (computing " +
                             ms(c.gpuComputeMs) + ", " + transfers + ")"};
}

} // namespace convlab
