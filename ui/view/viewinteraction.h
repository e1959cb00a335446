// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's navigation and input: zoom, pan, fitting and centring on the ViewCamera,
// the split divider's drag, the hovered and clicked pixel, and Space held to show the original.
// It acts on the view it serves (its signals, its cursor, its repaint): the view hands it its
// key, mouse and wheel events and its zoom calls.
#pragma once
#include <QPoint>
#include <QPointF>

class ImageView;
class QKeyEvent;
class QMouseEvent;
class QWheelEvent;
class ViewCamera;
class ViewScene;

class ViewInteraction {
public:
    ViewInteraction(ImageView& view, ViewScene& scene, ViewCamera& camera);

    // ImageView::setZoom: about the anchor, or about the centre (kept centred) when it is (-1,-1).
    void setZoom(double z, QPointF anchor);
    void zoomTo(double z, QPointF anchor, bool keepCentred);
    // Sets zoom and origin together; ends automatic fitting and centring.
    void setViewTransform(double zoom, QPointF origin);
    void fitToWindow();
    void actualSize();
    // Refits or recentres for the widget and image sizes as the camera's flags ask.
    void applyLayout();
    void centreOnPixel(int x, int y);
    // Assigns the transform: a new zoom makes reductions stale; emits zoomChanged/viewChanged.
    void assignTransform(double zoom, QPointF origin);

    // Each returns whether it took the event (else the view's base class gets it).
    bool keyPress(QKeyEvent* e);
    bool keyRelease(QKeyEvent* e);
    // The release of a Space held while the focus left would never arrive.
    void focusOut();
    void wheel(QWheelEvent* e);
    bool mousePress(QMouseEvent* e);
    void mouseMove(QMouseEvent* e);
    bool mouseRelease(QMouseEvent* e);
    void leave();

private:
    QPoint pixelAt(QPointF widgetPos) const;
    void updateHover(QPointF widgetPos);
    bool nearDivider(QPointF widgetPos) const;
    // A click on a pixel: pixelClicked, and inputPixelClicked when it landed on the original.
    void click(QPointF widgetPos);

    ImageView& view_;
    ViewScene& scene_;
    ViewCamera& camera_;
    QPoint hovered_{-1, -1};
};
