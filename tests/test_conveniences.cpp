// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench's conveniences, driven as a user drives them: before/after with Space and the
// Show Original toggle; chained filters (Use Result as Source) and their undo; the kernel as
// text beside the grid; Help's shortcut list and teaching guide; the pixel grid when zoomed in;
// the border-mode lab's magnified corners and edges, and its keys.
// Run under Xvfb (xvfb-run -a): the image view draws with OpenGL.
#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QFile>
#include <QMap>
#include <QSet>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QTextBrowser>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>
#include <algorithm>
#include <cmath>
#include <memory>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "view/imageview.h"
#include "kernel/kerneldocument.h"
#include "kernel/kerneltextedit.h"
#include "tools/borderlab.h"
#include "tools/helpdialogs.h"
#include "view/pixelgrid.h"
#include "window/mainwindow.h"
#include "panels/probepanel.h"
#include "workbench/rendercontroller.h"
#include "testutil.h"
#include "uitestutil.h"
#include "workbench/workbenchdocument.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 20000;
constexpr float kSourceGrey = 200.0f; // 8-bit source, flat
constexpr float kGain = 0.5f;         // the kernel halves it: the result is 100

// A flat 8-bit grey image: what the view draws is one known colour everywhere.
Image flatGrey(int w, int h, float value)
{
    Image im(w, h, 1, SampleDepth::U8);
    std::fill(im.data.begin(), im.data.end(), value);
    return im;
}

Kernel gainKernel(float gain, const char* name = "")
{
    Kernel k(3, 3, std::vector<float>(9, 0.0f));
    k.values[4] = gain;
    k.name = name;
    return k;
}

// The grey level drawn in the middle of the image pixel at the centre of the view (zoomed in,
// a grid line may run through the view's centre).
int centreGrey(ImageView* view)
{
    const QImage frame = view->grabFramebuffer();
    const QPointF p = view->widgetToImage(QPointF(view->width() / 2.0, view->height() / 2.0));
    const QPointF mid = view->origin() + (QPointF(std::floor(p.x()), std::floor(p.y())) + QPointF(0.5, 0.5)) * view->zoom();
    const double r = view->devicePixelRatioF();
    return qGray(frame.pixel(int(mid.x() * r), int(mid.y() * r)));
}

QAction* findAction(QWidget* w, const QString& text)
{
    for (QAction* a : w->findChildren<QAction*>())
        if (a->text().remove('&') == text) return a;
    return nullptr;
}

} // namespace

class TestConveniences : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void spaceHeldShowsTheOriginal();
    void showOriginalToggles();
    void originalReplacesEveryMode_data();
    void originalReplacesEveryMode();
    void resultBecomesTheSource();
    void chainStepsUndoOneAtATime();
    void chainStepOfAReplacedImageIsPassedOver();
    void chainNeedsACurrentResult();
    void kernelTextFollowsTheDocument();
    void typedKernelTextIsOneUndoStep_data();
    void typedKernelTextIsOneUndoStep();
    void badKernelTextKeepsTheKernel_data();
    void badKernelTextKeepsTheKernel();
    void kernelTextKeepsTheAnchor();
    void shortcutsListEveryAction();
    void noTwoCommandsShareAKey();
    void guideIsTheDocsFile();
    void pixelGridBeyond8x();
    void pixelValuesBeyond32x();
    void labMagnifiesEveryCornerAndEdge();
    void labShowsAOnePixelBand();
    void labClosesWithEscAndCtrlW();

