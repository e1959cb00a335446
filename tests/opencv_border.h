// SPDX-License-Identifier: GPL-3.0-or-later
// ConvLab's border modes as OpenCV border types (docs/semantics.md, Border modes), for the
// OpenCV oracle test and the benchmark.
#pragma once
#include <opencv2/core.hpp>

#include "convlab/border.h"

namespace convlab::test {

inline int cvBorderType(BorderMode m)
{
    switch (m) {
    case BorderMode::Constant: return cv::BORDER_CONSTANT;
    case BorderMode::Replicate: return cv::BORDER_REPLICATE;
    case BorderMode::Reflect: return cv::BORDER_REFLECT;
    case BorderMode::Mirror: return cv::BORDER_REFLECT_101;
    case BorderMode::Wrap: return cv::BORDER_WRAP;
    }
    return cv::BORDER_CONSTANT; // every mode is listed above
}

} // namespace convlab::test
