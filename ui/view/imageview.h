// SPDX-License-Identifier: GPL-3.0-or-later
// The image view: float images drawn through OpenGL 3.3 core. A result reaches the GPU through
// a pixel buffer object (PBO) that either producer fills: the CPU path writes it from host
// memory (setResult), a GPU path writes it directly given only the buffer id (resultBuffer()),
// then calls resultBufferWritten(). The fragment shader maps values for display.
//
// Images of any size are drawn: a side longer than the OpenGL texture limit
// (GL_MAX_TEXTURE_SIZE) is shown from a copy reduced by an integer box filter, built once per
// image; the view then says in words, over the picture, which image is shown at what size.
// The readout still reads the full-resolution values. False-colour renderings (the difference
// heat map, the diverging map) carry a colour bar with their values (colorbar.h).
//
// The view is a facade over pieces that each own one concern: ViewScene (the images and the
// settings that say how they are drawn), ViewCamera (zoom, origin, fitting, what is on screen),
// ViewInteraction (zoom, pan, divider drag, hover and clicks), ImageRenderer with SlotTextures
// (the GL programs and textures, free of the widget), ViewOverlays and ViewLoupe (the child
// widgets over the picture). The view connects them to Qt's widget entry points.
#pragma once
#include <QImage>
#include <QPair>
#include <QPointF>
#include <QPointer>
#include <QRect>
#include <QString>
#include <QVector>

#include <functional>
#include <memory>

#include "convlab/convolve.h"
#include "convlab/image.h"
#include "view/displaymap.h"
#include "view/glviewhost.h"
#include "view/displaystate.h"
#include "view/pixelgrid.h"
#include "view/probeoverlay.h"

class EdgeLoupe;
class ImageRenderer;
class QOpenGLFunctions_3_3_Core;
class ViewCamera;
class ViewInteraction;
class QPainter;
class ViewOverlay;
class ViewOverlays;
class ViewScene;

class ImageView : public GLViewHost {
    Q_OBJECT
public:
    // The enumerations of what is shown (view/displaystate.h), by their names here.
    using Mapping = display::Mapping;
    using ViewMode = display::Mode;
    using DifferenceScale = display::DifferenceScale;
    // The automatic absolute scale: this fraction of the source's nominal range (255 for 8-bit,
    // 65535 for 16-bit, 1 for float samples).
    static constexpr double kDefaultDifferenceFraction = 0.01;

    explicit ImageView(QWidget* parent = nullptr);
    ~ImageView() override;

    // The source image (shown in Original/Split, read out under the cursor). Copies the data.
    void setSource(const convlab::Image& source);
    // The same without a copy: the view shares the image (and never modifies it).
    void setSource(std::shared_ptr<const convlab::Image> source);
    // The CPU producer: uploads the result through the PBO. Copies what it needs.
    void setResult(const convlab::Image& result);
    // The same without a copy: the view shares the image (and never modifies it).
    void setResult(std::shared_ptr<const convlab::Image> result);
    // A difference image (A - B) for ViewMode::Difference, drawn as a heat map.
    void setDifference(const convlab::Image& diff);
    void setDifference(std::shared_ptr<const convlab::Image> diff);
    // Forgets the difference image (it belonged to an older result): the Difference mode then
    // shows nothing until a new one is set.
    void clearDifference();
    bool hasDifference() const;
    // Split mode labels its halves, "original | result" by default.
    void setSplitLabels(const QString& left, const QString& right);
    QPair<QString, QString> splitLabels() const;
    bool splitLabelsVisible() const;