private:
    bool renderAfter(const std::function<void()>& action)
    {
        return test::renderAfter(w_->renderController(), action, kWaitMs);
    }
    ImageView* view() const { return w_->imageView(); }
    QLabel* originalLabel() const { return view()->findChild<QLabel*>(QStringLiteral("originalLabel")); }

    // Edit > Use Result as Source, and the render of the new source.
    bool chainStep()
    {
        QAction* a = findAction(w_.get(), tr("Use Result as Source"));
        return a && a->isEnabled() && renderAfter([a] { a->trigger(); });
    }
    KernelTextEdit* kernelText() const { return w_->kernelTextEdit(); }
    // Replaces the box's text as typing would and presses Ctrl+Return.
    void typeKernelText(const QString& text)
    {
        QPlainTextEdit* box = kernelText()->textBox();
        box->setFocus();
        box->selectAll();
        QTest::keyClick(box, Qt::Key_Backspace);
        const QStringList lines = text.split('\n');
        for (int i = 0; i < lines.size(); ++i) {
            if (i > 0) QTest::keyClick(box, Qt::Key_Return);
            QTest::keyClicks(box, lines[i]);
        }
        QTest::keyClick(box, Qt::Key_Return, Qt::ControlModifier);
    }
    QUndoStack* undoStack() const { return w_->kernelDocument()->undoStack(); }
    // Every sample of the source equals v (to float rounding: the method auto picks may differ).
    // Within the FFT's tolerance (docs/semantics.md, Tolerances: 1e-5 of the result's size, here
    // about v): auto may run the FFT, as it did on a loaded machine whose fresh calibration
    // priced it low, and its results then miss v by a few 1e-6.
    bool sourceIs(float v) const
    {
        const auto& d = w_->sourceImage()->data;
        float worst = 0.0f;
        for (float x : d) worst = std::max(worst, std::abs(x - v));
        if (worst <= 2e-5f * std::abs(v)) return true;
        qWarning("source off by up to %g from %g", double(worst), double(v)); // for a failure's log
        return false;
    }

    std::unique_ptr<MainWindow> w_;
    QStringList errors_;
};

void TestConveniences::initTestCase()
{
    test::useTestSettings("test_conveniences");
}

void TestConveniences::init()
{
    errors_.clear();
    w_ = std::make_unique<MainWindow>(false);
    w_->setErrorReporter([this](const QString& m) { errors_ << m; });
    w_->resize(900, 600);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    // Shortcuts reach only the active window.
    w_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(w_.get()));
    w_->kernelDocument()->setKernel(gainKernel(kGain, "half"), "gain"); // no image yet: no render
    // The small image is fitted at more than 8x: no grid lines where colours are read.
    w_->workbench()->setPixelGridShown(false);
    QVERIFY(renderAfter([&] { w_->setSourceImage(flatGrey(40, 30, kSourceGrey), "grey"); }));
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(centreGrey(view()) - int(kSourceGrey * kGain)) <= 2, kWaitMs);
    view()->setFocus();
}

void TestConveniences::cleanup()
{
    QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    w_.reset();
}

void TestConveniences::spaceHeldShowsTheOriginal()
{
    const int result = centreGrey(view());
    QSignalSpy shown(view(), &ImageView::originalShownChanged);
    QTest::keyPress(view(), Qt::Key_Space);
    QVERIFY(view()->originalShown());
    QCOMPARE(view()->shownMode(), ImageView::ViewMode::Original);
    QCOMPARE(view()->viewMode(), ImageView::ViewMode::Result); // the chosen mode is kept
    QVERIFY(std::abs(centreGrey(view()) - int(kSourceGrey)) <= 2);
    QVERIFY(originalLabel() && originalLabel()->isVisible());
    QCOMPARE(originalLabel()->text(), tr("original"));
    // Auto-repeat while held changes nothing.
    QKeyEvent repeat(QEvent::KeyPress, Qt::Key_Space, Qt::NoModifier, QString(" "), true);
    QCoreApplication::sendEvent(view(), &repeat);
    QCOMPARE(shown.count(), 1);

    QTest::keyRelease(view(), Qt::Key_Space);
    QVERIFY(!view()->originalShown());
    QCOMPARE(centreGrey(view()), result);
    QVERIFY(!originalLabel()->isVisible());
    QCOMPARE(shown.count(), 2);
}

void TestConveniences::showOriginalToggles()
{
    QAction* toggle = findAction(w_.get(), tr("Show Original (hold Space)"));
    QVERIFY(toggle);
    QCOMPARE(toggle->shortcut(), QKeySequence(Qt::Key_O));
    // The probe explains the result: showing the original does not change what it reads.
    w_->panel<ProbePanel>()->setPixel(5, 5);
    QTRY_VERIFY_WITH_TIMEOUT(w_->panel<ProbePanel>()->displayedValue().has_value(), kWaitMs);
    const float probed = *w_->panel<ProbePanel>()->displayedValue();

    QTest::keyClick(view(), Qt::Key_O);
    QVERIFY(toggle->isChecked());
    QVERIFY(view()->originalShown());
    QVERIFY(std::abs(centreGrey(view()) - int(kSourceGrey)) <= 2);
    QVERIFY(originalLabel()->isVisible());
    QCOMPARE(*w_->panel<ProbePanel>()->displayedValue(), probed);
    QCOMPARE(probed, kSourceGrey * kGain);
    // A Space tap while toggled on leaves it on.
    QTest::keyClick(view(), Qt::Key_Space);
    QVERIFY(view()->originalShown());

    QTest::keyClick(view(), Qt::Key_O);
    QVERIFY(!toggle->isChecked());
    QVERIFY(!view()->originalShown());
    QVERIFY(std::abs(centreGrey(view()) - int(kSourceGrey * kGain)) <= 2);
}

