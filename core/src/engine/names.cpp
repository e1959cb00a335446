// SPDX-License-Identifier: GPL-3.0-or-later
// Names and aliases of border modes, methods and devices (docs/semantics.md, Border modes):
// border modes and methods from the tables of convlab/modes.h, devices from the list here.
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/modes.h"

namespace convlab {
namespace {

template <class E, class Table> E lookup(std::string_view text, const Table& table, const char* what)
{
    const std::string key = normalizedName(text);
    for (const auto& [name, value] : table)
        if (key == name) return value;
    std::string valid;
    for (const auto& [name, value] : table) valid += (valid.empty() ? "" : ", ") + std::string(name);
    throw Error("unknown " + std::string(what) + " '" + std::string(text) + "' (valid: " + valid + ")");
}


// "constant[:VALUE], replicate, ...; aliases: border_constant, zero, ..."
std::string validBorderNames()
{
    std::string names, aliases;
    for (const BorderModeInfo& m : borderModes()) {
        names += (names.empty() ? "" : ", ") + std::string(m.name) + (m.takesValue ? "[:VALUE]" : "");
        for (const char* a : m.aliases) aliases += (aliases.empty() ? "" : ", ") + std::string(a);
    }
    return names + "; aliases: " + aliases;
}

} // namespace

Border parseBorder(std::string_view text)
{
    std::string_view name = text, value;
    if (const auto sep = text.find_first_of(":="); sep != std::string_view::npos) {
        name = text.substr(0, sep);
        value = text.substr(sep + 1);
        // "constant:" would otherwise read as plain "constant" and drop a value the caller
        // meant to give (Python's cval among them).
        if (value.empty())
            throw Error("border mode '" + std::string(text) + "' has nothing after '" + text[sep] +
                        "': write the value (constant:VALUE) or the plain name");
    }
    const BorderModeInfo* info = findBorderMode(name);
    if (!info) throw Error("unknown border mode '" + std::string(text) + "' (valid: " + validBorderNames() + ")");
    Border b;
    b.mode = info->mode;
    if (!value.empty()) {
        if (!info->takesValue) throw Error("border mode '" + std::string(name) + "' takes no value");
        const std::string v(value);
        char* end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        if (end == v.c_str() || *end != '\0' || !std::isfinite(d))
            throw Error("border constant '" + v + "' is not a finite number");
        b.value = static_cast<float>(d);
    }
    return b;
}

std::string borderName(BorderMode mode)
{
    for (const BorderModeInfo& m : borderModes())
        if (m.mode == mode) return m.name;
    return "?";
}

Method parseMethod(std::string_view text)
{
    if (const MethodInfo* info = findMethod(text)) return info->method;
    std::string valid;
    for (const MethodInfo& m : methods()) valid += (valid.empty() ? "" : ", ") + std::string(m.name);
    throw Error("unknown method '" + std::string(text) + "' (valid: " + valid + ")");
}

std::string methodName(Method m)
{
    for (const MethodInfo& info : methods())
        if (info.method == m) return info.name;
    return "?";
}

Device parseDevice(std::string_view text)
{
    std::array<std::pair<const char*, Device>, kBackendCount> names{};  // in the table's order
    for (std::size_t i = 0; i < kBackendCount; ++i) names[i] = {backends()[i].name, backends()[i].device};
    return lookup<Device>(text, names, "device");
}

std::string deviceName(Device d)
{
    for (const BackendInfo& b : backends())
        if (b.device == d) return b.name;
    return "?";
}

const BackendInfo& backendInfo(Device d)
{
    for (const BackendInfo& b : backends())
        if (b.device == d) return b;
    throw Error("unknown device value " + std::to_string(static_cast<int>(d)));
}

} // namespace convlab
