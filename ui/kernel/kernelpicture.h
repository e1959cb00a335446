// SPDX-License-Identifier: GPL-3.0-or-later
// A small picture of the kernel beside the grid: each coefficient a square in the grid's
// diverging colours (kernelgrid::valueColour, at full strength), the anchor outlined. It
// follows the document, so the shape of a kernel (a blur's round spot, an edge detector's two
// signed halves) shows at a glance even when the grid scrolls.
#pragma once
#include <QImage>
#include <QRectF>
#include <QWidget>

class KernelDocument;

class KernelPicture : public QWidget {
    Q_OBJECT
public:
    static constexpr int kSide = 88; // the picture's box, in pixels

    explicit KernelPicture(KernelDocument* doc, QWidget* parent = nullptr);

    // One pixel per coefficient, in the colours drawn (the widget scales it up).
    const QImage& image() const { return image_; }
    // Where the kernel and its anchor's square are drawn, in widget coordinates.
    QRectF kernelRect() const;
    QRectF anchorRect() const;

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void rebuild();

    KernelDocument* doc_;
    QImage image_;
};
