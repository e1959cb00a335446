// SPDX-License-Identifier: GPL-3.0-or-later
// Border mode (with its rule and its names in OpenCV, scipy.ndimage, MATLAB, GIMP and G'MIC),
// method, backend, threads. Modes and methods come from the tables of convlab/modes.h.
#pragma once
#include <QWidget>

#include "convlab/convolve.h"
#include "workbench/workbenchdocument.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

class ControlsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ControlsPanel(QWidget* parent = nullptr);

    // Shows the document's run settings and follows them; what the user picks here becomes
    // the document's (a backend this machine cannot run is shown as the first that it can).
    void attach(WorkbenchDocument* doc);
    // What the panel shows now.
    WorkbenchDocument::RunSettings settings() const;

    convlab::Border border() const;
    convlab::Method method() const;
    convlab::Device device() const;
    int threads() const;

    void setBorder(const convlab::Border& b);
    void setMethod(convlab::Method m);
    void setDevice(convlab::Device d);
    void setThreads(int n);

    QComboBox* borderCombo() const { return border_; }
    QComboBox* methodCombo() const { return method_; }
    QComboBox* backendCombo() const { return backend_; }

    // The rule ("period 2n: cba|abcd|dcb") over the names elsewhere ("OpenCV BORDER_REFLECT · scipy
    // reflect · MATLAB symmetric · GIMP — · G'MIC 3 mirror").
    static QString borderAliases(convlab::BorderMode m);

signals:
    void changed();

private:
    void updateBorderInfo();
    // Shows `s` without handing the intermediate states to the document.
    void showSettings(const WorkbenchDocument::RunSettings& s);

    bool showing_ = false;
    QComboBox* border_;
    QDoubleSpinBox* constant_;
    QLabel* borderInfo_;
    QComboBox* method_;
    QComboBox* backend_;
    QSpinBox* threads_;
};

// Fills a combo with CPU and CUDA; the CUDA item is disabled with the reason when unavailable.
void fillBackendCombo(QComboBox* combo);
// Fills a combo with the methods of convlab::methods() in its order (auto first), each with
// its description as tooltip and the Method as item data.
void fillMethodCombo(QComboBox* combo);
