// SPDX-License-Identifier: GPL-3.0-or-later
// ConvLab's border modes as OpenCV border types (docs/semantics.md, Border modes), for the
// OpenCV oracle test and the benchmark: the flag named in the table of convlab/modes.h.
#pragma once
#include <opencv2/core.hpp>

#include <string_view>
#include <utility>

#include "convlab/modes.h"

namespace convlab::test {

// -1 when OpenCV has no border type for the mode.
inline int cvBorderType(BorderMode m)
{
    // OpenCV's own border types (cv::BorderTypes), by the names the table uses.
    static constexpr std::pair<std::string_view, int> kTypes[] = {
        {"BORDER_CONSTANT", cv::BORDER_CONSTANT}, {"BORDER_REPLICATE", cv::BORDER_REPLICATE},
        {"BORDER_REFLECT", cv::BORDER_REFLECT},   {"BORDER_WRAP", cv::BORDER_WRAP},
        {"BORDER_REFLECT_101", cv::BORDER_REFLECT_101}};
    const char* flag = borderModeInfo(m).opencv;
    for (const auto& [name, type] : kTypes)
        if (flag && name == flag) return type;
    return -1;
}

} // namespace convlab::test