void TestConveniences::originalReplacesEveryMode_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("split") << int(ImageView::ViewMode::Split);
    QTest::newRow("original") << int(ImageView::ViewMode::Original);
    QTest::newRow("result") << int(ImageView::ViewMode::Result);
}

void TestConveniences::originalReplacesEveryMode()
{
    QFETCH(int, mode);
    w_->workbench()->setViewMode(display::Mode(mode));
    w_->workbench()->setSplitPosition(0.0); // split: the result fills the view
    QTest::keyPress(view(), Qt::Key_Space);
    const QImage frame = view()->grabFramebuffer();
    for (const QPoint p : {QPoint(frame.width() / 2, frame.height() / 2), QPoint(frame.width() * 3 / 4, frame.height() / 2)})
        QVERIFY2(std::abs(qGray(frame.pixel(p)) - int(kSourceGrey)) <= 2, qPrintable(QString::number(qGray(frame.pixel(p)))));
    QTest::keyRelease(view(), Qt::Key_Space);
    QCOMPARE(view()->viewMode(), ImageView::ViewMode(mode));
}

void TestConveniences::resultBecomesTheSource()
{
    const Kernel half = w_->kernelDocument()->kernel();
    const auto result = w_->workbench()->result()->image;
    QVERIFY(chainStep());
    // The result itself, shared: every value and the shape.
    QCOMPARE(w_->sourceImage().get(), result.get());
    QVERIFY(sourceIs(kSourceGrey * kGain));
    QCOMPARE(w_->workbench()->title(), QStringLiteral("grey › half 3x3"));
    QVERIFY(w_->windowTitle().startsWith(QStringLiteral("grey › half 3x3 (40×30×1)")));
    QVERIFY(w_->workbench()->path().isEmpty());
    // The kernel stays: the new result is the filter applied twice.
    QCOMPARE(w_->kernelDocument()->kernel().values, half.values);
    QVERIFY(std::abs(w_->workbench()->result()->image->at(0, 10, 10) - kSourceGrey * kGain * kGain) <= 1e-3f);
    QVERIFY(chainStep());
    QCOMPARE(w_->workbench()->title(), QStringLiteral("grey › half 3x3 › half 3x3"));
    // An unnamed kernel is named by its size.
    Kernel edited = half;
    edited.name.clear();
    edited.values[4] = 2.0f;
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(edited, "double"); }));
    QVERIFY(chainStep());
    QCOMPARE(w_->workbench()->title(), QStringLiteral("grey › half 3x3 › half 3x3 › 3x3 kernel"));
    QVERIFY(sourceIs(kSourceGrey * kGain * kGain * 2.0f));
}

void TestConveniences::chainStepsUndoOneAtATime()
{
    const auto original = w_->sourceImage();
    const int before = undoStack()->index();
    QVERIFY(chainStep());
    QCOMPARE(undoStack()->index(), before + 1);
    QCOMPARE(undoStack()->undoText(), tr("Use Result as Source"));
    Kernel third = gainKernel(1.0f / 3.0f);
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(third, "third"); }));
    QVERIFY(chainStep());
    QVERIFY(sourceIs(kSourceGrey * kGain / 3.0f));

    // Each undo takes back one thing: the second step, the kernel edit, the first step.
    QVERIFY(renderAfter([&] { undoStack()->undo(); }));
    QVERIFY(sourceIs(kSourceGrey * kGain));
    QCOMPARE(w_->workbench()->title(), QStringLiteral("grey › half 3x3"));
    QCOMPARE(w_->kernelDocument()->kernel().values, third.values);
    QVERIFY(renderAfter([&] { undoStack()->undo(); }));
    QCOMPARE(w_->kernelDocument()->kernel().values, gainKernel(kGain).values);
    QVERIFY(sourceIs(kSourceGrey * kGain));
    QVERIFY(renderAfter([&] { undoStack()->undo(); }));
    QCOMPARE(w_->sourceImage(), original); // the very image, and its name
    QCOMPARE(w_->workbench()->title(), QStringLiteral("grey"));
    QVERIFY(w_->windowTitle().startsWith(QStringLiteral("grey (40×30×1)")));
    QCOMPARE(undoStack()->index(), before);

    // Redo goes forward again the same way.
    QVERIFY(renderAfter([&] { undoStack()->redo(); }));
    QVERIFY(sourceIs(kSourceGrey * kGain));
    QCOMPARE(w_->workbench()->title(), QStringLiteral("grey › half 3x3"));
}

