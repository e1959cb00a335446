// SPDX-License-Identifier: GPL-3.0-or-later
// Compiled with -mavx2 -mfma (see core/CMakeLists.txt); only called when the CPU has them.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <utility>

#include "simd/rowkernels64.h"

namespace convlab::detail::avx2 {
#define ROWKERNELS64_ISA "avx2+fma"
#define ROWKERNELS64_LANES 4
#include "rowkernels64.inc"
const RowKernels64& get64() { return kRowKernels64; }
} // namespace convlab::detail::avx2
