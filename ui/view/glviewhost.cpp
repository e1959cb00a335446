// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/glviewhost.h"

#include <QChildEvent>
#include <QEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QOpenGLFunctions>
#include <QPainter>
#include <QResizeEvent>
#include <QWindow>

#include <algorithm>


// The native window the frames are swapped onto. Input passes through it to the widget
// below (WindowTransparentForInput), so the widget handles events as a QOpenGLWidget would.
class GLViewHost::Surface : public QWindow {
public:
    explicit Surface(GLViewHost* host) : host_(host)
    {
        setSurfaceType(QWindow::OpenGLSurface);
        setFlags(Qt::WindowTransparentForInput | Qt::WindowDoesNotAcceptFocus);
    }

protected:
    bool event(QEvent* e) override
    {
        if (e->type() == QEvent::UpdateRequest) {
            host_->renderToWindow();
            return true;
        }
        return QWindow::event(e);
    }
    void exposeEvent(QExposeEvent*) override
    {
        if (isExposed())
            host_->renderToWindow();
    }

private:
    GLViewHost* host_;
};

namespace {

// A frame's size in device pixels, never empty (a framebuffer object needs a pixel).
QSize devicePixels(QSize logical, qreal dpr)
{
    return {std::max(1, qRound(logical.width() * dpr)), std::max(1, qRound(logical.height() * dpr))};
}

} // namespace

struct GLViewHost::State {
    QSurfaceFormat format = QSurfaceFormat::defaultFormat();
    Surface* window = nullptr;     // owned by the container
    QWidget* container = nullptr;  // a child of the host
    std::unique_ptr<QOpenGLContext> context;
    std::unique_ptr<QOffscreenSurface> offscreen;
    std::unique_ptr<QOpenGLFramebufferObject> frame; // what a window frame is drawn into
    bool initialized = false;
    bool contextFailed = false;
    QSize lastSize;                // device pixels of the last resizeGL
};

GLViewHost::GLViewHost(QWidget* parent) : QWidget(parent), g(std::make_unique<State>())
{
    g->window = new Surface(this);
    g->container = QWidget::createWindowContainer(g->window, this);
    g->container->setObjectName(QStringLiteral("glSurfaceContainer"));
    g->container->setAttribute(Qt::WA_TransparentForMouseEvents);
    g->container->setFocusPolicy(Qt::NoFocus);
    g->container->lower();
}

GLViewHost::~GLViewHost()
{
    // The subclass has released its GL objects; the context goes before the window it drew on.
    if (g->context) {
        if (g->frame) {
            g->context->makeCurrent(g->offscreen.get());
            g->frame.reset();
        }
        g->context->doneCurrent();
        g->context.reset();
    }
}

void GLViewHost::setFormat(const QSurfaceFormat& format)
{
    if (!g->context)
        g->format = format;
}

QSurfaceFormat GLViewHost::format() const
{
    return g->context ? g->context->format() : g->format;
}

QOpenGLContext* GLViewHost::context() const
{
    return g->context.get();
}

bool GLViewHost::isValid() const
{
    return g->context && g->initialized;
}

QWindow* GLViewHost::surfaceWindow() const
{
    return g->window;
}

bool GLViewHost::ensureContext()
{
    if (g->initialized)
        return true;
    if (g->contextFailed)
        return false;
    auto context = std::make_unique<QOpenGLContext>();
    context->setFormat(g->format);
    if (!context->create()) {
        g->contextFailed = true;
        qWarning("GLViewHost: no OpenGL context could be created; images are not drawn");
        return false;
    }
    auto offscreen = std::make_unique<QOffscreenSurface>();
    offscreen->setFormat(context->format());
    offscreen->create();
    g->window->setFormat(context->format());
    g->context = std::move(context);
    g->offscreen = std::move(offscreen);
    makeCurrent();
    g->initialized = true; // before initializeGL: its own makeCurrent() calls must not recurse
    initializeGL();
    return true;
}

