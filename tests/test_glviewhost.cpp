// SPDX-License-Identifier: GPL-3.0-or-later
// GLViewHost: the native GL window the image views draw in. Frames reach the window and the
// grab, children are stacked above the picture, input and focus stay with the widget.
// Run under Xvfb (xvfb-run -a).
#include <QApplication>
#include <QLabel>
#include <QMainWindow>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSignalSpy>
#include <QSurfaceFormat>
#include <QTest>
#include <QVBoxLayout>
#include <QWindow>

#include "view/glviewhost.h"

namespace {

// Clears to a colour the test chooses and counts what the host calls.
class ClearHost : public GLViewHost {
public:
    QColor colour = QColor(20, 200, 60);
    int initialized = 0, resized = 0, painted = 0, pressed = 0;
    QSize lastResize;

protected:
    void initializeGL() override { ++initialized; }
    void resizeGL(int w, int h) override
    {
        ++resized;
        lastResize = QSize(w, h);
    }
    void paintGL() override
    {
        ++painted;
        auto* gl = QOpenGLContext::currentContext()->functions();
        gl->glClearColor(colour.redF(), colour.greenF(), colour.blueF(), 1.0f);
        gl->glClear(GL_COLOR_BUFFER_BIT);
    }
    void mousePressEvent(QMouseEvent*) override { ++pressed; }
};

bool near(QRgb a, QColor b)
{
    return std::abs(qRed(a) - b.red()) <= 2 && std::abs(qGreen(a) - b.green()) <= 2 &&
           std::abs(qBlue(a) - b.blue()) <= 2;
}

} // namespace

class TestGLViewHost : public QObject {
    Q_OBJECT
private slots:
    void grabsAFrameBeforeItIsShown();
    void swapsFramesOnTheWindowWhenAsked();
    void childrenAreStackedAboveThePicture();
    void inputAndFocusStayWithTheWidget();
    void composedGrabShowsPictureAndOverlays();
};

void TestGLViewHost::grabsAFrameBeforeItIsShown()
{
    ClearHost host;
    host.resize(64, 48);
    QVERIFY(!host.isValid());
    QVERIFY(host.context() == nullptr); // asking does not create it
    const QImage frame = host.grabFramebuffer();
    QVERIFY(host.isValid());
    QCOMPARE(host.initialized, 1);
    QCOMPARE(frame.size(), QSize(64, 48) * host.devicePixelRatioF());
    QVERIFY(near(frame.pixel(10, 10), host.colour));
    host.colour = Qt::red;
    QVERIFY(near(host.grabFramebuffer().pixel(63, 47), Qt::red)); // the whole frame, every time
    QCOMPARE(host.initialized, 1);
}

void TestGLViewHost::swapsFramesOnTheWindowWhenAsked()
{
    ClearHost host;
    host.resize(120, 90);
    QSignalSpy swapped(&host, &GLViewHost::frameSwapped);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    QTRY_VERIFY(swapped.count() >= 1); // the first exposure draws
    QCOMPARE(host.lastResize, QSize(120, 90) * host.devicePixelRatioF());
    QTest::qWait(50); // the frames of the first exposure settle
    const int paintedBefore = host.painted;
    const int swappedBefore = swapped.count();
    host.update();
    QTRY_VERIFY(swapped.count() > swappedBefore);
    QVERIFY(host.painted > paintedBefore);
    host.resize(200, 100);
    QTRY_COMPARE(host.lastResize, QSize(200, 100) * host.devicePixelRatioF());
    QCOMPARE(host.surfaceWindow()->size(), QSize(200, 100)); // the window follows the widget
}

void TestGLViewHost::childrenAreStackedAboveThePicture()
{
    ClearHost host;
    host.resize(160, 120);
    auto* caption = new QLabel(QStringLiteral("caption"), &host);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    // A raster child of a widget whose picture is a native window would be hidden behind it.
    QVERIFY(caption->testAttribute(Qt::WA_NativeWindow));
    auto* container = host.findChild<QWidget*>(QStringLiteral("glSurfaceContainer"));
    QVERIFY(container);
    const QObjectList& kids = host.children();
    QVERIFY(kids.indexOf(container) < kids.indexOf(caption)); // later in the stacking order
}

void TestGLViewHost::inputAndFocusStayWithTheWidget()
{
    ClearHost host;
    host.setFocusPolicy(Qt::StrongFocus);
    host.resize(100, 100);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    QWindow* surface = host.surfaceWindow();
    QVERIFY(surface->flags().testFlag(Qt::WindowTransparentForInput));
    QVERIFY(surface->flags().testFlag(Qt::WindowDoesNotAcceptFocus));
    auto* container = host.findChild<QWidget*>(QStringLiteral("glSurfaceContainer"));
    QVERIFY(container->testAttribute(Qt::WA_TransparentForMouseEvents));
    QCOMPARE(container->focusPolicy(), Qt::NoFocus);
    // A click in the top-level window lands on the host, not on the container over it.
    QTest::mouseClick(host.windowHandle(), Qt::LeftButton, {}, QPoint(50, 50));
    QCOMPARE(host.pressed, 1);
}

void TestGLViewHost::composedGrabShowsPictureAndOverlays()
{
    QWidget window;
    auto* layout = new QVBoxLayout(&window);
    layout->setContentsMargins(10, 10, 10, 10);
    auto* host = new ClearHost;
    layout->addWidget(host);
    auto* caption = new QLabel(QStringLiteral("caption"), host);
    caption->setStyleSheet(QStringLiteral("QLabel { background: rgb(250, 250, 0); }"));
    caption->move(4, 4);
    window.resize(200, 150);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QImage shot = GLViewHost::grabComposed(&window).toImage();
    const double dpr = shot.devicePixelRatio();
    const QPoint inPicture = host->mapTo(&window, QPoint(host->width() - 5, host->height() - 5));
    QVERIFY(near(shot.pixel(inPicture * dpr), host->colour));
    const QPoint inCaption = host->mapTo(&window, caption->geometry().topLeft() + QPoint(1, 1)); // not a glyph
    QVERIFY(near(shot.pixel(inCaption * dpr), QColor(250, 250, 0)));
    QVERIFY(!near(shot.pixel(QPoint(3, 3) * dpr), host->colour)); // the margin is the window's
}

int main(int argc, char** argv)
{
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    QSurfaceFormat::setDefaultFormat(format);
    QApplication app(argc, argv);
    TestGLViewHost test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_glviewhost.moc"
