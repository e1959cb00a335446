// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/edgeloupe.h"

#include <QCoreApplication>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "convlab/border.h"

namespace edgeloupe {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("EdgeLoupe", text); }

} // namespace

bool padsLeft(Corner c) { return c == Corner::TopLeft || c == Corner::BottomLeft; }
bool padsTop(Corner c) { return c == Corner::TopLeft || c == Corner::TopRight; }

QString cornerName(Corner c)
{
    switch (c) {
    case Corner::TopLeft: return tr("top-left corner");
    case Corner::TopRight: return tr("top-right corner");
    case Corner::BottomRight: return tr("bottom-right corner");
    case Corner::BottomLeft: return tr("bottom-left corner");
    }
    return {};
}

Corner nextCorner(Corner c) { return Corner((int(c) + 1) % 4); }

CropRect cropAt(int imageWidth, int imageHeight, Corner c, int pixels, int margin)
{
    CropRect r;
    const int nx = std::clamp(pixels, 0, imageWidth), ny = std::clamp(pixels, 0, imageHeight);
    r.margin = std::max(0, margin);
    r.width = nx + r.margin;
    r.height = ny + r.margin;
    r.x0 = padsLeft(c) ? -r.margin : imageWidth - nx;
    r.y0 = padsTop(c) ? -r.margin : imageHeight - ny;
    return r;
}

convlab::Image crop(const convlab::Image& image, const CropRect& r, const convlab::Border& border)
{
    convlab::Image out(r.width, r.height, image.channels, image.depth);
    for (int c = 0; c < image.channels; ++c)
        for (int y = 0; y < r.height; ++y) {
            const int sy = convlab::borderIndex(r.y0 + y, image.height, border.mode);
            for (int x = 0; x < r.width; ++x) {
                const int sx = convlab::borderIndex(r.x0 + x, image.width, border.mode);
                out.at(c, y, x) = sx < 0 || sy < 0 ? float(border.value) : image.at(c, sy, sx);
            }
        }
    return out;
}

} // namespace edgeloupe

using edgeloupe::Corner;
using edgeloupe::padsLeft;
using edgeloupe::padsTop;

namespace {

constexpr int kPad = 6;       // px inside the loupe's frame
constexpr int kGap = 10;      // px between the panels
constexpr int kMaxCell = 14;  // screen px per crop pixel at most

} // namespace

EdgeLoupe::EdgeLoupe(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("edgeLoupe"));
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("The border mode at work: the source with the padding it invents (tinted) and the result "
                  "at the same corner, magnified. Click for the next corner; View > Edge Loupe hides it."));
}

void EdgeLoupe::setPanels(const QImage& source, const QImage& result, int margin, const QString& border,
                          bool stretched)
{
    stretched_ = stretched;
    source_ = source;
    result_ = result;
    margin_ = margin;
    border_ = border;
    updateGeometry();
    update();
}

void EdgeLoupe::setCorner(Corner c)
{
    if (c == corner_) return;
    corner_ = c;
    emit cornerChanged(c);
    update();
}

QString EdgeLoupe::title() const
{
    return tr("%1 · border %2").arg(edgeloupe::cornerName(corner_), border_);
}

int EdgeLoupe::cell() const
{
    const int side = std::max(source_.width(), source_.height());
    return side > 0 ? std::clamp(160 / side, 6, kMaxCell) : kMaxCell;
}

QString EdgeLoupe::sourceCaption() const
{
    return stretched_ ? tr("source + padding (stretched)") : tr("source + padding");
}

int EdgeLoupe::columnWidth(const QImage& image, const QString& caption) const
{
    return std::max(image.width() * cell(), fontMetrics().horizontalAdvance(caption) + 4);
}

QSize EdgeLoupe::sizeHint() const
{
    const int c = cell();
    const int line = fontMetrics().height();
    const int columns = columnWidth(source_, sourceCaption()) + kGap + columnWidth(result_.isNull() ? source_ : result_, tr("result"));
    const int width = std::max(columns, fontMetrics().horizontalAdvance(title()) + 4);
    const int pixels = std::max(source_.height(), result_.height()) * c;
    return {2 * kPad + width, 2 * kPad + 2 * line + 4 + pixels};
}

void EdgeLoupe::paintPanel(QPainter& p, const QRect& area, const QImage& image, int margin, const QString& caption) const
{
    p.setPen(QColor(242, 242, 242));
    p.drawText(QRect(area.left(), area.top(), columnWidth(image, caption), fontMetrics().height()), Qt::AlignLeft, caption);
    const int c = cell();
    const QRect pixels(area.left(), area.top() + fontMetrics().height() + 2, image.width() * c, image.height() * c);
    if (image.isNull()) {
        p.drawText(pixels.adjusted(0, 0, 60, 0), Qt::AlignLeft | Qt::TextWordWrap, tr("(not at hand)"));
        return;
    }
    p.drawImage(pixels, image); // nearest: each crop pixel a block
    if (margin <= 0) return;
    // The padding: tinted, and the image's edge outlined where it meets it.
    const int px = padsLeft(corner_) ? margin * c : 0, py = padsTop(corner_) ? margin * c : 0;
    const QRect inside(pixels.left() + (padsLeft(corner_) ? px : 0), pixels.top() + (padsTop(corner_) ? py : 0),
                       pixels.width() - margin * c, pixels.height() - margin * c);
    const QColor tint(255, 170, 0, 40); // light: the invented pixels must stay readable
    const QRegion padding = QRegion(pixels).subtracted(QRegion(inside));
    for (const QRect& r : padding) p.fillRect(r, tint);
    p.setPen(QPen(QColor(255, 190, 40), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(inside.adjusted(0, 0, -1, -1));
}

void EdgeLoupe::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.fillRect(rect(), QColor(0, 0, 0, 185));
    const int line = fontMetrics().height();
    p.setPen(QColor(255, 255, 255));
    p.drawText(QRect(kPad, kPad, width() - 2 * kPad, line), Qt::AlignLeft, title());
    const int top = kPad + line + 4;
    const int c = cell();
    const QRect left(kPad, top, columnWidth(source_, sourceCaption()), height() - top - kPad);
    paintPanel(p, left, source_, margin_, sourceCaption());
    const QRect right(left.right() + 1 + kGap, top, columnWidth(result_, tr("result")), left.height());
    paintPanel(p, right, result_, 0, tr("result"));
}

void EdgeLoupe::mousePressEvent(QMouseEvent* e)
{
    if (e->button() == Qt::LeftButton) setCorner(edgeloupe::nextCorner(corner_));
    e->accept();
}