void GLViewHost::makeCurrent()
{
    if (!g->context) {
        ensureContext(); // runs makeCurrent() itself once the context exists
        return;
    }
    QSurface* surface = g->window->isExposed() && g->window->handle() ? static_cast<QSurface*>(g->window)
                                                                      : static_cast<QSurface*>(g->offscreen.get());
    g->context->makeCurrent(surface);
}

void GLViewHost::doneCurrent()
{
    if (g->context)
        g->context->doneCurrent();
}

void GLViewHost::update()
{
    if (g->window->isExposed())
        g->window->requestUpdate();
}

void GLViewHost::renderFrame(QSize devicePixels)
{
    if (devicePixels != g->lastSize) {
        g->lastSize = devicePixels;
        resizeGL(devicePixels.width(), devicePixels.height());
    }
    auto* gl = g->context->functions();
    gl->glViewport(0, 0, devicePixels.width(), devicePixels.height());
    paintGL();
}

void GLViewHost::renderToWindow()
{
    if (!g->window->isExposed() || !ensureContext())
        return;
    if (!g->context->makeCurrent(g->window))
        return;
    const QSize pixels = devicePixels(g->window->size(), g->window->devicePixelRatio());
    // Drawn into a framebuffer object and copied to the window, as a QOpenGLWidget's frame is:
    // the subclass sees one kind of target, and Mesa's llvmpipe, after drawing straight to the
    // window, drew later framebuffer objects (grabFramebuffer) upside down.
    if (!g->frame || g->frame->size() != pixels)
        g->frame = std::make_unique<QOpenGLFramebufferObject>(pixels, QOpenGLFramebufferObject::CombinedDepthStencil);
    g->frame->bind();
    renderFrame(pixels);
    g->frame->release();
    QOpenGLFramebufferObject::blitFramebuffer(nullptr, g->frame.get());
    g->context->swapBuffers(g->window);
    emit frameSwapped();
}

QImage GLViewHost::grabFramebuffer()
{
    if (!ensureContext())
        return {};
    makeCurrent();
    const qreal dpr = devicePixelRatioF();
    const QSize pixels = devicePixels(size(), dpr);
    QOpenGLFramebufferObject fbo(pixels, QOpenGLFramebufferObject::CombinedDepthStencil);
    if (!fbo.isValid())
        return {};
    fbo.bind();
    renderFrame(pixels);
    QImage frame = fbo.toImage();
    fbo.release();
    frame.setDevicePixelRatio(dpr);
    return frame;
}

bool GLViewHost::event(QEvent* e)
{
    // The children over the picture are made native once constructed (polished), so that they
    // are stacked above the GL window instead of being hidden behind it.
    if (e->type() == QEvent::ChildPolished) {
        if (auto* child = qobject_cast<QWidget*>(static_cast<QChildEvent*>(e)->child()))
            adoptOverlay(child);
    }
    return QWidget::event(e);
}

void GLViewHost::adoptOverlay(QWidget* child)
{
    if (child == g->container || child->isWindow() || child->testAttribute(Qt::WA_NativeWindow))
        return;
    child->setAttribute(Qt::WA_NativeWindow);
    child->raise();
}

void GLViewHost::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    g->container->setGeometry(rect());
    update();
}

void GLViewHost::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    g->container->setGeometry(rect());
    g->container->lower();
    ensureContext();
}

QPixmap GLViewHost::grabComposed(QWidget* widget)
{
    QPixmap shot = widget->grab();
    QPainter painter(&shot);
    QList<GLViewHost*> hosts = widget->findChildren<GLViewHost*>();
    if (auto* self = qobject_cast<GLViewHost*>(widget))
        hosts.prepend(self);
    for (GLViewHost* host : hosts) {
        if (!host->isVisible())
            continue;
        const QPoint at = host->mapTo(widget, QPoint(0, 0));
        painter.drawImage(QRect(at, host->size()), host->grabFramebuffer());
        // The overlays, which QWidget::grab drew under the picture, again on top of it.
        for (QObject* o : host->children()) {
            auto* child = qobject_cast<QWidget*>(o);
            if (!child || child == host->g->container || !child->isVisible())
                continue;
            painter.drawPixmap(host->mapTo(widget, child->pos()), child->grab());
        }
    }
    return shot;
}
