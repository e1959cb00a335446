// SPDX-License-Identifier: GPL-3.0-or-later
// Table model over the cells of the document's kernel. Row v, column u. Edits go through the
// document (and so through its undo stack); text that is not a finite number is rejected with
// inputRejected() and the cell keeps its value.
#pragma once
#include <QAbstractTableModel>

class KernelDocument;

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

signals:
    void inputRejected(const QString& message);
    void inputAccepted();

private:
    void documentChanged();

    KernelDocument* doc_;
    int rows_ = 0, columns_ = 0;
};
