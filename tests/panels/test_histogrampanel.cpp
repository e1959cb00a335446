// SPDX-License-Identifier: GPL-3.0-or-later
// The Histogram panel: counts of the result and the source as the document changes them
// (against convlab::imageHistogram), counts that add up to the pixels, the display mapping's
// markers as the view's mapping changes, non-finite values listed apart, large images counted
// on the worker with the newest winning. Run under Xvfb (xvfb-run -a).
#include <QCheckBox>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <memory>
#include <set>

#include "convlab/imagestats.h"
#include "panels/panels.h"
#include "panels/histogrampanel.h"
#include "view/imageview.h"
#include "kernel/kerneldocument.h"
#include "window/mainwindow.h"
#include "workbench/rendercontroller.h"
#include "testutil.h"
#include "uitestutil.h"
#include "workbench/workbenchdocument.h"

using namespace convlab;
using Which = HistogramPanel::Which;

namespace {

constexpr int kWaitMs = 30000;

// 8-bit grey image: a ramp 0..255 over 16x16, one pixel of each level.
Image ramp()
{
    Image im(16, 16, 1, SampleDepth::U8);
    for (int i = 0; i < 256; ++i) im.data[std::size_t(i)] = float(i);
    return im;
}

std::vector<double> values(const std::vector<HistogramPanel::Marker>& markers)
{
    std::vector<double> v;
    for (const auto& m : markers) v.push_back(m.value);
    return v;
}

// Columns of the grab holding the markers' orange.
std::set<int> markerColumns(const QImage& img)
{
    std::set<int> columns;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor c = img.pixelColor(x, y);
            if (c.red() > 200 && c.green() > 90 && c.green() < 150 && c.blue() < 60) columns.insert(x);
        }
    return columns;
}

bool sameCounts(const Histogram& a, const Histogram& b)
{
    if (a.bins != b.bins || a.lo != b.lo || a.hi != b.hi || a.channels.size() != b.channels.size()) return false;
    for (std::size_t c = 0; c < a.channels.size(); ++c)
        if (a.channels[c].counts != b.channels[c].counts || a.channels[c].nonFinite() != b.channels[c].nonFinite())
            return false;
    return true;
}

} // namespace

class TestHistogramPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void followsResultAndSource();
    void countsAddUpToThePixels();
    void markersFollowTheMapping();
    void floatOriginalsMarkTheirValuesRange();
    void nonFiniteValuesListedApart();
    void largeImagesCountedOnTheWorker();
    void countedWhenShownNotBehindAnotherTab();
    void windowHasTheDock();

private:
    bool renderAfter(const std::function<void()>& action)
    {
        return test::renderAfter(w_->renderController(), action, kWaitMs);
    }
    bool settled() { return QTest::qWaitFor([&] { return !panel_->pending(); }, kWaitMs); }

    std::unique_ptr<MainWindow> w_;
    std::unique_ptr<HistogramPanel> panel_;
};

void TestHistogramPanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("ConvLabTest");
    QCoreApplication::setApplicationName("test_histogrampanel");
    QSettings().clear();
}

void TestHistogramPanel::init()
{
    w_ = std::make_unique<MainWindow>(false);
    w_->resize(1000, 700);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    panel_ = std::make_unique<HistogramPanel>();
    panel_->resize(360, 480);
    panel_->attach(w_->workbench(), w_->imageView());
    w_->workbench()->setMapping(ImageView::Mapping::Clamp);
    QVERIFY(renderAfter([&] { w_->setSourceImage(ramp(), "ramp"); }));
    QVERIFY(settled());
}

void TestHistogramPanel::cleanup()
{
    panel_.reset();
    w_.reset();
}

