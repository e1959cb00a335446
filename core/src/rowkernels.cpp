// SPDX-License-Identifier: GPL-3.0-or-later
// Baseline build of the row kernels and the run-time choice between the builds.
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <utility>
#include <string>

#include "rowkernels.h"

namespace convlab::detail {

namespace baseline {
#define ROWKERNELS_ISA "sse2"
#define ROWKERNELS_LANES 8
#include "rowkernels.inc"
} // namespace baseline

#if defined(CONVLAB_HAVE_AVX2_KERNELS)
namespace avx2 {
const RowKernels& get();
}
namespace avx512 {
const RowKernels& get();
}
#endif

// The widest build this CPU runs. CONVLAB_ISA=sse2|avx2 caps the choice (tests run every build,
// benchmarks compare them).
const RowKernels& rowKernels()
{
    static const RowKernels& chosen = []() -> const RowKernels& {
#if defined(CONVLAB_HAVE_AVX2_KERNELS)
        const char* cap = std::getenv("CONVLAB_ISA");
        const std::string limit = cap ? cap : "";
        __builtin_cpu_init();
        if (limit.empty() && __builtin_cpu_supports("avx512f")) return avx512::get();
        if (limit != "sse2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return avx2::get();
#endif
        return baseline::kRowKernels;
    }();
    return chosen;
}

} // namespace convlab::detail
