// SPDX-License-Identifier: GPL-3.0-or-later
// Compiled with -mavx512f -mfma (see core/CMakeLists.txt); only called when the CPU has them.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <utility>

#include "simd/rowkernels64.h"

namespace convlab::detail::avx512 {
#define ROWKERNELS64_ISA "avx512f"
#define ROWKERNELS64_LANES 8
#include "rowkernels64.inc"
const RowKernels64& get64() { return kRowKernels64; }
} // namespace convlab::detail::avx512
