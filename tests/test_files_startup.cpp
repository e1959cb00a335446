// SPDX-License-Identifier: GPL-3.0-or-later
// Start-up and the File menu keep their promises: --help and --version without a display, a
// start-up image that cannot be read leaves the sample and the error (never an empty window),
// Save Kernel's filter and what a text file drops, the JSON round trip, Save Result's suggested
// name, Open Recent's entries and Clear Menu, and errors that leave with the next valid edit or
// a new image. Run under Xvfb (xvfb-run -a): the image view draws with OpenGL.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "convlab/io.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneleditor.h"
#include "testutil.h"
#include "uitestutil.h"
#include "workbench/filenames.h"
#include "window/mainwindow.h"
#include "workbench/rendercontroller.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 20000;

// The entries of Open Recent that name files (not the separator, not Clear Menu).
QList<QAction*> recentEntries(QMenu* menu)
{
    QList<QAction*> entries;
    for (QAction* a : menu->actions())
        if (!a->isSeparator() && a->objectName() != QLatin1String("clearRecent")) entries << a;
    return entries;
}

// A kernel whose every setting differs from a text file's defaults.
KernelState everySettingSet()
{
    KernelState s;
    s.kernel = Kernel(5, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    s.kernel.anchorX = 0;
    s.kernel.anchorY = 2;
    s.normalize = true;
    s.scale = 2.5;
    s.offset = -0.25;
    s.semantics = Semantics::Correlation;
    return s;
}

} // namespace

class TestFilesStartup : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void helpAndVersionNeedNoDisplay_data();
    void helpAndVersionNeedNoDisplay();
    void unreadableStartupImageOpensTheSample_data();
    void unreadableStartupImageOpensTheSample();
    void saveKernelTakesTheFiltersExtension();
    void textFileDropsOnlyWhatDiffers();
    void kernelJsonRoundTripKeepsEverySetting();
    void textKernelKeepsTheValuesOnly();
    void resultSuggestionNamesSourceAndKernel();
    void windowSuggestsBesideTheSource();
    void openRecentNamesFilesAndClears();
    void errorsLeaveWithTheNextValidEdit();
    void errorsLeaveWithANewImage();

private:
    // A window that has not shown any image yet, its errors recorded.
    std::unique_ptr<MainWindow> makeWindow(bool persistent);
    // An image file (.npy: read by every build) in dir_.
    QString writeImage(const QString& name, std::uint32_t seed);

    std::unique_ptr<MainWindow> w_;
    QStringList errors_;
    std::unique_ptr<QTemporaryDir> dir_;
};

void TestFilesStartup::initTestCase() { test::useTestSettings("test_files_startup"); }

void TestFilesStartup::init()
{
    errors_.clear();
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
}

void TestFilesStartup::cleanup()
{
    w_.reset();
    dir_.reset();
    QSettings().clear();
}

std::unique_ptr<MainWindow> TestFilesStartup::makeWindow(bool persistent)
{
    auto w = std::make_unique<MainWindow>(persistent);
    w->setErrorReporter([this](const QString& m) { errors_ << m; });
    w->resize(900, 600);
    w->show();
    return w;
}

QString TestFilesStartup::writeImage(const QString& name, std::uint32_t seed)
{
    const QString path = dir_->filePath(name);
    saveImage(test::randomImage(11, 7, 3, seed), path.toStdString());
    return path;
}

void TestFilesStartup::helpAndVersionNeedNoDisplay_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("--help") << "--help"
                            << QStringList{"workbench for image convolution", "--benchmark-latency", "--version"};
    QTest::newRow("-h") << "-h" << QStringList{"--screenshot"};
    QTest::newRow("--version") << "--version" << QStringList{"ConvLab " + MainWindow::versionString()};
}

void TestFilesStartup::helpAndVersionNeedNoDisplay()
{
    QFETCH(QString, option);
    QFETCH(QStringList, expected);
    // No window system at all: what a terminal over ssh or a packaging script has.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(name);
    QProcess app;
    app.setProcessEnvironment(env);
    app.start(QStringLiteral(CONVLAB_APP_PATH), {option});
    QVERIFY(app.waitForFinished(kWaitMs));
    const QString out = QString::fromLocal8Bit(app.readAllStandardOutput());
    QCOMPARE(app.exitStatus(), QProcess::NormalExit);
    QVERIFY2(app.exitCode() == 0, qPrintable(QString::fromLocal8Bit(app.readAllStandardError())));
    for (const QString& text : expected) QVERIFY2(out.contains(text), qPrintable(text + " not in:\n" + out));
}

