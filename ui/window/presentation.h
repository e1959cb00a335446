// SPDX-License-Identifier: GPL-3.0-or-later
// What a teacher puts on a projector: View > Present (F11) shows the window full screen with
// the image and one chosen dock, the text of the whole interface scaled up; leaving restores
// the layout, the docks and the text size as they were. View > Larger Text / Smaller Text
// scale the interface's text at any time (TextScale).
#pragma once
#include <QByteArray>
#include <QFont>
#include <QObject>
#include <QString>

class QDockWidget;
class QMainWindow;

// The application font as a multiple of the font the application started with.
class TextScale {
public:
    static constexpr double kMin = 0.8, kMax = 2.5, kStep = 1.15;
    // Scale of the starting font, clamped to [kMin, kMax]; the font is applied at once.
    static void set(double scale);
    static double current();
    static void larger() { set(current() * kStep); }
    static void smaller() { set(current() / kStep); }

private:
    static QFont& base();
    static double& scale();
};

class Presentation : public QObject {
    Q_OBJECT
public:
    // The text scale while presenting: large enough to read from the back of a room at 1024x768.
    static constexpr double kTextScale = 1.5;

    explicit Presentation(QMainWindow* window);

    // Enters or leaves; entering with the dock named `dockName` (a QDockWidget's objectName) as
    // the one panel shown.
    void setActive(bool on);
    bool active() const { return active_; }
    void setDock(const QString& dockName);
    QString dock() const { return dock_; }

signals:
    void activeChanged(bool on);

private:
    void enter();
    void leave();
    QMainWindow* window_;
    bool active_ = false;
    QString dock_ = QStringLiteral("kernelDock");
    // What leaving restores.
    QByteArray savedState_;
    QByteArray savedGeometry_;
    double savedTextScale_ = 1.0;
    bool wasFullScreen_ = false;
};
