// SPDX-License-Identifier: GPL-3.0-or-later
// Compiled with -mavx512f (see core/CMakeLists.txt); only called when the CPU has it.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <utility>

#include "simd/rowkernels.h"

namespace convlab::detail::avx512 {
#define ROWKERNELS_ISA "avx512f"
#define ROWKERNELS_LANES 16
#include "rowkernels.inc"
const RowKernels& get() { return kRowKernels; }
} // namespace convlab::detail::avx512
