// SPDX-License-Identifier: GPL-3.0-or-later
// What the image view shows over its picture as child widgets, composed on screen and never
// part of grabFramebuffer(): the colour bar of a false-colour rendering, the notice of images
// shown reduced or not drawn, the split labels, the "original" label while the original
// replaces the mode's picture, and the mapping caption. Their texts and places follow the
// scene. The edge loupe (ViewLoupe) is one of them, placed clear of the others.
#pragma once
#include <QPair>
#include <QString>

#include <memory>

class ColorBar;
class QFont;
class QLabel;
class QWidget;
class ViewLoupe;
class ViewScene;

class ViewOverlays {
public:
    // The overlays become children of `host`, hidden.
    explicit ViewOverlays(QWidget* host);
    ~ViewOverlays();

    ViewLoupe& loupe() { return *loupe_; }
    const ViewLoupe& loupe() const { return *loupe_; }

    void setSplitLabels(const QString& left, const QString& right);
    QPair<QString, QString> splitLabels() const;
    bool splitLabelsVisible() const;

    // Shows, hides and rescales the colour bar for what is on screen (computes the result's
    // statistics for the diverging map once).
    void refreshColorBar(ViewScene& scene);
    bool colorBarVisible() const;
    QPair<double, double> colorBarRange() const;
    // The caption's and the notice's texts (hidden when empty).
    void showCaption(const QString& text);
    void showNotice(const QString& text);
    // What the view says when an image on screen is shown reduced past the texture limit
    // `textureLimit`, or cannot be drawn; empty when all is drawn at full resolution.
    static QString noticeText(const ViewScene& scene, int textureLimit);

    // Places every overlay (and the loupe) for the host's size and the scene.
    void place(const ViewScene& scene);
    // The labels carry a style sheet, which keeps the font they were polished with: given the
    // view's font explicitly, they follow the interface's text size.
    void setFont(const QFont& font);

private:
    // The split labels at the foot of each half, against the divider; true when shown.
    bool placeSplitLabels(const ViewScene& scene);
    bool placeOriginalLabel(const ViewScene& scene);
    // Returns the right edge left to the notice and the caption.
    int placeColorBar();
    void placeNotice(int right);
    void placeCaption(int right);

    QWidget* host_;
    ColorBar* bar_;
    QLabel* notice_;
    QLabel* splitLeft_;     // "original" and "result" at the foot of the split halves
    QLabel* splitRight_;
    QLabel* originalLabel_; // "original" while it replaces the mode's picture
    std::unique_ptr<ViewLoupe> loupe_; // over the labels, under the caption
    QLabel* caption_;       // how the result's values became colours (ImageView::mappingCaption)
};
