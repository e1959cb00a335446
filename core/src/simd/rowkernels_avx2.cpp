// SPDX-License-Identifier: GPL-3.0-or-later
// Compiled with -mavx2 -mfma (see core/CMakeLists.txt); only called when the CPU has both.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <utility>

#include "simd/rowkernels.h"

namespace convlab::detail::avx2 {
#define ROWKERNELS_ISA "avx2+fma"
#define ROWKERNELS_LANES 8
#include "rowkernels.inc"
const RowKernels& get() { return kRowKernels; }
} // namespace convlab::detail::avx2
