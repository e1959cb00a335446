// SPDX-License-Identifier: GPL-3.0-or-later
// The pixel grid of the image view: zoomed in beyond kGridZoom (8 screen pixels per image
// pixel) every pixel is outlined, and beyond kGridValuesZoom (32) each pixel's channel values
// are written into it — of the image on screen there: the result, the original (Original, the
// left of Split, Space held) or nothing for the difference heat map. It sees the view only
// through a Frame (ImageView::gridFrame), so the view depends on it and not the other way.
//
// Drawn with QPainter into the view's own frame, after the picture (paintGL): a transparent
// child widget over a QOpenGLWidget makes Qt compose the whole window again for every repaint
// of it (about 60 ms a pan step under Mesa's software GL), this costs only the lines and text.
// Below 8x nothing is drawn and nothing is computed.
#pragma once
#include <QFont>
#include <QPointF>
#include <QSize>
#include <QString>
#include <QVector>
#include <functional>
#include <utility>

class QPainter;

class PixelGrid {
public:
    static constexpr double kGridZoom = 8.0;
    static constexpr double kGridValuesZoom = 32.0;

    // What the grid is drawn over: the view's geometry and the values it shows.
    struct Frame {
        double zoom = 1.0; // screen pixels per image pixel
        QPointF origin;    // where the image's top-left corner lies in the widget
        QSize widget;      // the widget's size
        QSize image;       // the image's size (empty: nothing is drawn)
        QFont font;
        // The values written into cell (x, y), whose centre lies at widget column atX (empty:
        // nothing to write there, as over the difference heat map).
        std::function<QVector<float>(int x, int y, double atX)> values;
    };

    explicit PixelGrid(Frame frame) : frame_(std::move(frame)) {}

    // Draws the grid (and the values) for the view's zoom; nothing at 8x or below.
    void paint(QPainter& p) const;
    // The text written into cell (x, y): one line per channel, as many significant digits as
    // fit the cell's width; empty outside the image, with nothing shown or at 32x or below.
    QString cellText(int x, int y) const;
    // The font size `lines` values are written in at the view's zoom (0: too small to write).
    int valueFontPx(int lines) const;

private:
    QVector<float> shownValues(int x, int y, double atX) const { return frame_.values(x, y, atX); }
    QString cellText(const QVector<float>& values, int fontPx) const;

    Frame frame_;
};
