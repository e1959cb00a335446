// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <vector>

#include "convlab/convolve.h"

namespace convlab::detail {

// Estimated wall time of each CPU method for a w x h x channels image and correlation-form
// kernel k; separable is included when rank >= 0.
std::vector<MethodEstimate> estimateCpu(const CostModel& m, int w, int h, int channels, const Kernel& k,
                                        int rank, int threads);

} // namespace convlab::detail
