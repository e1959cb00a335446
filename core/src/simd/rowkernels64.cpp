// SPDX-License-Identifier: GPL-3.0-or-later
// Baseline build of the float64 row kernel and the choice between the builds: the ISA the
// float32 row kernels run (rowKernels), so that one setting caps both.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <string_view>
#include <utility>

#include "simd/rowkernels.h"
#include "simd/rowkernels64.h"

namespace convlab::detail {

namespace baseline64 {
#define ROWKERNELS64_ISA "sse2"
#define ROWKERNELS64_LANES 4
#include "rowkernels64.inc"
} // namespace baseline64

#if defined(CONVLAB_HAVE_AVX2_KERNELS)
namespace avx2 {
const RowKernels64& get64();
}
namespace avx512 {
const RowKernels64& get64();
}
#endif

const RowKernels64& rowKernels64()
{
    static const RowKernels64& chosen = []() -> const RowKernels64& {
#if defined(CONVLAB_HAVE_AVX2_KERNELS)
        const std::string_view isa = rowKernels().isa;
        if (isa.starts_with("avx512")) return avx512::get64();
        if (isa.starts_with("avx2")) return avx2::get64();
#endif
        return baseline64::kRowKernels64;
    }();
    return chosen;
}

} // namespace convlab::detail
