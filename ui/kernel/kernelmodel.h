// SPDX-License-Identifier: GPL-3.0-or-later
// Table model over the cells of the document's kernel. Row v, column u. Edits go through the
// document (and so through its undo stack); text that is not a finite number is rejected with
// inputRejected() and the cell keeps its value.
//
// Two presentations: decimals (every value to at least four significant digits), or, when every
// coefficient is an integer multiple of one factor 1/N, the integers with the factor shown
// beside the grid (integer view). In integer view a typed number t sets the cell to t × 1/N.
#pragma once
#include <QAbstractTableModel>
#include <QColor>
#include <vector>

class KernelDocument;

namespace kernelgrid {

// The largest denominator integerDenominator() tries.
constexpr int kMaxDenominator = 65536;

// The smallest N in 1..maxDenominator such that every value is, to float precision, an integer
// multiple of 1/N (N = 1 for integer kernels and for all zeros); 0 when there is none.
int integerDenominator(const std::vector<float>& values, int maxDenominator = kMaxDenominator);

// `v` to at least `digits` significant digits, in the shorter of fixed and scientific notation
// (fixed on a tie): 0.0625, 0.01235, 4.914e-05, 123456.
QString formatSignificant(double v, int digits = 4);

// The colour of a value in a kernel whose largest magnitude is maxAbs, diverging about zero in
// the view's diverging hues: red for positive, blue for negative, |v| / maxAbs of `strength` of
// the way from white to the full hue. White for zero, for a non-finite value and when maxAbs
// is not positive.
QColor valueColour(double v, double maxAbs, double strength = 1.0);

// How far a cell's tint goes towards the full hue: pale enough that black text on the
// strongest tint keeps a contrast above 7:1.
constexpr double kCellTintStrength = 0.45;

// A cell's background: valueColour at kCellTintStrength, or an invalid QColor (no tint) for a
// zero or non-finite value.
QColor cellTint(double v, double maxAbs);

// The largest finite |value| (0 for none).
double maxAbsolute(const std::vector<float>& values);

// True for the anchor's cell (KernelModel::data), which the grid outlines.
constexpr int kAnchorRole = Qt::UserRole + 1;

} // namespace kernelgrid

class KernelModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit KernelModel(KernelDocument* doc, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Shortest text that reads back as the same float.
    static QString cellText(float v);

    // Integer view: asked for (the editor's check box) and in effect only while the kernel has
    // a common factor 1/N.
    void setIntegerView(bool on);
    bool integerViewRequested() const { return integerView_; }
    // N of the factor 1/N the cells are shown in units of; 0 when the cells show decimals.
    int displayDenominator() const { return integerView_ ? denominator_ : 0; }
    // N of the kernel's common factor 1/N whatever the view (0: none).
    int kernelDenominator() const { return denominator_; }

signals:
    void inputRejected(const QString& message);
    void inputAccepted();
    // The cells' texts changed as a whole (kernel or view): column widths may need updating.
    void presentationChanged();

private:
    void documentChanged();
    QString displayText(float v) const;

    KernelDocument* doc_;
    int rows_ = 0, columns_ = 0;
    bool integerView_ = true;
    int denominator_ = 0;
    double maxAbs_ = 0.0; // of the kernel's values: the tints' scale
};
