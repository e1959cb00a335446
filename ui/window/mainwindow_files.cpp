// SPDX-License-Identifier: GPL-3.0-or-later
// Opening and saving images and kernels, the recent files and the settings kept between sessions.
#include "window/mainwindow.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <algorithm>
#include <string>

#include "panels/controlspanel.h"
#include "convlab/error.h"
#include "convlab/io.h"
#include "convlab/modes.h"
#include "convlab/testchart.h"
#include "kernel/kerneldocument.h"
#include "workbench/filenames.h"
#include "workbench/workbenchdocument.h"
#include "window/docklayout.h"
#include "window/presentation.h"

namespace {

constexpr int kMaxRecent = 8;

// What Save Result writes: the colours on screen (the default: the file looks as the view
// does, colour map included) or the values at a depth through a numeric mapping. The format
// comes from the file's extension; .npy holds values only.
bool askSaveOptions(QWidget* parent, const QString& path, bool& asDisplayed, convlab::SaveOptions& opts)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(QObject::tr("Save %1").arg(QFileInfo(path).fileName()));
    const bool npy = path.endsWith(".npy", Qt::CaseInsensitive);
    auto* content = new QComboBox;
    if (!npy) content->addItem(QObject::tr("As displayed: the colours on screen (8-bit)"), true);
    content->addItem(QObject::tr("Values, at a depth and mapping"), false);
    content->setToolTip(QObject::tr("As displayed writes what the view shows (its mapping, colour map and channel); "
                                    "values are for data"));
    auto* depth = new QComboBox;
    depth->addItem(npy ? QObject::tr("32-bit float") : QObject::tr("as the source"), -1);
    depth->addItem(QObject::tr("8-bit"), int(convlab::SampleDepth::U8));
    depth->addItem(QObject::tr("16-bit"), int(convlab::SampleDepth::U16));
    depth->addItem(QObject::tr("32-bit float"), int(convlab::SampleDepth::F32));
    auto* map = new QComboBox;
    for (convlab::OutputMap m : {convlab::OutputMap::Clamp, convlab::OutputMap::Abs, convlab::OutputMap::Normalize,
                                 convlab::OutputMap::Offset})
        map->addItem(QString::fromStdString(convlab::outputMapName(m)), int(m));
    map->setToolTip(QObject::tr("How float results become integer samples (float output keeps the values)"));
    auto showValues = [content, depth, map] {
        const bool values = !content->currentData().toBool();
        depth->setEnabled(values);
        map->setEnabled(values);
    };
    QObject::connect(content, &QComboBox::currentIndexChanged, &dialog, showValues);
    showValues();
    auto* form = new QFormLayout(&dialog);
    form->addRow(QObject::tr("Save"), content);
    form->addRow(QObject::tr("Depth"), depth);
    form->addRow(QObject::tr("Mapping"), map);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted) return false;
    asDisplayed = content->currentData().toBool();
    if (const int d = depth->currentData().toInt(); d >= 0) opts.depth = convlab::SampleDepth(d);
    opts.map = convlab::OutputMap(map->currentData().toInt());
    return true;
}

// RGBA8 colours as an 8-bit image of 3 channels, or 4 when `alpha` (planar, as the engine's).
convlab::Image coloursAsImage(const QImage& colours, bool alpha)
{
    const QImage rgba = colours.convertToFormat(QImage::Format_RGBA8888);
    const int channels = alpha ? 4 : 3;
    convlab::Image out(rgba.width(), rgba.height(), channels, convlab::SampleDepth::U8);
    for (int y = 0; y < rgba.height(); ++y) {
        const uchar* row = rgba.constScanLine(y);
        for (int x = 0; x < rgba.width(); ++x)
            for (int c = 0; c < channels; ++c) out.at(c, y, x) = float(row[4 * x + c]);
    }
    return out;
}

} // namespace

