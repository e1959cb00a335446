// SPDX-License-Identifier: GPL-3.0-or-later
// The hot loop of the float64 engine (convolve64.h), written once (rowkernels64.inc) and
// compiled for the same three ISAs as the float32 row kernels (rowkernels.h), chosen with them:
// the build rowKernels() picks, so CONVLAB_ISA caps both alike.
#pragma once

namespace convlab::detail {

struct RowKernels64 {
    // out[x] = sum_{v<kh,u<kw} k[v*kw+u] * rows[v][x + u], x in [0, w): each row holds
    // w + kw - 1 samples (the padded row). Taps are summed in the order v, then u, each one
    // multiply-add (fused where the build has FMA), for vector and scalar outputs alike.
    void (*correlate)(const double* const* rows, const double* k, int kw, int kh, int w, double* out);
    // The same with the whole blocks of outputs written past the caches where they are
    // vector-aligned (for outputs larger than the last-level cache: outputsBypassCaches);
    // fenceStreamed orders those stores before the worker's run ends.
    void (*correlateStreamed)(const double* const* rows, const double* k, int kw, int kh, int w, double* out);
    void (*fenceStreamed)();
    const char* isa;
};

// The set for the ISA rowKernels() chose.
const RowKernels64& rowKernels64();

} // namespace convlab::detail