void TestHistogramPanel::followsResultAndSource()
{
    WorkbenchDocument* doc = w_->workbench();
    const Histogram* source = panel_->histogram(Which::Source);
    QVERIFY(source);
    QCOMPARE(source->bins, 256); // one bin per 8-bit level
    QCOMPARE(source->channels[0].counts, std::vector<std::uint64_t>(256, 1));
    QVERIFY(sameCounts(*panel_->histogram(Which::Result), imageHistogram(*doc->result()->image, 256)));

    // A new kernel: the result's histogram follows it, the source's stays.
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setKernel(makePreset("box", "size=3"), "box"); }));
    QVERIFY(settled());
    QVERIFY(sameCounts(*panel_->histogram(Which::Result), imageHistogram(*doc->result()->image, 256)));
    QCOMPARE(panel_->histogram(Which::Source)->channels[0].counts, std::vector<std::uint64_t>(256, 1));
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setScale(2.0); }));
    QVERIFY(settled());
    QCOMPARE(panel_->histogram(Which::Result)->channels[0].max, doc->result()->image->data.empty()
                                                                    ? 0.0f
                                                                    : *std::max_element(doc->result()->image->data.begin(),
                                                                                        doc->result()->image->data.end()));
    QVERIFY(panel_->histogram(Which::Result)->channels[0].max > 300.0f); // doubled

    // A new source: both follow.
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(20, 10, 3, 4, true), "colour"); }));
    QVERIFY(settled());
    QCOMPARE(int(panel_->histogram(Which::Source)->channels.size()), 3);
    QVERIFY(sameCounts(*panel_->histogram(Which::Source), imageHistogram(*doc->source(), 256)));
    QVERIFY(sameCounts(*panel_->histogram(Which::Result), imageHistogram(*doc->result()->image, 256)));
}

void TestHistogramPanel::countsAddUpToThePixels()
{
    QVERIFY(renderAfter([&] { w_->setSourceImage(test::randomImage(37, 23, 4, 9), "rgba"); }));
    QVERIFY(settled());
    for (Which which : {Which::Result, Which::Source}) {
        const Histogram* h = panel_->histogram(which);
        QVERIFY(h);
        QCOMPARE(int(h->channels.size()), 4);
        for (const ChannelHistogram& ch : h->channels) QCOMPARE(ch.total(), std::uint64_t(37 * 23));
    }
}

void TestHistogramPanel::floatOriginalsMarkTheirValuesRange()
{
    // A float original of 0..255 values: the markers are at the range the view maps by
    // (ImageView::displayRange), 0 and 255, and at 0 and 1 with View > Float Range by Values off.
    Image photo = test::randomImage(24, 16, 1, 4, true);
    for (float& v : photo.data) v = std::round(std::min(std::fabs(v), 1.0f) * 250.0f);
    photo.depth = SampleDepth::F32;
    QVERIFY(renderAfter([&] { w_->setSourceImage(photo, "float photo"); }));
    QVERIFY(settled());
    QCOMPARE(w_->imageView()->displayRange(), 255.0);
    QTRY_COMPARE(values(panel_->markers(Which::Source)), (std::vector<double>{0, 255}));
    QCOMPARE(values(panel_->markers(Which::Result)), (std::vector<double>{0, 255}));
    w_->workbench()->setFloatRangeByValues(false);
    QCOMPARE(w_->imageView()->displayRange(), 1.0);
    QCOMPARE(values(panel_->markers(Which::Source)), (std::vector<double>{0, 1}));
    QCOMPARE(values(panel_->markers(Which::Result)), (std::vector<double>{0, 1}));
    w_->workbench()->setFloatRangeByValues(true);
    QCOMPARE(values(panel_->markers(Which::Result)), (std::vector<double>{0, 255}));
}