void MainWindow::saveResultTo(const QString& path, bool asDisplayed, const convlab::SaveOptions& opts)
{
    const auto result = doc_->hostResult();
    if (!result) {
        reportError(tr("The result could not be copied from the GPU."));
        return;
    }
    try {
        if (asDisplayed) {
            const bool alpha = result->channels == 2 || result->channels == 4;
            convlab::SaveOptions colours;
            colours.depth = convlab::SampleDepth::U8;
            convlab::saveImage(coloursAsImage(view_->resultAsDisplayed(*result), alpha), path.toStdString(), colours);
        } else {
            convlab::saveImage(*result, path.toStdString(), opts);
        }
        statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    } catch (const convlab::Error& e) {
        reportError(tr("Cannot save %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what())));
    }
}

namespace {

// A text kernel keeps only the values: whether to write JSON instead, text anyway or nothing.
enum class TextKernelChoice { Json, Text, Cancel };

TextKernelChoice askTextOrJson(QWidget* parent, const QString& path, const QStringList& dropped)
{
    QMessageBox box(QMessageBox::Question, QObject::tr("Save Kernel"),
                    QObject::tr("A text kernel file keeps only the values. %1 would not keep: %2.")
                        .arg(QFileInfo(path).fileName(), dropped.join(QStringLiteral(", "))),
                    QMessageBox::NoButton, parent);
    box.setInformativeText(QObject::tr("A JSON file keeps every setting and opens the same way."));
    QPushButton* json = box.addButton(QObject::tr("Save as JSON"), QMessageBox::AcceptRole);
    QPushButton* text = box.addButton(QObject::tr("Save as text anyway"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(json);
    box.exec();
    if (box.clickedButton() == json) return TextKernelChoice::Json;
    if (box.clickedButton() == text) return TextKernelChoice::Text;
    return TextKernelChoice::Cancel;
}

} // namespace

void MainWindow::openStartupImage(const QString& path)
{
    if (path.isEmpty())
        openSample();
    else
        openImageInBackground(path); // a failure with nothing shown opens the sample (connectDocument)
}

void MainWindow::openImageInBackground(const QString& path) { doc_->open(path); }

bool MainWindow::openImage(const QString& path)
{
    const quint64 before = doc_->generation().image;
    QEventLoop loop;
    auto done = connect(doc_, &WorkbenchDocument::sourceChanged, &loop, [&loop] { loop.exit(0); });
    auto failed = connect(doc_, &WorkbenchDocument::openFailed, &loop, [&loop] { loop.exit(1); });
    doc_->open(path);
    if (doc_->opening()) loop.exec();
    disconnect(done);
    disconnect(failed);
    return doc_->generation().image != before;
}

void MainWindow::setSourceImage(convlab::Image image, const QString& title,
                                std::shared_ptr<const convlab::PackedImage> packed)
{
    doc_->setSource(std::move(image), title, {}, std::move(packed));
}

void MainWindow::openSample()
{
    Q_INIT_RESOURCE(resources);
    // The engine reads files: the embedded photograph goes through a temporary copy.
    const QString name = QStringLiteral("coffee.png");
    QTemporaryDir dir;
    const QString copy = dir.filePath(name);
    if (dir.isValid() && QFile::copy(":/samples/" + name, copy)) {
        try {
            WorkbenchDocument::Decoded decoded = WorkbenchDocument::decode(copy);
            setSourceImage(std::move(decoded.image), name, std::move(decoded.packed));
            return;
        } catch (const convlab::Error&) {
            // Builds without image codecs read only .npy: the chart below needs no file.
        }
    }
    setSourceImage(convlab::makeTestChart(), tr("test chart"));
}

QString MainWindow::lastDir() const { return doc_->path().isEmpty() ? QString() : QFileInfo(doc_->path()).path(); }

void MainWindow::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Image"), lastDir(),
        tr("Images (*.png *.jpg *.jpeg *.tif *.tiff *.bmp *.pgm *.ppm *.pnm *.webp *.npy);;All files (*)"));
    if (!path.isEmpty()) openImageInBackground(path);
}

void MainWindow::saveResultDialog()
{
    const WorkbenchDocument::Result* r = doc_->result();
    if (!r) {
        reportError(tr("There is no result to save yet."));
        return;
    }
    const auto result = doc_->hostResult(); // kept alive while the dialogs are open
    if (!result) {
        reportError(tr("The result could not be copied from the GPU."));
        return;
    }
    QString path = QFileDialog::getSaveFileName(this, tr("Save Result"), suggestedResultPath(),
                                                tr("PNG (*.png);;TIFF (*.tif *.tiff);;NumPy array (*.npy)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += ".png";
    convlab::SaveOptions opts;
    bool asDisplayed = true;
    if (!askSaveOptions(this, path, asDisplayed, opts)) return;
    saveResultTo(path, asDisplayed, opts);
}

QString MainWindow::suggestedResultPath() const
{
    const WorkbenchDocument::Result* r = doc_->result();
    if (!r) return {};
    return filenames::resultSuggestion(doc_->path(), doc_->title(), QString::fromStdString(r->params.kernel.name));
}

void MainWindow::openKernelDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Kernel"), lastDir(),
                                                      tr("Kernels (*.json *.txt *.kernel);;All files (*)"));
    if (!path.isEmpty()) openKernelFile(path);
}

bool MainWindow::openKernelFile(const QString& path)
{
    try {
        if (!QFileInfo(path).isFile()) throw convlab::Error("no such file: " + path.toStdString());
        doc_->kernel()->setSpec(convlab::loadKernelSpec(path.toStdString()),
                                tr("Open kernel %1").arg(QFileInfo(path).fileName()));
        return true;
    } catch (const convlab::Error& e) {
        reportError(tr("Cannot open the kernel %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what())));
        return false;
    }
}

void MainWindow::saveKernelDialog()
{
    QString filter = filenames::kernelJsonFilter();
    const QString typed = QFileDialog::getSaveFileName(
        this, tr("Save Kernel"), lastDir(), filenames::kernelJsonFilter() + ";;" + filenames::kernelTextFilter(),
        &filter);
    if (typed.isEmpty()) return;
    QString path = filenames::kernelSavePath(typed, filter);
    const QStringList dropped = doc_->kernel()->state().settingsATextFileDrops();
    if (!filenames::isJsonKernelPath(path) && !dropped.isEmpty()) {
        switch (askTextOrJson(this, path, dropped)) {
        case TextKernelChoice::Json: path = filenames::withSuffix(path, QStringLiteral("json")); break;
        case TextKernelChoice::Text: break;
        case TextKernelChoice::Cancel: return;
        }
    }
    saveKernelTo(path);
}

bool MainWindow::saveKernelTo(const QString& path)
{
    try {
        convlab::saveKernelFile(doc_->kernel()->state().toSpec(), path.toStdString());
        statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
        return true;
    } catch (const convlab::Error& e) {
        reportError(tr("Cannot save the kernel %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what())));
        return false;
    }
}

void MainWindow::addRecent(const QString& path)
{
    recent_.removeAll(path);
    recent_.prepend(path);
    while (recent_.size() > kMaxRecent) recent_.removeLast();
    rebuildRecentMenu();
    if (persistent_) QSettings().setValue("recentFiles", recent_);
}

void MainWindow::clearRecentFiles()
{
    recent_.clear();
    rebuildRecentMenu();
    if (persistent_) QSettings().remove("recentFiles");
}

void MainWindow::rebuildRecentMenu()
{
    recentMenu_->clear();
    // Two files of one name in different folders must be told apart: the folder is in the entry.
    for (const QString& path : recent_) {
        QAction* a =
            recentMenu_->addAction(filenames::recentEntryText(path), this, [this, path] { openImageInBackground(path); });
        a->setToolTip(QDir::toNativeSeparators(path));
        a->setStatusTip(a->toolTip());
    }
    if (!recent_.isEmpty()) {
        recentMenu_->addSeparator();
        QAction* clear = recentMenu_->addAction(tr("Clear Menu"));
        clear->setObjectName("clearRecent");
        // Queued: clearing deletes the menu's actions, this one among them, which must not go
        // while it is still emitting.
        connect(clear, &QAction::triggered, this, &MainWindow::clearRecentFiles, Qt::QueuedConnection);
    }
    recentMenu_->setToolTipsVisible(true);
    recentMenu_->setEnabled(!recent_.isEmpty());
}

void MainWindow::readSettings()
{
    QSettings s;
    restoreGeometry(s.value("geometry").toByteArray());
    layout_->restore(s.value("windowState").toByteArray());
    TextScale::set(s.value("textScale", 1.0).toDouble());
    recent_ = s.value("recentFiles").toStringList();
    // Entries written by another version may not parse: each falls back to its default. A
    // backend this machine cannot run (settings of a machine with a GPU) is not taken.
    WorkbenchDocument::RunSettings run = doc_->runSettings();
    auto read = [&s](const char* key, auto parse, auto& into) {
        try {
            if (s.contains(key)) into = parse(s.value(key).toString().toStdString());
        } catch (const convlab::Error&) {
        }
    };
    read("border", [](const std::string& t) { return convlab::parseBorder(t); }, run.border);
    read("method", [](const std::string& t) { return convlab::parseMethod(t); }, run.method);
    convlab::Device device = run.device;
    read("device", [](const std::string& t) { return convlab::parseDevice(t); }, device);
    const convlab::BackendInfo& backend = convlab::backendInfo(device);
    if (!backend.available || backend.available(nullptr)) run.device = device;
    run.threads = std::max(0, s.value("threads", 0).toInt());
    doc_->setRunSettings(run);
    firstLaunch_ = !s.contains("kernel");
    try {
        if (s.contains("kernel"))
            doc_->kernel()->reset(
                KernelState::fromSpec(convlab::parseKernelJson(s.value("kernel").toString().toStdString())));
    } catch (const convlab::Error&) {
    }
}

void MainWindow::writeSettings()
{
    QSettings s;
    s.setValue("geometry", saveGeometry());
    s.setValue("windowState", saveState());
    s.setValue("textScale", TextScale::current());
    s.setValue("recentFiles", recent_);
    const WorkbenchDocument::RunSettings& run = doc_->runSettings();
    QString border = QString::fromStdString(convlab::borderName(run.border.mode));
    if (run.border.mode == convlab::BorderMode::Constant) border += ':' + QString::number(run.border.value, 'g', 9);
    s.setValue("border", border);
    s.setValue("method", QString::fromStdString(convlab::methodName(run.method)));
    s.setValue("device", QString::fromStdString(convlab::deviceName(run.device)));
    s.setValue("threads", run.threads);
    s.setValue("kernel", QString::fromStdString(convlab::kernelToJson(doc_->kernel()->state().toSpec())));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    const QList<QUrl> urls = e->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    const QList<QUrl> urls = e->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    e->acceptProposedAction();
    openImageInBackground(urls.first().toLocalFile());
}