    // The mapping applies to the result; the original (Original, the left of Split, the padding
    // preview) is always drawn in its own greys or colours, as Clamp maps them.
    void setMapping(Mapping m);
    Mapping mapping() const;
    // View > Channel: channel c of source and result drawn alone, as grey under the mapping
    // (the mappings' ranges stay those of all colour channels), and the heat map of that
    // channel's difference; -1 draws every channel.
    void setDisplayChannel(int c);
    int displayChannel() const;
    // The difference heat map's scale. absoluteMax is the |d| drawn white under Absolute;
    // 0 (the default) means kDefaultDifferenceFraction of the source's nominal range. Throws
    // convlab::Error for a negative or non-finite absoluteMax.
    void setDifferenceScale(DifferenceScale scale, double absoluteMax = 0.0);
    DifferenceScale differenceScale() const;
    // As set: 0 = automatic.
    double differenceAbsoluteMax() const;
    // The |d| drawn white now (what the colour bar shows at its top).
    double differenceScaleInUse() const;

    // The colour bar drawn over the right edge while a false-colour rendering is on screen
    // (ViewMode::Difference; Mapping::Diverging with the result shown), and its value range
    // (bottom, top): 0..scale for the heat map, -max|v|..+max|v| for the diverging map.
    // `result` in the colours the view draws the result with now (mapping, channel, range and
    // limits computed from `result` itself), full size, 8 bits per channel, alpha kept: what
    // File > Save Result writes "as displayed".
    QImage resultAsDisplayed(const convlab::Image& result) const;
    // The words over the picture that say how the result's values became colours ("result ·
    // signed ±42, 0.5% beyond at full colour"); empty while no result is on screen.
    QString mappingCaption() const;
    bool colorBarVisible() const;
    QPair<double, double> colorBarRange() const;
    // What the view says over the picture when an image is shown reduced or cannot be drawn
    // (empty when everything on screen is drawn at full resolution).
    QString notice() const;
    // The reduction factor (1 = full resolution) of the displayed source / result / difference
    // along x and y, as of the last frame drawn.
    QPair<int, int> resultDisplayFactor() const;
    QPair<int, int> sourceDisplayFactor() const;
    // The pixels of the result its texture holds: at a full-resolution zoom only those on screen
    // and about half a screen around them, once the image is larger than that.
    QRect resultUploadedRegion() const;
    QPair<int, int> differenceDisplayFactor() const;

    // Lowers the texture side limit below what the driver allows (0: the driver's limit), to
    // exercise the reduced display on any driver. Applies to images uploaded afterwards.
    static void setMaxTextureSizeForTesting(int px);
    // The limit in use (0 before the first view's GL context exists).
    int maxTextureSize() const;
    void setViewMode(ViewMode m);
    // The mode chosen with setViewMode (what the View menu ticks).
    ViewMode viewMode() const;
    // Before/after: the original in place of whatever the mode shows, labelled "original" over
    // the picture. Shown while Space is held on the view (released: back to the mode) or while
    // toggled on here (View > Show Original); the mode itself is kept.
    void setOriginalShown(bool on);
    // Held or toggled.
    bool originalShown() const;
    // What is on screen: Original while the original is shown, else viewMode().
    ViewMode shownMode() const;

    // The pixel grid (pixelgrid.h): zoomed in beyond kGridZoom every pixel is outlined, beyond
    // kGridValuesZoom its values are written into it. On unless turned off (View > Pixel Grid).
    static constexpr double kGridZoom = PixelGrid::kGridZoom;
    static constexpr double kGridValuesZoom = PixelGrid::kGridValuesZoom;
    // What the grid is drawn over now: the geometry and the values on screen at each pixel.
    PixelGrid::Frame gridFrame() const;
    void setPixelGridEnabled(bool on);
    // Float images mapped by convlab::displayRange of the original's values (on, the default)
    // or by the nominal 0..1; displayRange() is the top of the range in use.
    void setFloatRangeByValues(bool on);
    double displayRange() const;
    bool pixelGridEnabled() const;
    // Whether the grid is drawn now (enabled, an image, zoomed in enough).
    bool pixelGridShown() const;
    // Split position in [0,1] of the widget width (original left, result right).
    void setSplitPosition(double t);
    double splitPosition() const;
    // Everything of `state` at once (what a document that owns the state calls); the padding
    // preview is left alone, as it needs the border and a margin (setPaddingPreview).
    void showDisplayState(const display::State& state);

