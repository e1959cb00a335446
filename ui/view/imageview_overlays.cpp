// SPDX-License-Identifier: GPL-3.0-or-later
// What the image view shows over its picture: colour bar, notice, labels, pixel grid, padding and band.
#include "view/imageview.h"

#include <QEvent>
#include <QLabel>
#include <QOpenGLPaintDevice>
#include <QPainter>
#include <QSize>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "view/colorbar.h"
#include "view/differencescale.h"
#include "view/mappingrule.h"
#include "view/imageview_internal.h"
#include "convlab/error.h"
#include "convlab/imagestats.h"
#include "convlab/modes.h"

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

displaymap::Key ImageView::resultKey(const Slot& stats) const
{
    displaymap::Key k;
    k.mapping = d->mapping;
    k.channel = d->displayChannel;
    k.range = float(d->rangeOf(d->result.channels ? d->result : stats));
    if (displaymap::needsStats(k.mapping)) {
        k.lo = stats.stats.lo;
        k.hi = stats.stats.hi;
        k.maxAbs = stats.divergingLimit();
    }
    return k;
}

namespace {

QImage toQImage(const convlab::Image& image, const displaymap::Key& key)
{
    std::vector<std::uint32_t> words;
    displaymap::toRgba8(image, key, words);
    QImage out(image.width, image.height, QImage::Format_RGBA8888);
    for (int y = 0; y < image.height; ++y)
        std::memcpy(out.scanLine(y), words.data() + std::size_t(y) * image.width, std::size_t(image.width) * 4);
    return out;
}

} // namespace

QImage ImageView::resultAsDisplayed(const convlab::Image& result) const
{
    if (result.empty()) return {};
    Slot probe; // the statistics a result slot would hold for this image
    probe.host = std::shared_ptr<const convlab::Image>(&result, [](const convlab::Image*) {});
    probe.statChannels = imageview_detail::colourChannels(result.channels);
    if (displaymap::needsStats(d->mapping)) probe.computeStats();
    return toQImage(result, resultKey(probe));
}

void ImageView::setEdgeLoupeShown(bool on)
{
    d->loupeWanted = on;
    updateLoupe();
}

bool ImageView::edgeLoupeShown() const { return !d->loupe->isHidden(); }

EdgeLoupe* ImageView::edgeLoupe() const { return d->loupe; }

void ImageView::setKernelReach(int reach)
{
    const int margin = std::clamp(reach, 1, edgeloupe::kMaxMargin);
    if (margin == d->loupeMargin) return;
    d->loupeMargin = margin;
    updateLoupe();
}

void ImageView::updateLoupe()
{
    Slot& src = d->source;
    if (!d->loupeWanted || !src.channels || !src.hostValid) {
        d->loupe->hide();
        return;
    }
    using namespace edgeloupe;
    const CropRect padded = cropAt(src.width, src.height, d->loupe->corner(), kPixels, d->loupeMargin);
    displaymap::Key sourceKey;
    sourceKey.channel = d->displayChannel;
    sourceKey.range = float(d->rangeOf(src));
    const convlab::Image sourceCrop = crop(*src.host, padded, d->padBorder);
    // A dark or flat corner says nothing about the border rule: stretched to its own range.
    const convlab::ImageStats cropStats = convlab::imageStats(sourceCrop, imageview_detail::colourChannels(sourceCrop.channels));
    const bool stretch = cropStats.hi - cropStats.lo < 0.5 * sourceKey.range && cropStats.hi > cropStats.lo;
    if (stretch) {
        sourceKey.mapping = Mapping::Normalize;
        sourceKey.lo = cropStats.lo;
        sourceKey.hi = cropStats.hi;
    }
    const QImage source = toQImage(sourceCrop, sourceKey);
    QImage result;
    Slot& r = d->result;
    if (r.channels && r.hostValid && r.width == src.width && r.height == src.height) {
        if (displaymap::needsStats(d->mapping) && !r.statsValid) r.computeStats();
        const CropRect inside = cropAt(r.width, r.height, d->loupe->corner(), kPixels, 0);
        result = toQImage(crop(*r.host, inside, d->padBorder), resultKey(r));
    }
    d->loupe->setPanels(source, result, padded.margin, QString::fromStdString(convlab::borderName(d->padBorder.mode)),
                        stretch);
    d->loupe->show();
    placeOverlays();
}