void TestConveniences::chainStepOfAReplacedImageIsPassedOver()
{
    const Kernel first = w_->kernelDocument()->kernel();
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(gainKernel(0.25f), "quarter"); }));
    QVERIFY(chainStep());
    QVERIFY(renderAfter([&] { w_->setSourceImage(flatGrey(20, 10, 60.0f), "other"); }));
    const auto other = w_->sourceImage();
    // One undo: the chain step belongs to an image no longer shown, so it is dropped and the
    // kernel edit before it is undone instead.
    undoStack()->undo();
    QTRY_COMPARE_WITH_TIMEOUT(w_->kernelDocument()->kernel().values, first.values, kWaitMs);
    QCOMPARE(w_->sourceImage(), other);
    QCOMPARE(w_->workbench()->title(), QStringLiteral("other"));
}

void TestConveniences::chainNeedsACurrentResult()
{
    const auto source = w_->sourceImage();
    // The edit's render has not been received yet: the result on screen is of the old kernel.
    w_->kernelDocument()->setKernel(gainKernel(0.75f), "three quarters");
    QVERIFY(!w_->workbench()->canUseResultAsSource());
    QAction* a = findAction(w_.get(), tr("Use Result as Source"));
    QVERIFY(a && !a->isEnabled());
    QVERIFY_THROWS_EXCEPTION(convlab::Error, w_->workbench()->useResultAsSource());
    QCOMPARE(w_->sourceImage(), source);
    QTRY_VERIFY_WITH_TIMEOUT(a->isEnabled(), kWaitMs);
}

void TestConveniences::kernelTextFollowsTheDocument()
{
    // Values whose spelling matters: the text must read back as the very same floats.
    Kernel k(3, 2, {0.1f, -2.5f, 1e-7f, 1.0f / 3.0f, 0.0f, 16777216.0f});
    w_->kernelDocument()->setKernel(k, "odd values");
    const QString text = kernelText()->textBox()->toPlainText();
    QCOMPARE(text.count('\n'), 1); // a row a line
    const Kernel back = parseKernelText(text.toStdString());
    QCOMPARE(back.width, 3);
    QCOMPARE(back.height, 2);
    QCOMPARE(back.values, k.values);
    // A cell typed into the grid, and undo, rewrite the box.
    w_->kernelDocument()->setCell(1, 2, 7.0f);
    QCOMPARE(parseKernelText(kernelText()->textBox()->toPlainText().toStdString()).at(1, 2), 7.0f);
    undoStack()->undo();
    QCOMPARE(kernelText()->textBox()->toPlainText(), text);
    QVERIFY(!kernelText()->applyButton()->isEnabled()); // nothing to apply: it is the kernel
}

void TestConveniences::typedKernelTextIsOneUndoStep_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("lines") << QStringLiteral("1 2 1\n2 4 2\n1 2 1");
    QTest::newRow("semicolons and fractions") << QStringLiteral("1/16 2/16 1/16; 2/16 4/16 2/16; 1/16 2/16 1/16");
    QTest::newRow("commas, comment, 5x1") << QStringLiteral("# a row\n-1, 0.5, 2, 0.5, -1");
    QTest::newRow("one value") << QStringLiteral("3");
}

