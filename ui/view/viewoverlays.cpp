// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's overlays: made, filled and placed.
#include "view/viewoverlays.h"

#include <QCoreApplication>
#include <QLabel>
#include <QSize>
#include <QStringList>
#include <QVector>

#include <algorithm>
#include <cmath>

#include "view/colorbar.h"
#include "view/edgeloupe.h"
#include "view/viewloupe.h"
#include "view/viewscene.h"

namespace {

constexpr int kOverlayMargin = 8;  // widget px between the overlays and the view's edges
constexpr int kMaxBarHeight = 220; // the colour bar's height in a large view

// The overlays' words belong to the view.
QString tr(const char* text)
{
    return QCoreApplication::translate("ImageView", text);
}

QLabel* makeLabel(QWidget* host, const QString& name, const QString& text)
{
    auto* l = new QLabel(text, host);
    l->setObjectName(name);
    l->setAttribute(Qt::WA_TransparentForMouseEvents);
    l->setStyleSheet(QStringLiteral(
        "QLabel { background: rgba(0, 0, 0, 150); color: #f2f2f2; padding: 2px 6px; border-radius: 3px; }"));
    l->hide();
    return l;
}

// Images reduced alike share a sentence ("the original and the result").
struct Reduced {
    QStringList names;
    QSize size, shown;
};

void describe(const ImageSlot& s, const QString& name, QStringList& lines, QVector<Reduced>& reduced)
{
    if (!s.channels)
        return;
    if (!s.displayable && !s.problem.isEmpty()) {
        lines << tr("The %1 (%2×%3 px) cannot be drawn: %4.").arg(name).arg(s.width).arg(s.height).arg(s.problem);
        return;
    }
    if (!s.overLimit) // a reduction to what the zoom shows is not news
        return;
    const QSize size(s.width, s.height), shown(s.texW, s.texH);
    for (Reduced& r : reduced) {
        if (r.size == size && r.shown == shown) {
            r.names << name;
            return;
        }
    }
    reduced.push_back({{name}, size, shown});
}

} // namespace

ViewOverlays::ViewOverlays(QWidget* host) : host_(host)
{
    bar_ = new ColorBar(host);
    bar_->setObjectName(QStringLiteral("colorBar"));
    bar_->setOverlayStyle(true);
    bar_->setAttribute(Qt::WA_TransparentForMouseEvents);
    bar_->hide();
    notice_ = new QLabel(host);
    notice_->setObjectName(QStringLiteral("notice"));
    notice_->setWordWrap(true);
    notice_->setAttribute(Qt::WA_TransparentForMouseEvents);
    notice_->setStyleSheet(QStringLiteral(
        "QLabel { background: rgba(0, 0, 0, 170); color: #f2f2f2; padding: 4px; border-radius: 4px; }"));
    notice_->hide();
    splitLeft_ = makeLabel(host, QStringLiteral("splitLeft"), tr("original"));
    splitRight_ = makeLabel(host, QStringLiteral("splitRight"), tr("result"));
    originalLabel_ = makeLabel(host, QStringLiteral("originalLabel"), tr("original"));
    originalLabel_->setStyleSheet(QStringLiteral("QLabel { background: rgba(0, 0, 0, 170); color: #ffffff; "
                                                 "font-weight: bold; padding: 3px 8px; border-radius: 3px; }"));
    originalLabel_->setToolTip(tr("The original is shown in place of the result (Space held, or View > Show Original)"));
    loupe_ = std::make_unique<ViewLoupe>(host);
    caption_ = makeLabel(host, QStringLiteral("mappingCaption"), QString());
    caption_->setWordWrap(true);
    caption_->setToolTip(tr("How the result's values become colours: View > Mapping chooses"));
}

ViewOverlays::~ViewOverlays() = default;

void ViewOverlays::setSplitLabels(const QString& left, const QString& right)
{
    splitLeft_->setText(left);
    splitRight_->setText(right);
}

QPair<QString, QString> ViewOverlays::splitLabels() const
{
    return {splitLeft_->text(), splitRight_->text()};
}

bool ViewOverlays::splitLabelsVisible() const
{
    return !splitLeft_->isHidden() && !splitRight_->isHidden();
}

void ViewOverlays::refreshColorBar(ViewScene& scene)
{
    ImageSlot& r = scene.result;
    if (scene.diffOnScreen() && scene.diff.channels) {
        bar_->setScale(ColorBar::Map::Heat, 0.0, scene.differenceScale());
    } else if (scene.mapping == display::Mapping::Diverging && scene.resultOnScreen() && r.channels) {
        // Statistics once per result (paintGL reads a GPU-written one back and calls again).
        if (!r.statsValid && r.hostValid) r.computeStats();
        const double limit = r.divergingLimit();
        bar_->setScale(ColorBar::Map::Diverging, -limit, limit);
    } else {
        bar_->hide();
        return;
    }
    bar_->show();
}

bool ViewOverlays::colorBarVisible() const
{
    return !bar_->isHidden();
}

QPair<double, double> ViewOverlays::colorBarRange() const
{
    return {bar_->low(), bar_->high()};
}

