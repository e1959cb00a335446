// SPDX-License-Identifier: GPL-3.0-or-later
// Which mapping reads a kernel's result right at first sight, and the words the view writes
// over the picture to say how values became colours. Plain functions, free of widgets.
#pragma once
#include <QString>

#include "view/displaystate.h"

namespace convlab {
struct Kernel;
}

namespace display {

// A kernel whose results are signed around zero (its weights sum to zero, as edge detectors
// and Laplacians do, or to a negative number) is drawn by the diverging map centred at zero;
// any other by clamping to the source's range (blurs, sharpening, identity). `scale` and
// `offset` are the final mapping's (final = scale * out + offset): an offset moves a
// zero-sum result away from zero, which the designer chose to see in greys.
Mapping mappingForKernel(const convlab::Kernel& kernel, double scale, double offset);

// What the caption says of the result on screen.
struct CaptionFacts {
    Mapping mapping = Mapping::Clamp;
    double range = 255.0;     // the nominal top of the source's values (Clamp, Abs, Offset)
    bool statsKnown = false;  // lo, hi, limit below are of the result on screen
    double lo = 0.0, hi = 0.0;  // Normalize
    double limit = 0.0;         // Diverging: ±limit at full colour
    double clippedFraction = 0.0; // Diverging: the share of values beyond ±limit
    // Integer sources: the file depth a saved result takes (8 or 16, 0: float) and the share of
    // the result's values outside 0..range, which such a file clamps.
    int fileBits = 0;
    double outsideFraction = 0.0;
};
// "result · signed ±42.3, 0.5% beyond (full colour)", "result · clamped to 0…255", ...
QString mappingCaption(const CaptionFacts& facts);

} // namespace display
