// SPDX-License-Identifier: GPL-3.0-or-later
// ViewOverlay, and the few members of ImageView that carry overlays and the caption's note:
// written here so that the view's own files hold no more than their declarations and calls.
#include "view/viewoverlay.h"

#include <QPainter>

#include "view/imageview.h"

ViewOverlay::ViewOverlay(ImageView* view) : QObject(view), view_(view)
{
    if (view) view->addOverlay(this);
}

void ViewOverlay::changed()
{
    if (view_) view_->update();
}

bool ViewOverlay::clipToResult(QPainter& p, const ImageView& view)
{
    const display::Mode mode = view.shownMode();
    if (mode == display::Mode::Original || mode == display::Mode::Difference) return false;
    if (mode == display::Mode::Split)
        p.setClipRect(QRectF(view.splitPosition() * view.width(), 0, view.width(), view.height()));
    return true;
}

void ImageView::addOverlay(ViewOverlay* overlay)
{
    if (overlay && !extraOverlays_.contains(overlay)) extraOverlays_.append(overlay);
    update();
}

bool ImageView::hasOverlays() const
{
    for (const QPointer<ViewOverlay>& o : extraOverlays_)
        if (o) return true;
    return false;
}

void ImageView::paintOverlays(QPainter& painter)
{
    const ProbeOverlay::Frame frame = marksFrame();
    for (const QPointer<ViewOverlay>& o : extraOverlays_)
        if (o) o->paint(painter, frame, *this);
}

void ImageView::setCaptionNote(const QString& note)
{
    if (note == captionNote_) return;
    captionNote_ = note;
    updateCaption();
    placeOverlays();
}

QString ImageView::withCaptionNote(const QString& caption) const
{
    if (caption.isEmpty() || captionNote_.isEmpty()) return caption;
    return caption + QLatin1Char('\n') + captionNote_;
}