QString ImageView::mappingCaption() const
{
    const Slot& r = d->result;
    if (!r.channels || !d->resultOnScreen()) return {};
    display::CaptionFacts facts;
    facts.mapping = d->mapping;
    facts.range = d->rangeOf(r);
    facts.statsKnown = r.statsValid;
    facts.lo = r.stats.lo;
    facts.hi = r.stats.hi;
    facts.limit = r.divergingLimit();
    facts.clippedFraction = r.signedRange.clippedFraction();
    const bool integer = r.depth == convlab::SampleDepth::U8 || r.depth == convlab::SampleDepth::U16;
    if (integer && d->mapping == Mapping::Clamp && r.hostValid) {
        facts.fileBits = r.depth == convlab::SampleDepth::U8 ? 8 : 16;
        facts.outsideFraction = r.outsideFraction(facts.range);
    }
    return withCaptionNote(display::mappingCaption(facts));
}

void ImageView::updateCaption()
{
    const QString text = mappingCaption();
    if (text != d->caption->text()) d->caption->setText(text);
    d->caption->setVisible(!text.isEmpty());
}

void ImageView::updateColorBar()
{
    updateCaption(); // what the caption and the loupe show changes with what changes the bar
    updateLoupe();
    Slot& r = d->result;
    if (d->diffOnScreen() && d->diff.channels) {
        d->bar->setScale(ColorBar::Map::Heat, 0.0, d->differenceScale());
    } else if (d->mapping == Mapping::Diverging && d->resultOnScreen() && r.channels) {
        // Statistics once per result (paintGL reads a GPU-written one back and calls again).
        if (!r.statsValid && r.hostValid) r.computeStats();
        const double limit = r.divergingLimit();
        d->bar->setScale(ColorBar::Map::Diverging, -limit, limit);
    } else {
        d->bar->hide();
        placeOverlays();
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
    if (!d->loupe->isHidden()) {
        // The foot's left corner, above the split labels' row when they show.
        const QSize size = d->loupe->sizeHint();
        int bottom = height() - m;
        if (split || original) bottom -= d->splitLeft->sizeHint().height() + m / 2;
        d->loupe->setGeometry(m, std::max(m, bottom - size.height()), size.width(), size.height());
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
    if (!d->caption->isHidden()) {
        // Top left, under the notice when there is one: clear of the loupe and the split labels
        // at the foot and of the colour bar at the right.
        const int top = d->notice->isHidden() ? m : d->notice->geometry().bottom() + m / 2;
        const int oneLine = d->caption->fontMetrics().horizontalAdvance(d->caption->text()) + 14;
        const int w = std::max(60, std::min(oneLine, right - m)); // wrapped where the view is narrower
        d->caption->setGeometry(m, top, w, d->caption->heightForWidth(w));
    }
}

void ImageView::changeEvent(QEvent* e)
{
    QOpenGLWidget::changeEvent(e);
    if (e->type() != QEvent::FontChange) return;
    // The labels carry a style sheet, which keeps the font they were polished with: given the
    // view's font explicitly, they follow the interface's text size.
    for (QLabel* l : {d->notice, d->splitLeft, d->splitRight, d->originalLabel, d->caption}) l->setFont(font());
    d->bar->setFont(font());
    d->loupe->setFont(font());
    placeOverlays();
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
    if (!same) updateLoupe(); // the loupe shows the padding whether or not the preview does
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
    if ((marks_.empty() && !hasOverlays()) || imageSize().isEmpty()) return;
    // Into the frame being drawn, like the pixel grid (paintGL explains why not on the widget).
    QOpenGLPaintDevice device(size() * devicePixelRatioF());
    device.setDevicePixelRatio(devicePixelRatioF());
    QPainter painter(&device);
    paintOverlays(painter);
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

void ImageView::setFedMarks(QPoint input, const QRect& outputs)
{
    marks_.setFed(input, outputs);
    update();
}

void ImageView::clearFedMarks()
{
    if (!marks_.fedOutputs()) return;
    marks_.clearFed();
    update();
}

QRect ImageView::fedOutputs() const { return marks_.fedOutputs().value_or(QRect()); }

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
