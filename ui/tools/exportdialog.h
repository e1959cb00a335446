// SPDX-License-Identifier: GPL-3.0-or-later
// The current filter written for other libraries (convlab::exportCode): scipy.ndimage,
// OpenCV from Python and C++, CuPy and dask (convlab.dask, or dask-image without ConvLab), one
// tab each, read-only, with a Copy button.
#pragma once
#include <QDialog>
#include <iterator>

#include "convlab/export.h"

class QLabel;
class QPlainTextEdit;
class QTabWidget;

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    static constexpr convlab::ExportTarget kTargets[] = {convlab::ExportTarget::Scipy, convlab::ExportTarget::OpencvPython,
                                                         convlab::ExportTarget::OpencvCpp, convlab::ExportTarget::Cupy,
                                                         convlab::ExportTarget::Dask};
    static constexpr int kTargetCount = int(std::size(kTargets));

    explicit ExportDialog(QWidget* parent = nullptr);

    // Regenerates every tab for these parameters.
    void setParams(const convlab::ConvolveParams& p);
    QString text(convlab::ExportTarget t) const;
    convlab::ExportTarget currentTarget() const;
    void setCurrentTarget(convlab::ExportTarget t);
    // Puts the shown snippet on the clipboard.
    void copy();

private:
    QLabel* summary_;
    QTabWidget* tabs_;
    QPlainTextEdit* editors_[kTargetCount];
    QLabel* status_;
};
