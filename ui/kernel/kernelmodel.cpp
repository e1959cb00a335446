// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel/kernelmodel.h"

#include <QBrush>
#include <QFont>
#include <QPalette>
#include <algorithm>
#include <cmath>
#include <limits>

#include "convlab/error.h"
#include "kernel/kerneldocument.h"

namespace kernelgrid {

namespace {

// Above this many units the float cannot hold the integer exactly.
constexpr double kMaxUnits = double(1 << 24);
// How likely a match may be to be a coincidence. A float stands for every real within half a
// unit in the last place, so any float is "some k/n" once n is large enough: fractions with
// denominators up to n lie about 1/n^2 apart. A match counts only where a value of that size
// would meet one by chance with at most this probability.
constexpr double kCoincidence = 0.01;

// True when `magnitude` (a positive float) is the float nearest to units/denominator.
bool isMultiple(float magnitude, long long units, long long denominator)
{
    return units >= 1 && static_cast<float>(double(units) / double(denominator)) == magnitude;
}

// The smallest multiple of `lattice` (at most maxDenominator) at which `magnitude` is an
// integer multiple of 1/denominator, provided that finding it by chance was unlikely; 0 if none.
long long extendLattice(float magnitude, long long lattice, int maxDenominator)
{
    const double ulp = double(std::nextafter(magnitude, std::numeric_limits<float>::infinity())) - magnitude;
    for (long long m = 1; m * lattice <= maxDenominator; ++m) {
        // Chance that some k/(j * lattice), j <= m, lands within the float's interval: about
        // sum_j j * lattice * ulp.
        if (0.5 * double(m) * double(m) * double(lattice) * ulp > kCoincidence) return 0;
        const long long n = m * lattice;
        const double scaled = double(magnitude) * double(n);
        if (scaled > kMaxUnits) return 0;
        if (isMultiple(magnitude, std::llround(scaled), n)) return n;
    }
    return 0;
}

QString withoutTrailingZeros(QString number)
{
    if (!number.contains(QLatin1Char('.'))) return number;
    while (number.endsWith(QLatin1Char('0'))) number.chop(1);
    if (number.endsWith(QLatin1Char('.'))) number.chop(1);
    return number;
}

// The view's diverging map's ends (shaders/image.frag, ui/view/colorbar.cpp), so that the
// grid's colours read like the view's.
constexpr double kPositive[3] = {0.70, 0.09, 0.17};
constexpr double kNegative[3] = {0.13, 0.40, 0.67};

} // namespace

QColor valueColour(double v, double maxAbs, double strength)
{
    if (!std::isfinite(v) || !(maxAbs > 0.0) || !std::isfinite(maxAbs)) return QColor(Qt::white);
    const double t = std::clamp(std::fabs(v) / maxAbs, 0.0, 1.0) * std::clamp(strength, 0.0, 1.0);
    const double* hue = v > 0 ? kPositive : kNegative;
    return QColor::fromRgbF(float(1.0 - t * (1.0 - hue[0])), float(1.0 - t * (1.0 - hue[1])),
                            float(1.0 - t * (1.0 - hue[2])));
}

QColor cellTint(double v, double maxAbs)
{
    if (v == 0.0 || !std::isfinite(v)) return {};
    return valueColour(v, maxAbs, kCellTintStrength);
}

double maxAbsolute(const std::vector<float>& values)
{
    double m = 0.0;
    for (float v : values)
        if (std::isfinite(v)) m = std::max(m, double(std::fabs(v)));
    return m;
}

int integerDenominator(const std::vector<float>& values, int maxDenominator)
{
    std::vector<float> magnitudes;
    for (float v : values) {
        if (!std::isfinite(v)) return 0;
        if (v != 0.0f) magnitudes.push_back(std::fabs(v));
    }
    std::sort(magnitudes.begin(), magnitudes.end());
    magnitudes.erase(std::unique(magnitudes.begin(), magnitudes.end()), magnitudes.end());
    // Smallest first: the smallest values have the finest floats, so they pin the factor down
    // with the least chance of a coincidence; the others must then fit the same lattice.
    long long lattice = 1;
    for (float m : magnitudes) {
        lattice = extendLattice(m, lattice, maxDenominator);
        if (lattice == 0) return 0;
    }
    return int(lattice);
}

QString formatSignificant(double v, int digits)
{
    if (!std::isfinite(v)) return QString::number(v);
    if (v == 0.0) return QStringLiteral("0");
    digits = std::max(1, digits);
    const QString sci = QString::number(v, 'e', digits - 1);
    const qsizetype e = sci.indexOf(QLatin1Char('e'));
    const QString scientific = withoutTrailingZeros(sci.left(e)) + sci.mid(e);
    const int magnitude = int(std::floor(std::log10(std::fabs(v))));
    const int decimals = std::clamp(digits - 1 - magnitude, 0, 350);
    const QString fixed = withoutTrailingZeros(QString::number(v, 'f', decimals));
    return fixed.size() <= scientific.size() ? fixed : scientific;
}

} // namespace kernelgrid

