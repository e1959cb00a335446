// SPDX-License-Identifier: GPL-3.0-or-later
// Compares the held result (path A: the method and backend of the Controls panel) with a second
// path B run in the background on the same parameters: max/mean abs, RMSE, PSNR and where the
// largest difference lies; of the channel on screen alone when View > Channel picks one.
#pragma once
#include <QWidget>

#include "convlab/compare.h"
#include "convlab/convolve.h"

class QComboBox;
class ImageView;
class QLabel;
class QPushButton;
class WorkbenchDocument;

class DifferencePanel : public QWidget {
    Q_OBJECT
public:
    explicit DifferencePanel(QWidget* parent = nullptr);
    // Shows the document's comparison (statistics, or why there is none) as it changes, and
    // asks the document to compare when Compare is pressed; a located pixel is centred in
    // `view` (when given).
    void attach(WorkbenchDocument* doc, ImageView* view = nullptr);
    // "fft on cpu", marked when auto chose the method.
    static QString pathLabel(const convlab::ConvolveParams& p, const convlab::RunReport& r);

    convlab::Method method() const;
    convlab::Device device() const;
    void setRunning(bool running);
    // `scope`, when given, heads the figures ("channel G only").
    void showStats(const convlab::DiffStats& s, const QString& pathA, const QString& pathB,
                   const QString& scope = QString());
    // The figures shown (for the tests).
    QString statsText() const;
    void showMessage(const QString& text);

    // a - b per channel, as float (shape of a and b).

signals:
    void compareRequested();
    void locateRequested(int x, int y);

private:
    QComboBox* method_;
    QComboBox* backend_;
    QPushButton* compare_;
    QLabel* stats_;
    QPushButton* locate_;
    int maxX_ = 0, maxY_ = 0;
};
