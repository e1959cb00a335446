// SPDX-License-Identifier: GPL-3.0-or-later
// The float64 engine's methods (convolve64.h): what engine64.cpp runs once it has checked the
// arguments and put the kernel in correlation form.
#pragma once
#include <atomic>

#include "convlab/border.h"
#include "convlab/convolve64.h"

namespace convlab::detail {

// One checked run: the kernel in correlation form (kh rows of kw), its anchor (ax, ay).
struct Run64 {
    const Samples64& in;
    const Output64& out;
    const double* k;
    int kw;
    int kh;
    int ax;
    int ay;
    BorderMode border;
    double cval;
    int threads;
    const std::atomic<bool>* cancel;
    // Throws Cancelled once the caller's flag is raised.
    void checkCancel() const;
};

// Every output a sum of kw * kh taps over padded rows, SIMD across each row (rowkernels64.h).
void runDirect64(const Run64& run);
// A rank-1 kernel k[v][u] = column[v] * row[u]: each source row filtered by `row` once, the
// results combined down the columns by `column`: kw + kh taps an output instead of kw * kh.
void runSeparable64(const Run64& run, const double* column, const double* row);
// The definition one tap at a time, the border rule applied per coordinate: the oracle.
void runReference64(const Run64& run);

} // namespace convlab::detail
