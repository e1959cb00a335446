// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "convlab/image.h"

namespace convlab {

// The synthetic test chart: step edges at several angles, a zone plate (chirp in radius),
// horizontal and vertical gradients, a checkerboard and fine text-like glyph rows. Values in
// 0..255, 3 channels (each channel differs slightly so channel mix-ups show), depth U8.
Image makeTestChart(int width = 512, int height = 512);

} // namespace convlab
