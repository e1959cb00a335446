// SPDX-License-Identifier: GPL-3.0-or-later
// View > Channel: the menu lists the image's channels, the view draws the chosen one alone as
// grey (every mapping's range unchanged), the pixel probe, the Difference and the Histogram
// panels follow the choice, an image without the channel sets it back to All; per-channel
// comparison statistics against the whole. Run under Xvfb (xvfb-run -a).
#include <QAction>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <memory>

#include "view/channelmenu.h"
#include "panels/controlspanel.h"
#include "convlab/compare.h"
#include "convlab/error.h"
#include "panels/differencepanel.h"
#include "panels/histogrampanel.h"
#include "view/imageview.h"
#include "kernel/kerneldocument.h"
#include "window/mainwindow.h"
#include "panels/probepanel.h"
#include "workbench/rendercontroller.h"
#include "testutil.h"
#include "uitestutil.h"
#include "workbench/workbenchdocument.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 30000;

// A flat 8-bit image of one colour (and alpha, when given) per channel.
Image flat(std::vector<float> levels, bool hasAlpha = false)
{
    Image im(240, 160, int(levels.size()), SampleDepth::U8); // fitted below the pixel grid's zoom
    for (int c = 0; c < im.channels; ++c) std::fill(im.plane(c), im.plane(c) + im.planeSize(), levels[std::size_t(c)]);
    im.hasAlpha = hasAlpha;
    return im;
}

QRgb centre(ImageView* view)
{
    const QImage frame = view->grabFramebuffer();
    return frame.pixel(frame.width() / 2, frame.height() / 2);
}

bool near(QRgb got, int r, int g, int b)
{
    return std::abs(qRed(got) - r) <= 1 && std::abs(qGreen(got) - g) <= 1 && std::abs(qBlue(got) - b) <= 1;
}

QStringList entries(QMenu* menu)
{
    QStringList out;
    for (QAction* a : menu->actions()) out << a->text().remove('&');
    return out;
}

} // namespace

class TestChannels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void menuListsTheChannels();
    void viewDrawsOneChannelAsGrey();
    void panelsFollowTheChoice();
    void differenceOfOneChannel();
    void perChannelComparison();

private:
    bool renderAfter(const std::function<void()>& action)
    {
        return test::renderAfter(w_->renderController(), action, kWaitMs);
    }
    ChannelMenu* menu() const { return w_->findChild<ChannelMenu*>("channelMenu"); }
    WorkbenchDocument* doc() const { return w_->workbench(); }

    std::unique_ptr<MainWindow> w_;
};

void TestChannels::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("ConvLabTest");
    QCoreApplication::setApplicationName("test_channels");
    QSettings().clear();
}

void TestChannels::init()
{
    w_ = std::make_unique<MainWindow>(false);
    w_->resize(1000, 700);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    w_->workbench()->setMapping(ImageView::Mapping::Clamp);
    w_->workbench()->setViewMode(ImageView::ViewMode::Result);
    QVERIFY(renderAfter([&] { w_->setSourceImage(flat({200, 100, 50}), "rgb"); }));
}

void TestChannels::cleanup() { w_.reset(); }

void TestChannels::menuListsTheChannels()
{
    QVERIFY(menu());
    QCOMPARE(entries(menu()), (QStringList{"All", "R", "G", "B"}));
    QVERIFY(menu()->isEnabled());
    QVERIFY(menu()->actionFor(-1)->isChecked());

    QVERIFY(renderAfter([&] { w_->setSourceImage(flat({200, 100, 50, 128}, true), "rgba"); }));
    QCOMPARE(entries(menu()), (QStringList{"All", "R", "G", "B", "A"}));
    menu()->actionFor(3)->trigger();
    QCOMPARE(doc()->displayChannel(), 3);
    QVERIFY(menu()->actionFor(3)->isChecked());

    // A grey image has no channel 3: back to All, and nothing to choose.
    QSignalSpy changed(doc(), &WorkbenchDocument::displayChannelChanged);
    QVERIFY(renderAfter([&] { w_->setSourceImage(flat({90}), "grey"); }));
    QCOMPARE(doc()->displayChannel(), -1);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(entries(menu()), (QStringList{"All", "Grey"}));
    QVERIFY(!menu()->isEnabled());
    QVERIFY(menu()->actionFor(-1)->isChecked());
    QCOMPARE(w_->imageView()->displayChannel(), -1);

    // Grey plus alpha; a channel the image does not have is refused in one line.
    QVERIFY(renderAfter([&] { w_->setSourceImage(flat({90, 255}, true), "grey+alpha"); }));
    QCOMPARE(entries(menu()), (QStringList{"All", "Grey", "A"}));
    try {
        doc()->setDisplayChannel(2);
        QFAIL("no error");
    } catch (const Error& e) {
        QCOMPARE(QString(e.what()), QStringLiteral("channel 2 is not one of the image's 2 channels"));
    }
    QCOMPARE(doc()->displayChannel(), -1);
}

