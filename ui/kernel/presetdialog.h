// SPDX-License-Identifier: GPL-3.0-or-later
// Choosing a preset: the Presets menu (grouped as presetcatalog.h lists them) and the dialog
// for the parameters of one preset.
#pragma once
#include <QDialog>
#include <QList>
#include <functional>

#include "convlab/kernel.h"

class QLabel;
class QMenu;
class QWidget;

// One submenu per group of presetcatalog::groups(), one action per preset (object name
// "preset-" and the code name), its plain name as text (with "…" when a dialog asks for
// parameters) and its one-line description as tool tip. `choose` gets the code name.
QMenu* makePresetMenu(QWidget* parent, const std::function<void(const QString& code)>& choose);

// Parameters of one preset, each field named after its parameter: a QSpinBox for a whole
// number (showing "auto" for a 0 that lets the preset choose), a QDoubleSpinBox for any other
// number, a QComboBox for a choice. kernel() is valid after accept().
class PresetDialog : public QDialog {
    Q_OBJECT
public:
    PresetDialog(const convlab::PresetInfo& preset, QWidget* parent = nullptr);
    const convlab::Kernel& kernel() const { return kernel_; }
    // "name=value,..." for makePreset.
    QString parameterText() const;
    void accept() override;

private:
    QWidget* makeField(const convlab::PresetParam& p);

    const convlab::PresetInfo preset_;
    QList<QWidget*> fields_; // in parameter order
    QLabel* message_;
    convlab::Kernel kernel_;
};
