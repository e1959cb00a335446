// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA session's OpenGL interop: runs and copies of the last result into a GL buffer object.
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <mutex>

#include "cudacheck.h"
#include "convlab/error.h"
#include "session_internal.h"

namespace convlab::cuda {

void Session::copyLastResultToGlBuffer(unsigned int glBuffer, size_t values)
{
    std::lock_guard lock(lastMutex_); // the next run may not reuse this slot meanwhile
    if (lastSlot_ < 0 || lastValues_ != values)
        throw Error("the GPU holds no result of that size to display");
    if (!displayStream_) check(cudaStreamCreateWithFlags(&displayStream_, cudaStreamNonBlocking), "stream creation");
    const size_t bytes = values * sizeof(float);
    cudaGraphicsResource_t res = registered(glBuffer, bytes);
    check(cudaGraphicsMapResources(1, &res, displayStream_), "OpenGL buffer map");
    void* ptr = nullptr;
    size_t mapped = 0;
    cudaError_t err = cudaGraphicsResourceGetMappedPointer(&ptr, &mapped, res);
    if (err == cudaSuccess && mapped < bytes) err = cudaErrorInvalidValue;
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(ptr, results_[lastSlot_].get(), bytes, cudaMemcpyDeviceToDevice, displayStream_);
    const cudaError_t unmap = cudaGraphicsUnmapResources(1, &res, displayStream_);
    check(err, "copy into the OpenGL buffer");
    check(unmap, "OpenGL buffer unmap");
    check(cudaStreamSynchronize(displayStream_), "display copy");
}

void Session::runToGlBuffer(const ConvolveParams& params, unsigned int glBuffer, RunReport* report)
{
    requireImage();
    cudaGraphicsResource_t res = registered(glBuffer, sizeof(float) * w_ * h_ * c_);
    RunReport local;
    RunReport& rep = report ? *report : local;
    EventClock clock(stream_);
    clock.mark("start");
    check(cudaGraphicsMapResources(1, &res, stream_), "OpenGL buffer map");
    try {
        void* ptr = nullptr;
        size_t bytes = 0;
        check(cudaGraphicsResourceGetMappedPointer(&ptr, &bytes, res), "OpenGL buffer pointer");
        if (bytes < sizeof(float) * w_ * h_ * c_) throw Error("the OpenGL buffer is smaller than the result");
        clock.mark("interop");
        compute(params, static_cast<float*>(ptr), rep, clock);
    } catch (...) {
        cudaGraphicsUnmapResources(1, &res, stream_);
        throw;
    }
    check(cudaGraphicsUnmapResources(1, &res, stream_), "OpenGL buffer unmap");
    clock.mark("interop");
    check(cudaStreamSynchronize(stream_), "run");
    clock.collect(rep.stages);
}

void Session::releaseGlBuffer(unsigned int glBuffer)
{
    if (auto it = glBuffers_.find(glBuffer); it != glBuffers_.end()) {
        cudaGraphicsUnregisterResource(it->second.resource);
        glBuffers_.erase(it);
    }
}

// The CUDA registration of a GL buffer, made once per buffer id and size: a buffer given
// new storage (glBufferData at another size) is registered again.
cudaGraphicsResource_t Session::registered(unsigned int glBuffer, size_t bytes)
{
    if (auto it = glBuffers_.find(glBuffer); it != glBuffers_.end()) {
        if (it->second.bytes == bytes) return it->second.resource;
        releaseGlBuffer(glBuffer);
    }
    cudaGraphicsResource_t res = nullptr;
    check(cudaGraphicsGLRegisterBuffer(&res, glBuffer, cudaGraphicsRegisterFlagsWriteDiscard),
          "OpenGL buffer registration (is the GL context on this device?)");
    glBuffers_[glBuffer] = {res, bytes};
    return res;
}

} // namespace convlab::cuda