void TestConveniences::typedKernelTextIsOneUndoStep()
{
    QFETCH(QString, text);
    const Kernel before = w_->kernelDocument()->kernel();
    const int index = undoStack()->index();
    const Kernel want = parseKernelText(text.toStdString());
    QVERIFY(renderAfter([&] { typeKernelText(text); }));
    const Kernel& now = w_->kernelDocument()->kernel();
    QCOMPARE(now.width, want.width);
    QCOMPARE(now.height, want.height);
    QCOMPARE(now.values, want.values);
    QCOMPARE(undoStack()->index(), index + 1);
    QVERIFY(kernelText()->message().isEmpty());
    // The view shows the typed kernel's result.
    const Image expected = convolve(*w_->sourceImage(), w_->currentParams());
    QVERIFY(test::relativeError(*w_->workbench()->result()->image, expected, now, *w_->sourceImage()) <= 1e-6);
    // The box now shows the kernel in its own spelling, one row a line.
    QCOMPARE(kernelText()->textBox()->toPlainText(), KernelTextEdit::format(now));
    undoStack()->undo();
    QCOMPARE(w_->kernelDocument()->kernel().values, before.values);
    QCOMPARE(kernelText()->textBox()->toPlainText(), KernelTextEdit::format(before));
}

void TestConveniences::badKernelTextKeepsTheKernel_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("ragged rows") << QStringLiteral("1 2 1\n2 4");
    QTest::newRow("not a number") << QStringLiteral("1 x 1");
    QTest::newRow("not finite") << QStringLiteral("1 1e999 1");
    QTest::newRow("empty") << QStringLiteral("# nothing");
}

void TestConveniences::badKernelTextKeepsTheKernel()
{
    QFETCH(QString, text);
    QString parserSays;
    try {
        parseKernelText(text.toStdString());
    } catch (const Error& e) {
        parserSays = QString::fromUtf8(e.what());
    }
    QVERIFY(!parserSays.isEmpty());
    const Kernel before = w_->kernelDocument()->kernel();
    const int index = undoStack()->index();
    const quint64 renders = w_->renderController()->latestId();
    typeKernelText(text);
    QCOMPARE(kernelText()->message(), parserSays); // the CLI's words, one line
    QVERIFY(!parserSays.contains('\n'));
    QCOMPARE(w_->kernelDocument()->kernel().values, before.values);
    QCOMPARE(undoStack()->index(), index);
    QCOMPARE(w_->renderController()->latestId(), renders);
    QCOMPARE(kernelText()->textBox()->toPlainText(), text); // left for the user to fix
    // Typing on clears the message.
    QTest::keyClick(kernelText()->textBox(), Qt::Key_Space);
    QVERIFY(kernelText()->message().isEmpty());
}

void TestConveniences::kernelTextKeepsTheAnchor()
{
    w_->kernelDocument()->setAnchor(0, 2);
    typeKernelText(QStringLiteral("1 1 1; 1 1 1; 1 1 1"));
    QCOMPARE(w_->kernelDocument()->kernel().ax(), 0);
    QCOMPARE(w_->kernelDocument()->kernel().ay(), 2);
    // Another size: the default anchor, the centre.
    typeKernelText(QStringLiteral("1 1 1 1 1"));
    QCOMPARE(w_->kernelDocument()->kernel().ax(), 2);
    QCOMPARE(w_->kernelDocument()->kernel().ay(), 0);
}

namespace {

QString plain(const QAction* a) { return a->text().remove('&').remove(QStringLiteral("…")); }

QString keys(const QAction* a)
{
    QStringList k;
    for (const QKeySequence& s : a->shortcuts()) k << s.toString(QKeySequence::NativeText);
    return k.join(QStringLiteral(", "));
}

bool listed(const QTableWidget* t, const QString& command, const QString& keys)
{
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, 0)->text() == command && t->item(r, 1)->text() == keys) return true;
    return false;
}

} // namespace

void TestConveniences::shortcutsListEveryAction()
{
    ShortcutsDialog* d = w_->showShortcuts();
    QVERIFY(d->isVisible());
    int withKeys = 0;
    for (const QAction* a : w_->findChildren<QAction*>()) {
        if (a->shortcuts().isEmpty()) continue;
        ++withKeys;
        QVERIFY2(listed(d->table(), plain(a), keys(a)), qPrintable(plain(a) + " " + keys(a)));
    }
    QVERIFY(withKeys >= 15);
    for (const char* key : {"O", "F", "1", "Ctrl+Shift+R", "Ctrl+Z", "F1"})
        QVERIFY2(!d->table()->findItems(QString::fromLatin1(key), Qt::MatchExactly).isEmpty(), key);
    QVERIFY(!d->table()->findItems(tr("Space"), Qt::MatchExactly).isEmpty()); // keys of no menu
    // A command added later is listed the next time the dialog opens: nothing is written twice.
    QMenu* tools = nullptr;
    for (QAction* top : w_->menuBar()->actions())
        if (top->text().remove('&') == tr("Tools")) tools = top->menu();
    QVERIFY(tools);
    QAction* added = tools->addAction(QStringLiteral("Later command"));
    added->setShortcut(QKeySequence(QStringLiteral("Ctrl+Alt+J")));
    QVERIFY(!listed(d->table(), QStringLiteral("Later command"), keys(added)));
    w_->showShortcuts();
    QVERIFY(listed(d->table(), QStringLiteral("Later command"), keys(added)));
    const auto where = d->table()->findItems(QStringLiteral("Later command"), Qt::MatchExactly);
    QCOMPARE(d->table()->item(where.first()->row(), 2)->text(), tr("Tools"));
}

