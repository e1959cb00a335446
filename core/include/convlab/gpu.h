// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU backend interface. Callers (the engine's convolve(), the GUI) see only this header;
// the implementation in core/backends/cuda is the one place that includes CUDA headers. In a build
// without CUDA, or on a machine without a driver or device, startCudaSession() (convlab/modes.h,
// the CUDA backend's row) returns nullptr and says why.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "convlab/convolve.h"
#include "convlab/imagestats.h"
#include "convlab/costs.h"
#include "convlab/error.h"

namespace convlab {

// Thrown by a session asked to run a method that has no CUDA path. Not a failure of the
// device: the session stays usable and the engine runs that method on the CPU (device auto).
class NoGpuPath : public Error {
public:
    using Error::Error;
};

// Planes in device memory that the caller owns (a CuPy array, a torch CUDA tensor): `channels`
// planes of width x height float32 values, one after another, row-major, on the session's
// device. `stream` is the caller's cudaStream_t as an integer (1: the legacy default stream,
// 2: the per-thread one; 0: none to wait for): the run waits for what the caller queued there.
// `outStream`: the same for the output array (its producer may still have work queued on the
// memory, e.g. torch's caching allocator), waited for too when it differs.
struct DevicePlanes {
    const float* in = nullptr;
    float* out = nullptr; // may be `in`: the input is read before anything is written
    int width = 0, height = 0, channels = 0;
    std::uintptr_t stream = 0;
    std::uintptr_t outStream = 0;
};

class GpuSession {
public:
    virtual ~GpuSession() = default;

    // Uploads the source image; it stays on the device until the next setImage, so a kernel
    // edit uploads only the kernel. The planes are read where they lie (interleaved pixels are
    // regrouped on the device), in as few copies as their layout allows, at the bus's speed
    // (core/backends/cuda/transfer.h); whether a sample is NaN or infinite is checked on the device.
    virtual void setImage(const ImagePlanes& image) = 0;
    // Uploads 8- or 16-bit samples as they are (a quarter or half of the float bytes) and
    // converts them on the device; the result equals setImage(unpackImage(packed)).
    virtual void setImage(const PackedImage& packed) = 0;
    virtual bool hasImage() const = 0;

    // Runs on the resident image (params.device and threads are ignored) and downloads the
    // result. Stages are timed with CUDA events. Throws convlab::Error on any CUDA failure.
    virtual Image run(const ConvolveParams& params, RunReport* report = nullptr) = 0;
    // The same, downloading straight into planes owned by the caller (the input's width,
    // height and channels; planar or interleaved): no result image, no second copy.
    virtual void runInto(const ConvolveParams& params, const OutputPlanes& out, RunReport* report = nullptr) = 0;

    // Runs and keeps the result on the device, for copyLastResultToGlBuffer (display first) and
    // downloadLastResult (the host copy, later). Throws convlab::Error on any CUDA failure.
    virtual void runResident(const ConvolveParams& params, RunReport* report = nullptr) = 0;
    // The result of the last finished run into `out` (reshaped only when its shape differs, so a
    // recycled buffer is reused). Throws convlab::Error when there is none.
    virtual void downloadLastResult(Image& out) = 0;
    // The same into the caller's planes (the held result's shape), in chunks; `cancel`, raised,
    // stops it between chunks with convlab::Cancelled (the planes then partly written).
    virtual void downloadLastResult(const OutputPlanes& out, const std::atomic<bool>* cancel) = 0;
    // One pixel of the last result, every channel (`values` holds one float per channel of the
    // image held): a few bytes for a reader that needs one value (the pixel probe, the status
    // bar), not the image.
    // Throws convlab::Error when there is no result or (x, y) lies outside it.
    virtual void readLastResultPixel(int x, int y, float* values) = 0;
    // imageHistogram(result, maxBins) of the last result (convlab/imagestats.h), counted on the
    // device: the same bins and counts, and only they come down (a few kilobytes, not the image).
    // Throws convlab::Error when there is no result, Cancelled when `cancel` is raised.
    virtual Histogram histogramOfLastResult(int maxBins, const std::atomic<bool>* cancel) = 0;

    // Runs and writes the result, planar float32 (width*height*channels values, as
    // ImageView::resultBuffer expects), straight into the OpenGL buffer object `glBuffer` of
    // the current GL context: registered with CUDA once per buffer id, mapped per call. No
    // host round trip. Throws convlab::Error when interop is impossible (e.g. the GL context
    // is not on this device); callers then download and upload instead.
    virtual void runToGlBuffer(const ConvolveParams& params, unsigned int glBuffer, RunReport* report = nullptr) = 0;
    // The display path of a session whose results also go to the host: copies the result of
    // the last finished run() (`values` floats, planar) on the device into the OpenGL buffer
    // object `glBuffer` of the GL context current on the calling thread, which may be another
    // thread than run()'s (results alternate between two device buffers). Registered with
    // CUDA once per buffer and size, mapped per call; no host round trip. Throws
    // convlab::Error when interop is impossible or no result of that size is held.
    virtual void copyLastResultToGlBuffer(unsigned int glBuffer, std::size_t values) = 0;
    // Forgets a GL buffer's registration (call before deleting the buffer).
    virtual void releaseGlBuffer(unsigned int glBuffer) = 0;

    // Runs over device memory the caller owns and writes the result there: nothing crosses
    // the bus. The planes become the session's image (as setImage of them; float32, no alpha).
    // Returns whether the input held a NaN or an infinity (the engine's IEEE rule applied to
    // them; docs/semantics.md, Non-finite values). Throws NoGpuPath for a method without a
    // CUDA path, convlab::Error on any CUDA failure or a pointer the device cannot read.
    virtual bool runOnDevice(const ConvolveParams& params, const DevicePlanes& planes, RunReport* report = nullptr)
    {
        (void)params, (void)planes, (void)report;
        throw Error("this GPU session takes no device memory");
    }

    virtual std::string deviceName() const = 0;
    // This device's estimate of the fastest method's time for an image of that shape (ms, the
    // device's own measured costs; no transfer), for the choice between CPU and GPU.
    virtual double estimateMs(const ConvolveParams& params, int width, int height, int channels, bool hasAlpha) = 0;
    // The host <-> device transfers as measured (a calibration of some 60 ms on the first call
    // or the first large transfer, once per session).
    virtual BusCosts busCosts() = 0;
    // What the session chose by timing alternatives on this device, with the times (empty until
    // its cost calibration, which the first auto run or estimate triggers).
    virtual std::string kernelChoices() const { return {}; }
    // Measured device-to-device copy bandwidth in GB/s (bytes read + written per second), the
    // yardstick for memory-bound kernels.
    virtual double copyBandwidthGBs() = 0;
};

} // namespace convlab
