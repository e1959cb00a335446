// SPDX-License-Identifier: GPL-3.0-or-later
// Compares the held result (path A: the method and backend of the Controls panel) with a second
// path B run in the background on the same parameters: max/mean abs, RMSE, PSNR and where the
// largest difference lies; of the channel on screen alone when View > Channel picks one.
#pragma once
#include <QWidget>

#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "workbench/workbenchdocument.h"

class QComboBox;
class ImageView;
class QLabel;
class QPushButton;

class DifferencePanel : public QWidget {
    Q_OBJECT
public:
    explicit DifferencePanel(QWidget* parent = nullptr);
    // Shows the document's comparison (statistics, or why there is none) as it changes, and
    // asks the document to compare when Compare is pressed; a located pixel is centred and
    // ringed in `view` (when given), whose difference scale the panel explains. The figures of
    // older parameters stay greyed as stale until the comparison is made again.
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
    // Whether the figures shown are of older parameters (greyed, "stale: press Compare").
    bool statsStale() const { return stale_; }
    // The heat map's scale in use and why ("max 9.2e-05: scale set by the largest difference").
    QString scaleText() const;

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

    // What follows the document: the current comparison, else the stale one, else why none.
    void showComparisonOf(const WorkbenchDocument& doc);
    void showFigures(const WorkbenchDocument& doc, const WorkbenchDocument::Comparison& c);
    void markStale(bool stale, bool comparingAgain);
    ImageView* view_ = nullptr;
    QLabel* scale_ = nullptr;
    bool stale_ = false;
};
