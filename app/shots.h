// SPDX-License-Identifier: GPL-3.0-or-later
// The teaching pictures of --screenshot-panel that set up a state rather than show a panel:
// "sweep" (the probe's sweep over a region, caught mid-way) and "clip" (View > Mark Clipped
// Pixels on a sharpened 8-bit photo). Each returns the window to picture, null on failure.
#pragma once
#include <QString>
#include <functional>

class MainWindow;
class QWidget;

namespace measure {

// `displayed` waits for the current render to be drawn; `until` runs the event loop until its
// condition holds (both false on timeout).
QWidget* showTeachingState(MainWindow& w, const QString& name, const std::function<bool()>& displayed,
                           const std::function<bool(const std::function<bool()>&)>& until);

} // namespace measure
