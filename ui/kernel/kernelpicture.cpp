// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel/kernelpicture.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "kernel/kerneldocument.h"
#include "kernel/kernelmodel.h"

KernelPicture::KernelPicture(KernelDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc)
{
    setObjectName("kernelPicture");
    setFixedSize(kSide, kSide);
    setToolTip(tr("The kernel as a picture: red positive, blue negative, white zero; the anchor outlined"));
    connect(doc_, &KernelDocument::changed, this, &KernelPicture::rebuild);
    rebuild();
}

QSize KernelPicture::sizeHint() const { return {kSide, kSide}; }

void KernelPicture::rebuild()
{
    const convlab::Kernel& k = doc_->kernel();
    const double maxAbs = kernelgrid::maxAbsolute(k.values);
    image_ = QImage(k.width, k.height, QImage::Format_RGB32);
    for (int v = 0; v < k.height; ++v) {
        auto* line = reinterpret_cast<QRgb*>(image_.scanLine(v));
        for (int u = 0; u < k.width; ++u) line[u] = kernelgrid::valueColour(k.at(v, u), maxAbs).rgb();
    }
    update();
}

QRectF KernelPicture::kernelRect() const
{
    const int w = image_.width(), h = image_.height();
    if (w == 0 || h == 0) return {};
    // Whole-pixel squares while they fit, so that every coefficient gets the same size.
    double cell = std::min(double(width()) / w, double(height()) / h);
    if (cell >= 1.0) cell = std::floor(cell);
    const QSizeF size(w * cell, h * cell);
    return QRectF(QPointF((width() - size.width()) / 2, (height() - size.height()) / 2), size);
}

QRectF KernelPicture::anchorRect() const
{
    const convlab::Kernel& k = doc_->kernel();
    const QRectF r = kernelRect();
    if (r.isEmpty()) return {};
    const double cw = r.width() / k.width, ch = r.height() / k.height;
    return QRectF(r.left() + k.ax() * cw, r.top() + k.ay() * ch, cw, ch);
}

void KernelPicture::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QRectF r = kernelRect();
    p.drawImage(r, image_); // no smoothing: each coefficient stays a flat square
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5));
    // The anchor in the grid's anchor colour, a little larger than its square when that is tiny.
    const QRectF a = anchorRect();
    const double grow = std::max(0.0, (4.0 - a.width()) / 2);
    p.setPen(QPen(QColor(230, 126, 34), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(a.adjusted(-grow, -grow, grow, grow));
}
