// SPDX-License-Identifier: GPL-3.0-or-later
// What the image view shows over its picture: colour bar, notice, labels, pixel grid, padding and band.
#include "view/imageview.h"

#include <QLabel>
#include <QOpenGLPaintDevice>
#include <QPainter>
#include <QSize>

#include <algorithm>
#include <cmath>
#include <string>

#include "view/colorbar.h"
#include "view/differencescale.h"
#include "view/imageview_internal.h"
#include "convlab/error.h"
#include "convlab/imagestats.h"

using imageview_detail::Slot;

namespace {

constexpr int kOverlayMargin = 8;      // widget px between the overlays and the view's edges
constexpr int kMaxBarHeight = 220;     // the colour bar's height in a large view

} // namespace

void ImageView::setSplitLabels(const QString& left, const QString& right)
{
    d->splitLeft->setText(left);
    d->splitRight->setText(right);
    placeOverlays();
}

QPair<QString, QString> ImageView::splitLabels() const
{
    return {d->splitLeft->text(), d->splitRight->text()};
}

bool ImageView::splitLabelsVisible() const
{
    return !d->splitLeft->isHidden() && !d->splitRight->isHidden();
}

void ImageView::updateColorBar()
{
    Slot& r = d->result;
    if (d->diffOnScreen() && d->diff.channels) {
        d->bar->setScale(ColorBar::Map::Heat, 0.0, d->differenceScale());
    } else if (d->mapping == Mapping::Diverging && d->resultOnScreen() && r.channels) {
        // Statistics once per result (paintGL reads a GPU-written one back and calls again).
        if (!r.statsValid && r.hostValid) {
            r.stats = convlab::imageStats(*r.host, r.statChannels);
            r.statsValid = true;
        }
        d->bar->setScale(ColorBar::Map::Diverging, -double(r.stats.maxAbs), double(r.stats.maxAbs));
    } else {
        d->bar->hide();
        return;
    }
    d->bar->show();
    placeOverlays();
}

bool ImageView::colorBarVisible() const
{
    return !d->bar->isHidden();
}

QPair<double, double> ImageView::colorBarRange() const
{
    return {d->bar->low(), d->bar->high()};
}

QString ImageView::notice() const
{
    // Images reduced alike share a sentence ("the original and the result").
    struct Reduced {
        QStringList names;
        QSize size, shown;
    };
    QVector<Reduced> reduced;
    QStringList lines;
    const auto describe = [&](const Slot& s, const QString& name) {
        if (!s.channels)
            return;
        if (!s.displayable && !s.problem.isEmpty()) {
            lines << tr("The %1 (%2×%3 px) cannot be drawn: %4.").arg(name).arg(s.width).arg(s.height).arg(s.problem);
            return;
        }
        if (!s.overLimit) // a reduction to what the zoom shows is not news
            return;
        const QSize size(s.width, s.height), shown(s.texW, s.texH);
        for (Reduced& r : reduced) {
            if (r.size == size && r.shown == shown) {
                r.names << name;
                return;
            }
        }
        reduced.push_back({{name}, size, shown});
    };
    if (d->sourceOnScreen())
        describe(d->source, tr("original"));
    if (d->resultOnScreen())
        describe(d->result, tr("result"));
    if (d->diffOnScreen())
        describe(d->diff, tr("difference"));
    for (const Reduced& r : reduced) {
        const QString text = r.names.size() == 1 ? tr("The %1 (%2×%3 px) is shown reduced to %4×%5 px.")
                                                 : tr("The %1 (%2×%3 px) are shown reduced to %4×%5 px.");
        lines << text.arg(r.names.join(tr(" and the ")))
                     .arg(r.size.width())
                     .arg(r.size.height())
                     .arg(r.shown.width())
                     .arg(r.shown.height());
    }
    if (!reduced.isEmpty())
        lines << tr("OpenGL allows %1 px per side here; the readout uses the full image.").arg(d->textureLimit());
    return lines.join(QLatin1Char('\n'));
}

void ImageView::updateNotice()
{
    const QString text = notice();
    if (text != d->notice->text())
        d->notice->setText(text);
    d->notice->setVisible(!text.isEmpty());
    placeOverlays();
}

void ImageView::placeOverlays()
{
    const int m = kOverlayMargin;
    // The split labels sit at the foot of each half, against the divider, and follow it.
    const bool split = d->shownMode() == ViewMode::Split && d->source.channels > 0;
    for (QLabel* l : {d->splitLeft, d->splitRight}) l->setVisible(split && !l->text().isEmpty());
    if (split) {
        const int divider = int(std::lround(d->split * width()));
        const QSize left = d->splitLeft->sizeHint(), right = d->splitRight->sizeHint();
        const int y = height() - m - std::max(left.height(), right.height());
        d->splitLeft->setGeometry(std::max(0, divider - m - left.width()), y, left.width(), left.height());
        d->splitRight->setGeometry(std::min(width() - right.width(), divider + m), y, right.width(), right.height());
    }
    // Where the split labels would sit, at the foot of the view: the eye looks there for them.
    const bool original = originalShown() && d->source.channels > 0;
    d->originalLabel->setVisible(original);
    if (original) {
        const QSize size = d->originalLabel->sizeHint();
        d->originalLabel->setGeometry(m, height() - m - size.height(), size.width(), size.height());
    }
    int right = width() - m;
    if (!d->bar->isHidden()) {
        const int w = d->bar->sizeHint().width();
        const int h = std::min(kMaxBarHeight, height() - 2 * m);
        d->bar->setGeometry(right - w, m, w, std::max(h, d->bar->minimumSizeHint().height()));
        right -= w + m;
    }
    if (!d->notice->isHidden()) {
        // As wide as its longest line (plus the style's padding), wrapped where the view is narrower.
        int longest = 0;
        for (const QString& line : d->notice->text().split(QLatin1Char('\n')))
            longest = std::max(longest, d->notice->fontMetrics().horizontalAdvance(line));
        const int w = std::max(60, std::min(right - m, longest + 12));
        d->notice->setGeometry(m, m, w, d->notice->heightForWidth(w));
    }
}

