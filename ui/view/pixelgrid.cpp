// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/pixelgrid.h"

#include <QFontMetrics>
#include <QLineF>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace {

constexpr int kMinFontPx = 7; // smaller text is not worth writing
constexpr int kMaxFontPx = 15;
constexpr int kMaxDigits = 5; // significant digits at the most
constexpr int kMinDigits = 2;

QString joined(const QVector<float>& values, int digits)
{
    QStringList lines;
    for (float v : values) lines << QString::number(v, 'g', digits);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

int PixelGrid::valueFontPx(int lines) const
{
    const double cell = frame_.zoom;
    if (cell <= kGridValuesZoom || lines < 1) return 0;
    // The lines and half a line of margin; never so tall that a value cannot be as wide.
    const int px = int(std::floor(std::min({cell / (lines + 1.5), cell / 4.0, double(kMaxFontPx)})));
    return px >= kMinFontPx ? px : 0;
}

QString PixelGrid::cellText(const QVector<float>& values, int fontPx) const
{
    QFont f = frame_.font;
    f.setPixelSize(fontPx);
    const QFontMetrics metrics(f);
    const int room = int(frame_.zoom) - 4;
    // As many digits as fit the cell's width.
    for (int digits = kMaxDigits; digits > kMinDigits; --digits) {
        const QString text = joined(values, digits);
        int widest = 0;
        for (const QString& line : text.split(QLatin1Char('\n'))) widest = std::max(widest, metrics.horizontalAdvance(line));
        if (widest <= room) return text;
    }
    return joined(values, kMinDigits);
}

QString PixelGrid::cellText(int x, int y) const
{
    const double z = frame_.zoom;
    if (z <= kGridValuesZoom) return {};
    const QVector<float> values = shownValues(x, y, frame_.origin.x() + (x + 0.5) * z);
    const int fontPx = valueFontPx(int(values.size()));
    return fontPx ? cellText(values, fontPx) : QString();
}

void PixelGrid::paint(QPainter& p) const
{
    const QSize size = frame_.image;
    const double z = frame_.zoom;
    if (size.isEmpty() || z <= kGridZoom) return;
    const QPointF o = frame_.origin;
    // The cells on screen.
    const int x0 = std::max(0, int(std::floor(-o.x() / z)));
    const int y0 = std::max(0, int(std::floor(-o.y() / z)));
    const int x1 = std::min(size.width(), int(std::ceil((frame_.widget.width() - o.x()) / z)));
    const int y1 = std::min(size.height(), int(std::ceil((frame_.widget.height() - o.y()) / z)));
    if (x0 >= x1 || y0 >= y1) return;

    // Grey at half opacity shows on black, white and every colour between.
    p.setPen(QPen(QColor(128, 128, 128, 150), 0));
    const double top = o.y() + y0 * z, bottom = o.y() + y1 * z;
    const double left = o.x() + x0 * z, right = o.x() + x1 * z;
    QVector<QLineF> lines;
    lines.reserve(x1 - x0 + y1 - y0 + 2);
    for (int x = x0; x <= x1; ++x) {
        const double at = std::floor(o.x() + x * z) + 0.5;
        lines.append(QLineF(at, top, at, bottom));
    }
    for (int y = y0; y <= y1; ++y) {
        const double at = std::floor(o.y() + y * z) + 0.5;
        lines.append(QLineF(left, at, right, at));
    }
    p.drawLines(lines);

    if (z <= kGridValuesZoom) return;
    QFont f = frame_.font;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            const QVector<float> values = shownValues(x, y, o.x() + (x + 0.5) * z);
            const int fontPx = valueFontPx(int(values.size()));
            if (fontPx == 0) continue;
            if (f.pixelSize() != fontPx) {
                f.setPixelSize(fontPx);
                p.setFont(f);
            }
            const QString text = cellText(values, fontPx);
            const QRectF cell(o.x() + x * z, o.y() + y * z, z, z);
            // A dark shadow under light text reads on any colour of the cell.
            p.setPen(QColor(0, 0, 0, 200));
            p.drawText(cell.translated(1, 1), Qt::AlignCenter, text);
            p.setPen(QColor(255, 255, 255));
            p.drawText(cell, Qt::AlignCenter, text);
        }
}
