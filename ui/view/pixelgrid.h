// SPDX-License-Identifier: GPL-3.0-or-later
// The pixel grid of the image view: zoomed in beyond ImageView::kGridZoom (8 screen pixels per
// image pixel) every pixel is outlined, and beyond ImageView::kGridValuesZoom (32) each
// pixel's channel values are written into it — of the image on screen there: the result, the
// original (Original, the left of Split, Space held) or nothing for the difference heat map.
//
// Drawn with QPainter into the view's own frame, after the picture (paintGL): a transparent
// child widget over a QOpenGLWidget makes Qt compose the whole window again for every repaint
// of it (about 60 ms a pan step under Mesa's software GL), this costs only the lines and text.
// Below 8x nothing is drawn and nothing is computed.
#pragma once
#include <QString>
#include <QVector>

class ImageView;
class QPainter;

class PixelGrid {
public:
    explicit PixelGrid(const ImageView* view) : view_(view) {}

    // Draws the grid (and the values) for the view's zoom; nothing at 8x or below.
    void paint(QPainter& p) const;
    // The text written into cell (x, y): one line per channel, as many significant digits as
    // fit the cell's width; empty outside the image, with nothing shown or at 32x or below.
    QString cellText(int x, int y) const;
    // The font size `lines` values are written in at the view's zoom (0: too small to write).
    int valueFontPx(int lines) const;

private:
    // The values of (x, y) in the image drawn at widget column `atX`.
    QVector<float> shownValues(int x, int y, double atX) const;
    QString cellText(const QVector<float>& values, int fontPx) const;

    const ImageView* view_;
};
