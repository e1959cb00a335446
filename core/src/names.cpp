// SPDX-License-Identifier: GPL-3.0-or-later
// Names and aliases of border modes, methods and devices (docs/semantics.md, Border modes).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <utility>

#include "convlab/convolve.h"
#include "convlab/error.h"

namespace convlab {
namespace {

std::string normalized(std::string_view s)
{
    std::string out;
    for (char c : s) {
        if (c == '-' || c == ' ') c = '_';
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

struct Alias {
    const char* name;
    BorderMode mode;
};
// ConvLab's own names first, then OpenCV, scipy.ndimage, MATLAB, GIMP and G'MIC spellings.
constexpr Alias kBorderAliases[] = {
    {"constant", BorderMode::Constant},   {"border_constant", BorderMode::Constant},
    {"zero", BorderMode::Constant},       {"zeros", BorderMode::Constant},
    {"fill", BorderMode::Constant},       {"dirichlet", BorderMode::Constant},
    {"replicate", BorderMode::Replicate}, {"border_replicate", BorderMode::Replicate},
    {"nearest", BorderMode::Replicate},   {"clamp", BorderMode::Replicate},
    {"edge", BorderMode::Replicate},      {"neumann", BorderMode::Replicate},
    {"reflect", BorderMode::Reflect},     {"border_reflect", BorderMode::Reflect},
    {"symmetric", BorderMode::Reflect},   {"mirror", BorderMode::Mirror},
    {"reflect101", BorderMode::Mirror},   {"reflect_101", BorderMode::Mirror},
    {"border_reflect_101", BorderMode::Mirror}, {"border_reflect101", BorderMode::Mirror},
    {"border_default", BorderMode::Mirror}, {"wrap", BorderMode::Wrap},
    {"border_wrap", BorderMode::Wrap},    {"grid_wrap", BorderMode::Wrap},
    {"circular", BorderMode::Wrap},       {"periodic", BorderMode::Wrap},
    {"loop", BorderMode::Wrap},
};

template <class E, std::size_t N>
E lookup(std::string_view text, const std::pair<const char*, E> (&table)[N], const char* what)
{
    const std::string key = normalized(text);
    for (const auto& [name, value] : table)
        if (key == name) return value;
    std::string valid;
    for (const auto& [name, value] : table) valid += (valid.empty() ? "" : ", ") + std::string(name);
    throw Error("unknown " + std::string(what) + " '" + std::string(text) + "' (valid: " + valid + ")");
}

constexpr std::pair<const char*, Method> kMethods[] = {
    {"auto", Method::Auto}, {"reference", Method::Reference}, {"direct", Method::Direct},
    {"separable", Method::Separable}, {"fft", Method::Fft}};
constexpr std::pair<const char*, Device> kDevices[] = {
    {"auto", Device::Auto}, {"cpu", Device::Cpu}, {"cuda", Device::Cuda}};

} // namespace

Border parseBorder(std::string_view text)
{
    std::string_view name = text, value;
    if (const auto sep = text.find_first_of(":="); sep != std::string_view::npos) {
        name = text.substr(0, sep);
        value = text.substr(sep + 1);
    }
    const std::string key = normalized(name);
    const auto it = std::find_if(std::begin(kBorderAliases), std::end(kBorderAliases),
                                 [&](const Alias& a) { return key == a.name; });
    if (it == std::end(kBorderAliases))
        throw Error("unknown border mode '" + std::string(text) +
                    "' (valid: constant[:VALUE], replicate, reflect, mirror, wrap, or an alias such as "
                    "nearest, symmetric, reflect101, circular)");
    Border b;
    b.mode = it->mode;
    if (!value.empty()) {
        if (b.mode != BorderMode::Constant)
            throw Error("border mode '" + std::string(name) + "' takes no value");
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
    switch (mode) {
    case BorderMode::Constant: return "constant";
    case BorderMode::Replicate: return "replicate";
    case BorderMode::Reflect: return "reflect";
    case BorderMode::Mirror: return "mirror";
    case BorderMode::Wrap: return "wrap";
    }
    return "?";
}

Method parseMethod(std::string_view text) { return lookup(text, kMethods, "method"); }
Device parseDevice(std::string_view text) { return lookup(text, kDevices, "device"); }

std::string methodName(Method m)
{
    for (const auto& [name, value] : kMethods)
        if (value == m) return name;
    return "?";
}

std::string deviceName(Device d)
{
    for (const auto& [name, value] : kDevices)
        if (value == d) return name;
    return "?";
}

} // namespace convlab