    // Zoom: 1.0 = one image pixel per device-independent pixel.
    double zoom() const;
    void setZoom(double z, QPointF anchorWidgetPos = QPointF(-1, -1));
    void fitToWindow();
    void actualSize();
    // Maps widget coordinates to image pixel coordinates (may be outside the image).
    QPointF widgetToImage(QPointF widgetPos) const;
    // Zooms in (to 4x at least) and pans until pixel (x, y) is at the centre of the view.
    void centreOnPixel(int x, int y);
    // The widget position of the image's top-left corner (with zoom(), the whole transform).
    QPointF origin() const;
    // Sets zoom and origin together (a synchronised view follows another with this); ends
    // automatic fitting and centring.
    void setViewTransform(double zoom, QPointF origin);

    // Padding preview: the view extends `margin` (1..kMaxPaddingMargin) image pixels past every
    // edge and shows there, tinted, what the border rule invents from the source; the image
    // boundary is outlined. Fitting includes the margin. Throws convlab::Error for a margin out
    // of range (when turning the preview on) and for a non-finite constant.
    static constexpr int kMaxPaddingMargin = 128;
    void setPaddingPreview(bool on, int margin);
    bool paddingPreview() const;
    int paddingMargin() const;
    void setBorderForPreview(const convlab::Border& border);

    // The edge loupe (view/edgeloupe.h): one corner magnified over the picture, the source with
    // the padding the border mode invents beside the result. Shown while wanted and an image is
    // there; `reach` is the kernel's farthest tap from its anchor (the padding shown, at most
    // edgeloupe::kMaxMargin).
    void setEdgeLoupeShown(bool on);
    bool edgeLoupeShown() const;
    void setKernelReach(int reach);
    EdgeLoupe* edgeLoupe() const;

    // Outline of a band along the edges, widths in image pixels from each edge (all 0: none).
    // Throws convlab::Error for negative widths.
    void setBandOverlay(int left, int top, int right, int bottom);

    // Reads the pixel values of the last uploaded result / source (host copies kept for the
    // readout); empty when (x,y) is outside.
    QVector<float> resultValues(int x, int y) const;
    QVector<float> sourceValues(int x, int y) const;
    // The size of the image the view is laid out for (the result, else the source, else the
    // difference); empty without one.
    QSize imageSize() const;

    // GPU producer interface: the PBO id (0 before initializeGL) sized for width*height*channels
    // float32 values, and the notification that it holds a new result of that shape.
    // Every valid shape gets a real buffer, also one over the texture limit: such a result is
    // read back from the buffer once and drawn reduced, like a host result of that size. (A 0
    // would make the producer's interop fail, which the main window takes as permanent.)
    unsigned int resultBuffer(int width, int height, int channels);
    void resultBufferWritten(int width, int height, int channels);

    // Wall time of the last display update (upload + draw) in ms, for the timings panel.
    double lastDisplayMs() const;
    // Whether the result on screen is drawn from colours mapped on the host (a result the view
    // holds on the host: 8-bit colours, view/displaymap.h), not from its float values (a result
    // written into resultBuffer() by a GPU producer, mapped by the shader).
    bool resultDrawnFromColours() const;

    // The probe's marks (view/probeoverlay.h): the probed pixel and the kernel's footprint
    // around it outlined over the picture; with the padding preview, the footprint's taps in
    // the margin tinted as the border rule fills them.
    void setProbeMarks(QPoint pixel, const KernelFootprint& footprint);
    void clearProbeMarks();
    bool hasProbeMarks() const;
    // An input pixel and the outputs it feeds (outputsFedBy), dashed green: what a click on the
    // original shows. Cleared by the probe panel when the kernel or the image changes.
    void setFedMarks(QPoint input, const QRect& outputs);
    void clearFedMarks();
    QRect fedOutputs() const; // empty when none is shown
    QPoint probeMarkPixel() const;
    // The part of the footprint drawn now, in image coordinates (empty without marks).
    QRect probeMarkWindow() const;
    // A ring around pixel (x, y), visible at any zoom: where the Difference panel's "show" points.
    void ringPixel(int x, int y);
    void clearRing();
    // (-1, -1) without a ring.
    QPoint ringedPixel() const;
    // The difference heat map's fixed scale (Absolute: as set, or automatic), and one line on
    // the scale in use and why (view/differencescale.h); empty without a difference.
    double differenceFixedScale() const;
    QString differenceScaleNote() const;

