// SPDX-License-Identifier: GPL-3.0-or-later
// The image view's edge loupe (view/edgeloupe.h) fed from the scene: the source's corner with
// the padding the border mode invents, beside the result's, mapped as the view maps them;
// shown while wanted and a source is there, at the foot's left corner of the view.
#pragma once

class EdgeLoupe;
class QFont;
class QWidget;
class ViewScene;

class ViewLoupe {
public:
    // The loupe becomes a child of `host`, hidden.
    explicit ViewLoupe(QWidget* host);

    EdgeLoupe* widget() const { return loupe_; }
    // View > Edge Loupe.
    void setWanted(bool on) { wanted_ = on; }
    bool wanted() const { return wanted_; }
    // The kernel's farthest tap from its anchor, clamped to the padding the loupe shows; true
    // when that changed the padding.
    bool setReach(int reach);
    bool shown() const;
    void setFont(const QFont& font);
    // Fills the loupe from the scene and shows it, or hides it (not wanted, no source on the
    // host); true when it is shown.
    bool refresh(ViewScene& scene);
    // Places it with its left edge at x and its foot at `bottom`, no higher than `top`.
    void place(int x, int top, int bottom);

private:
    EdgeLoupe* loupe_;
    bool wanted_ = true; // View > Edge Loupe
    int margin_ = 1;     // the padding it shows: the kernel's reach, 1..kMaxMargin
};
