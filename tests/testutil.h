// SPDX-License-Identifier: GPL-3.0-or-later
// Shared helpers for the Qt Test suites.
#pragma once
#include <QString>
#include <QTemporaryDir>

#include <cstdint>
#include <string>

#include "convlab/convolve.h"
#include "convlab/image.h"
#include "convlab/kernel.h"

namespace convlab::test {

// Deterministic random image, values ~ N(100, 20^2) (or uniform 0..255 when `integerValued`,
// rounded to whole numbers so 8-bit round trips are exact).
Image randomImage(int w, int h, int c, std::uint32_t seed, bool integerValued = false);

enum class KernelKind { Dense, Rank1, Rank2 };
Kernel randomKernel(int w, int h, KernelKind kind, std::uint32_t seed);

// docs/semantics.md, Tolerances: |a-b| <= tol * sum|K| * max|in|. Returns the worst ratio
// err / (sum|K| * max|in|) over the whole image (every pixel, every channel).
double relativeError(const Image& got, const Image& want, const Kernel& k, const Image& in);

// Path of the built CLI and the source tree, from the build system.
QString cliPath();
QString sourceDir();

} // namespace convlab::test
