// SPDX-License-Identifier: GPL-3.0-or-later
// Baseline build of the row kernels and the run-time choice between the builds.
#include <atomic>
#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <immintrin.h>
#include <utility>
#include <string>

#include "simd/rowkernels.h"

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
// benchmarks compare them); avx512, or nothing, leaves it uncapped.
const RowKernels& rowKernels()
{
    static const RowKernels& chosen = []() -> const RowKernels& {
#if defined(CONVLAB_HAVE_AVX2_KERNELS)
        const char* cap = std::getenv("CONVLAB_ISA");
        const std::string limit = cap ? cap : "";
        __builtin_cpu_init();
        if ((limit.empty() || limit == "avx512") && __builtin_cpu_supports("avx512f")) return avx512::get();
        if (limit != "sse2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return avx2::get();
#endif
        return baseline::kRowKernels;
    }();
    return chosen;
}

namespace {

// The largest cache the kernel lists for CPU 0 (sysfs: the cache one core shares with its
// neighbours). sysconf's figure is not used: on a virtual machine it gave 384 MiB, the host's
// caches summed, where the guest's last level is 32 MiB.
std::size_t lastLevelCacheBytes()
{
    std::size_t largest = 0;
    for (int i = 0; i < 8; ++i) {
        std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
        std::size_t n = 0;
        char unit = 0;
        if (!(f >> n)) continue;
        f >> unit;
        const std::size_t bytes = unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : n;
        largest = std::max(largest, bytes);
    }
    return largest > 0 ? largest : std::size_t(32) << 20; // unknown: a server's last level
}

// 0: every store cached, 1: every output streamed, -1: by size. CONVLAB_STREAMING=0 or =1
// sets it for the process (benchmarks compare), StreamingForcedForTests for a while.
std::atomic<int>& forcedStreaming()
{
    static std::atomic<int> forced{[] {
        const char* v = std::getenv("CONVLAB_STREAMING");
        return v && std::string(v) == "0" ? 0 : v && std::string(v) == "1" ? 1 : -1;
    }()};
    return forced;
}

} // namespace

StreamingForcedForTests::StreamingForcedForTests(bool streams) : previous_(forcedStreaming().exchange(streams ? 1 : 0)) {}
StreamingForcedForTests::~StreamingForcedForTests() { forcedStreaming().store(previous_); }

bool outputsBypassCaches(std::size_t bytes)
{
    static const std::size_t cache = lastLevelCacheBytes();
    const int forced = forcedStreaming().load(std::memory_order_relaxed);
    // Not past 48 MiB, whatever the cache the system lists: a virtual machine may list the
    // host's whole last level, shared with its other tenants (480 MiB on a 2-vCPU Xeon guest,
    // where a 64 MiB 3x3 output streamed 1.55x faster than cached and a 47 MiB one ran even;
    // on the 32 MiB EPYC guest the break-even was its last level).
    return forced >= 0 ? forced == 1 : bytes > std::min(cache, std::size_t(48) << 20);
}

} // namespace convlab::detail