void TestFilesStartup::unreadableStartupImageOpensTheSample_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("content"); // empty: the file does not exist
    QTest::addColumn<QString>("reason");
    QTest::newRow("missing") << "missing.png" << QByteArray() << "no such file";
    QTest::newRow("not an image") << "notes.npy" << QByteArray("these are not pixels\n") << "";
}

void TestFilesStartup::unreadableStartupImageOpensTheSample()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, content);
    QFETCH(QString, reason);
    const QString path = dir_->filePath(name);
    if (!content.isEmpty()) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
    }
    w_ = makeWindow(false);
    QVERIFY(!w_->sourceImage());
    // At start-up the error is the status bar's (and the signal's), never a dialog.
    QStringList said;
    connect(w_.get(), &MainWindow::errorReported, this, [&said](const QString& m) { said << m; });
    w_->openStartupImage(path);
    QVERIFY(QTest::qWaitFor([&] { return w_->sourceImage() && !said.isEmpty(); }, kWaitMs));
    QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n'))); // the reporter: no dialog
    errors_ = said;
    // The sample (or, in a build without codecs, the chart made in its place): never empty.
    QVERIFY(w_->sourceImage()->width > 0);
    QCOMPARE(errors_.size(), 1);
    QVERIFY2(errors_.first().contains(name), qPrintable(errors_.first()));
    QVERIFY2(errors_.first().contains(reason), qPrintable(errors_.first()));
    QVERIFY(errors_.first().length() > QStringLiteral("Cannot open %1: ").arg(name).length()); // a reason
    QCOMPARE(w_->statusBar()->currentMessage(), errors_.first());
    QVERIFY(!w_->recentFiles().contains(path));
}

void TestFilesStartup::saveKernelTakesTheFiltersExtension()
{
    using namespace filenames;
    QCOMPARE(kernelSavePath("/k/edge", kernelJsonFilter()), QString("/k/edge.json"));
    QCOMPARE(kernelSavePath("/k/edge", kernelTextFilter()), QString("/k/edge.txt"));
    // A typed format wins over the filter; any other ending is part of the name.
    QCOMPARE(kernelSavePath("/k/edge.TXT", kernelJsonFilter()), QString("/k/edge.TXT"));
    QCOMPARE(kernelSavePath("/k/edge.json", kernelTextFilter()), QString("/k/edge.json"));
    QCOMPARE(kernelSavePath("/k/edge.v2", kernelTextFilter()), QString("/k/edge.v2.txt"));
    QVERIFY(isJsonKernelPath("/k/a.Json"));
    QVERIFY(!isJsonKernelPath("/k/a.json.txt"));
    // "Save as JSON" after choosing text: the extension, not the name, changes.
    QCOMPARE(withSuffix("/k/edge.txt", "json"), QString("/k/edge.json"));
    QCOMPARE(withSuffix("edge.v2.txt", "json"), QString("edge.v2.json"));
    QCOMPARE(withSuffix("rel/edge", "json"), QString("rel/edge.json"));
}

void TestFilesStartup::textFileDropsOnlyWhatDiffers()
{
    KernelState plain;
    plain.kernel = Kernel(3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1});
    QCOMPARE(plain.settingsATextFileDrops(), QStringList());
    plain.kernel.anchorX = 1; // the centre, named: a text file reads it back the same
    plain.kernel.anchorY = 1;
    QCOMPARE(plain.settingsATextFileDrops(), QStringList());

    const QStringList dropped = everySettingSet().settingsATextFileDrops();
    QCOMPARE(dropped, (QStringList{"normalize", "scale 2.5", "offset -0.25", "correlation", "anchor (0, 2)"}));
    KernelState scaleOnly = plain;
    scaleOnly.scale = 3;
    QCOMPARE(scaleOnly.settingsATextFileDrops(), QStringList{"scale 3"});
}

