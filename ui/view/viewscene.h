// SPDX-License-Identifier: GPL-3.0-or-later
// What the image view shows, free of widgets and GL: the three images (source, result,
// difference) and the settings that say how they are drawn (mode, mapping, channel, split,
// padding preview, band, difference scale, float range), with what follows from them: the
// range each image maps by, the difference scale in use, what is on screen, the colours a
// host-held image is mapped with, the caption's words. The renderer draws it, the overlays
// describe it, the view (ImageView) sets it.
#pragma once
#include <QImage>
#include <QString>

#include <optional>

#include "convlab/convolve.h"
#include "convlab/image.h"
#include "view/differencescale.h"
#include "view/displaymap.h"
#include "view/displaystate.h"
#include "view/imageslot.h"

class ViewScene {
public:
    using Mapping = display::Mapping;
    using Mode = display::Mode;
    using DifferenceScale = display::DifferenceScale;

    // The automatic absolute scale: this fraction of the source's nominal range.
    static constexpr double kDefaultDifferenceFraction = 0.01;
    // The widest padding preview, in image pixels past each edge (the shader's arrays).
    static constexpr int kMaxPaddingMargin = 128;

    ViewScene();

    ImageSlot source, result, diff;
    Mapping mapping = Mapping::Clamp;
    int displayChannel = -1; // View > Channel; -1: every channel
    Mode viewMode = Mode::Result;
    bool originalHeld = false;    // Space is down on the view
    bool originalToggled = false; // View > Show Original
    double split = 0.5;

    bool padding = false;       // padding preview on
    int padMargin = 8;          // its width in image pixels
    convlab::Border padBorder;  // the rule it shows
    int band[4] = {0, 0, 0, 0}; // band overlay widths: left, top, right, bottom

    DifferenceScale diffScale = DifferenceScale::Absolute;
    double diffAbsoluteMax = 0.0; // 0: kDefaultDifferenceFraction of the nominal range
    bool floatRangeByValues = true; // View > Float Range by Values
    double sourceTop = 0.0;         // the original's largest finite colour value (float originals)

    // The setters that check their input: each throws convlab::Error for input out of range
    // and then leaves the scene as it was; true when what is drawn changed.
    // The heat map's scale; absoluteMax finite and >= 0.
    void setDifferenceScale(DifferenceScale scale, double absoluteMax);
    // The padding preview; a margin of 1..kMaxPaddingMargin when turned on.
    bool setPadding(bool on, int margin);
    // The border rule the preview and the loupe show; a finite constant.
    bool setBorder(const convlab::Border& border);
    // The band's widths from the left, top, right and bottom edges; none negative.
    void setBand(int left, int top, int right, int bottom);

    // Takes a new source and what its values say its range is (one pass, once per image).
    void assignSource(std::shared_ptr<const convlab::Image> image);

    // The top of the range a slot's values map by: its depth's, or for float images what the
    // original's values say (convlab::displayRange), so that a float photo of 0..255 is not
    // drawn white. Without an original, a slot's own statistics when known.
    double rangeOf(const ImageSlot& s) const;
    // Top of the values' range: the source's, else the result's, else the difference's.
    double nominalRange() const;
    // The |d| the heat map draws white now.
    double differenceScale() const;
    // Absolute: as set, or kDefaultDifferenceFraction of the nominal range.
    double fixedDifferenceScale() const;
    // The Absolute scale in use: the fixed one unless the largest difference would stay black
    // under it (view/differencescale.h). The fixed one without a difference to judge by.
    display::DifferenceScaleChoice differenceScaleChoice() const;
    // One line on the scale in use and why; empty without a difference.
    QString differenceScaleNote() const;

    bool originalShown() const { return originalHeld || originalToggled; }
    Mode shownMode() const { return originalShown() ? Mode::Original : viewMode; }
    bool diffOnScreen() const { return shownMode() == Mode::Difference; }
    bool resultOnScreen() const { return shownMode() == Mode::Result || shownMode() == Mode::Split; }
    bool sourceOnScreen() const { return shownMode() == Mode::Original || shownMode() == Mode::Split || padding; }
    // Whether this frame shows nothing but the result drawn from its colours.
    bool resultColoursOnly() const;

    // The image that defines the geometry: the result, else the source, else the difference.
    const ImageSlot& reference() const;

    // The colours a slot drawn from its host copy is mapped with now; none for the difference
    // (its heat map's scale follows the settings frame by frame) and for a slot that does not
    // keep its host copy (nothing to map again when the mapping changes). Computes the
    // statistics a mapping needs.
    std::optional<displaymap::Key> premapKeyFor(ImageSlot& s);
    // Whether a slot's colours were mapped otherwise than the view maps them now (a new
    // mapping, channel or range): they are mapped and uploaded again at the next frame.
    bool premapStale(ImageSlot& s);
    // The colours the result's values are drawn in now, the statistics those need from `stats`.
    displaymap::Key resultKey(const ImageSlot& stats) const;
    // `image` in the colours of `key`, 8 bits per channel, alpha kept.
    static QImage coloured(const convlab::Image& image, const displaymap::Key& key);
    // `result` in the colours the result is drawn with now (statistics of `result` itself).
    QImage resultAsDisplayed(const convlab::Image& result) const;
    // How the result's values became colours; empty while no result is on screen.
    QString mappingCaption() const;
};
