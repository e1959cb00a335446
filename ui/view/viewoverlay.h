// SPDX-License-Identifier: GPL-3.0-or-later
// Something drawn over the image view's picture by a class outside the view: the clip marks,
// the probe's sweep region. The view keeps a list of them (ImageView::addOverlay) and draws
// each into its frame, under the probe's outlines, with the geometry ProbeOverlay::Frame gives.
// An overlay that changes calls changed(), and the view draws a new frame.
#pragma once
#include <QObject>
#include <QPointer>

#include "view/probeoverlay.h"

class ImageView;
class QPainter;

class ViewOverlay : public QObject {
public:
    explicit ViewOverlay(ImageView* view);
    // Draws into the frame; `view` tells what is on screen (mode, split position).
    virtual void paint(QPainter& p, const ProbeOverlay::Frame& f, const ImageView& view) const = 0;

protected:
    // Limits `p` to where the view shows the result (all of it, or Split's right half); false
    // when no result is on screen (Original, Difference). Call between save() and restore().
    static bool clipToResult(QPainter& p, const ImageView& view);
    ImageView* view() const { return view_; }
    // Asks the view for a new frame.
    void changed();

private:
    QPointer<ImageView> view_;
};