void TestFilesStartup::kernelJsonRoundTripKeepsEverySetting()
{
    w_ = makeWindow(false);
    const KernelState saved = everySettingSet();
    w_->kernelDocument()->reset(saved);
    const QString path = filenames::kernelSavePath(dir_->filePath("every"), filenames::kernelJsonFilter());
    QVERIFY(w_->saveKernelTo(path));
    QVERIFY(QFileInfo(dir_->filePath("every.json")).isFile());

    KernelState identity;
    identity.kernel = Kernel(1, 1, {1.0f});
    w_->kernelDocument()->reset(identity);
    QVERIFY(!(w_->kernelDocument()->state() == saved));
    QVERIFY(w_->openKernelFile(path));
    const KernelState& back = w_->kernelDocument()->state();
    QCOMPARE(back.kernel.values, saved.kernel.values);
    QCOMPARE(back.kernel.width, 5);
    QCOMPARE(back.kernel.ax(), 0);
    QCOMPARE(back.kernel.ay(), 2);
    QCOMPARE(back.normalize, true);
    QCOMPARE(back.scale, 2.5);
    QCOMPARE(back.offset, -0.25);
    QCOMPARE(back.semantics, Semantics::Correlation);
    QVERIFY(back == saved);
    QVERIFY(errors_.isEmpty());
}

void TestFilesStartup::textKernelKeepsTheValuesOnly()
{
    w_ = makeWindow(false);
    const KernelState saved = everySettingSet();
    w_->kernelDocument()->reset(saved);
    const QString path = filenames::kernelSavePath(dir_->filePath("every"), filenames::kernelTextFilter());
    QCOMPARE(QFileInfo(path).fileName(), QString("every.txt"));
    QVERIFY(w_->saveKernelTo(path));
    // Opened into a document at the defaults: what the file holds, and nothing else, comes back.
    KernelState plain;
    plain.kernel = Kernel(1, 1, {1.0f});
    w_->kernelDocument()->reset(plain);
    QVERIFY(w_->openKernelFile(path));
    const KernelState& back = w_->kernelDocument()->state();
    QCOMPARE(back.kernel.values, saved.kernel.values);
    // Exactly what settingsATextFileDrops warned of is lost.
    QCOMPARE(back.settingsATextFileDrops(), QStringList());
    QVERIFY(!(back == saved));
}

void TestFilesStartup::resultSuggestionNamesSourceAndKernel()
{
    using filenames::resultSuggestion;
    QCOMPARE(resultSuggestion("/data/photos/coffee.png", "coffee.png", "laplacian8"),
             QString("/data/photos/coffee-laplacian8.png"));
    QCOMPARE(resultSuggestion("/data/cat.v1.tif", "cat.v1.tif", "box 5x5 / 25"), QString("/data/cat.v1-box_5x5_25.png"));
    // No file behind the source: its title names it, and no folder is proposed.
    QCOMPARE(resultSuggestion("", "coffee.png", "gauss: σ=2"), QString("coffee-gauss_σ_2.png"));
    QCOMPARE(resultSuggestion("", "test chart", ""), QString("test_chart-kernel.png"));
    QCOMPARE(resultSuggestion("", "../..", "a/b\\c"), QString("image-a_b_c.png"));
    QCOMPARE(filenames::sanitizedFileName("  ..x:y*?  ", "f"), QString("x_y"));
}

void TestFilesStartup::windowSuggestsBesideTheSource()
{
    w_ = makeWindow(false);
    const QString path = writeImage("pebbles.npy", 3);
    QVERIFY(w_->openImage(path));
    QVERIFY(QTest::qWaitFor([&] { return !w_->suggestedResultPath().isEmpty(); }, kWaitMs));
    KernelState edge;
    edge.kernel = Kernel(3, 3, {1, 1, 1, 1, -8, 1, 1, 1, 1});
    edge.kernel.name = "edge";
    QVERIFY(test::renderAfter(w_->renderController(), [&] { w_->kernelDocument()->reset(edge); }, kWaitMs));
    QCOMPARE(w_->suggestedResultPath(), QDir(dir_->path()).filePath("pebbles-edge.png"));
}

