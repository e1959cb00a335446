// SPDX-License-Identifier: GPL-3.0-or-later
// The rule that the image keeps the room: the docks of a QMainWindow share at most
// 1 - kMinViewShare of its width, whatever their text says and whatever a saved layout asked
// for. DockLayout enforces it (each side's docks get a maximum width, kept up to date as the
// window resizes and docks move), makes every wrapped note of a dock wrap instead of widening
// it, and keeps the window's default layout for View > Reset Layout.
#pragma once
#include <QByteArray>
#include <QObject>

class QDockWidget;
class QMainWindow;
class QWidget;

namespace docklayout {

// The share of the window's width the central view never goes below.
inline constexpr double kMinViewShare = 0.55;

// The most one side's docks may take of a window `windowWidth` wide: the width the view's share
// leaves, less `overhead` px for what lies between the docks and the view (separators, a tab
// bar along the edge), times `sideShare`, this side's part of it (1 when it is the only side
// with docks). A fixed part, so that one side growing never takes the other's room. Never below
// `floorWidth` (a dock narrower than its controls is of no use), unless the window itself is too
// narrow for that.
int sideBudget(int windowWidth, double sideShare, int floorWidth, int overhead = 0);

// The left side's part of the docks' room when both sides have docks: the kernel editor's grid
// needs a little more than the panels, which scroll.
inline constexpr double kLeftShare = 0.53;

// Makes every word-wrapped label under `root` unable to widen its container: its width is
// whatever the layout gives it, the text wraps within (height follows the width). Labels that
// show one line (a value, a name) are left alone: they are short.
void keepNotesFromWidening(QWidget* root);

} // namespace docklayout

class DockLayout : public QObject {
    Q_OBJECT
public:
    // Watches `window`: its docks beside the centre never together exceed the width the view's
    // share leaves. Call after the docks were added; the state then is the default layout.
    explicit DockLayout(QMainWindow* window);

    // The smallest width a side's dock is allowed even in a narrow window.
    static constexpr int kFloorWidth = 200;
    // The panels' side scrolls what does not fit: it may go narrower, so that a small screen's
    // window (1024x768) still keeps the image its share.
    static constexpr int kPanelFloorWidth = 150;

    // Applies the limits now (also run on every resize and dock move).
    void enforce();
    // The window's state as built (View > Reset Layout restores it).
    QByteArray defaultState() const { return defaultState_; }
    // Restores a saved state (QMainWindow::saveState) and returns whether it was taken: a state
    // that does not parse is refused; the limits hold afterwards either way.
    bool restore(const QByteArray& state);
    // Back to the default layout: every dock where it was built, visible, at its first-launch
    // width.
    void reset();

    // The width of the central widget over the window's, as laid out now.
    double viewShare() const;
    // The widest visible docked dock on that side (0: none): the side's width.
    int sideWidth(Qt::DockWidgetArea area) const;

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void watch(QDockWidget* dock);
    // enforce() once the events queued now (a layout pass) have run; coalesced.
    void enforceLater();
    // The width beside the view that no dock holds (separators, tab bars), as laid out now,
    // given the docks' widths on both sides together.
    int measuredOverhead(int docks) const;

    QMainWindow* window_;
    QByteArray defaultState_;
    QWidget* centre_ = nullptr; // the view, as installed (compared only, never called)
    bool queued_ = false;
};
