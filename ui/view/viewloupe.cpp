// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's edge loupe: its panels from the scene, and its place.
#include "view/viewloupe.h"

#include <QImage>
#include <QString>

#include <algorithm>

#include "convlab/imagestats.h"
#include "convlab/modes.h"
#include "view/edgeloupe.h"
#include "view/viewscene.h"

ViewLoupe::ViewLoupe(QWidget* host) : loupe_(new EdgeLoupe(host))
{
    loupe_->hide();
}

bool ViewLoupe::setReach(int reach)
{
    const int margin = std::clamp(reach, 1, edgeloupe::kMaxMargin);
    if (margin == margin_) return false;
    margin_ = margin;
    return true;
}

bool ViewLoupe::shown() const
{
    return !loupe_->isHidden();
}

void ViewLoupe::setFont(const QFont& font)
{
    loupe_->setFont(font);
}

bool ViewLoupe::refresh(ViewScene& scene)
{
    ImageSlot& src = scene.source;
    if (!wanted_ || !src.channels || !src.hostValid) {
        loupe_->hide();
        return false;
    }
    using namespace edgeloupe;
    const CropRect padded = cropAt(src.width, src.height, loupe_->corner(), kPixels, margin_);
    displaymap::Key sourceKey;
    sourceKey.channel = scene.displayChannel;
    sourceKey.range = float(scene.rangeOf(src));
    const convlab::Image sourceCrop = crop(*src.host, padded, scene.padBorder);
    // A dark or flat corner says nothing about the border rule: stretched to its own range.
    const convlab::ImageStats cropStats =
        convlab::imageStats(sourceCrop, ImageSlot::colourChannels(sourceCrop.channels));
    const bool stretch = cropStats.hi - cropStats.lo < 0.5 * sourceKey.range && cropStats.hi > cropStats.lo;
    if (stretch) {
        sourceKey.mapping = display::Mapping::Normalize;
        sourceKey.lo = cropStats.lo;
        sourceKey.hi = cropStats.hi;
    }
    const QImage source = ViewScene::coloured(sourceCrop, sourceKey);
    QImage result;
    ImageSlot& r = scene.result;
    if (r.channels && r.hostValid && r.width == src.width && r.height == src.height) {
        if (displaymap::needsStats(scene.mapping) && !r.statsValid) r.computeStats();
        const CropRect inside = cropAt(r.width, r.height, loupe_->corner(), kPixels, 0);
        result = ViewScene::coloured(crop(*r.host, inside, scene.padBorder), scene.resultKey(r));
    }
    loupe_->setPanels(source, result, padded.margin, QString::fromStdString(convlab::borderName(scene.padBorder.mode)),
                      stretch);
    loupe_->show();
    return true;
}

void ViewLoupe::place(int x, int top, int bottom)
{
    const QSize size = loupe_->sizeHint();
    loupe_->setGeometry(x, std::max(top, bottom - size.height()), size.width(), size.height());
}
