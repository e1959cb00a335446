// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernelmodel.h"

#include <QBrush>
#include <QFont>
#include <QPalette>

#include "convlab/error.h"
#include "kerneldocument.h"

KernelModel::KernelModel(KernelDocument* doc, QObject* parent) : QAbstractTableModel(parent), doc_(doc)
{
    rows_ = doc_->kernel().height;
    columns_ = doc_->kernel().width;
    connect(doc_, &KernelDocument::changed, this, &KernelModel::documentChanged);
}

QString KernelModel::cellText(float v)
{
    return QString::fromStdString(convlab::Kernel(1, 1, {v}).toText());
}

void KernelModel::documentChanged()
{
    const convlab::Kernel& k = doc_->kernel();
    if (k.height != rows_ || k.width != columns_) {
        beginResetModel();
        rows_ = k.height;
        columns_ = k.width;
        endResetModel();
        return;
    }
    emit dataChanged(index(0, 0), index(rows_ - 1, columns_ - 1));
}

int KernelModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows_; }
int KernelModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : columns_; }

QVariant KernelModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid()) return {};
    const convlab::Kernel& k = doc_->kernel();
    const bool isAnchor = index.row() == k.ay() && index.column() == k.ax();
    const float v = k.at(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole: return QString::number(v, 'g', 4);
    case Qt::EditRole: return cellText(v);
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return tr("K(%1, %2) = %3%4").arg(index.row()).arg(index.column()).arg(cellText(v),
                                                                          isAnchor ? tr("  (anchor)") : QString());
    case Qt::BackgroundRole:
        if (isAnchor) return QBrush(QColor(255, 214, 102));
        return {};
    case Qt::ForegroundRole:
        if (isAnchor) return QBrush(Qt::black);
        return {};
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
    float v = 0.0f;
    try {
        const convlab::Kernel parsed = convlab::parseKernelText(text.toStdString());
        if (parsed.width != 1 || parsed.height != 1) throw convlab::Error("one number expected");
        v = parsed.values[0];
    } catch (const convlab::Error&) {
        emit inputRejected(tr("Cell (%1, %2): '%3' is not a finite number (decimals, exponents and "
                              "fractions such as 1/16 are accepted); the cell keeps its value.")
                               .arg(index.row())
                               .arg(index.column())
                               .arg(text));
        return false;
    }
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