void TestConveniences::noTwoCommandsShareAKey()
{
    QMap<QString, QString> owner;
    for (const QAction* a : w_->findChildren<QAction*>())
        for (const QKeySequence& k : a->shortcuts()) {
            const QString key = k.toString(QKeySequence::PortableText);
            QVERIFY2(!owner.contains(key), qPrintable(key + ": " + owner.value(key) + " and " + plain(a)));
            owner.insert(key, plain(a));
        }
}

void TestConveniences::guideIsTheDocsFile()
{
    QFile file(QStringLiteral(CONVLAB_SOURCE_DIR "/docs/guide.md"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(GuideDialog::markdown(), QString::fromUtf8(file.readAll())); // built in, not a copy
    QAction* open = findAction(w_.get(), tr("Teaching Guide"));
    QVERIFY(open);
    QCOMPARE(open->shortcut(), QKeySequence(QKeySequence::HelpContents));
    open->trigger();
    auto* guide = w_->findChild<GuideDialog*>();
    QVERIFY(guide && guide->isVisible());
    const QString shown = guide->browser()->toPlainText();
    for (const char* panel : {"Kernel grid", "Timings", "Pixel Probe", "Difference", "Kernel Analysis",
                              "Border-mode lab", "Crossover sweep", "Export", "Estimate kernel",
                              "A suggested classroom sequence"})
        QVERIFY2(shown.contains(QString::fromLatin1(panel)), panel);
    QVERIFY(!shown.contains(QStringLiteral("SPDX"))); // the licence comment is not text
    QVERIFY(!shown.contains(QStringLiteral("**")));  // Markdown drawn, not shown
}

namespace {

// A view of 256x192 showing `result` over `source`, zoomed to `zoom` about its centre.
std::unique_ptr<ImageView> zoomedView(const Image& source, const Image& result, double zoom)
{
    auto v = std::make_unique<ImageView>();
    v->setSource(source);
    v->setResult(result);
    v->resize(256, 192);
    v->show();
    if (!QTest::qWaitForWindowExposed(v.get())) return nullptr;
    v->setZoom(zoom, QPointF(128, 96));
    return v;
}

// The grey drawn at widget column x, row y.
int greyAt(ImageView& v, int x, int y) { return qGray(v.grabFramebuffer().pixel(x, y)); }

} // namespace

void TestConveniences::pixelGridBeyond8x()
{
    const Image flat = flatGrey(12, 9, 240.0f);
    auto v = zoomedView(flat, flat, ImageView::kGridZoom);
    QVERIFY(v);
    // The image edge nearest the centre column: where a grid line would be.
    auto lineColumn = [&v] {
        const double z = v->zoom(), o = v->origin().x();
        return int(std::floor(o + std::ceil((128 - o) / z) * z));
    };
    QVERIFY(!v->pixelGridShown());
    QCOMPARE(greyAt(*v, lineColumn(), 96), 240); // 8x: no grid
    v->setZoom(16.0, QPointF(128, 96));
    QVERIFY(v->pixelGridShown());
    const int line = greyAt(*v, lineColumn(), 96);
    QVERIFY2(line < 200, qPrintable(QString::number(line))); // grey over the light image
    QCOMPARE(greyAt(*v, lineColumn() + 8, 96), 240);         // the cells stay as they were
    // View > Pixel Grid off.
    v->setPixelGridEnabled(false);
    QVERIFY(!v->pixelGridShown());
    QCOMPARE(greyAt(*v, lineColumn(), 96), 240);
}

void TestConveniences::pixelValuesBeyond32x()
{
    Image source(12, 9, 3, SampleDepth::U8), result(12, 9, 3, SampleDepth::U8);
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 12; ++x) {
                source.at(c, y, x) = float(10 * x + y + c);
                result.at(c, y, x) = -0.125f * float(x + 1) + float(c);
            }
    auto v = zoomedView(source, result, 24.0);
    QVERIFY(v);
    const QPoint cell = v->widgetToImage(QPointF(128, 96)).toPoint();
    QVERIFY(v->pixelGridShown());
    QVERIFY(PixelGrid(v->gridFrame()).cellText(cell.x(), cell.y()).isEmpty()); // 24x: lines only
    const QImage linesOnly = v->grabFramebuffer();

    v->setZoom(40.0, QPointF(128, 96));
    const QPoint at = v->widgetToImage(QPointF(128, 96)).toPoint();
    auto expected = [&at](const Image& im) {
        QStringList lines;
        for (int c = 0; c < 3; ++c) lines << QString::number(im.at(c, at.y(), at.x()));
        return lines.join('\n');
    };
    const PixelGrid grid(v->gridFrame());
    QCOMPARE(grid.cellText(at.x(), at.y()), expected(result));
    QVERIFY(grid.valueFontPx(3) >= 7);
    // The text is drawn: the cell's centre is no longer one flat colour.
    const QImage frame = v->grabFramebuffer();
    const double z = v->zoom();
    const QPointF corner = v->origin() + QPointF(at.x() * z, at.y() * z);
    QSet<QRgb> colours;
    for (int dy = 8; dy < 32; ++dy)
        for (int dx = 8; dx < 32; ++dx) colours.insert(frame.pixel(int(corner.x()) + dx, int(corner.y()) + dy));
    QVERIFY2(colours.size() > 3, qPrintable(QString::number(colours.size())));
    Q_UNUSED(linesOnly);
    // The original's values while it is shown, and on the left of Split.
    v->setOriginalShown(true);
    QCOMPARE(grid.cellText(at.x(), at.y()), expected(source));
    v->setOriginalShown(false);
    v->setViewMode(ImageView::ViewMode::Split);
    v->setSplitPosition(1.0);
    QCOMPARE(grid.cellText(at.x(), at.y()), expected(source));
    v->setSplitPosition(0.0);
    QCOMPARE(grid.cellText(at.x(), at.y()), expected(result));
    // Outside the image: nothing.
    QVERIFY(grid.cellText(-1, 0).isEmpty());
    QVERIFY(grid.cellText(12, 0).isEmpty());
}

namespace {

// Where each focus puts the middle of its corner or edge, in image pixels of a w x h image.
QPointF focusPoint(BorderLabWindow::EdgeFocus f, double w, double h)
{
    using F = BorderLabWindow::EdgeFocus;
    const double x = f == F::TopLeft || f == F::Left || f == F::BottomLeft    ? 0
                     : f == F::TopRight || f == F::Right || f == F::BottomRight ? w
                                                                                : w / 2;
    const double y = f == F::TopLeft || f == F::Top || f == F::TopRight          ? 0
                     : f == F::BottomLeft || f == F::Bottom || f == F::BottomRight ? h
                                                                                   : h / 2;
    return {x, y};
}

} // namespace

void TestConveniences::labMagnifiesEveryCornerAndEdge()
{
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(64, 48, 1, 11), "random"); }));
    BorderLabWindow* lab = w_->showBorderLab();
    QVERIFY(lab && QTest::qWaitForWindowExposed(lab));
    QTRY_VERIFY_WITH_TIMEOUT(!lab->busy(), kWaitMs);
    using F = BorderLabWindow::EdgeFocus;
    for (F f : {F::TopLeft, F::Top, F::TopRight, F::Left, F::Right, F::BottomLeft, F::Bottom, F::BottomRight}) {
        lab->setEdgeFocus(f);
        for (BorderMode mode : BorderLabWindow::kModes) {
            ImageView* v = lab->view(mode);
            // Magnified: the span of image pixels across the view's smaller side, so each
            // pixel is many screen pixels wide (and outlined by the grid).
            QCOMPARE(v->zoom(), std::min(v->width(), v->height()) / double(lab->edgeFocusSpan()));
            QVERIFY(v->zoom() > ImageView::kGridZoom);
            QCOMPARE(v->origin(), lab->view(BorderLabWindow::kModes[0])->origin());
            // The corner or the middle of the edge is on screen, with the outside beyond it.
            const QPointF at = v->origin() + focusPoint(f, 64, 48) * v->zoom();
            QVERIFY2(QRectF(0, 0, v->width(), v->height()).contains(at), qPrintable(QString::number(int(f))));
        }
    }
    // A new image is magnified the same way once computed.
    lab->setEdgeFocus(F::BottomRight);
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(40, 30, 1, 12), "smaller"); }));
    QTRY_VERIFY_WITH_TIMEOUT(!lab->busy(), kWaitMs);
    ImageView* v = lab->view(BorderMode::Wrap);
    const QPointF corner = v->origin() + QPointF(40, 30) * v->zoom();
    QVERIFY(QRectF(0, 0, v->width(), v->height()).contains(corner));
    // Back to the whole image.
    lab->setEdgeFocus(F::Whole);
    QVERIFY(v->widgetToImage(QPointF(0, 0)).x() <= 0.0 && v->widgetToImage(QPointF(0, 0)).y() <= 0.0);
    const QPointF far = v->widgetToImage(QPointF(v->width(), v->height()));
    QVERIFY(far.x() >= 40.0 && far.y() >= 30.0);
}