void ViewOverlays::showCaption(const QString& text)
{
    if (text != caption_->text()) caption_->setText(text);
    caption_->setVisible(!text.isEmpty());
}

void ViewOverlays::showNotice(const QString& text)
{
    if (text != notice_->text())
        notice_->setText(text);
    notice_->setVisible(!text.isEmpty());
}

QString ViewOverlays::noticeText(const ViewScene& scene, int textureLimit)
{
    QVector<Reduced> reduced;
    QStringList lines;
    if (scene.sourceOnScreen())
        describe(scene.source, tr("original"), lines, reduced);
    if (scene.resultOnScreen())
        describe(scene.result, tr("result"), lines, reduced);
    if (scene.diffOnScreen())
        describe(scene.diff, tr("difference"), lines, reduced);
    for (const Reduced& r : reduced) {
        const QString text = r.names.size() == 1 ? tr("The %1 (%2×%3 px) is shown reduced to %4×%5 px.")
                                                 : tr("The %1 (%2×%3 px) are shown reduced to %4×%5 px.");
        lines << text.arg(r.names.join(tr(" and the ")))
                     .arg(r.size.width())
                     .arg(r.size.height())
                     .arg(r.shown.width())
                     .arg(r.shown.height());
    }
    if (!reduced.isEmpty())
        lines << tr("OpenGL allows %1 px per side here; the readout uses the full image.").arg(textureLimit);
    return lines.join(QLatin1Char('\n'));
}

void ViewOverlays::place(const ViewScene& scene)
{
    ViewLoupe& loupe = *loupe_;
    const int m = kOverlayMargin;
    const bool split = placeSplitLabels(scene);
    const bool original = placeOriginalLabel(scene);
    if (loupe.shown()) {
        // The foot's left corner, above the split labels' row when they show.
        int bottom = host_->height() - m;
        if (split || original) bottom -= splitLeft_->sizeHint().height() + m / 2;
        loupe.place(m, m, bottom);
    }
    const int right = placeColorBar();
    placeNotice(right);
    placeCaption(right);
}

bool ViewOverlays::placeSplitLabels(const ViewScene& scene)
{
    const int m = kOverlayMargin;
    const bool split = scene.shownMode() == display::Mode::Split && scene.source.channels > 0;
    for (QLabel* l : {splitLeft_, splitRight_}) l->setVisible(split && !l->text().isEmpty());
    if (split) {
        // They follow the divider.
        const int divider = int(std::lround(scene.split * host_->width()));
        const QSize left = splitLeft_->sizeHint(), right = splitRight_->sizeHint();
        const int y = host_->height() - m - std::max(left.height(), right.height());
        splitLeft_->setGeometry(std::max(0, divider - m - left.width()), y, left.width(), left.height());
        splitRight_->setGeometry(std::min(host_->width() - right.width(), divider + m), y, right.width(),
                                 right.height());
    }
    return split;
}

bool ViewOverlays::placeOriginalLabel(const ViewScene& scene)
{
    // Where the split labels would sit, at the foot of the view: the eye looks there for them.
    const int m = kOverlayMargin;
    const bool original = scene.originalShown() && scene.source.channels > 0;
    originalLabel_->setVisible(original);
    if (original) {
        const QSize size = originalLabel_->sizeHint();
        originalLabel_->setGeometry(m, host_->height() - m - size.height(), size.width(), size.height());
    }
    return original;
}

int ViewOverlays::placeColorBar()
{
    const int m = kOverlayMargin;
    int right = host_->width() - m;
    if (!bar_->isHidden()) {
        const int w = bar_->sizeHint().width();
        const int h = std::min(kMaxBarHeight, host_->height() - 2 * m);
        bar_->setGeometry(right - w, m, w, std::max(h, bar_->minimumSizeHint().height()));
        right -= w + m;
    }
    return right;
}

void ViewOverlays::placeNotice(int right)
{
    if (notice_->isHidden()) return;
    // As wide as its longest line (plus the style's padding), wrapped where the view is narrower.
    const int m = kOverlayMargin;
    int longest = 0;
    for (const QString& line : notice_->text().split(QLatin1Char('\n')))
        longest = std::max(longest, notice_->fontMetrics().horizontalAdvance(line));
    const int w = std::max(60, std::min(right - m, longest + 12));
    notice_->setGeometry(m, m, w, notice_->heightForWidth(w));
}

void ViewOverlays::placeCaption(int right)
{
    if (caption_->isHidden()) return;
    // Top left, under the notice when there is one: clear of the loupe and the split labels at
    // the foot and of the colour bar at the right.
    const int m = kOverlayMargin;
    const int top = notice_->isHidden() ? m : notice_->geometry().bottom() + m / 2;
    const int oneLine = caption_->fontMetrics().horizontalAdvance(caption_->text()) + 14;
    const int w = std::max(60, std::min(oneLine, right - m)); // wrapped where the view is narrower
    caption_->setGeometry(m, top, w, caption_->heightForWidth(w));
}

void ViewOverlays::setFont(const QFont& font)
{
    for (QLabel* l : {notice_, splitLeft_, splitRight_, originalLabel_, caption_}) l->setFont(font);
    bar_->setFont(font);
    loupe_->setFont(font);
}
