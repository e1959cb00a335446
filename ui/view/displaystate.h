// SPDX-License-Identifier: GPL-3.0-or-later
// What the workbench's view shows, as one value: the mode, the mapping of values to display
// intensities, the channel, the split divider, the difference heat map's scale, the padding
// preview and the pixel grid. WorkbenchDocument owns the workbench's copy; the view, the View
// menu and the panels follow it (ui/workbench/viewbinding.h). A plain header, free of widgets,
// so that the document can hold it.
#pragma once

namespace display {

enum class Mode { Result, Original, Split, Difference };
// The diverging map's full colour is at the |v| this share of the values stay within, so that
// a few outliers do not wash the picture out (the rest are drawn at full colour, "clipped").
inline constexpr double kSignedQuantile = 0.995;
// How float values become display intensities (shaders/image.frag).
enum class Mapping { Clamp, Abs, Normalize, Offset, Diverging };
// How |difference| maps onto the heat map: Relative to max|d| (the largest difference is white,
// however small), or Absolute to a fixed value (rounding noise stays near black).
enum class DifferenceScale { Relative, Absolute };

struct State {
    Mode mode = Mode::Result;
    Mapping mapping = Mapping::Clamp;
    // The mapping is chosen from the kernel (mappingForKernel) until the user picks one.
    bool mappingFollowsKernel = true;
    int channel = -1;          // -1: every channel; c >= 0: channel c alone, as grey
    double splitPosition = 0.5; // of the view's width: original left, result right
    DifferenceScale differenceScale = DifferenceScale::Absolute;
    double differenceAbsoluteMax = 0.0; // the |d| drawn white under Absolute; 0: automatic
    bool paddingShown = false;          // View > Show Padding
    // View > Edge Loupe; turned on again whenever the border mode or the kernel's size changes.
    bool edgeLoupe = true;
    bool pixelGrid = true;              // View > Pixel Grid
    // View > Float Range by Values: a float image maps by convlab::displayRange of its values
    // (0..255 for 8-bit values stored as floats); off: by the nominal 0..1.
    bool floatRangeByValues = true;
    bool operator==(const State&) const = default;
};

} // namespace display