void TestConveniences::labShowsAOnePixelBand()
{
    // A 3x3 kernel: wrap and reflect differ in the outermost column only.
    Kernel box(3, 3, std::vector<float>(9, 1.0f / 9.0f));
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(box, "box"); }));
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(64, 48, 1, 13), "random"); }));
    BorderLabWindow* lab = w_->showBorderLab();
    QVERIFY(lab && QTest::qWaitForWindowExposed(lab));
    lab->setReferenceMode(BorderMode::Reflect);
    lab->setShowDifferences(true);
    lab->setEdgeFocus(BorderLabWindow::EdgeFocus::Left);
    QTRY_VERIFY_WITH_TIMEOUT(!lab->busy(), kWaitMs);
    QCOMPARE(lab->difference(BorderMode::Wrap).bandX, 1);
    ImageView* v = lab->view(BorderMode::Wrap);
    QTRY_VERIFY_WITH_TIMEOUT(v->hasDifference(), kWaitMs);
    const QImage frame = v->grabFramebuffer();
    const double r = v->devicePixelRatioF();
    auto shown = [&](int x, int y) {
        const QPointF mid = v->origin() + QPointF(x + 0.5, y + 0.5) * v->zoom();
        return frame.pixel(int(mid.x() * r), int(mid.y() * r));
    };
    // Column 0 lights up where the modes differ by a tenth of the lab's shared scale or more
    // (the largest difference of any mode, here constant's, is white; the heat map is then
    // visibly red), column 1 is black everywhere: a band of one image pixel drawn many screen
    // pixels wide.
    const Image& a = *lab->result(BorderMode::Wrap);
    const Image& b = *lab->result(BorderMode::Reflect);
    const double scale = lab->differenceScale();
    QVERIFY(scale > 0.0);
    int strong = 0, lit = 0;
    for (int y = 20; y < 28; ++y) {
        if (std::fabs(a.at(0, y, 0) - b.at(0, y, 0)) >= 0.1 * scale) {
            ++strong;
            if (qGray(shown(0, y)) > 10) ++lit;
        }
        QCOMPARE(qGray(shown(1, y)), 0);
    }
    QVERIFY(strong > 0);
    QCOMPARE(lit, strong);
    QVERIFY(v->zoom() >= 8.0);
}

void TestConveniences::labClosesWithEscAndCtrlW()
{
    for (const QKeySequence& key : {QKeySequence(QStringLiteral("Ctrl+W")), QKeySequence(Qt::Key_Escape)}) {
        BorderLabWindow* lab = w_->showBorderLab();
        QVERIFY(lab);
        // The keys act in the lab's own window only (its window has to be the active one).
        lab->activateWindow();
        QTRY_COMPARE(QApplication::activeWindow(), static_cast<QWidget*>(lab));
        QTest::keySequence(lab, key);
        QTRY_VERIFY2(!lab->isVisible(), qPrintable(key.toString()));
        QVERIFY(w_->isVisible()); // only the lab
    }
}

QTEST_MAIN(TestConveniences)
#include "test_conveniences.moc"
