// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/calibrations.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <fstream>
#include <mutex>
#include <system_error>

#include "convlab/error.h"
#include "io/fsutil.h"

namespace convlab::detail {
namespace {

std::mutex gStoreMutex; // one read-modify-write at a time within the process

// The whole store; an empty object when it is absent or damaged.
nlohmann::json readStore(const std::filesystem::path& path)
{
    std::ifstream f(path);
    if (!f) return nlohmann::json::object();
    try {
        nlohmann::json j = nlohmann::json::parse(f);
        return j.is_object() ? j : nlohmann::json::object();
    } catch (const std::exception&) {
        return nlohmann::json::object();
    }
}

} // namespace

std::filesystem::path calibrationsPath()
{
    const auto dir = cacheDirectory();
    return dir.empty() ? dir : dir / "calibrations.json";
}

std::optional<CalibrationValues> loadCalibration(const std::string& section, int version, const std::string& identity)
{
    const auto path = calibrationsPath();
    if (path.empty()) return std::nullopt;
    std::lock_guard lock(gStoreMutex);
    const nlohmann::json store = readStore(path);
    try {
        const auto it = store.find(section);
        if (it == store.end()) return std::nullopt;
        const nlohmann::json& s = *it;
        if (s.at("version").get<int>() != version || s.at("identity").get<std::string>() != identity)
            return std::nullopt;
        CalibrationValues values;
        for (const auto& [key, value] : s.at("values").items()) values[key] = value.get<std::string>();
        return values;
    } catch (const std::exception&) {
        return std::nullopt; // a damaged section is measured again
    }
}

void saveCalibration(const std::string& section, int version, const std::string& identity,
                     const CalibrationValues& values)
{
    const auto path = calibrationsPath();
    if (path.empty()) return;
    std::lock_guard lock(gStoreMutex);
    nlohmann::json store = readStore(path);
    store[section] = {{"version", version}, {"identity", identity}, {"values", values}};
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    try {
        writeFileAtomically(path.string(), [&](const std::string& tmp) {
            std::ofstream f(tmp);
            f << store.dump(2) << '\n';
            f.close();
            if (!f) throw Error("cannot write '" + tmp + "'");
        });
    } catch (const std::exception&) {
        // A store of measurements: failing to keep one costs a measurement next time.
    }
}

std::string calibrationNumber(double v)
{
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v); // shortest text that reads back exactly
    return std::string(buf, r.ptr);
}

std::optional<double> parseCalibrationNumber(const std::string& text)
{
    double v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<double> calibrationNumberAt(const CalibrationValues& values, const std::string& key)
{
    const auto it = values.find(key);
    return it == values.end() ? std::nullopt : parseCalibrationNumber(it->second);
}

} // namespace convlab::detail
