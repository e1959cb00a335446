// SPDX-License-Identifier: GPL-3.0-or-later
// Copies between planes of any pixel step (ImagePlanes::pixelStep): planar copies of
// interleaved pixels for the methods and the GPU, which read planes of their own, and the
// methods' planar results into interleaved outputs.
#pragma once
#include "convlab/image.h"

namespace convlab::detail {

// Planes [c0, c1) of every row of `from` into the same rows and planes of `to` (which has at
// least from.height rows from its firstRow), on up to `threads` threads. With `stream`, whole
// interleaved pixels are written past the caches (for an output larger than the last-level
// cache: outputsBypassCaches).
void copyPlanes(const ImagePlanes& from, const OutputPlanes& to, int c0, int c1, int threads, bool stream);

// The planar image of the same samples, shape and alpha.
Image planarCopy(const ImagePlanes& in, int threads);

// Rows [y0, y1) of `out` as planes of their own: their view from row 0 (firstRow 0).
OutputPlanes rowsOf(const OutputPlanes& out, int y0, int y1);

} // namespace convlab::detail