KernelModel::KernelModel(KernelDocument* doc, QObject* parent) : QAbstractTableModel(parent), doc_(doc)
{
    rows_ = doc_->kernel().height;
    columns_ = doc_->kernel().width;
    denominator_ = kernelgrid::integerDenominator(doc_->kernel().values);
    maxAbs_ = kernelgrid::maxAbsolute(doc_->kernel().values);
    connect(doc_, &KernelDocument::changed, this, &KernelModel::documentChanged);
}

QString KernelModel::cellText(float v)
{
    return QString::fromStdString(convlab::Kernel(1, 1, {v}).toText());
}

void KernelModel::documentChanged()
{
    const convlab::Kernel& k = doc_->kernel();
    denominator_ = kernelgrid::integerDenominator(k.values);
    maxAbs_ = kernelgrid::maxAbsolute(k.values);
    if (k.height != rows_ || k.width != columns_) {
        beginResetModel();
        rows_ = k.height;
        columns_ = k.width;
        endResetModel();
    } else {
        emit dataChanged(index(0, 0), index(rows_ - 1, columns_ - 1));
    }
    emit presentationChanged();
}

void KernelModel::setIntegerView(bool on)
{
    if (on == integerView_) return;
    integerView_ = on;
    emit dataChanged(index(0, 0), index(rows_ - 1, columns_ - 1));
    emit presentationChanged();
}

int KernelModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows_; }
int KernelModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : columns_; }

QString KernelModel::displayText(float v) const
{
    if (const int n = displayDenominator(); n > 0) return QString::number(std::llround(double(v) * n));
    return kernelgrid::formatSignificant(v);
}

QVariant KernelModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid()) return {};
    const convlab::Kernel& k = doc_->kernel();
    const bool isAnchor = index.row() == k.ay() && index.column() == k.ax();
    const float v = k.at(index.row(), index.column());
    const int n = displayDenominator();
    switch (role) {
    case Qt::DisplayRole: return displayText(v);
    case Qt::EditRole: return n > 0 ? displayText(v) : cellText(v);
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: {
        QString tip = tr("K(%1, %2) = %3%4").arg(index.row()).arg(index.column()).arg(cellText(v),
                                                                               isAnchor ? tr("  (anchor)") : QString());
        if (n > 1)
            tip += tr("\n= %1 × 1/%2. Shown in units of 1/%2: typing t sets t × 1/%2 (3 sets 3/%2; "
                      "fractions and decimals count the same way).")
                       .arg(displayText(v))
                       .arg(n);
        return tip;
    }
    case Qt::BackgroundRole:
        // The sign and size at a glance; the anchor keeps its tint and gets an outline instead.
        if (const QColor tint = kernelgrid::cellTint(v, maxAbs_); tint.isValid()) return QBrush(tint);
        return {};
    case Qt::ForegroundRole:
        // Tints are light in every theme: dark text on them, whatever the palette's text colour.
        if (kernelgrid::cellTint(v, maxAbs_).isValid()) return QBrush(Qt::black);
        return {};
    case kernelgrid::kAnchorRole: return isAnchor;
    case Qt::FontRole:
        if (isAnchor) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    default: return {};
    }
}

bool KernelModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || role != Qt::EditRole) return false;
    const QString text = value.toString().trimmed();
    double typed = 0.0;
    try {
        const convlab::Kernel parsed = convlab::parseKernelText(text.toStdString());
        if (parsed.width != 1 || parsed.height != 1) throw convlab::Error("one number expected");
        typed = parsed.values[0];
    } catch (const convlab::Error&) {
        emit inputRejected(tr("Cell (%1, %2): '%3' is not a finite number (decimals, exponents and "
                              "fractions such as 1/16 are accepted); the cell keeps its value.")
                               .arg(index.row())
                               .arg(index.column())
                               .arg(text));
        return false;
    }
    // In integer view the cells count units of the factor 1/N.
    const int n = displayDenominator();
    const float v = n > 0 ? static_cast<float>(typed / n) : static_cast<float>(typed);
    doc_->setCell(index.row(), index.column(), v);
    emit inputAccepted();
    return true;
}

Qt::ItemFlags KernelModel::flags(const QModelIndex& index) const
{
    if (!index.isValid()) return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable;
}

QVariant KernelModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::DisplayRole) return QString::number(section);
    if (role == Qt::ToolTipRole)
        return orientation == Qt::Horizontal ? tr("column u = %1").arg(section) : tr("row v = %1").arg(section);
    return QAbstractTableModel::headerData(section, orientation, role);
}
