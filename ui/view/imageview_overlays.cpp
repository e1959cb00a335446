// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's facade for what it shows over its picture (ViewOverlays, ViewLoupe), the
// pixel grid, the padding preview and band, and the probe's marks.
#include "view/imageview.h"

#include <QEvent>
#include <QOpenGLPaintDevice>
#include <QPainter>

#include "view/imagerenderer.h"
#include "view/viewcamera.h"
#include "view/viewloupe.h"
#include "view/viewoverlays.h"
#include "view/viewscene.h"

void ImageView::setSplitLabels(const QString& left, const QString& right)
{
    overlays_->setSplitLabels(left, right);
    placeOverlays();
}

QPair<QString, QString> ImageView::splitLabels() const { return overlays_->splitLabels(); }
bool ImageView::splitLabelsVisible() const { return overlays_->splitLabelsVisible(); }
QImage ImageView::resultAsDisplayed(const convlab::Image& result) const { return scene_->resultAsDisplayed(result); }
void ImageView::setEdgeLoupeShown(bool on) { overlays_->loupe().setWanted(on); updateLoupe(); }
bool ImageView::edgeLoupeShown() const { return overlays_->loupe().shown(); }
EdgeLoupe* ImageView::edgeLoupe() const { return overlays_->loupe().widget(); }
void ImageView::setKernelReach(int reach) { if (overlays_->loupe().setReach(reach)) updateLoupe(); }
void ImageView::updateLoupe() { if (overlays_->loupe().refresh(*scene_)) placeOverlays(); }
QString ImageView::mappingCaption() const { return withCaptionNote(scene_->mappingCaption()); }
void ImageView::updateCaption() { overlays_->showCaption(mappingCaption()); }

void ImageView::updateColorBar()
{
    updateCaption(); // what the caption and the loupe show changes with what changes the bar
    updateLoupe();
    overlays_->refreshColorBar(*scene_);
    placeOverlays();
}

bool ImageView::colorBarVisible() const { return overlays_->colorBarVisible(); }
QPair<double, double> ImageView::colorBarRange() const { return overlays_->colorBarRange(); }
QString ImageView::notice() const { return ViewOverlays::noticeText(*scene_, renderer_->textureLimit()); }
void ImageView::updateNotice() { overlays_->showNotice(notice()); placeOverlays(); }
void ImageView::placeOverlays() { overlays_->place(*scene_); }

void ImageView::changeEvent(QEvent* e)
{
    GLViewHost::changeEvent(e);
    if (e->type() != QEvent::FontChange) return;
    // Larger or smaller text (View > Larger Text, Present) reaches the overlays too.
    overlays_->setFont(font());
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

void ImageView::paintOverPicture()
{
    const bool grid = pixelGridShown(), hasImage = !imageSize().isEmpty();
    const bool marks = !marks_.empty() && hasImage, others = hasOverlays() && hasImage;
    if (!grid && !marks && !others) return;
    // Into this frame, over the picture (QPainter's GL engine sets and restores its state). A
    // painter on the widget itself would be redirected while the window is grabbed (and drawn
    // under the picture); the paint device writes the framebuffer bound now.
    QOpenGLPaintDevice device(size() * devicePixelRatioF());
    device.setDevicePixelRatio(devicePixelRatioF());
    QPainter painter(&device);
    if (grid) {
        painter.save();
        PixelGrid(gridFrame()).paint(painter);
        painter.restore();
    }
    if (others) paintOverlays(painter); // under the probe's marks
    if (marks) marks_.paint(painter, marksFrame());
}

void ImageView::setPixelGridEnabled(bool on) { gridEnabled_ = on; update(); }
bool ImageView::pixelGridEnabled() const { return gridEnabled_; }

bool ImageView::pixelGridShown() const
{
    return gridEnabled_ && camera_->zoom() > kGridZoom && scene_->reference().channels > 0;
}

void ImageView::setFloatRangeByValues(bool on)
{
    if (scene_->floatRangeByValues == on) return;
    scene_->floatRangeByValues = on;
    updateColorBar();
    update();
}

double ImageView::displayRange() const { return scene_->nominalRange(); }

void ImageView::setPaddingPreview(bool on, int margin)
{
    // Nothing visible changes: no repaint (each frame is costly on software GL).
    if (!scene_->setPadding(on, margin)) return;
    applyLayout();
    updateNotice(); // the original shows in the margin
    update();
}

bool ImageView::paddingPreview() const { return scene_->padding; }
int ImageView::paddingMargin() const { return scene_->padMargin; }

void ImageView::setBorderForPreview(const convlab::Border& border)
{
    if (!scene_->setBorder(border)) return;
    updateLoupe(); // the loupe shows the padding whether or not the preview does
    if (scene_->padding) update(); // the border is drawn only while the padding is shown
}

void ImageView::setBandOverlay(int left, int top, int right, int bottom)
{
    scene_->setBand(left, top, right, bottom);
    update();
}

// ---- the probe's marks and the ring (view/probeoverlay.h) ----

ProbeOverlay::Frame ImageView::marksFrame() const
{
    ProbeOverlay::Frame f;
    f.zoom = zoom();
    f.origin = origin();
    f.image = imageSize();
    f.paddingMargin = scene_->padding ? scene_->padMargin : 0;
    f.border = scene_->padBorder.mode;
    return f;
}

// A change of the marks repaints; clearing what is not there does not.
void ImageView::setProbeMarks(QPoint pixel, const KernelFootprint& fp) { marks_.setProbe(pixel, fp); update(); }
void ImageView::clearProbeMarks() { if (!marks_.hasProbe()) return; marks_.clearProbe(); update(); }
bool ImageView::hasProbeMarks() const { return marks_.hasProbe(); }
void ImageView::setFedMarks(QPoint input, const QRect& outputs) { marks_.setFed(input, outputs); update(); }
void ImageView::clearFedMarks() { if (!marks_.fedOutputs()) return; marks_.clearFed(); update(); }
QRect ImageView::fedOutputs() const { return marks_.fedOutputs().value_or(QRect()); }
QPoint ImageView::probeMarkPixel() const { return marks_.probePixel(); }

QRect ImageView::probeMarkWindow() const
{
    return marks_.hasProbe() ? ProbeOverlay::drawnWindow(marksFrame(), marks_.footprint()) : QRect();
}

void ImageView::ringPixel(int x, int y) { marks_.setRing(QPoint(x, y)); update(); }
void ImageView::clearRing() { if (!marks_.ring()) return; marks_.clearRing(); update(); }
QPoint ImageView::ringedPixel() const { return marks_.ring().value_or(QPoint(-1, -1)); }
double ImageView::differenceFixedScale() const { return scene_->fixedDifferenceScale(); }
QString ImageView::differenceScaleNote() const { return scene_->differenceScaleNote(); }