void TestChannels::viewDrawsOneChannelAsGrey()
{
    ImageView* view = w_->imageView();
    QVERIFY2(near(centre(view), 200, 100, 50), qPrintable(QString::number(centre(view), 16)));
    const int grey[] = {200, 100, 50};
    for (int c = 0; c < 3; ++c) {
        menu()->actionFor(c)->trigger();
        QCOMPARE(view->displayChannel(), c);
        QVERIFY2(near(centre(view), grey[c], grey[c], grey[c]), qPrintable(QString::number(centre(view), 16)));
    }
    // The mapping still applies, with its range over every colour channel: normalize spreads
    // 50..200, so G (100) is a third of the way.
    w_->workbench()->setMapping(ImageView::Mapping::Normalize);
    menu()->actionFor(1)->trigger();
    const int third = int(std::lround(255.0 * 50 / 150));
    QVERIFY2(near(centre(view), third, third, third), qPrintable(QString::number(centre(view), 16)));
    w_->workbench()->setMapping(ImageView::Mapping::Clamp);
    // The original too, in Original mode.
    w_->workbench()->setViewMode(ImageView::ViewMode::Original);
    menu()->actionFor(2)->trigger();
    QVERIFY(near(centre(view), 50, 50, 50));
    menu()->actionFor(-1)->trigger();
    QVERIFY(near(centre(view), 200, 100, 50));

    // Alpha alone, as grey (no checkerboard).
    w_->workbench()->setViewMode(ImageView::ViewMode::Result);
    QVERIFY(renderAfter([&] { w_->setSourceImage(flat({200, 100, 50, 128}, true), "rgba"); }));
    menu()->actionFor(3)->trigger();
    QVERIFY(near(centre(view), 128, 128, 128));

    // A picture to look at: the sample photo, split view, green alone.
    if (const QByteArray dir = qgetenv("CONVLAB_TEST_GRAB_DIR"); !dir.isEmpty()) {
        QVERIFY(renderAfter([&] { w_->openSample(); }));
        w_->workbench()->setViewMode(ImageView::ViewMode::Split);
        menu()->actionFor(1)->trigger();
        QTest::qWait(300);
        w_->grab().save(QString::fromLocal8Bit(dir) + "/channel_green.png");
    }
}

void TestChannels::panelsFollowTheChoice()
{
    ProbePanel* probe = w_->panel<ProbePanel>();
    HistogramPanel* histogram = w_->panel<HistogramPanel>();
    w_->controls()->setMethod(Method::Reference);
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(24, 16, 3, 8), "random"); }));
    QCOMPARE(probe->channel(), 0);
    doc()->setDisplayChannel(2);
    QCOMPARE(probe->channel(), 2);
    QCOMPARE(probe->probe().channel, 2);
    QCOMPARE(probe->displayedValue().value(), w_->renderController()->result()->at(2, probe->pixel().y(), probe->pixel().x()));
    QCOMPARE(histogram->channel(), 2);
    // A new result of the same image keeps the channel in the probe.
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setScale(0.5); }));
    QCOMPARE(probe->channel(), 2);
    // All leaves the probe's channel as it was; the histogram draws every channel again.
    doc()->setDisplayChannel(-1);
    QCOMPARE(probe->channel(), 2);
    QCOMPARE(histogram->channel(), -1);
    doc()->setDisplayChannel(1);
    QCOMPARE(probe->channel(), 1);
}

void TestChannels::differenceOfOneChannel()
{
    // Path A fft, path B the reference: they differ by rounding in every channel.
    QVERIFY(renderAfter([&] {
        w_->kernelDocument()->setKernel(makePreset("gaussian", "sigma=2"), "gaussian");
        w_->setSourceImage(test::randomImage(40, 30, 3, 6), "random");
        w_->controls()->setMethod(Method::Fft);
    }));
    QSignalSpy compared(doc(), &WorkbenchDocument::comparisonChanged);
    emit w_->panel<DifferencePanel>()->compareRequested();
    QVERIFY(compared.wait(kWaitMs));
    const WorkbenchDocument::Comparison* c = doc()->comparison();
    QVERIFY(c);
    QCOMPARE(int(c->channelStats.size()), 3);
    const Image& a = *doc()->result()->image;
    const Image& b = *w_->compareController()->result();
    const QString all = w_->panel<DifferencePanel>()->statsText();
    QVERIFY(!all.contains("channel"));
    QVERIFY(all.contains(QString::number(compareImages(a, b).maxAbs, 'g', 6)));

    doc()->setDisplayChannel(1);
    const QString green = w_->panel<DifferencePanel>()->statsText();
    QVERIFY2(green.startsWith("channel G only"), qPrintable(green));
    const DiffStats g = compareImages(a, b, 1);
    QCOMPARE(c->channelStats[1].maxAbs, g.maxAbs);
    QVERIFY(green.contains(QString::number(g.maxAbs, 'g', 6)));
    QVERIFY(green.contains(QString::number(g.rmse, 'g', 6)));
    doc()->setDisplayChannel(-1);
    QCOMPARE(w_->panel<DifferencePanel>()->statsText(), all);
}

void TestChannels::perChannelComparison()
{
    const Image a = test::randomImage(13, 9, 3, 1), b = test::randomImage(13, 9, 3, 2);
    const DiffStats whole = compareImages(a, b);
    double maxAbs = 0, sumSq = 0;
    long long n = 0;
    for (int c = 0; c < 3; ++c) {
        const DiffStats s = compareImages(a, b, c);
        QCOMPARE(s.maxC, c);
        QCOMPARE(s.finiteBoth, 13LL * 9);
        maxAbs = std::max(maxAbs, s.maxAbs);
        sumSq += s.rmse * s.rmse * double(s.finiteBoth);
        n += s.finiteBoth;
    }
    QCOMPARE(maxAbs, whole.maxAbs);
    QCOMPARE(n, whole.finiteBoth);
    QVERIFY(std::fabs(std::sqrt(sumSq / double(n)) - whole.rmse) <= 1e-12 * whole.rmse);
    QVERIFY_THROWS_EXCEPTION(Error, compareImages(a, b, 3));
    QVERIFY_THROWS_EXCEPTION(Error, compareImages(a, b, -2));
}

QTEST_MAIN(TestChannels)
#include "test_channels.moc"
