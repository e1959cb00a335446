// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace convlab {

enum class Semantics { Convolution, Correlation };

// A w x h kernel of finite float values, row-major (values[v*width + u], v = row). The anchor
// defaults to (floor(w/2), floor(h/2)); anchorX/anchorY < 0 means "default".
struct Kernel {
    int width = 0;
    int height = 0;
    std::vector<float> values;
    int anchorX = -1;
    int anchorY = -1;
    std::string name; // preset name or file stem, for reports; may be empty

    Kernel() = default;
    Kernel(int w, int h, std::vector<float> v) : width(w), height(h), values(std::move(v)) {}

    float at(int v, int u) const { return values[static_cast<std::size_t>(v) * width + u]; }
    int ax() const { return anchorX >= 0 ? anchorX : width / 2; }
    int ay() const { return anchorY >= 0 ? anchorY : height / 2; }
    double sum() const;
    double absSum() const;
    // Throws convlab::Error unless the size is within limits, values count matches, every
    // value is finite and the anchor lies inside the kernel.
    void validate() const;
    // Text form: rows separated by "; " values by spaces, shortest round-trip float spelling.
    std::string toText() const;
};

inline constexpr int kMaxKernelSide = 1025;
// Kernel files larger than this are refused before they are read: 32 MiB, about twice the
// largest file saveKernelFile writes (a 1025x1025 kernel of the longest float spellings is
// under 17 MB as JSON and under 16 MB as text). Within it, a JSON file that holds more numbers
// than a 1025x1025 kernel is refused while it is parsed, so loading never takes more than a
// few tens of MB.
inline constexpr std::uintmax_t kMaxKernelFileBytes = std::uintmax_t(32) << 20;

// What a kernel source can carry besides the values (JSON files may set these).
struct KernelSpec {
    Kernel kernel;
    std::optional<double> scale;
    std::optional<double> offset;
    std::optional<bool> normalize;
    std::optional<Semantics> semantics;
};

// Text form: rows separated by newlines or ';', values by spaces or commas, numbers may be
// fractions "1/16" or carry a sign/exponent. Blank lines and '#' comments are ignored.
// Throws convlab::Error naming the row and token for ragged rows, bad numbers, non-finite values.
Kernel parseKernelText(std::string_view text);

// JSON kernel document:
// {"name": "...", "size": [w, h], "values": [[row0...], [row1...]] or flat list,
//  "anchor": [x, y], "scale": s, "offset": o, "normalize": bool,
//  "semantics": "convolution" | "correlation"}
KernelSpec parseKernelJson(std::string_view json);
std::string kernelToJson(const KernelSpec& spec);

// Resolves a CLI/GUI kernel spec: "preset:NAME[:k=v,...]", a path to a .json or text file
// (when such a file exists; at most kMaxKernelFileBytes), inline JSON (a spec starting with
// "{"), otherwise inline text.
KernelSpec loadKernelSpec(std::string_view spec);
// Writes a kernel file: .json gives the JSON form, anything else the text form. Atomic.
void saveKernelFile(const KernelSpec& spec, const std::string& path);

// ---- presets ----
struct PresetParam {
    std::string name;
    double defaultValue;
    double minValue;
    double maxValue;
    std::string help;
    // When not empty, the parameter names one of these ("window=kaiser", case ignored) and
    // its value is that name's index; defaultValue, minValue and maxValue are indices too.
    std::vector<std::string> choices = {};
    // A whole number (a side or a count): makePreset refuses fractions.
    bool whole = false;
    // 0 asks the preset to choose the value itself (the help says how).
    bool zeroIsAuto = false;
};
struct PresetInfo {
    std::string name;
    std::string description;
    std::vector<PresetParam> params;
};
const std::vector<PresetInfo>& presetList();
// name like "gaussian", params "sigma=2.5,size=15" (may be empty: defaults). Throws on an
// unknown preset or parameter, or a value out of range. The kernel is named after the preset;
// designed filters (convlab/design.h) carry their whole preset text as the name.
Kernel makePreset(std::string_view name, std::string_view params = {});

} // namespace convlab
