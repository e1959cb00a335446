// SPDX-License-Identifier: GPL-3.0-or-later
// Which |difference| the heat map draws white, so that a difference is never invisible.
//
// Under the Absolute scale a fixed value is drawn white (by default 1% of the source's range),
// so rounding noise stays dark beside a real error. But a fixed scale far above every difference
// draws them all black, which reads as "identical": FFT against the reference differs by about
// 1e-4 on an 8-bit image, 1/25000 of the default 2.55. The rule: the fixed scale is used while
// the largest difference reaches at least one of 255 grey steps of it (max|d| >= fixed / 255);
// below that the largest difference sets the scale, and the view and the Difference panel say so.
#pragma once
#include <QString>

#include "view/displaystate.h"

namespace display {

// The fraction of the fixed scale the largest difference must reach for the fixed scale to be
// used: one step of an 8-bit display.
inline constexpr double kVisibleDifferenceFraction = 1.0 / 255.0;

struct DifferenceScaleChoice {
    enum class Reason {
        Fixed,             // the fixed scale shows the largest difference
        LargestDifference, // the largest difference is below a step of the fixed scale: it sets the scale
        Identical          // no difference at all: the fixed scale (nothing to show either way)
    };
    double scale = 0.0; // the |d| drawn white
    Reason reason = Reason::Fixed;
    bool operator==(const DifferenceScaleChoice&) const = default;
};

// The fixed scale: `absoluteMax` as set in View > Difference Scale, or (0, automatic) the
// fraction `automaticFraction` of the values' nominal range.
double fixedDifferenceScale(double absoluteMax, double automaticFraction, double nominalRange);

// The scale in use for the largest |difference| `maxAbs` (finite, >= 0) and the fixed scale
// `fixedScale` (finite, > 0). Throws convlab::Error for other values.
DifferenceScaleChoice adaptiveDifferenceScale(double maxAbs, double fixedScale);

// One line for the user: "max 9.2e-5: scale set by the largest difference (the fixed 2.55
// would draw it black)", "max 3.1: fixed scale 2.55", "no difference: fixed scale 2.55".
QString describeDifferenceScale(const DifferenceScaleChoice& choice, double maxAbs, double fixedScale);

// The line for the scale `mode` set in the View menu: under Relative the largest difference is
// white; under Absolute the rule above decides. Empty for inputs the rule refuses.
QString differenceScaleNote(DifferenceScale mode, double maxAbs, double fixedScale);

} // namespace display
