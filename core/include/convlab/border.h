// SPDX-License-Identifier: GPL-3.0-or-later
// Border (padding) modes of docs/semantics.md, Border modes: the rule of each, the one piece of
// index maths shared by every backend (plain inline code usable from CUDA device code as well),
// and the one list of them with everything said about each (names, aliases, the names other
// libraries use, the n = 4 example). A new mode is described here once: its enumerator, its
// case in borderIndex and its row in detail::kBorderModes.
#pragma once
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#if defined(__CUDACC__)
#define CONVLAB_HD __host__ __device__ __forceinline__
#else
#define CONVLAB_HD inline
#endif

namespace convlab {

enum class BorderMode : int { Constant = 0, Replicate = 1, Reflect = 2, Mirror = 3, Wrap = 4 };
inline constexpr int kBorderModeValues = 5; // the enumerators above, 0..N-1 (detail::kBorderModes has a row for each)

// Maps coordinate p (any integer, any distance from the image) into [0, n) for image extent
// n >= 1. Returns -1 for Constant when p lies outside: the caller substitutes the constant.
CONVLAB_HD int borderIndex(long long p, int n, BorderMode mode)
{
    if (p >= 0 && p < n) return static_cast<int>(p);
    switch (mode) {
    case BorderMode::Constant:
        return -1;
    case BorderMode::Replicate:
        return p < 0 ? 0 : n - 1;
    case BorderMode::Reflect: { // period 2n: cba|abcd|dcb
        const long long period = 2LL * n;
        long long q = p % period;
        if (q < 0) q += period;
        return static_cast<int>(q < n ? q : period - 1 - q);
    }
    case BorderMode::Mirror: { // period 2n-2: dcb|abcd|cba, n == 1 maps to 0
        if (n == 1) return 0;
        const long long period = 2LL * n - 2;
        long long q = p % period;
        if (q < 0) q += period;
        return static_cast<int>(q < n ? q : period - q);
    }
    case BorderMode::Wrap: {
        long long q = p % n;
        if (q < 0) q += n;
        return static_cast<int>(q);
    }
    }
    return -1;
}

// ---- the list of modes (host code) ----

struct BorderModeInfo {
    BorderMode mode;
    const char* name;                     // ConvLab's name (borderName, combos, CLI)
    std::span<const char* const> aliases; // other names parseBorder accepts, lower case with '_'
    bool takesValue;                      // written name[:VALUE] (the constant)
    const char* rule;                     // the rule in short, with its pattern: "period 2n: cba|abcd|dcb"
    const char* example;                  // n = 4 ("abcd"), p = -3..6, '#' the constant: "cbaabcddcb"
    // The same rule elsewhere; nullptr where that library has none.
    const char* opencv;     // cv::BorderTypes flag
    bool opencvFilter2D;    // filter2D applies the flag itself (its constant is 0); else pad first
    const char* scipy;      // scipy.ndimage / cupyx mode=
    const char* scipyNote;  // shown after the scipy name ("(cval)"), or nullptr
    const char* matlab;     // imfilter padding option
    const char* gimp;       // Convolution Matrix border
    const char* gmic;       // boundary conditions
};

namespace detail {
inline constexpr const char* kConstantAliases[] = {"border_constant", "zero", "zeros", "fill", "dirichlet"};
inline constexpr const char* kReplicateAliases[] = {"border_replicate", "nearest", "clamp", "edge", "neumann"};
inline constexpr const char* kReflectAliases[] = {"border_reflect", "symmetric"};
inline constexpr const char* kMirrorAliases[] = {"reflect101", "reflect_101", "border_reflect_101",
                                                 "border_reflect101", "border_default"};
inline constexpr const char* kWrapAliases[] = {"border_wrap", "grid_wrap", "circular", "periodic", "loop"};

// In display order. docs/semantics.md, Border modes, is the same table in prose.
inline constexpr BorderModeInfo kBorderModes[] = {
    {BorderMode::Constant, "constant", kConstantAliases, true, "value c outside", "###abcd###", //
     "BORDER_CONSTANT", true, "constant", "(cval)", "X (0 by default)", "Black/White", "0 Dirichlet"},
    {BorderMode::Replicate, "replicate", kReplicateAliases, false, "clamp: aaa|abcd|ddd", "aaaabcdddd", //
     "BORDER_REPLICATE", true, "nearest", nullptr, "replicate", "Clamp", "1 Neumann"},
    {BorderMode::Reflect, "reflect", kReflectAliases, false, "period 2n: cba|abcd|dcb", "cbaabcddcb", //
     "BORDER_REFLECT", true, "reflect", nullptr, "symmetric", nullptr, "3 mirror"},
    {BorderMode::Mirror, "mirror", kMirrorAliases, false, "period 2n\u22122: dcb|abcd|cba", "dcbabcdcba", //
     "BORDER_REFLECT_101", true, "mirror", nullptr, nullptr, nullptr, nullptr},
    {BorderMode::Wrap, "wrap", kWrapAliases, false, "period n: bcd|abcd|abc", "bcdabcdabc", //
     "BORDER_WRAP", false, "wrap", "/ grid-wrap", "circular", "Loop", "2 periodic"},
};
} // namespace detail

constexpr std::span<const BorderModeInfo> borderModes() { return detail::kBorderModes; }
inline constexpr std::size_t kBorderModeCount = std::size(detail::kBorderModes);

// The modes in display order, for storage with one slot per mode.
constexpr std::array<BorderMode, kBorderModeCount> borderModeList()
{
    std::array<BorderMode, kBorderModeCount> out{};
    for (std::size_t i = 0; i < kBorderModeCount; ++i) out[i] = detail::kBorderModes[i].mode;
    return out;
}

// Throws convlab::Error for a value that is not an enumerator.
const BorderModeInfo& borderModeInfo(BorderMode mode);
// The entry whose name or alias is `name` (case, '-' and ' ' ignored as in parseBorder), or null.
const BorderModeInfo* findBorderMode(std::string_view name);
// "OpenCV BORDER_REFLECT · scipy reflect · MATLAB symmetric · GIMP — · G'MIC 3 mirror" (UTF-8).
std::string otherLibraryNames(const BorderModeInfo& info);

} // namespace convlab
