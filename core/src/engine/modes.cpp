// SPDX-License-Identifier: GPL-3.0-or-later
// Look-ups in the tables of convlab/modes.h, and the checks that keep the tables whole: every
// enumerator has exactly one row, and no name or alias is given twice.
#include "convlab/modes.h"

#include <cctype>
#include <string_view>

#include "convlab/error.h"

namespace convlab {
namespace {

constexpr bool isNormalized(std::string_view s)
{
    if (s.empty()) return false;
    for (char c : s)
        if (c == '-' || c == ' ' || (c >= 'A' && c <= 'Z')) return false;
    return true;
}

// Rows hold the enumerators 0..N-1 (the enumerations are contiguous from 0) once each.
template <class Row> constexpr bool eachValueOnce(std::span<const Row> rows, auto valueOf)
{
    for (std::size_t v = 0; v < rows.size(); ++v) {
        int count = 0;
        for (const Row& r : rows) count += static_cast<std::size_t>(valueOf(r)) == v;
        if (count != 1) return false;
    }
    return true;
}

template <class Row> constexpr int timesSpelt(std::span<const Row> rows, std::string_view s)
{
    int n = 0;
    for (const Row& r : rows) {
        n += s == r.name;
        for (const char* a : r.aliases) n += s == a;
    }
    return n;
}

// Every name and alias is spelt as the look-up compares it and means one row only.
template <class Row> constexpr bool namesUnique(std::span<const Row> rows)
{
    for (const Row& r : rows) {
        if (!isNormalized(r.name) || timesSpelt(rows, r.name) != 1) return false;
        for (const char* a : r.aliases)
            if (!isNormalized(a) || timesSpelt(rows, a) != 1) return false;
    }
    return true;
}

static_assert(eachValueOnce(borderModes(), [](const BorderModeInfo& r) { return static_cast<int>(r.mode); }),
              "borderModes() must hold every BorderMode exactly once");
static_assert(eachValueOnce(methods(), [](const MethodInfo& r) { return static_cast<int>(r.method); }),
              "methods() must hold every Method exactly once");
static_assert(kBorderModeCount == kBorderModeValues, "borderModes() needs a row for every BorderMode");
static_assert(kMethodCount == kMethodValues, "methods() needs a row for every Method");
static_assert(namesUnique(borderModes()), "border mode names and aliases: lower case, '_', each once");
static_assert(namesUnique(methods()), "method names and aliases: lower case, '_', each once");
static_assert(eachValueOnce(backends(), [](const BackendInfo& r) { return static_cast<int>(r.device); }),
              "backends() must hold every Device exactly once");
static_assert(kBackendCount == kDeviceValues, "backends() needs a row for every Device");

constexpr bool autoWeighsOnlyConcreteMethods()
{
    for (const MethodInfo& m : methods())
        if (m.autoCandidate && m.accuracy == Accuracy::OfItsPick) return false;
    return true;
}
static_assert(autoWeighsOnlyConcreteMethods(), "auto cannot weigh a method that is itself a choice");


template <class Row> const Row* findByName(std::span<const Row> rows, std::string_view text)
{
    const std::string key = normalizedName(text);
    for (const Row& r : rows) {
        if (key == r.name) return &r;
        for (const char* a : r.aliases)
            if (key == a) return &r;
    }
    return nullptr;
}

} // namespace

std::string normalizedName(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '-' || c == ' ') c = '_';
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

const BorderModeInfo& borderModeInfo(BorderMode mode)
{
    for (const BorderModeInfo& r : borderModes())
        if (r.mode == mode) return r;
    throw Error("border mode " + std::to_string(static_cast<int>(mode)) + " is not in borderModes()");
}

const MethodInfo& methodInfo(Method method)
{
    for (const MethodInfo& r : methods())
        if (r.method == method) return r;
    throw Error("method " + std::to_string(static_cast<int>(method)) + " is not in methods()");
}

const BorderModeInfo* findBorderMode(std::string_view name) { return findByName(borderModes(), name); }
const MethodInfo* findMethod(std::string_view name) { return findByName(methods(), name); }

std::string otherLibraryNames(const BorderModeInfo& info)
{
    auto shown = [](const char* name) { return std::string(name ? name : "\u2014"); };
    std::string scipy = shown(info.scipy);
    if (info.scipy && info.scipyNote) scipy += std::string(" ") + info.scipyNote;
    const char* sep = " \u00b7 ";
    return "OpenCV " + shown(info.opencv) + sep + "scipy " + scipy + sep + "MATLAB " + shown(info.matlab) + sep +
           "GIMP " + shown(info.gimp) + sep + "G'MIC " + shown(info.gmic);
}

} // namespace convlab
