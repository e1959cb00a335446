// SPDX-License-Identifier: GPL-3.0-or-later
// The edge loupe: an inset over the image view that shows one corner of the image magnified,
// the source with the padding the border mode invents around it (tinted, the image's edge
// outlined) beside the result's same corner, so that switching the border mode visibly changes
// something even when the whole image is on screen. A click on the loupe moves it to the next
// corner (wrap and reflect differ most at the opposite edges).
#pragma once
#include <QImage>
#include <QString>
#include <QWidget>

#include "convlab/convolve.h"
#include "convlab/image.h"

namespace edgeloupe {

enum class Corner { TopLeft, TopRight, BottomRight, BottomLeft };
QString cornerName(Corner c);
Corner nextCorner(Corner c);
// Whether the padding at that corner lies left of the image (else right) and above it (else below).
bool padsLeft(Corner c);
bool padsTop(Corner c);

// The image pixels along each side of a corner the loupe shows (fewer for smaller images), and
// the most padding shown beyond the edge.
inline constexpr int kPixels = 8;
inline constexpr int kMaxMargin = 6;

// Where the crop lies in image coordinates: x0, y0 may be negative (the padding).
struct CropRect {
    int x0 = 0, y0 = 0, width = 0, height = 0;
    int margin = 0; // of the width and height, this many px lie outside the image
    bool operator==(const CropRect&) const = default;
};
// The `pixels` x `pixels` image pixels at corner `c` (fewer when the image is smaller) and
// `margin` px of padding beyond the two edges that meet there.
CropRect cropAt(int imageWidth, int imageHeight, Corner c, int pixels, int margin);

// The crop's values, every channel: inside the image the image's, outside what `border`
// reads there (convlab::borderIndex; the constant for Constant), as the engine reads them.
convlab::Image crop(const convlab::Image& image, const CropRect& r, const convlab::Border& border);

} // namespace edgeloupe

class EdgeLoupe : public QWidget {
    Q_OBJECT
public:
    explicit EdgeLoupe(QWidget* parent = nullptr);

    // The two panels in display colours (one pixel a crop pixel) and what they show: `margin`
    // px of the source panel's sides at the corner are padding. An empty result panel says the
    // result is not at hand (computing, or on the GPU).
    // `stretched`: the source's colours were stretched to the crop's own range (a dark corner).
    void setPanels(const QImage& source, const QImage& result, int margin, const QString& border,
                   bool stretched = false);
    edgeloupe::Corner corner() const { return corner_; }
    void setCorner(edgeloupe::Corner c);
    QImage sourcePanel() const { return source_; }
    QImage resultPanel() const { return result_; }
    QString title() const;
    QSize sizeHint() const override;

signals:
    // The user clicked the loupe: the view fills it for the new corner.
    void cornerChanged(edgeloupe::Corner c);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;

private:
    int cell() const; // screen px per crop pixel
    QString sourceCaption() const;
    // The width of each panel's column: its pixels or its caption, whichever is wider.
    int columnWidth(const QImage& image, const QString& caption) const;
    void paintPanel(QPainter& p, const QRect& area, const QImage& image, int margin, const QString& caption) const;
    edgeloupe::Corner corner_ = edgeloupe::Corner::TopLeft;
    QImage source_, result_;
    int margin_ = 0;
    QString border_;
    bool stretched_ = false;
};
