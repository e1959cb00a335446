// SPDX-License-Identifier: GPL-3.0-or-later
// The kernel editor panel: size, presets, normalize/scale/offset, semantics, the cell grid with
// the anchor highlighted (Ctrl+click or the context menu moves it), and live sum and rank. The
// grid never elides a value: its columns fit their texts and it scrolls when the kernel is wide.
// Kernels whose values share a factor 1/N can be shown as integers with "× 1/N" above the grid.
#pragma once
#include <QDialog>
#include <QWidget>
#include <functional>

#include "convlab/kernel.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QTableView;
class QToolButton;
class KernelDocument;
class KernelModel;

// Parameters of one preset: a QDoubleSpinBox per numeric PresetParam, a QComboBox per choice
// (each named after its parameter). kernel() is valid after accept().
class PresetDialog : public QDialog {
    Q_OBJECT
public:
    PresetDialog(const convlab::PresetInfo& preset, QWidget* parent = nullptr);
    const convlab::Kernel& kernel() const { return kernel_; }
    // "name=value,..." for makePreset.
    QString parameterText() const;
    void accept() override;

private:
    const convlab::PresetInfo preset_;
    QList<QWidget*> fields_; // in parameter order
    QLabel* message_;
    convlab::Kernel kernel_;
};

class KernelEditor : public QWidget {
    Q_OBJECT
public:
    explicit KernelEditor(KernelDocument* doc, QWidget* parent = nullptr);

    QTableView* table() const { return table_; }
    KernelModel* model() const { return model_; }
    QSpinBox* widthSpin() const { return width_; }
    QSpinBox* heightSpin() const { return height_; }
    // "Show as integers × factor" and the factor it shows ("× 1/16"; hidden when none).
    QCheckBox* integerViewBox() const { return integerView_; }
    QLabel* factorLabel() const { return factor_; }
    // The inline message under the grid (rejected input); empty when none.
    QString message() const;
    // Removes that message (the window does when a new image is opened).
    void clearMessage();

    // Shown as a modal dialog: applies a preset through the document (one undo step).
    void choosePreset(const QString& name);

    static constexpr int kMaxEditSide = 31;

signals:
    void errorOccurred(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void syncFromDocument();
    void updateFactor();
    // Every column as wide as the widest cell text (none is elided); small kernels are widened
    // to fill the panel. keepWidth: never narrower than the last fit (same kernel, scrolled).
    void fitColumns(bool keepWidth = false);
    int cellTextWidth(int row, int column) const;
    void showMessage(const QString& text);
    void guarded(const std::function<void()>& edit);

    KernelDocument* doc_;
    KernelModel* model_;
    QTableView* table_;
    QSpinBox* width_;
    QSpinBox* height_;
    QToolButton* presets_;
    QCheckBox* normalize_;
    QDoubleSpinBox* scale_;
    QDoubleSpinBox* offset_;
    QComboBox* semantics_;
    QCheckBox* integerView_;
    QLabel* factor_;
    int fittedWidth_ = 0;   // the widest cell text measured for the current kernel and view
    int appliedWidth_ = 0;  // the section width last set, for appliedColumns_ columns
    int appliedColumns_ = 0;
    QLabel* message_;
    QLabel* sum_;
    QLabel* rank_;
};
