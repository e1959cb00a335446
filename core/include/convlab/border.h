// SPDX-License-Identifier: GPL-3.0-or-later
// Border (padding) rules of docs/semantics.md, Border modes: the one piece of index maths
// shared by every backend, plain inline code usable from CUDA device code as well.
#pragma once

#if defined(__CUDACC__)
#define CONVLAB_HD __host__ __device__ __forceinline__
#else
#define CONVLAB_HD inline
#endif

namespace convlab {

enum class BorderMode : int { Constant = 0, Replicate = 1, Reflect = 2, Mirror = 3, Wrap = 4 };
inline constexpr int kBorderModeValues = 5; // the enumerators above, 0..N-1 (convlab/modes.h has a row for each)

// Maps coordinate p (any integer, any distance from the image) into [0, n) for image extent
// n >= 1. Returns -1 for Constant when p lies outside: the caller substitutes the constant.
CONVLAB_HD int borderIndex(long long p, int n, BorderMode mode)
{
    if (p >= 0 && p < n) return static_cast<int>(p);
    switch (mode) {
    case BorderMode::Constant:
        return -1;
    case BorderMode::Replicate:
        return p < 0 ? 0 : n - 1;
    case BorderMode::Reflect: { // period 2n: cba|abcd|dcb
        const long long period = 2LL * n;
        long long q = p % period;
        if (q < 0) q += period;
        return static_cast<int>(q < n ? q : period - 1 - q);
    }
    case BorderMode::Mirror: { // period 2n-2: dcb|abcd|cba, n == 1 maps to 0
        if (n == 1) return 0;
        const long long period = 2LL * n - 2;
        long long q = p % period;
        if (q < 0) q += period;
        return static_cast<int>(q < n ? q : period - q);
    }
    case BorderMode::Wrap: {
        long long q = p % n;
        if (q < 0) q += n;
        return static_cast<int>(q);
    }
    }
    return -1;
}

} // namespace convlab