void TestFilesStartup::openRecentNamesFilesAndClears()
{
    w_ = makeWindow(true);
    const QString first = writeImage("first.npy", 1);
    QDir(dir_->path()).mkdir("other");
    const QString second = writeImage("other/second.npy", 2);
    QVERIFY(w_->openImage(first));
    QVERIFY(w_->openImage(second));

    QMenu* menu = w_->recentMenu();
    QVERIFY(menu->isEnabled());
    const QList<QAction*> entries = recentEntries(menu);
    QCOMPARE(entries.size(), 2);
    // Newest first, each with its name and its folder; the whole path in the tooltip.
    QVERIFY2(entries[0]->text().contains("second.npy"), qPrintable(entries[0]->text()));
    QVERIFY(entries[0]->text().contains(QDir::toNativeSeparators(QFileInfo(second).absolutePath())));
    QVERIFY(entries[1]->text().contains("first.npy"));
    QVERIFY(entries[1]->text().contains(QDir::toNativeSeparators(QFileInfo(first).absolutePath())));
    QCOMPARE(entries[0]->toolTip(), QDir::toNativeSeparators(second));
    QCOMPARE(entries[1]->statusTip(), QDir::toNativeSeparators(first));
    QCOMPARE(QSettings().value("recentFiles").toStringList(), (QStringList{second, first}));

    QAction* clear = menu->findChild<QAction*>("clearRecent");
    QVERIFY(clear);
    clear->trigger();
    QVERIFY(QTest::qWaitFor([&] { return w_->recentFiles().isEmpty(); }, kWaitMs));
    QVERIFY(recentEntries(menu).isEmpty());
    QVERIFY(!menu->isEnabled());
    QVERIFY(!QSettings().contains("recentFiles"));
}

void TestFilesStartup::errorsLeaveWithTheNextValidEdit()
{
    w_ = makeWindow(false);
    QVERIFY(test::renderAfter(w_->renderController(),
                              [&] { w_->setSourceImage(test::randomImage(13, 9, 1, 5), "random"); }, kWaitMs));
    QStatusBar* status = w_->statusBar();

    QVERIFY(!w_->pasteKernelText("1 2; 3 x"));
    QCOMPARE(errors_.size(), 1);
    QCOMPARE(status->currentMessage(), errors_.first());
    QVERIFY(test::typeIntoCell(w_->kernelEditor()->table(), 0, 0, "abc"));
    QVERIFY(!w_->kernelEditor()->message().isEmpty());
    // A rejected edit changes nothing: both messages stay.
    QVERIFY(!w_->pasteKernelText("nan"));
    QCOMPARE(status->currentMessage(), errors_.last());
    QVERIFY(!w_->kernelEditor()->message().isEmpty());

    w_->kernelDocument()->setScale(2.0);
    QCOMPARE(status->currentMessage(), QString());
    QCOMPARE(w_->kernelEditor()->message(), QString());

    // A later message that is not the error is left alone.
    QVERIFY(!w_->pasteKernelText("1 2; 3 x"));
    w_->statusBar()->showMessage("Saved somewhere");
    w_->kernelDocument()->setOffset(1.0);
    QCOMPARE(status->currentMessage(), QString("Saved somewhere"));
}

void TestFilesStartup::errorsLeaveWithANewImage()
{
    w_ = makeWindow(false);
    QVERIFY(test::renderAfter(w_->renderController(),
                              [&] { w_->setSourceImage(test::randomImage(13, 9, 1, 5), "random"); }, kWaitMs));
    QVERIFY(test::typeIntoCell(w_->kernelEditor()->table(), 1, 1, "1/0"));
    QVERIFY(!w_->kernelEditor()->message().isEmpty());
    QVERIFY(!w_->pasteKernelText("1 2; 3"));
    QCOMPARE(w_->statusBar()->currentMessage(), errors_.last());

    // Set directly: an opened file's "Opening …" would replace the message and hide whether
    // the new image itself clears it.
    w_->setSourceImage(test::randomImage(8, 8, 3, 9), "next");
    QCOMPARE(w_->statusBar()->currentMessage(), QString());
    QCOMPARE(w_->kernelEditor()->message(), QString());

    // And a file opened: the grid's message goes with it too.
    QVERIFY(test::typeIntoCell(w_->kernelEditor()->table(), 1, 1, "x"));
    QVERIFY(!w_->kernelEditor()->message().isEmpty());
    QVERIFY(w_->openImage(writeImage("next.npy", 9)));
    QCOMPARE(w_->kernelEditor()->message(), QString());
}

QTEST_MAIN(TestFilesStartup)
#include "test_files_startup.moc"
