// SPDX-License-Identifier: GPL-3.0-or-later
// View > Mark Clipped Pixels: for a source read from an 8- or 16-bit file, the result's pixels
// that a file of that type cannot hold (below 0, above 255 or 65535), tinted over the picture
// in two colours, and a line in the mapping caption that says how many. A saved result clamps
// exactly these: the marks show where the file will differ from the numbers.
//
// The counting is a plain function (countClipped) that also paints the mask, so that a test
// checks the marks against the values without drawing. ClipMarks follows the document's
// result and the view's channel, and draws the mask on the result's part of the view.
#pragma once
#include <QColor>
#include <QImage>
#include <QString>
#include <cstdint>
#include <memory>

#include "convlab/image.h"
#include "view/viewoverlay.h"

class WorkbenchDocument;

namespace clipmarks {

// The pixels whose value (in `channel`, or in any colour channel for -1; alpha is never
// counted, it is passed through) lies below 0 or above `top`.
struct Count {
    std::uint64_t below = 0; // a value below 0 (and none above `top`)
    std::uint64_t above = 0; // a value above `top` (a pixel with both counts here)
    std::uint64_t pixels = 0; // all pixels of the image
    std::uint64_t marked() const { return below + above; }
};

// The colours of the marks: distinct from each other, from grey pictures and from the
// probe's outlines.
QColor belowColour();
QColor aboveColour();

// The largest value a file of the source's type holds: 255, 65535; 0 for float (nothing clips).
float fileTop(convlab::SampleDepth depth);

// Counts the clipped pixels of `image`; with `mask`, also sets it to an image of the same
// size, transparent except for the marked pixels in their colour. NaN is not counted (a file
// writes it as 0, which is in range). Throws convlab::Error for a channel out of range.
Count countClipped(const convlab::Image& image, float top, int channel, QImage* mask = nullptr);

// The caption's line: "marked: 1,024 px below 0 (blue), 12 px above 255 (magenta): 1,036 of
// 32,768 px, 3.16%".
QString captionNote(const Count& count, float top);

} // namespace clipmarks

class ClipMarks : public ViewOverlay {
    Q_OBJECT
public:
    explicit ClipMarks(ImageView* view);
    // Follows the document's result (a CUDA result once its values reach the host) and channel.
    void attach(WorkbenchDocument* doc);

    void setEnabled(bool on);
    bool enabled() const { return enabled_; }
    // The image the marks are of and the type its source came from (another type: no marks).
    void setResult(std::shared_ptr<const convlab::Image> result, convlab::SampleDepth sourceDepth);
    void setChannel(int channel);

    // What is marked now (all zero while off, for a float source or without a result).
    clipmarks::Count count() const { return count_; }
    const QImage& mask() const { return mask_; }
    QString note() const;

    void paint(QPainter& p, const ProbeOverlay::Frame& f, const ImageView& view) const override;

private:
    void recount();

    QPointer<WorkbenchDocument> doc_;
    bool enabled_ = false;
    std::shared_ptr<const convlab::Image> result_;
    convlab::SampleDepth depth_ = convlab::SampleDepth::F32;
    int channel_ = -1;
    clipmarks::Count count_;
    QImage mask_;
};
