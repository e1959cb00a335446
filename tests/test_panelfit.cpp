// SPDX-License-Identifier: GPL-3.0-or-later
// Panels that fit what they are given (issue 49, the layout's last details): in View › Present
// the docks' title bars grow with the text; no panel's content runs under its scroll bar; the
// Controls dock's border-names note is shown whole in a short window.
// Run under Xvfb (xvfb-run -a).
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QTest>

#include <memory>

#include "panels/controlspanel.h"
#include "testutil.h"
#include "uitestutil.h"
#include "window/mainwindow.h"
#include "window/presentation.h"
#include "workbench/rendercontroller.h"

using namespace convlab;

namespace {

constexpr int kWaitMs = 30000;

void settle()
{
    for (int i = 0; i < 5; ++i) {
        QApplication::processEvents();
        QTest::qWait(20);
    }
}

// The height in pixels of the title's text drawn in the top `titleHeight` rows of the dock:
// the rows holding pixels much darker than the title bar's background.
int titleTextHeight(QDockWidget* dock)
{
    const QImage img = dock->grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QColor background = img.pixelColor(img.width() - 3, 2);
    int first = -1, last = -1;
    const int rows = std::min(img.height(), int(dock->widget()->y() * img.devicePixelRatio()));
    const int textRight = std::min(img.width(), dock->fontMetrics().horizontalAdvance(dock->windowTitle()) + 40);
    for (int y = 0; y < rows; ++y)
        for (int x = 0; x < textRight; ++x)
            if (std::abs(qGray(img.pixel(x, y)) - qGray(background.rgb())) > 90) {
                if (first < 0) first = y;
                last = y;
                break;
            }
    return first < 0 ? 0 : last - first + 1;
}

} // namespace

class TestPanelFit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { test::useTestSettings("test_panelfit"); }
    void init();
    void cleanup();
    void presentGrowsTheDockTitles();
    void noPanelWiderThanItsViewport();
    void shortWindowKeepsTheBorderNoteWhole();

private:
    std::unique_ptr<MainWindow> w_;
};

void TestPanelFit::init()
{
    w_ = std::make_unique<MainWindow>(false);
    w_->setErrorReporter([](const QString&) {});
    w_->applyFirstLaunchLayout(QSize(1280, 800));
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QVERIFY(test::renderAfter(w_->renderController(),
                              [&] { w_->setSourceImage(test::randomImage(64, 48, 3, 11), "random"); }, kWaitMs));
    settle();
}

void TestPanelFit::cleanup()
{
    w_.reset();
    TextScale::set(1.0);
}

// Present (and Larger Text) scale the docks' titles with the rest: the title's letters are
// drawn taller, not only the bar around them.
void TestPanelFit::presentGrowsTheDockTitles()
{
    auto* kernel = w_->findChild<QDockWidget*>(QStringLiteral("kernelDock"));
    QVERIFY(kernel);
    const int before = titleTextHeight(kernel);
    QVERIFY(before > 3);
    w_->presentation()->setActive(true);
    settle();
    const int presenting = titleTextHeight(kernel);
    QVERIFY2(presenting >= 1.3 * before, qPrintable(QStringLiteral("%1 px, then %2 px").arg(before).arg(presenting)));
    w_->presentation()->setActive(false);
    settle();
    QCOMPARE(titleTextHeight(kernel), before);
    TextScale::set(2.0);
    settle();
    QVERIFY(titleTextHeight(kernel) >= 1.6 * before);
}

// At 1280 px wide, tall or short, no dock's content is wider than the part of its scroll
// area it is shown in: nothing runs under a vertical scroll bar or past the dock's edge.
void TestPanelFit::noPanelWiderThanItsViewport()
{
    for (int height : {800, 600, 480}) {
        w_->resize(1280, height);
        settle();
        for (QDockWidget* d : w_->findChildren<QDockWidget*>()) {
            auto* area = qobject_cast<QScrollArea*>(d->widget());
            if (!area) continue;
            d->show();
            d->raise();
            settle();
            const QString what = QStringLiteral("%1 at height %2: content %3 px, viewport %4 px%5")
                                     .arg(d->objectName()).arg(height)
                                     .arg(area->widget()->width()).arg(area->viewport()->width())
                                     .arg(area->verticalScrollBar()->isVisible() ? ", scroll bar shown" : "");
            QVERIFY2(area->widget()->width() <= area->viewport()->width(), qPrintable(what));
            QVERIFY2(!area->horizontalScrollBar()->isVisible(), qPrintable(what));
        }
    }
}

// A short window: the Controls dock scrolls rather than squeezing its wrapped note, which
// keeps the height its text needs at its width.
void TestPanelFit::shortWindowKeepsTheBorderNoteWhole()
{
    w_->resize(1280, 480);
    settle();
    auto* controls = w_->findChild<QDockWidget*>(QStringLiteral("controlsDock"));
    QVERIFY(controls);
    QVERIFY(qobject_cast<QScrollArea*>(controls->widget()));
    int notes = 0;
    for (QLabel* l : w_->controls()->findChildren<QLabel*>()) {
        if (!l->wordWrap() || l->text().isEmpty() || !l->isVisible()) continue;
        ++notes;
        QVERIFY2(l->height() >= l->heightForWidth(l->width()),
                 qPrintable(QStringLiteral("\"%1\": %2 px of %3").arg(l->text().left(40)).arg(l->height())
                                .arg(l->heightForWidth(l->width()))));
    }
    QVERIFY(notes > 0);
}

QTEST_MAIN(TestPanelFit)
#include "test_panelfit.moc"