void TestHistogramPanel::markersFollowTheMapping()
{
    Image noise = test::randomImage(24, 16, 1, 3, true);
    noise.depth = SampleDepth::U8;
    QVERIFY(renderAfter([&] { w_->setSourceImage(noise, "noise"); }));
    QVERIFY(renderAfter([&] {
        w_->kernelDocument()->setKernel(parseKernelText("0 0 0; -1 1 0; 0 0 0"), "difference");
    }));
    QVERIFY(settled());
    const Image& result = *w_->workbench()->result()->image;
    const ImageStats s = imageStats(result, 1);
    QVERIFY(s.lo < 0 && s.hi > 0);
    ImageView* view = w_->imageView();
    QSignalSpy updated(panel_.get(), &HistogramPanel::updated);

    QCOMPARE(values(panel_->markers(Which::Result)), (std::vector<double>{0, 255}));
    QWidget* plot = panel_->findChild<QWidget*>("resultHistogram");
    const std::set<int> clampColumns = markerColumns(plot->grab().toImage());
    QVERIFY(!clampColumns.empty());

    w_->workbench()->setMapping(ImageView::Mapping::Normalize);
    QCOMPARE(panel_->mapping(), ImageView::Mapping::Normalize);
    QVERIFY(!updated.isEmpty());
    QCOMPARE(values(panel_->markers(Which::Result)), (std::vector<double>{s.lo, s.hi}));
    QVERIFY(markerColumns(plot->grab().toImage()) != clampColumns); // the lines moved

    w_->workbench()->setMapping(ImageView::Mapping::Offset);
    QCOMPARE(values(panel_->markers(Which::Result)), (std::vector<double>{-127.5, 0, 127.5}));
    w_->workbench()->setMapping(ImageView::Mapping::Abs);
    QCOMPARE(values(panel_->markers(Which::Result)), (std::vector<double>{-255, 0, 255}));
    w_->workbench()->setMapping(ImageView::Mapping::Diverging);
    // The diverging map's range is the one the view's colour bar shows: robust to outliers
    // (integer values here, one bin each: the same limit from the counts as from the values).
    const double limit = view->colorBarRange().second;
    QVERIFY(limit > 0 && limit <= s.maxAbs);
    const std::vector<double> diverging = values(panel_->markers(Which::Result));
    QCOMPARE(diverging.size(), std::size_t(3));
    QVERIFY2(std::fabs(diverging[2] - limit) <= 1e-3 * limit,
             qPrintable(QString("marker %1, colour bar %2").arg(diverging[2]).arg(limit)));
    QCOMPARE(diverging[0], -diverging[2]);
    QCOMPARE(diverging[1], 0.0);
    // The source is always drawn as clamp maps it.
    QCOMPARE(values(panel_->markers(Which::Source)), (std::vector<double>{0, 255}));

    // A float image: clamp's white is at 1.
    Image f = test::randomImage(9, 9, 1, 2);
    for (float& v : f.data) v /= 255.0f;
    QVERIFY(renderAfter([&] { w_->setSourceImage(f, "float"); }));
    QVERIFY(settled());
    w_->workbench()->setMapping(ImageView::Mapping::Clamp);
    QCOMPARE(values(panel_->markers(Which::Source)), (std::vector<double>{0, 1}));

    if (const QByteArray dir = qgetenv("CONVLAB_TEST_GRAB_DIR"); !dir.isEmpty()) {
        w_->workbench()->setMapping(ImageView::Mapping::Offset);
        panel_->show();
        QTest::qWait(200);
        panel_->grab().save(QString::fromLocal8Bit(dir) + "/histogram.png");
    }
}

void TestHistogramPanel::nonFiniteValuesListedApart()
{
    Image im = test::randomImage(8, 8, 3, 1);
    im.at(1, 2, 3) = std::numeric_limits<float>::quiet_NaN();
    im.at(1, 0, 0) = -std::numeric_limits<float>::infinity();
    im.at(2, 7, 7) = std::numeric_limits<float>::infinity();
    QVERIFY(renderAfter([&] { w_->setSourceImage(im, "nan"); }));
    QVERIFY(settled());
    const Histogram* h = panel_->histogram(Which::Source);
    QCOMPARE(h->channels[1].nan, 1u);
    QCOMPARE(h->channels[1].negInf, 1u);
    QCOMPARE(h->channels[2].posInf, 1u);
    const QString info = panel_->infoText(Which::Source);
    QVERIFY2(info.contains("G: NaN 1, +∞ 0, −∞ 1") && info.contains("B: NaN 0, +∞ 1, −∞ 0"), qPrintable(info));
    QVERIFY(!info.contains("R:"));
    // The identity result keeps them; a finite image says so.
    QVERIFY(panel_->infoText(Which::Result).contains("G: NaN 1"));
    QVERIFY(renderAfter([&] { w_->setSourceImage(ramp(), "ramp"); }));
    QVERIFY(settled());
    QVERIFY(panel_->infoText(Which::Source).startsWith("All values finite"));
}

