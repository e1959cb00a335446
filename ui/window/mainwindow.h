// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench window: the image view in the centre, docks for the kernel editor, controls,
// timings, difference, the pixel probe and the kernel analysis; Tools opens code export, the
// method crossover sweep and the border-mode lab. The window keeps layout and menus: the state
// (image, parameters, results) lives in one WorkbenchDocument, which the panels and the view
// subscribe to.
#pragma once
#include <QMainWindow>
#include <QPoint>
#include <QVector>
#include <functional>
#include <memory>

#include "convlab/convolve.h"
#include "convlab/image.h"
#include "convlab/io.h"
#include "view/imageview.h"

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTimer;
class AnalysisPanel;
class BorderLabWindow;
class ControlsPanel;
class CrossoverDialog;
class DockLayout;
class Presentation;
class DifferencePanel;
class EstimateDialog;
class ExportDialog;
class GuideDialog;
class KernelDocument;
class KernelEditor;
class KernelTextEdit;
class ProbePanel;
class HistogramPanel;
class RenderController;
class ResultPresenter;
class ShortcutsDialog;
class TimingsPanel;
class WorkbenchDocument;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `persistent`: read and write QSettings (recent files, kernel, border, method, geometry).
    explicit MainWindow(bool persistent = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens an image file (any format of convlab::decodeImage): decoded on a worker while the
    // window stays live, with progress and Cancel in the status bar. On failure the error
    // reporter gets the message and the previous image stays.
    void openImageInBackground(const QString& path);
    // The same, returning once the file is shown or has failed (the event loop runs meanwhile):
    // for scripted use (command line, tests). Returns whether it loaded.
    bool openImage(const QString& path);
    // Shows an image that did not come from a file (sample chart, tests). `packed`: the same
    // image as decoded 8/16-bit samples, for the GPU upload (optional).
    void setSourceImage(convlab::Image image, const QString& title,
                        std::shared_ptr<const convlab::PackedImage> packed = {});
    // The bundled sample photograph; the synthetic test chart if it cannot be read.
    void openSample();
    // The image the program starts on: `path`, or the sample when it is empty. A file that
    // cannot be read leaves the sample in the window and its error in the status bar (and
    // with the error reporter): the window never opens empty.
    void openStartupImage(const QString& path);

    // Save Kernel and Open Kernel without their dialogs: the file's extension picks the form
    // (.json keeps every setting, anything else is text). Errors are reported; false then.
    bool saveKernelTo(const QString& path);
    bool openKernelFile(const QString& path);
    // Where Save Result proposes to write the current result ("SOURCE-KERNEL.png" beside the
    // source; empty without a result).
    QString suggestedResultPath() const;
    // File › Open Recent (newest first) and its Clear Menu entry.
    QMenu* recentMenu() const { return recentMenu_; }
    QStringList recentFiles() const { return recent_; }
    void clearRecentFiles();
    // File > Save Result without its dialogs: the colours on screen (`asDisplayed`, 8-bit, the
    // view's mapping and channel) or the values as `opts` says. Errors go to the reporter.
    void saveResultTo(const QString& path, bool asDisplayed, const convlab::SaveOptions& opts = {});
    // Parses kernel text (as Paste does); bad text is reported and the kernel kept.
    bool pasteKernelText(const QString& text);

    // Where errors go: a message box by default; tests install a recorder.
    void setErrorReporter(std::function<void(const QString&)> reporter);

    WorkbenchDocument* workbench() const { return doc_; }
    KernelDocument* kernelDocument() const;
    KernelEditor* kernelEditor() const { return editor_; }
    KernelTextEdit* kernelTextEdit() const { return kernelText_; }
    ControlsPanel* controls() const { return controls_; }
    RenderController* renderController() const;
    RenderController* compareController() const;
    ImageView* imageView() const { return view_; }
    // The dock panel of that type (ui/panels/panels.h), null when there is none.
    template <class Panel> Panel* panel() const { return findChild<Panel*>(QString(), Qt::FindChildrenRecursively); }
    std::shared_ptr<const convlab::Image> sourceImage() const;
    // How the last result reached the screen, as the Timings panel names it ("host memory to the
    // OpenGL buffer", "CUDA to the OpenGL buffer (interop)", ...): for --benchmark-latency.
    QString displayPath() const;
    // The parameters a render would use now (cancel flag unset).
    convlab::ConvolveParams currentParams() const;

    // Tools > Export code and Tools > Crossover sweep: open (or raise) the dialog, fed with the
    // current parameters (and image) as they change.
    ExportDialog* showExportDialog();
    CrossoverDialog* showCrossoverDialog();
    // Tools > Border-mode lab: the current source and parameters under every border mode,
    // following them while open. Null (and reported) without an image.
    BorderLabWindow* showBorderLab();
    // File > Estimate Kernel from Image Pair: open (or raise) the dialog; the current image is its
    // source unless it is given a file.
    EstimateDialog* showEstimateDialog();
    // Help > Keyboard Shortcuts (every QAction's key, read when shown) and Help > Teaching Guide.
    ShortcutsDialog* showShortcuts();
    GuideDialog* showGuide();
    static QString versionString();

    // The layout of a first launch (no saved geometry): a window sized from the screen's
    // available area (or `size` when given), the docks narrow enough that the image view gets
    // at least half the width.
    void applyFirstLaunchLayout(QSize size = {});
    // Whether no kernel was saved by an earlier session (a fresh settings folder).
    bool firstLaunch() const { return firstLaunch_; }
    // A kernel that shows what the tool does (the edge kernel 1 1 1; 1 -8 1; 1 1 1, drawn signed
    // in the diverging map the kernel calls for) in split view, "original | result": the first
    // thing a new user sees.
    void showFirstLaunchExample();
    // View > Reset Layout: every dock back where it was built, at its first-launch width.
    void resetLayout();
    // The rule that the image view keeps most of the width (window/docklayout.h).
    DockLayout* dockLayout() const { return layout_; }
    // View > Present (F11): the image and one panel, full screen, larger text.
    Presentation* presentation() const { return presentation_; }

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
    // View > Mark Clipped Pixels (view/clipmarks.h), kept in the settings.
    QAction* buildClipMarksAction(QMenu* viewMenu);
    void buildMenus();
    void buildFileMenu();
    void buildEditMenu();
    void buildViewMenu();
    // View's entries in groups: the modes, Mapping, Difference Scale, and the toggles and zooms.
    void addViewModeActions(QMenu* viewMenu);
    void buildMappingMenu(QMenu* viewMenu);
    void buildDifferenceScaleMenu(QMenu* viewMenu);
    void addViewToggles(QMenu* viewMenu);
    void buildToolsMenu();
    void buildHelpMenu();
    // View's entries for the layout: reset, presentation, text size.
    void buildLayoutMenu(QMenu* viewMenu);
    void buildDocks();
    void buildStatusBar();
    // Subscriptions of the view and the panels to the document.
    void connectDocument();
    // What follows a change of the document's source, parameters, result and comparison.
    void onSourceChanged();
    void onParamsChanged();
    void onComparisonChanged();
    void updateBusy();
    // The busy bar of a run that has gone on for a second: its seconds against its estimate.
    void showRunProgress();
    void reportError(const QString& message);
    // An error shown in the status bar belongs to what caused it: a valid kernel edit or a new
    // image removes it (and the kernel grid's message), as it no longer describes the window.
    void clearStaleErrors();
    void showPixel(int x, int y);
    // The status bar's read-out; `result` holds the result's values when they were just read.
    void showPixelValues(int x, int y, QVector<float> result);
    // Asks the document for the view mode; refused (Difference without a comparison), it says why.
    void showViewMode(display::Mode m);
    // Ticks the View menu's entries for the document's display state.
    void showDisplayStateInMenu();

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
    bool firstLaunch_ = true;
    WorkbenchDocument* doc_;
    ImageView* view_;
    KernelEditor* editor_;
    KernelTextEdit* kernelText_;
    ControlsPanel* controls_;
    DockLayout* layout_ = nullptr;
    Presentation* presentation_ = nullptr;
    ExportDialog* export_ = nullptr;
    CrossoverDialog* crossover_ = nullptr;
    BorderLabWindow* lab_ = nullptr;
    EstimateDialog* estimate_ = nullptr;
    ShortcutsDialog* shortcuts_ = nullptr;
    GuideDialog* guide_ = nullptr;
    QAction* padding_ = nullptr;
    QAction* loupe_ = nullptr; // View > Edge Loupe
    QLabel* pixelLabel_;
    QPoint hoveredPixel_{-1, -1};
    QLabel* zoomLabel_;
    QProgressBar* busy_;
    QTimer* progressTimer_ = nullptr; // while busy: showRunProgress every half second
    QPushButton* cancel_;
    QAction* stop_ = nullptr; // Edit > Stop Convolution (Escape), enabled while something runs
    QAction* runOverBudget_ = nullptr; // Edit > Run Over Budget, enabled after a refusal
    QMenu* recentMenu_;
    QActionGroup* modeGroup_;
    QActionGroup* mapGroup_;
    QAction* mappingFollows_ = nullptr; // View > Mapping > Automatic
    QActionGroup* scaleGroup_;
    QAction* pixelGrid_ = nullptr;
    QAction* floatRange_ = nullptr;
    QStringList recent_;
    ResultPresenter* presenter_; // the view's display path
    QSize shownSourceSize_; // of the source the view shows
    std::function<void(const QString&)> reporter_;
    QString shownError_; // the last error put in the status bar, until cleared
};
