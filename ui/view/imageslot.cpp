// SPDX-License-Identifier: GPL-3.0-or-later
// One displayed image: its shape checks, statistics and resets.
#include "view/imageslot.h"

#include <string>
#include <utility>

#include "convlab/error.h"
#include "view/displaystate.h"

int ImageSlot::colourChannels(int channels)
{
    return channels == 2 || channels == 4 ? channels - 1 : channels;
}

void ImageSlot::checkShape(int w, int h, int c, const char* what)
{
    if (w < 1 || h < 1 || w > convlab::kMaxImageSide || h > convlab::kMaxImageSide || c < 1 || c > 4)
        throw convlab::Error(std::string("image view: ") + what + " of shape " + std::to_string(w) + "x" +
                             std::to_string(h) + "x" + std::to_string(c) + " is outside 1.." +
                             std::to_string(convlab::kMaxImageSide) + " per side and 1..4 channels");
}

void ImageSlot::assign(std::shared_ptr<const convlab::Image> image, bool eagerStats)
{
    if (!image || image->empty()) {
        clear();
        return;
    }
    const convlab::Image& im = *image;
    checkShape(im.width, im.height, im.channels, "image");
    if (im.data.size() != static_cast<std::size_t>(im.width) * im.height * im.channels)
        throw convlab::Error("image view: image data holds " + std::to_string(im.data.size()) +
                             " values, not width*height*channels");
    host = std::move(image);
    hostValid = true;
    width = im.width;
    height = im.height;
    channels = im.channels;
    depth = im.depth;
    statChannels = eagerStats ? channels : colourChannels(channels);
    statsValid = eagerStats;
    outsideKnown_ = false;
    if (eagerStats) stats = convlab::imageStats(*host, statChannels);
    pending = Pending::FromHost;
    resetDisplay();
}

void ImageSlot::assignWritten(int w, int h, int c, convlab::SampleDepth valueDepth)
{
    checkShape(w, h, c, "result buffer");
    if (!pbo || pboBytes != static_cast<std::size_t>(w) * h * c * sizeof(float))
        throw convlab::Error("image view: result buffer written as " + std::to_string(w) + "x" + std::to_string(h) +
                             "x" + std::to_string(c) + " but not requested at that shape through resultBuffer()");
    host.reset();
    hostValid = false;
    outsideKnown_ = false;
    width = w;
    height = h;
    channels = c;
    depth = valueDepth;
    statChannels = colourChannels(c);
    statsValid = false;
    pending = Pending::FromBuffer;
    resetDisplay();
}

void ImageSlot::computeStats()
{
    stats = convlab::imageStats(*host, statChannels);
    signedRange = convlab::robustSymmetricLimit(*host, statChannels, display::kSignedQuantile);
    statsValid = true;
}

double ImageSlot::outsideFraction(double range) const
{
    if (!outsideKnown_ && hostValid) {
        std::uint64_t outside = 0, all = 0;
        for (int c = 0; c < statChannels; ++c) {
            const float* p = host->plane(c);
            const float top = float(range);
            for (std::size_t i = 0, n = host->planeSize(); i < n; ++i) outside += (p[i] < 0.0f) | (p[i] > top);
            all += host->planeSize();
        }
        outside_ = all ? double(outside) / double(all) : 0.0;
        outsideKnown_ = true;
    }
    return outside_;
}

void ImageSlot::resetDisplay()
{
    displayable = true;
    problem.clear();
    factorX = factorY = 1;
    overLimit = false;
}

void ImageSlot::clear()
{
    host.reset();
    hostValid = false;
    width = height = channels = 0;
    resetDisplay();
    stats = convlab::ImageStats();
    signedRange = convlab::SymmetricLimit();
    statsValid = false;
    outsideKnown_ = false;
    pending = Pending::None;
}

void ImageSlot::forgetGL()
{
    pbo = tex = rgbaTex = 0;
    pboBytes = 0;
    layersW = layersH = layersC = rgbaW = rgbaH = 0;
    texW = texH = texC = 0;
    premapped = false;
    if (channels)
        pending = Pending::FromHost;
}

QVector<float> ImageSlot::valuesAt(int x, int y) const
{
    QVector<float> v;
    if (!contains(x, y) || !hostValid)
        return v;
    for (int c = 0; c < channels; ++c)
        v.push_back(host->at(c, y, x));
    return v;
}
