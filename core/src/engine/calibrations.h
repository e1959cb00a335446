// SPDX-License-Identifier: GPL-3.0-or-later
// The calibrations: what the engine measured about this machine (the CPU planner's constants,
// the bus figures, the GPU session's choices), kept between processes in one store, the file
// calibrations.json in the user's cache directory. Each subject is a section of its own with
// the version of the code that measured it and the identity of what was measured (the CPU
// model, the GPU's name); a section that is missing, damaged, of another version or of another
// identity reads as absent and is measured again, and writing one leaves the others as they
// are. The file is replaced atomically; two processes that write at once may each keep only
// their own section, which costs the other a measurement next time, never a wrong figure.
// A store of measurements, not settings: nothing in it is needed to run, and deleting it is safe.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace convlab::detail {

// Where the store lives (empty when there is no cache directory: nothing is kept).
std::filesystem::path calibrationsPath();

// A section's values as text (numbers written with every digit they need), keyed by name.
using CalibrationValues = std::map<std::string, std::string>;

// The values of `section` measured by code of `version` on `identity`; nullopt when the store
// has none that match (or cannot be read).
std::optional<CalibrationValues> loadCalibration(const std::string& section, int version, const std::string& identity);
// Replaces `section` in the store; failing to write only costs a measurement next time.
void saveCalibration(const std::string& section, int version, const std::string& identity,
                     const CalibrationValues& values);

// A number as the store keeps it, and back (nullopt for text that is not a finite number).
std::string calibrationNumber(double v);
std::optional<double> parseCalibrationNumber(const std::string& text);
// The number kept under `key` (nullopt when absent or not a finite number).
std::optional<double> calibrationNumberAt(const CalibrationValues& values, const std::string& key);

} // namespace convlab::detail
