// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-interop-check: the CUDA-OpenGL display path without a window. Makes a headless EGL
// OpenGL context on the NVIDIA device, a GL buffer object like the view's pixel buffer, then
// fills it from CUDA both ways (runToGlBuffer, and copyLastResultToGlBuffer after run()),
// reads it back through GL and compares with the CPU reference. Exit 0 when both agree.
// Then times the GPU part of edit-to-display for a 3840x2160 RGB image: a kernel edit, the
// run, the result into the buffer and from there into a float texture array like the view's,
// finished (glFinish): through runToGlBuffer, through runResident + copyLastResultToGlBuffer
// (the workbench's path: it downloads the host copy after showing), and through run() +
// copyLastResultToGlBuffer (the download first).
#define EGL_EGLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/gpu.h"

using namespace convlab;

namespace {

// A display on an EGL device (headless), falling back to the default display.
EGLDisplay openDisplay()
{
    auto queryDevices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto platformDisplay =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (queryDevices && platformDisplay) {
        EGLDeviceEXT devices[8];
        EGLint count = 0;
        if (queryDevices(8, devices, &count))
            for (EGLint i = 0; i < count; ++i) {
                EGLDisplay d = platformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
                if (d != EGL_NO_DISPLAY && eglInitialize(d, nullptr, nullptr)) return d;
            }
    }
    EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    return (d != EGL_NO_DISPLAY && eglInitialize(d, nullptr, nullptr)) ? d : EGL_NO_DISPLAY;
}

double relErr(const std::vector<float>& got, const Image& want, const Kernel& k, const Image& in)
{
    double maxIn = 0.0, worst = 0.0;
    for (float v : in.data) maxIn = std::max(maxIn, double(std::fabs(v)));
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want.data[i]));
    return worst / (k.absSum() * maxIn);
}

} // namespace

