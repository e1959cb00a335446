// SPDX-License-Identifier: GPL-3.0-or-later
// File > Estimate Kernel from Image Pair: the kernel that maps a source image (the current image,
// or a file) to a filtered version of it made by any program (docs/semantics.md, Kernel
// estimation). Files are read and the least-squares fit solved on a worker thread; the result
// goes into the kernel grid, with its semantics, as one undo step, and the residual is shown.
#pragma once
#include <QDialog>
#include <QThreadPool>
#include <memory>
#include <optional>

#include "convlab/convolve.h"
#include "convlab/image.h"
#include "workbench/latest.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class KernelDocument;

class EstimateDialog : public QDialog {
    Q_OBJECT
public:
    EstimateDialog(KernelDocument* kernel, QWidget* parent = nullptr);
    // Cancels a running estimate and waits for it.
    ~EstimateDialog() override;

    // The image used as the source when no source file is chosen (may be null).
    void setCurrentSource(std::shared_ptr<const convlab::Image> image);
    // Empty: the current image.
    void setSourcePath(const QString& path);
    void setFilteredPath(const QString& path);
    void setKernelSize(int width, int height);
    void setSemantics(convlab::Semantics s);
    // nullopt: the interior only.
    void setBorder(std::optional<convlab::Border> border);
    void setRidge(double ridge);

    // Starts an estimate with the dialog's settings (an earlier one still running is cancelled).
    void start();
    bool running() const { return latest_.pending(); }
    // What the last estimate said: the residual, or why it failed.
    QString resultText() const;

signals:
    // An estimate ended: applied to the kernel (true) or failed (false; resultText says why).
    void finished(bool applied);

protected:
    // A hidden dialog stops its estimate.
    void hideEvent(QHideEvent* e) override;

private:
    struct Outcome;
    void deliver(quint64 id, std::shared_ptr<const Outcome> outcome);
    void chooseFile(QLineEdit* into, const QString& title);
    void updateConstantValue();

    KernelDocument* kernel_;
    std::shared_ptr<const convlab::Image> current_;
    QLineEdit* source_;
    QLineEdit* filtered_;
    QSpinBox* width_;
    QSpinBox* height_;
    QComboBox* semantics_;
    QComboBox* border_;
    QDoubleSpinBox* constant_;
    QDoubleSpinBox* ridge_;
    QLabel* result_;
    QPushButton* estimate_;
    LatestOnly latest_;
    QThreadPool pool_;
};