void TestHistogramPanel::largeImagesCountedOnTheWorker()
{
    Image big(800, 400, 1); // 320000 samples, over kSyncValues
    QVERIFY(big.data.size() > HistogramPanel::kSyncValues);
    for (std::size_t i = 0; i < big.data.size(); ++i) big.data[i] = float(i % 1000);
    panel_->setImage(Which::Source, std::make_shared<const Image>(big));
    QVERIFY(panel_->pending());
    QVERIFY(settled());
    const Histogram* h = panel_->histogram(Which::Source);
    QCOMPARE(h->lo, 0.0);
    QCOMPARE(h->hi, 999.0);
    QCOMPARE(h->channels[0].total(), std::uint64_t(320000));
    QVERIFY(sameCounts(*h, imageHistogram(big, HistogramPanel::kBins)));

    // A large image and then a small one: the small one is what stays.
    panel_->setImage(Which::Source, std::make_shared<const Image>(big));
    const Image small = ramp();
    panel_->setImage(Which::Source, std::make_shared<const Image>(small));
    QVERIFY(settled());
    QTest::qWait(50); // anything the worker still delivers is dropped
    QCOMPARE(panel_->histogram(Which::Source)->channels[0].counts, std::vector<std::uint64_t>(256, 1));
}

// The window's own panel: a dock that follows the document and the view's mapping.
// Behind another tab the window's panel does not count each new result (a 1080p result takes a
// core for ~15 ms, which every edit would pay); it counts the latest when its tab is shown.
void TestHistogramPanel::countedWhenShownNotBehindAnotherTab()
{
    HistogramPanel* own = w_->panel<HistogramPanel>();
    QDockWidget* histogramDock = dockOf(own);
    QList<QDockWidget*> others = w_->tabifiedDockWidgets(histogramDock);
    QVERIFY(!others.isEmpty());
    others.front()->raise();
    QTRY_VERIFY(own->visibleRegion().isEmpty()); // tabbed docks stay "visible", off screen
    QVERIFY(renderAfter([&] { w_->kernelDocument()->setScale(3.0); }));
    QVERIFY(settled());
    const Histogram* stale = own->histogram(Which::Result);
    const Histogram fresh = imageHistogram(*w_->workbench()->result()->image, 256);
    QVERIFY(!own->pending());
    QVERIFY(!stale || !sameCounts(*stale, fresh)); // not counted while hidden
    histogramDock->raise();
    QTRY_VERIFY(!own->visibleRegion().isEmpty());
    QVERIFY(QTest::qWaitFor([&] { return !own->pending() && own->histogram(Which::Result); }, kWaitMs));
    QVERIFY(sameCounts(*own->histogram(Which::Result), fresh));
}

void TestHistogramPanel::windowHasTheDock()
{
    HistogramPanel* own = w_->panel<HistogramPanel>();
    QVERIFY(own);
    QCOMPARE(dockOf(own)->objectName(), QStringLiteral("histogramDock"));
    dockOf(own)->raise(); // its tab on top: counted (behind another tab it is not)
    QVERIFY(QTest::qWaitFor([&] { return !own->pending() && own->histogram(Which::Result); }, kWaitMs));
    QVERIFY(sameCounts(*own->histogram(Which::Result), imageHistogram(*w_->workbench()->result()->image, 256)));
    w_->workbench()->setMapping(ImageView::Mapping::Offset);
    QCOMPARE(own->mapping(), ImageView::Mapping::Offset);
    QCOMPARE(values(own->markers(Which::Result)), (std::vector<double>{-127.5, 0, 127.5}));

    // A picture to look at: the sample photo under the edge kernel, the dock floated.
    if (const QByteArray dir = qgetenv("CONVLAB_TEST_GRAB_DIR"); !dir.isEmpty()) {
        QVERIFY(renderAfter([&] {
            w_->kernelDocument()->setKernel(parseKernelText("1 1 1; 1 -8 1; 1 1 1"), "edge");
            w_->openSample();
        }));
        QVERIFY(QTest::qWaitFor([&] { return !own->pending() && own->histogram(Which::Source)->channels.size() == 3; },
                                kWaitMs));
        w_->workbench()->setMapping(ImageView::Mapping::Abs);
        auto* dock = dockOf(own);
        dock->setFloating(true);
        dock->resize(420, 560);
        dock->show();
        QTest::qWait(300);
        own->grab().save(QString::fromLocal8Bit(dir) + "/histogram_sample.png");
    }
}

QTEST_MAIN(TestHistogramPanel)
#include "test_histogrampanel.moc"
