// SPDX-License-Identifier: GPL-3.0-or-later
// The false-colour maps of the workbench and the bar that gives them a scale.
//
// heat() and diverging() are the CPU twins of the functions of the same names in
// shaders/image.frag (same stops, same arithmetic), so a bar painted here shows exactly the
// colours the image view draws. viridis() is the map of the |H| plot in the analysis panel.
#pragma once
#include <QColor>
#include <QString>
#include <QWidget>

namespace colormap {

// Black -> red -> yellow -> white as t goes 0 -> 1 (clamped).
QColor heat(double t);
// White at 0, blue towards -1, red towards +1; t is v / max|v|, clamped to [-1, 1].
QColor diverging(double t);
// Dark blue -> green -> yellow (viridis-like, perceptually ordered), t in [0, 1].
QColor viridis(double t);

} // namespace colormap

// A vertical colour bar with numeric ticks at the low end, the middle and the high end.
// The strip runs from `low` at its bottom row to `high` at its top row.
class ColorBar : public QWidget {
    Q_OBJECT
public:
    enum class Map { Heat, Diverging, Viridis };
    Q_ENUM(Map)

    explicit ColorBar(QWidget* parent = nullptr);

    // The map and the values at the bar's two ends; `unit` follows the top label ("dB").
    void setScale(Map map, double low, double high, const QString& unit = QString());
    Map map() const { return map_; }
    double low() const { return low_; }
    double high() const { return high_; }
    // The tick labels, top to bottom.
    QStringList tickLabels() const;

    // Overlay style: a translucent dark panel with light text, for drawing over an image.
    // Otherwise the palette's colours on a transparent background.
    void setOverlayStyle(bool on);

    // The gradient strip in widget coordinates, and the position along the map (0 at the
    // bottom row, 1 at the top row) that row y of the strip shows.
    QRect stripRect() const;
    double fractionAtRow(int y) const;
    // The colour of `map` at fraction t of the bar (0 = low end, 1 = high end).
    static QColor colourAt(Map map, double t);
    // Tick text for a value: 3 significant digits, exact zero as "0".
    static QString formatValue(double v);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    int labelWidth() const;

    Map map_ = Map::Heat;
    double low_ = 0.0, high_ = 1.0;
    QString unit_;
    bool overlay_ = false;
};