    // Overlays of other classes (view/viewoverlay.h), drawn under the probe's marks; a line
    // they add to the mapping caption (e.g. how many pixels the clip marks tint), empty: none.
    void addOverlay(ViewOverlay* overlay);
    void setCaptionNote(const QString& note);

signals:
    // Emitted as the cursor moves over the image: pixel coordinates (or -1,-1 when outside).
    void pixelHovered(int x, int y);
    void pixelClicked(int x, int y);
    // The click landed on the original (View > Original, its half of Split, or held with
    // Space): the pixel is an input as well (pixelClicked is emitted too).
    void inputPixelClicked(int x, int y);
    void zoomChanged(double zoom);
    // Emitted whenever zoom or origin changes (user, fitting, or setViewTransform).
    void viewChanged(double zoom, QPointF origin);
    // The original replaced the mode's picture on screen (Space held or toggled), or left it.
    void originalShownChanged(bool shown);
    // setMapping chose another mapping (the histogram marks its range).
    void mappingChanged(ImageView::Mapping mapping);
    // The user dragged the split divider to t (not emitted for setSplitPosition).
    void splitDragged(double t);

protected:
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void resizeEvent(QResizeEvent* e) override;
    void paintGL() override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void keyReleaseEvent(QKeyEvent* e) override;
    void focusOutEvent(QFocusEvent* e) override;
    // Larger or smaller text (View > Larger Text, Present) reaches the overlays too.
    void changeEvent(QEvent* e) override;

private:
    friend class ViewInteraction; // emits the signals, shows the original while Space is held

    // Frees the GL objects (hellogl2 style: on QOpenGLContext::aboutToBeDestroyed and in the
    // destructor); with keepData, GPU-written contents are read back first so that a new
    // context (after reparenting) shows the same images.
    void releaseGL(bool keepData);
    // Runs `work` with the view's context current (made current only for it when it is not).
    void withContext(const std::function<void()>& work);
    void applyLayout();
    // A new image or shape: layout, overlays and picture follow.
    void imageChanged();
    // What is on screen changed: overlays and picture follow.
    void shownChanged();
    // Shows, hides and rescales the colour bar for what is on screen.
    void updateColorBar();
    void updateCaption();
    void updateLoupe();
    void updateNotice();
    void placeOverlays();
    // New reductions, problems or statistics: the overlays follow, after the frame (the
    // children are not changed while the view paints).
    void queueOverlayUpdate();
    // Applies a change of the held or toggled original: overlays, picture, signal.
    void setOriginal(bool held, bool toggled);
    // Draws the pixel grid, the probe's marks and the ring into the current frame, over the picture.
    void paintOverPicture();
    ProbeOverlay::Frame marksFrame() const;

    std::unique_ptr<ViewScene> scene_;
    std::unique_ptr<ViewCamera> camera_;
    std::unique_ptr<ImageRenderer> renderer_;
    std::unique_ptr<ViewOverlays> overlays_;
    std::unique_ptr<ViewInteraction> interaction_;
    QOpenGLFunctions_3_3_Core* gl_ = nullptr; // null until initializeGL succeeds
    double lastDisplayMs_ = 0.0;
    bool gridEnabled_ = true;     // View > Pixel Grid
    bool overlaysQueued_ = false; // a refresh of the overlays is posted
    ProbeOverlay marks_;
    // The overlays of other classes and the caption's note (view/viewoverlay.cpp).
    bool hasOverlays() const;
    void paintOverlays(QPainter& painter);
    QString withCaptionNote(const QString& caption) const;
    QList<QPointer<ViewOverlay>> extraOverlays_;
    QString captionNote_;
};
