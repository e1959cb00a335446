// SPDX-License-Identifier: GPL-3.0-or-later
// Baseline build of the row kernels and the run-time choice between the builds.
#include <cstring>

#include "rowkernels.h"

namespace convlab::detail {

namespace baseline {
#define ROWKERNELS_ISA "sse2"
#include "rowkernels.inc"
} // namespace baseline

#if defined(CONVLAB_HAVE_AVX2_KERNELS)
namespace avx2 {
const RowKernels& get();
}
#endif

const RowKernels& rowKernels()
{
    static const RowKernels& chosen = [] () -> const RowKernels& {
#if defined(CONVLAB_HAVE_AVX2_KERNELS)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return avx2::get();
#endif
        return baseline::kRowKernels;
    }();
    return chosen;
}

} // namespace convlab::detail
