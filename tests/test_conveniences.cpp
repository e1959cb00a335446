// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench's conveniences, driven as a user drives them: before/after with Space and the
// Show Original toggle.
// Run under Xvfb (xvfb-run -a): the image view is a QOpenGLWidget.
#include <QAction>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>
#include <memory>

#include "convlab/convolve.h"
#include "imageview.h"
#include "kerneldocument.h"
#include "mainwindow.h"
#include "probepanel.h"
#include "rendercontroller.h"
#include "testutil.h"
#include "uitestutil.h"
#include "workbenchdocument.h"

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

Kernel gainKernel(float gain)
{
    Kernel k(3, 3, std::vector<float>(9, 0.0f));
    k.values[4] = gain;
    return k;
}

// The grey level drawn at the centre of the view.
int centreGrey(ImageView* view)
{
    const QImage frame = view->grabFramebuffer();
    return qGray(frame.pixel(frame.width() / 2, frame.height() / 2));
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

private:
    bool renderAfter(const std::function<void()>& action)
    {
        return test::renderAfter(w_->renderController(), action, kWaitMs);
    }
    ImageView* view() const { return w_->imageView(); }
    QLabel* originalLabel() const { return view()->findChild<QLabel*>(QStringLiteral("originalLabel")); }

    std::unique_ptr<MainWindow> w_;
    QStringList errors_;
};

void TestConveniences::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("ConvLabTest");
    QCoreApplication::setApplicationName("test_conveniences");
    QSettings().clear();
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
    w_->kernelDocument()->setKernel(gainKernel(kGain), "gain"); // no image yet: no render
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
    w_->probePanel()->setPixel(5, 5);
    QTRY_VERIFY_WITH_TIMEOUT(w_->probePanel()->displayedValue().has_value(), kWaitMs);
    const float probed = *w_->probePanel()->displayedValue();

    QTest::keyClick(view(), Qt::Key_O);
    QVERIFY(toggle->isChecked());
    QVERIFY(view()->originalShown());
    QVERIFY(std::abs(centreGrey(view()) - int(kSourceGrey)) <= 2);
    QVERIFY(originalLabel()->isVisible());
    QCOMPARE(*w_->probePanel()->displayedValue(), probed);
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
    view()->setViewMode(ImageView::ViewMode(mode));
    view()->setSplitPosition(0.0); // split: the result fills the view
    QTest::keyPress(view(), Qt::Key_Space);
    const QImage frame = view()->grabFramebuffer();
    for (const QPoint p : {QPoint(frame.width() / 2, frame.height() / 2), QPoint(frame.width() * 3 / 4, frame.height() / 2)})
        QVERIFY2(std::abs(qGray(frame.pixel(p)) - int(kSourceGrey)) <= 2, qPrintable(QString::number(qGray(frame.pixel(p)))));
    QTest::keyRelease(view(), Qt::Key_Space);
    QCOMPARE(view()->viewMode(), ImageView::ViewMode(mode));
}

QTEST_MAIN(TestConveniences)
#include "test_conveniences.moc"
