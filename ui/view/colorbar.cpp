// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/colorbar.h"

#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace {

constexpr int kStripWidth = 12; // px of the gradient strip
constexpr int kPad = 4;         // px around the content (overlay panel) and before the labels
constexpr int kTickLength = 3;

double clamp01(double t)
{
    return std::isnan(t) ? 0.0 : std::clamp(t, 0.0, 1.0);
}

// Keep in step with kNegative / kPositive in shaders/image.frag.
constexpr double kNegative[3] = {0.13, 0.40, 0.67};
constexpr double kPositive[3] = {0.70, 0.09, 0.17};

} // namespace

namespace colormap {

// As heat() in shaders/image.frag.
QColor heat(double t)
{
    t = clamp01(t);
    return QColor::fromRgbF(float(clamp01(3.0 * t)), float(clamp01(3.0 * t - 1.0)), float(clamp01(3.0 * t - 2.0)));
}

// As diverging() in shaders/image.frag, with t = v / max|v| already formed.
QColor diverging(double t)
{
    t = std::isnan(t) ? 0.0 : std::clamp(t, -1.0, 1.0);
    const double* end = t < 0.0 ? kNegative : kPositive;
    const double w = std::abs(t);
    auto mix = [&](int c) { return float(1.0 + w * (end[c] - 1.0)); };
    return QColor::fromRgbF(mix(0), mix(1), mix(2));
}

QColor viridis(double t)
{
    static const int stops[][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    t = clamp01(t) * 4.0;
    const int i = std::min(int(t), 3);
    const double f = t - i;
    auto mix = [&](int c) { return int(std::lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c]))); };
    return QColor(mix(0), mix(1), mix(2));
}

} // namespace colormap

ColorBar::ColorBar(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
}

void ColorBar::setScale(Map map, double low, double high, const QString& unit)
{
    if (map == map_ && low == low_ && high == high_ && unit == unit_)
        return;
    const bool wider = formatValue(low) != formatValue(low_) || formatValue(high) != formatValue(high_) || unit != unit_;
    map_ = map;
    low_ = low;
    high_ = high;
    unit_ = unit;
    if (wider)
        updateGeometry();
    update();
}

void ColorBar::setOverlayStyle(bool on)
{
    overlay_ = on;
    update();
}

QColor ColorBar::colourAt(Map map, double t)
{
    switch (map) {
    case Map::Heat:
        return colormap::heat(t);
    case Map::Diverging:
        return colormap::diverging(2.0 * clamp01(t) - 1.0);
    case Map::Viridis:
        return colormap::viridis(t);
    }
    return {};
}

QString ColorBar::formatValue(double v)
{
    if (v == 0.0)
        return QStringLiteral("0");
    QString s = QString::number(v, 'g', 3);
    s.replace(QLatin1Char('-'), QChar(0x2212)); // a typographic minus, as wide as the plus
    return s;
}

QStringList ColorBar::tickLabels() const
{
    const QString top = formatValue(high_) + (unit_.isEmpty() ? QString() : QStringLiteral(" ") + unit_);
    return {top, formatValue((low_ + high_) / 2.0), formatValue(low_)};
}

int ColorBar::labelWidth() const
{
    const QFontMetrics fm = fontMetrics();
    int w = 0;
    for (const QString& s : tickLabels())
        w = std::max(w, fm.horizontalAdvance(s));
    return w;
}

QSize ColorBar::sizeHint() const
{
    return {kPad + kStripWidth + kTickLength + kPad + labelWidth() + kPad, 180};
}

QSize ColorBar::minimumSizeHint() const
{
    return {sizeHint().width(), 3 * fontMetrics().height() + 2 * kPad};
}

QRect ColorBar::stripRect() const
{
    const int half = fontMetrics().height() / 2;
    const int top = kPad + half;
    return QRect(kPad, top, kStripWidth, std::max(2, height() - 2 * top));
}

double ColorBar::fractionAtRow(int y) const
{
    const QRect s = stripRect();
    return clamp01((s.bottom() - y + 0.5) / s.height());
}

void ColorBar::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    if (overlay_) {
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0, 0, 0, 185));
        p.drawRoundedRect(QRectF(rect()), 4, 4);
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    // One widget row per colour; the strip is small, so it is built at each paint.
    const QRect s = stripRect();
    QImage strip(1, s.height(), QImage::Format_RGB32);
    for (int y = 0; y < s.height(); ++y)
        strip.setPixel(0, y, colourAt(map_, fractionAtRow(s.top() + y)).rgb());
    p.drawImage(s, strip);
    const QColor text = overlay_ ? QColor(235, 235, 235) : palette().color(QPalette::WindowText);
    p.setPen(text);
    p.setBrush(Qt::NoBrush);
    p.drawRect(s.adjusted(-1, -1, 0, 0));
    const QFontMetrics fm = fontMetrics();
    const QStringList labels = tickLabels();
    const int rows[3] = {s.top(), s.top() + s.height() / 2, s.bottom()};
    const int textX = s.right() + 1 + kTickLength + kPad;
    for (int i = 0; i < 3; ++i) {
        p.drawLine(s.right() + 1, rows[i], s.right() + kTickLength, rows[i]);
        p.drawText(QRect(textX, rows[i] - fm.height() / 2, width() - textX, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, labels[i]);
    }
}
