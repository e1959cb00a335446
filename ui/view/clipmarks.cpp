// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/clipmarks.h"

#include <QCoreApplication>
#include <QLocale>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <vector>
#include <string>

#include "convlab/error.h"
#include "view/imageview.h"
#include "workbench/workbenchdocument.h"

namespace clipmarks {
namespace {

constexpr int kMarkAlpha = 210; // strong enough to read at a glance, the picture faint beneath

QString tr(const char* text) { return QCoreApplication::translate("ClipMarks", text); }

QRgb premultiplied(const QColor& c)
{
    return qPremultiply(qRgba(c.red(), c.green(), c.blue(), kMarkAlpha));
}

// The channels that count: the chosen one, or the colour channels (alpha is passed through).
std::pair<int, int> countedChannels(const convlab::Image& image, int channel)
{
    if (channel >= 0) return {channel, channel + 1};
    const bool alpha = image.hasAlpha && image.channels > 1;
    return {0, alpha ? image.channels - 1 : image.channels};
}

} // namespace

QColor belowColour() { return QColor(0, 110, 255); }
QColor aboveColour() { return QColor(235, 0, 215); }

float fileTop(convlab::SampleDepth depth)
{
    switch (depth) {
    case convlab::SampleDepth::U8: return 255.0f;
    case convlab::SampleDepth::U16: return 65535.0f;
    case convlab::SampleDepth::F32: break;
    }
    return 0.0f;
}

Count countClipped(const convlab::Image& image, float top, int channel, QImage* mask)
{
    if (channel < -1 || channel >= image.channels)
        throw convlab::Error("clip marks: channel " + std::to_string(channel) + " of an image of " +
                             std::to_string(image.channels) + " channels");
    Count count;
    count.pixels = image.planeSize();
    if (mask) {
        *mask = QImage(image.width, image.height, QImage::Format_ARGB32_Premultiplied);
        mask->fill(Qt::transparent);
    }
    const auto [first, end] = countedChannels(image, channel);
    const QRgb below = premultiplied(belowColour()), above = premultiplied(aboveColour());
    // One pass per channel over a row, then one over the row's flags: plain loops over
    // contiguous floats (a 12-megapixel RGB image in a fraction of a second, not seconds).
    std::vector<std::uint8_t> flags(static_cast<std::size_t>(image.width));
    constexpr std::uint8_t kLow = 1, kHigh = 2;
    for (int y = 0; y < image.height; ++y) {
        std::fill(flags.begin(), flags.end(), std::uint8_t(0));
        for (int c = first; c < end; ++c) {
            const float* row = image.plane(c) + static_cast<std::size_t>(y) * image.width;
            for (int x = 0; x < image.width; ++x) // NaN compares false: in range
                flags[x] |= std::uint8_t((row[x] < 0.0f ? kLow : 0) | (row[x] > top ? kHigh : 0));
        }
        QRgb* line = mask ? reinterpret_cast<QRgb*>(mask->scanLine(y)) : nullptr;
        for (int x = 0; x < image.width; ++x) {
            if (!flags[x]) continue;
            const bool high = flags[x] & kHigh;
            ++(high ? count.above : count.below);
            if (line) line[x] = high ? above : below;
        }
    }
    return count;
}

QString captionNote(const Count& count, float top)
{
    if (count.pixels == 0) return {};
    const QLocale locale;
    const double share = 100.0 * double(count.marked()) / double(count.pixels);
    if (count.marked() == 0) return tr("clip marks: no pixel outside 0…%1").arg(double(top), 0, 'g', 6);
    return tr("marked: %1 px below 0 (blue), %2 px above %3 (magenta): %4 of %5 px, %6%")
        .arg(locale.toString(qulonglong(count.below)), locale.toString(qulonglong(count.above)))
        .arg(double(top), 0, 'g', 6)
        .arg(locale.toString(qulonglong(count.marked())), locale.toString(qulonglong(count.pixels)))
        .arg(share, 0, 'g', 3);
}

} // namespace clipmarks

ClipMarks::ClipMarks(ImageView* view) : ViewOverlay(view) {}

void ClipMarks::attach(WorkbenchDocument* doc)
{
    doc_ = doc;
    auto take = [this, doc] {
        const WorkbenchDocument::Result* r = doc->result();
        if (!r) return setResult(nullptr, convlab::SampleDepth::F32);
        setResult(r->image, r->source ? r->source->depth : convlab::SampleDepth::F32);
    };
    connect(doc, &WorkbenchDocument::resultChanged, this, take);
    connect(doc, &WorkbenchDocument::resultHostReady, this, take);
    connect(doc, &WorkbenchDocument::displayChannelChanged, this, &ClipMarks::setChannel);
    channel_ = doc->displayChannel();
    take();
}

void ClipMarks::setEnabled(bool on)
{
    if (on == enabled_) return;
    enabled_ = on;
    if (doc_) {
        // A CUDA result stays on the device unless someone reads it: the marks do.
        doc_->setHostResultWanted(this, on);
        if (on && doc_->result() && !doc_->result()->image) doc_->fetchHostResult();
    }
    recount();
}

void ClipMarks::setResult(std::shared_ptr<const convlab::Image> result, convlab::SampleDepth sourceDepth)
{
    result_ = std::move(result);
    depth_ = sourceDepth;
    recount();
}

void ClipMarks::setChannel(int channel)
{
    if (channel == channel_) return;
    channel_ = channel;
    recount();
}

void ClipMarks::recount()
{
    count_ = {};
    mask_ = QImage();
    const float top = clipmarks::fileTop(depth_);
    if (enabled_ && result_ && !result_->empty() && top > 0.0f) {
        const int channel = channel_ < result_->channels ? channel_ : -1;
        count_ = clipmarks::countClipped(*result_, top, channel, &mask_);
    }
    if (view()) view()->setCaptionNote(note());
    changed();
}

QString ClipMarks::note() const
{
    if (!enabled_ || !result_) return {};
    const float top = clipmarks::fileTop(depth_);
    if (top <= 0.0f) return tr("clip marks: a float source, nothing clips");
    return clipmarks::captionNote(count_, top);
}

void ClipMarks::paint(QPainter& p, const ProbeOverlay::Frame& f, const ImageView& view) const
{
    if (mask_.isNull() || count_.marked() == 0 || mask_.size() != f.image) return;
    p.save();
    if (!clipToResult(p, view)) {
        p.restore();
        return;
    }
    p.setRenderHint(QPainter::SmoothPixmapTransform, false); // each image pixel a crisp square
    p.drawImage(ProbeOverlay::widgetRect(f, QRect(QPoint(0, 0), f.image)), mask_);
    p.restore();
}
