// SPDX-License-Identifier: GPL-3.0-or-later
// The kernel editor panel: size, presets, normalize/scale/offset, semantics, the cell grid with
// the anchor highlighted (Ctrl+click or the context menu moves it), and live sum and rank. The
// grid never elides a value: its columns fit their texts and it scrolls when the kernel is wide.
// Kernels whose values share a factor 1/N can be shown as integers with "× 1/N" above the grid.
// Cells are tinted by sign and size (kernelgrid::cellTint), and a small picture of the kernel
// (kernelpicture.h) sits under the grid.
#pragma once
#include <QWidget>
#include <functional>

#include "convlab/kernel.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QGridLayout;
class QLabel;
class QLayout;
class QSpinBox;
class QTableView;
class QToolButton;
class KernelDocument;
class KernelModel;
class KernelPicture;

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
    KernelPicture* picture() const { return picture_; }
    // The inline message under the grid (rejected input); empty when none.
    QString message() const;
    // Removes that message (the window does when a new image is opened).
    void clearMessage();

    // Applies a preset through the document (one undo step): at once when it takes no
    // parameters, else after its modal dialog is accepted.
    void choosePreset(const QString& name);

    static constexpr int kMaxEditSide = 31;

signals:
    void errorOccurred(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The constructor's steps, top to bottom of the panel.
    QHBoxLayout* buildSizeRow();
    QGridLayout* buildScaleRow();
    void buildTable();
    QHBoxLayout* buildViewRow();
    void buildMessages();
    QHBoxLayout* buildSummaryRow();
    void showCellMenu(const QPoint& pos);

    void syncFromDocument();
    void updateFactor();
    // Every column as wide as the widest cell text (none is elided); small kernels are widened
    // to fill the panel. keepWidth: never narrower than the last fit (same kernel, scrolled).
    void fitColumns(bool keepWidth = false);
    // The grid's minimum height: its first rows whole, whatever room the dock has.
    void keepRowsInView();
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
    KernelPicture* picture_;
};