int main()
{
    std::string why;
    auto gpu = startCudaSession(&why);
    if (!gpu) {
        std::printf("interop check: CUDA unavailable: %s\n", why.c_str());
        return 1;
    }
    EGLDisplay dpy = openDisplay();
    if (dpy == EGL_NO_DISPLAY || !eglBindAPI(EGL_OPENGL_API)) {
        std::printf("interop check: no EGL display with OpenGL\n");
        return 1;
    }
    const EGLint configAttribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config;
    EGLint n = 0;
    const EGLint pbufferAttribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    if (!eglChooseConfig(dpy, configAttribs, &config, 1, &n) || n < 1) {
        std::printf("interop check: no EGL config\n");
        return 1;
    }
    EGLSurface surface = eglCreatePbufferSurface(dpy, config, pbufferAttribs);
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, nullptr);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surface, surface, ctx)) {
        std::printf("interop check: cannot make an EGL OpenGL context current\n");
        return 1;
    }
    std::printf("GL: %s / %s\n", reinterpret_cast<const char*>(glGetString(GL_VENDOR)),
                reinterpret_cast<const char*>(glGetString(GL_RENDERER)));

    Image in(1031, 517, 3);
    std::mt19937 rng(3);
    std::normal_distribution<float> nd(100.0f, 20.0f);
    for (float& v : in.data) v = nd(rng);
    ConvolveParams p;
    p.kernel = Kernel(5, 3, {1, 2, 3, 2, 1, 0, -1, 4, -1, 0, 1, 2, 3, 2, 1});
    p.border = {BorderMode::Mirror, 0.0f};
    p.device = Device::Cpu;
    p.method = Method::Reference;
    const Image want = convolve(in, p);

    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(in.data.size() * sizeof(float)), nullptr, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    auto readBack = [&] {
        std::vector<float> got(in.data.size());
        glBindBuffer(GL_COPY_READ_BUFFER, buffer);
        glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(got.size() * sizeof(float)), got.data());
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
        return got;
    };
    int failures = 0;
    try {
        gpu->setImage(in);
        p.method = Method::Direct;
        RunReport rep;
        gpu->runToGlBuffer(p, buffer, &rep);
        const double e1 = relErr(readBack(), want, p.kernel, in);
        std::printf("runToGlBuffer: relative error %.2e %s\n", e1, e1 <= 1e-6 ? "ok" : "WRONG");
        failures += !(e1 <= 1e-6);

        p.method = Method::Fft;
        gpu->run(p);
        gpu->copyLastResultToGlBuffer(buffer, in.data.size());
        const double e2 = relErr(readBack(), want, p.kernel, in);
        std::printf("copyLastResultToGlBuffer (fft): relative error %.2e %s\n", e2, e2 <= 1e-5 ? "ok" : "WRONG");
        failures += !(e2 <= 1e-5);
    } catch (const Error& e) {
        std::printf("interop check: %s\n", e.what());
        return 1;
    }
    gpu->releaseGlBuffer(buffer);
    glDeleteBuffers(1, &buffer);

    // Edit-to-display timing, 3840x2160 RGB.
    try {
        const int w = 3840, h = 2160, c = 3;
        Image big(w, h, c);
        for (float& v : big.data) v = nd(rng);
        gpu->setImage(big);
        GLuint pbo = 0, tex = 0;
        glGenBuffers(1, &pbo);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
        glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(big.data.size() * sizeof(float)), nullptr, GL_STREAM_DRAW);
        glGenTextures(1, &tex);
        glBindTexture(GL_TEXTURE_2D_ARRAY, tex);
        glTexStorage3D(GL_TEXTURE_2D_ARRAY, 1, GL_R32F, w, h, c);
        auto toTexture = [&] {
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
            glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, w, h, c, GL_RED, GL_FLOAT, nullptr);
            glFinish();
        };
        std::printf("\nedit-to-display, GPU part, %dx%d RGB (median of 9 edits, ms):\n", w, h);
        std::printf("%-16s %-10s %14s %22s %26s\n", "kernel", "method", "runToGlBuffer", "runResident+copy (GUI)",
                    "run()+copy (with download)");
        std::mt19937 krng(11);
        const std::pair<const char*, Kernel> kernels[] = {
            {"3x3 edge8", parseKernelText("1 1 1; 1 -8 1; 1 1 1")},
            {"5x5 gaussian", makePreset("gaussian", "sigma=1,size=5")},
            {"11x11 dense", Kernel(11, 11, std::vector<float>(121, 1.0f / 121))},
            {"17x17 dense", Kernel(17, 17, std::vector<float>(289, 1.0f / 289))},
            {"31x31 gaussian", makePreset("gaussian", "sigma=5,size=31")},
            {"31x31 dense", Kernel(31, 31, std::vector<float>(961, 1.0f / 961))},
        };
        for (const auto& [name, kernel0] : kernels) {
            ConvolveParams q;
            q.kernel = kernel0;
            q.border = {BorderMode::Reflect, 0.0f};
            q.method = Method::Auto;
            std::vector<double> direct, resident, viaHost;
            RunReport rep;
            for (int i = 0; i < 10; ++i) {
                // An edit: one coefficient changes, so nothing cached for the old kernel applies.
                q.kernel.values[static_cast<std::size_t>(krng() % q.kernel.values.size())] += 0.01f;
                auto t0 = std::chrono::steady_clock::now();
                rep = RunReport{};
                gpu->runToGlBuffer(q, pbo, &rep);
                toTexture();
                auto t1 = std::chrono::steady_clock::now();
                q.kernel.values[static_cast<std::size_t>(krng() % q.kernel.values.size())] += 0.01f;
                auto t2 = std::chrono::steady_clock::now();
                gpu->runResident(q);
                gpu->copyLastResultToGlBuffer(pbo, big.data.size());
                toTexture();
                auto t3 = std::chrono::steady_clock::now();
                q.kernel.values[static_cast<std::size_t>(krng() % q.kernel.values.size())] += 0.01f;
                auto t4 = std::chrono::steady_clock::now();
                gpu->run(q);
                gpu->copyLastResultToGlBuffer(pbo, big.data.size());
                toTexture();
                auto t5 = std::chrono::steady_clock::now();
                if (i == 0) continue; // warm-up: plans, calibration
                direct.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                resident.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
                viaHost.push_back(std::chrono::duration<double, std::milli>(t5 - t4).count());
            }
            for (auto* v : {&direct, &resident, &viaHost}) std::sort(v->begin(), v->end());
            std::printf("%-16s %-10s %14.3f %22.3f %26.3f\n", name, methodName(rep.method).c_str(),
                        direct[direct.size() / 2], resident[resident.size() / 2], viaHost[viaHost.size() / 2]);
        }
        gpu->releaseGlBuffer(pbo);
        glDeleteTextures(1, &tex);
        glDeleteBuffers(1, &pbo);
    } catch (const Error& e) {
        std::printf("edit-to-display timing: %s\n", e.what());
        ++failures;
    }
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return failures ? 1 : 0;
}