PixelGrid::Frame ImageView::gridFrame() const
{
    PixelGrid::Frame f;
    f.zoom = zoom();
    f.origin = origin();
    f.widget = size();
    f.image = imageSize();
    f.font = font();
    f.values = [this](int x, int y, double atX) -> QVector<float> {
        switch (shownMode()) {
        case ViewMode::Original: return sourceValues(x, y);
        case ViewMode::Difference: return {}; // a heat map: its colour bar gives the values
        case ViewMode::Split: return atX < splitPosition() * width() ? sourceValues(x, y) : resultValues(x, y);
        case ViewMode::Result: break;
        }
        return resultValues(x, y);
    };
    return f;
}

void ImageView::setPixelGridEnabled(bool on)
{
    d->gridEnabled = on;
    update();
}

void ImageView::setFloatRangeByValues(bool on)
{
    if (d->floatRangeByValues == on) return;
    d->floatRangeByValues = on;
    updateColorBar();
    update();
}

double ImageView::displayRange() const
{
    return d->nominalRange();
}

bool ImageView::pixelGridEnabled() const
{
    return d->gridEnabled;
}

bool ImageView::pixelGridShown() const
{
    return d->gridEnabled && d->zoom > kGridZoom && d->reference().channels > 0;
}

void ImageView::setPaddingPreview(bool on, int margin)
{
    if (on && (margin < 1 || margin > kMaxPaddingMargin))
        throw convlab::Error("image view: padding margin " + std::to_string(margin) + " is outside 1.." +
                             std::to_string(kMaxPaddingMargin));
    if (on == d->padding && (!on || margin == d->padMargin))
        return; // nothing visible changes: no repaint (each frame is costly on software GL)
    d->padding = on;
    if (on)
        d->padMargin = margin;
    applyLayout();
    updateNotice(); // the original shows in the margin
    update();
}

bool ImageView::paddingPreview() const
{
    return d->padding;
}

int ImageView::paddingMargin() const
{
    return d->padMargin;
}

void ImageView::setBorderForPreview(const convlab::Border& border)
{
    if (!std::isfinite(border.value))
        throw convlab::Error("image view: border constant " + std::to_string(border.value) + " is not finite");
    const bool same = border.mode == d->padBorder.mode && border.value == d->padBorder.value;
    d->padBorder = border;
    if (!same && d->padding)
        update(); // the border is drawn only while the padding is shown
}

void ImageView::setBandOverlay(int left, int top, int right, int bottom)
{
    if (left < 0 || top < 0 || right < 0 || bottom < 0)
        throw convlab::Error("image view: band widths " + std::to_string(left) + "," + std::to_string(top) + "," +
                             std::to_string(right) + "," + std::to_string(bottom) + " must not be negative");
    d->band[0] = left;
    d->band[1] = top;
    d->band[2] = right;
    d->band[3] = bottom;
    update();
}

// ---- the probe's marks and the ring (view/probeoverlay.h) ----

ProbeOverlay::Frame ImageView::marksFrame() const
{
    ProbeOverlay::Frame f;
    f.zoom = zoom();
    f.origin = origin();
    f.image = imageSize();
    f.paddingMargin = d->padding ? d->padMargin : 0;
    f.border = d->padBorder.mode;
    return f;
}

void ImageView::paintMarks()
{
    if (marks_.empty() || imageSize().isEmpty()) return;
    // Into the frame being drawn, like the pixel grid (paintGL explains why not on the widget).
    QOpenGLPaintDevice device(size() * devicePixelRatioF());
    device.setDevicePixelRatio(devicePixelRatioF());
    QPainter painter(&device);
    marks_.paint(painter, marksFrame());
}

void ImageView::setProbeMarks(QPoint pixel, const KernelFootprint& footprint)
{
    marks_.setProbe(pixel, footprint);
    update();
}

void ImageView::clearProbeMarks()
{
    if (!marks_.hasProbe()) return;
    marks_.clearProbe();
    update();
}

bool ImageView::hasProbeMarks() const { return marks_.hasProbe(); }

QPoint ImageView::probeMarkPixel() const { return marks_.probePixel(); }

QRect ImageView::probeMarkWindow() const
{
    return marks_.hasProbe() ? ProbeOverlay::drawnWindow(marksFrame(), marks_.footprint()) : QRect();
}

void ImageView::ringPixel(int x, int y)
{
    marks_.setRing(QPoint(x, y));
    update();
}

void ImageView::clearRing()
{
    if (!marks_.ring()) return;
    marks_.clearRing();
    update();
}

QPoint ImageView::ringedPixel() const { return marks_.ring().value_or(QPoint(-1, -1)); }

double ImageView::differenceFixedScale() const { return d->fixedDifferenceScale(); }

QString ImageView::differenceScaleNote() const
{
    if (!d->diff.channels || !d->diff.statsValid) return {};
    return display::differenceScaleNote(d->diffScale, d->diff.stats.maxAbs, d->fixedDifferenceScale());
}
