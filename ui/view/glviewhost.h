// SPDX-License-Identifier: GPL-3.0-or-later
// A widget that draws with OpenGL into a native child window of its own (GLViewHost).
#pragma once
#include <QImage>
#include <QPixmap>
#include <QSize>
#include <QSurfaceFormat>
#include <QWidget>

#include <memory>

class QOpenGLContext;
class QOffscreenSurface;
class QWindow;

// The drop-in for QOpenGLWidget that the image views use (initializeGL, resizeGL, paintGL,
// makeCurrent, update, grabFramebuffer, frameSwapped), drawn differently: into a QWindow placed
// in the widget with QWidget::createWindowContainer, swapped on its own.
//
// Why: a QOpenGLWidget makes Qt compose the whole top-level window with OpenGL for every frame
// of the view (each dock's backing store and the view's texture, then a full-window swap). On a
// software renderer that composition costs more than the frame itself. A native child window
// swaps only its own pixels and leaves the rest of the window to Qt's raster backing store,
// which repaints only what changed.
//
// How the window differs from a QOpenGLWidget, and what this class does about it:
// - Input: the GL window is transparent for input and never takes focus, so mouse, wheel and
//   keys reach this widget as they would a QOpenGLWidget (shortcuts included).
// - Child widgets (captions, colour bars, the loupe) cannot be drawn over a native window by
//   the raster backing store; each is made native when it is polished, and stacked above the
//   GL window. Their translucent backgrounds are drawn over this widget's palette (set to the
//   view's background colour), not over the picture.
// - The context is this class's own, created on first need and kept when the widget is hidden:
//   makeCurrent() works before the window is exposed (on an offscreen surface), and
//   grabFramebuffer() renders a frame into a framebuffer object, exposed or not.
// - QWidget::grab() does not see native GL windows: grabComposed() draws a widget's tree with
//   every GLViewHost's frame and overlays in place (screenshots).
class GLViewHost : public QWidget {
    Q_OBJECT
public:
    explicit GLViewHost(QWidget* parent = nullptr);
    ~GLViewHost() override;

    // The format the context is created with (before the first makeCurrent or show).
    void setFormat(const QSurfaceFormat& format);
    QSurfaceFormat format() const;

    // The context, once created (nullptr before; never creates it).
    QOpenGLContext* context() const;
    // Whether the context exists and initializeGL() has run.
    bool isValid() const;

    // Makes the context current: on the window when it is exposed, else on an offscreen
    // surface. Creates the context (and runs initializeGL) on first use.
    void makeCurrent();
    void doneCurrent();

    // Asks for a frame; the window draws it at its next update request (hides QWidget::update:
    // the picture is not part of this widget's backing store).
    void update();

    // A frame rendered now into a framebuffer object of the widget's size (device pixels).
    QImage grabFramebuffer();

    // `widget` as QWidget::grab() draws it, with each visible GLViewHost inside it (itself
    // included) drawn from its frame and its overlays on top: what the screen shows.
    static QPixmap grabComposed(QWidget* widget);

    // The native window the frames are drawn in (for tests).
    QWindow* surfaceWindow() const;

signals:
    // After each frame is swapped onto the window (not after grabFramebuffer()).
    void frameSwapped();

protected:
    virtual void initializeGL() {}
    virtual void resizeGL(int w, int h) { Q_UNUSED(w) Q_UNUSED(h) }
    virtual void paintGL() {}

    bool event(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    class Surface;
    struct State;
    std::unique_ptr<State> g;

    bool ensureContext();
    void renderToWindow();
    void renderFrame(QSize devicePixels);
    void adoptOverlay(QWidget* child);
};
