// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench window: the image view in the centre, docks for the kernel editor, controls,
// timings, difference, the pixel probe and the kernel analysis; Tools opens code export and the
// method crossover sweep. The window only edits parameters; every convolution runs in a
// RenderController on a worker thread and only the newest result is shown.
#pragma once
#include <QMainWindow>
#include <functional>
#include <memory>

#include "convlab/convolve.h"
#include "convlab/image.h"
#include "imageview.h"

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class AnalysisPanel;
class BorderLabWindow;
class ControlsPanel;
class CrossoverDialog;
class DifferencePanel;
class ExportDialog;
class KernelDocument;
class KernelEditor;
class ProbePanel;
class RenderController;
class TimingsPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `persistent`: read and write QSettings (recent files, kernel, border, method, geometry).
    explicit MainWindow(bool persistent = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Loads an image file (any format of convlab::loadImage). On failure the error reporter
    // gets the message and the previous image stays. Returns whether it loaded.
    bool openImage(const QString& path);
    // Shows an image that did not come from a file (sample chart, tests).
    // Decodes a file once: the float image, and in `packed` its 8/16-bit samples (else null).
    static convlab::Image decodeForWorkbench(const std::string& path,
                                             std::shared_ptr<const convlab::PackedImage>& packed);
    // `packed`: the same image as decoded 8/16-bit samples, for the GPU upload (optional).
    void setSourceImage(convlab::Image image, const QString& title,
                        std::shared_ptr<const convlab::PackedImage> packed = {});
    // The bundled sample photograph; the synthetic test chart if it cannot be read.
    void openSample();
    // Parses kernel text (as Paste does); bad text is reported and the kernel kept.
    bool pasteKernelText(const QString& text);

    // Where errors go: a message box by default; tests install a recorder.
    void setErrorReporter(std::function<void(const QString&)> reporter);

    KernelDocument* kernelDocument() const { return doc_; }
    KernelEditor* kernelEditor() const { return editor_; }
    ControlsPanel* controls() const { return controls_; }
    DifferencePanel* differencePanel() const { return difference_; }
    RenderController* renderController() const { return render_; }
    RenderController* compareController() const { return compare_; }
    ImageView* imageView() const { return view_; }
    ProbePanel* probePanel() const { return probe_; }
    AnalysisPanel* analysisPanel() const { return analysis_; }
    std::shared_ptr<const convlab::Image> sourceImage() const { return source_; }
    // The parameters a render would use now (cancel flag unset).
    convlab::ConvolveParams currentParams() const;

    // Tools > Export code and Tools > Crossover sweep: open (or raise) the dialog, fed with the
    // current parameters (and image) as they change.
    ExportDialog* showExportDialog();
    CrossoverDialog* showCrossoverDialog();
    // Tools > Border-mode lab: the current source and parameters under every border mode,
    // following them while open. Null (and reported) without an image.
    BorderLabWindow* showBorderLab();
    // View > Show padding: the view extends past the image by paddingMargin() pixels and shows
    // what the border mode invents there.
    void setPaddingShown(bool on);
    bool paddingShown() const;
    // max(kernel reach, 16) up to ImageView::kMaxPaddingMargin.
    int paddingMargin() const;

    static QString versionString();

signals:
    // The result of request `id` has been drawn by the view.
    void resultDisplayed(quint64 id);
    void errorReported(const QString& message);

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    // Arrow keys on the image view move the probe.
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    // Shows a CUDA run's result from GPU memory (interop); false (and a note in the report on
    // which path ran) when the view must take the host copy instead.
    bool showGpuResult(const convlab::Image& result, convlab::RunReport& report);
    void buildMenus();
    void buildDocks();
    void requestRender();
    // Feeds the parameters to whatever shows them besides the result (analysis, open dialogs).
    void paramsChanged();
    void onResultReady(quint64 id);
    // Shows a CUDA result from device memory before its host copy arrives.
    void onGpuResultResident(quint64 id, int width, int height, int channels);
    void onCompareReady(quint64 id);
    void startCompare();
    void reportError(const QString& message);
    void showPixel(int x, int y);
    void centreViewOn(int x, int y);
    // Sets the view mode and checks its menu entry.
    void showViewMode(ImageView::ViewMode m);

    void openDialog();
    void saveResultDialog();
    void openKernelDialog();
    void saveKernelDialog();
    void copyKernel();
    void pasteKernel();
    void about();

    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void readSettings();
    void writeSettings();
    QString lastDir() const;

    bool persistent_;
    KernelDocument* doc_;
    ImageView* view_;
    KernelEditor* editor_;
    ControlsPanel* controls_;
    TimingsPanel* timings_;
    DifferencePanel* difference_;
    ProbePanel* probe_;
    AnalysisPanel* analysis_;
    ExportDialog* export_ = nullptr;
    CrossoverDialog* crossover_ = nullptr;
    BorderLabWindow* lab_ = nullptr;
    QAction* padding_ = nullptr;
    RenderController* render_;
    RenderController* compare_;
    QLabel* pixelLabel_;
    QProgressBar* busy_;
    QPushButton* cancel_;
    QMenu* recentMenu_;
    QActionGroup* modeGroup_;
    QStringList recent_;
    QString currentPath_;
    QString interopError_; // why CUDA cannot write the view's buffer here; empty: not known to fail
    std::shared_ptr<const convlab::Image> source_;
    std::shared_ptr<const convlab::PackedImage> packedSource_; // source_ as 8/16-bit samples, or null
    std::shared_ptr<const convlab::Image> compareA_;
    quint64 pendingDisplayId_ = 0;
    quint64 earlyDisplayedId_ = 0; // the request whose CUDA result was shown before its download
    std::function<void(const QString&)> reporter_;
};
