// SPDX-License-Identifier: GPL-3.0-or-later
// What the image view shows: the ranges, scales and colours that follow from its settings.
#include "view/viewscene.h"

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "convlab/error.h"
#include "convlab/imagestats.h"
#include "view/mappingrule.h"

ViewScene::ViewScene()
{
    diff.keepHost = false;
}

void ViewScene::assignSource(std::shared_ptr<const convlab::Image> image)
{
    source.assign(std::move(image), false);
    sourceTop = source.channels && source.depth == convlab::SampleDepth::F32
                    ? convlab::imageStats(*source.host, source.statChannels).hi
                    : 0.0;
}

void ViewScene::setDifferenceScale(DifferenceScale scale, double absoluteMax)
{
    if (!std::isfinite(absoluteMax) || absoluteMax < 0.0)
        throw convlab::Error("image view: difference scale " + std::to_string(absoluteMax) +
                             " is not a finite value >= 0");
    diffScale = scale;
    diffAbsoluteMax = absoluteMax;
}

bool ViewScene::setPadding(bool on, int margin)
{
    if (on && (margin < 1 || margin > kMaxPaddingMargin))
        throw convlab::Error("image view: padding margin " + std::to_string(margin) + " is outside 1.." +
                             std::to_string(kMaxPaddingMargin));
    if (on == padding && (!on || margin == padMargin))
        return false;
    padding = on;
    if (on)
        padMargin = margin;
    return true;
}

bool ViewScene::setBorder(const convlab::Border& border)
{
    if (!std::isfinite(border.value))
        throw convlab::Error("image view: border constant " + std::to_string(border.value) + " is not finite");
    const bool same = border.mode == padBorder.mode && border.value == padBorder.value;
    padBorder = border;
    return !same;
}

void ViewScene::setBand(int left, int top, int right, int bottom)
{
    if (left < 0 || top < 0 || right < 0 || bottom < 0)
        throw convlab::Error("image view: band widths " + std::to_string(left) + "," + std::to_string(top) + "," +
                             std::to_string(right) + "," + std::to_string(bottom) + " must not be negative");
    band[0] = left;
    band[1] = top;
    band[2] = right;
    band[3] = bottom;
}

double ViewScene::rangeOf(const ImageSlot& s) const
{
    if (s.depth != convlab::SampleDepth::F32 || !floatRangeByValues)
        return convlab::depthMax(s.depth);
    if (source.channels)
        return convlab::displayRange(s.depth, sourceTop);
    return convlab::displayRange(s.depth, s.statsValid ? s.stats.hi : 0.0);
}

double ViewScene::nominalRange() const
{
    return rangeOf(source.channels ? source : result.channels ? result : diff);
}

double ViewScene::differenceScale() const
{
    if (diffScale == DifferenceScale::Relative)
        return diff.stats.maxAbs;
    return differenceScaleChoice().scale;
}

double ViewScene::fixedDifferenceScale() const
{
    return display::fixedDifferenceScale(diffAbsoluteMax, kDefaultDifferenceFraction, nominalRange());
}

display::DifferenceScaleChoice ViewScene::differenceScaleChoice() const
{
    const double fixed = fixedDifferenceScale();
    const double maxAbs = diff.stats.maxAbs;
    if (!diff.channels || !diff.statsValid || !(fixed > 0.0) || !std::isfinite(fixed) || !std::isfinite(maxAbs))
        return {fixed, display::DifferenceScaleChoice::Reason::Fixed};
    return display::adaptiveDifferenceScale(maxAbs, fixed);
}

QString ViewScene::differenceScaleNote() const
{
    if (!diff.channels || !diff.statsValid) return {};
    return display::differenceScaleNote(diffScale, diff.stats.maxAbs, fixedDifferenceScale());
}

bool ViewScene::resultColoursOnly() const
{
    const ImageSlot& r = result;
    return shownMode() == Mode::Result && !padding && r.channels > 0 && r.displayable && r.premapped &&
           r.texC == r.channels;
}

const ImageSlot& ViewScene::reference() const
{
    return result.channels ? result : source.channels ? source : diff;
}

std::optional<displaymap::Key> ViewScene::premapKeyFor(ImageSlot& s)
{
    if ((&s != &source && &s != &result) || !s.keepHost || !s.hostValid)
        return std::nullopt;
    displaymap::Key k;
    k.mapping = &s == &result ? mapping : Mapping::Clamp; // colour maps are for the result only
    k.channel = displayChannel;
    k.range = float(rangeOf(s));
    if (displaymap::needsStats(k.mapping)) {
        if (!s.statsValid) s.computeStats();
        k.lo = s.stats.lo;
        k.hi = s.stats.hi;
        k.maxAbs = s.divergingLimit();
    }
    return k;
}

bool ViewScene::premapStale(ImageSlot& s)
{
    if (!s.premapped || s.pending != ImageSlot::Pending::None)
        return false;
    const auto key = premapKeyFor(s);
    return key && *key != s.premapKey;
}

displaymap::Key ViewScene::resultKey(const ImageSlot& stats) const
{
    displaymap::Key k;
    k.mapping = mapping;
    k.channel = displayChannel;
    k.range = float(rangeOf(result.channels ? result : stats));
    if (displaymap::needsStats(k.mapping)) {
        k.lo = stats.stats.lo;
        k.hi = stats.stats.hi;
        k.maxAbs = stats.divergingLimit();
    }
    return k;
}

QImage ViewScene::coloured(const convlab::Image& image, const displaymap::Key& key)
{
    std::vector<std::uint32_t> words;
    displaymap::toRgba8(image, key, words);
    QImage out(image.width, image.height, QImage::Format_RGBA8888);
    for (int y = 0; y < image.height; ++y)
        std::memcpy(out.scanLine(y), words.data() + std::size_t(y) * image.width, std::size_t(image.width) * 4);
    return out;
}

QImage ViewScene::resultAsDisplayed(const convlab::Image& image) const
{
    if (image.empty()) return {};
    ImageSlot probe; // the statistics a result slot would hold for this image
    probe.host = std::shared_ptr<const convlab::Image>(&image, [](const convlab::Image*) {});
    probe.statChannels = ImageSlot::colourChannels(image.channels);
    if (displaymap::needsStats(mapping)) probe.computeStats();
    return coloured(image, resultKey(probe));
}

QString ViewScene::mappingCaption() const
{
    const ImageSlot& r = result;
    if (!r.channels || !resultOnScreen()) return {};
    display::CaptionFacts facts;
    facts.mapping = mapping;
    facts.range = rangeOf(r);
    facts.statsKnown = r.statsValid;
    facts.lo = r.stats.lo;
    facts.hi = r.stats.hi;
    facts.limit = r.divergingLimit();
    facts.clippedFraction = r.signedRange.clippedFraction();
    const bool integer = r.depth == convlab::SampleDepth::U8 || r.depth == convlab::SampleDepth::U16;
    if (integer && mapping == Mapping::Clamp && r.hostValid) {
        facts.fileBits = r.depth == convlab::SampleDepth::U8 ? 8 : 16;
        facts.outsideFraction = r.outsideFraction(facts.range);
    }
    return display::mappingCaption(facts);
}
