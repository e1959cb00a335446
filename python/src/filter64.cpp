// SPDX-License-Identifier: GPL-3.0-or-later
// The float64 route of the binding: a C-order float64 (H, W) or (H, W, C) array and float64
// weights, run by the float64 engine where they lie (no conversion in or out), into the
// caller's float64 output or a new float64 array. Python's front end chooses it by the input's
// dtype (python/convlab/_ndimage.py, _engine).
#include "filter64.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string_view.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convlab/convolve64.h"
#include "convlab/error.h"
#include "convlab/image.h"
#include "interruptible.h"
#include "report.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace convlab::python {

namespace {

using Input64 = nb::ndarray<const double, nb::c_contig, nb::device::cpu>;
using Weights64 = nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Output64Array = nb::ndarray<double, nb::c_contig, nb::device::cpu>;
using Buffer64 = std::vector<double, detail::SampleAllocator<double>>; // huge pages for large results

Samples64 samplesOf(const Input64& input)
{
    if (input.ndim() != 2 && input.ndim() != 3)
        throw Error("input must be 2-D (H, W) or 3-D (H, W, C), got " + std::to_string(input.ndim()) + "-D");
    const auto side = [&](std::size_t axis) {
        return static_cast<int>(std::min<std::size_t>(input.shape(axis), kMaxImageSide + 1));
    };
    Samples64 s{input.data(), side(1), side(0), 1};
    if (input.ndim() == 3) {
        if (input.shape(2) == 0 || input.shape(2) > std::size_t(1) << 20)
            throw Error("input's channel axis has " + std::to_string(input.shape(2)) + " entries");
        s.channels = static_cast<int>(input.shape(2));
    }
    checkImageSize(s.width, s.height, 1);
    return s;
}

Convolve64Params paramsOf(const Weights64& weights, std::string_view mode, double cval, int anchorX, int anchorY,
                          bool correlate, std::string_view method, std::string_view device, int threads)
{
    const Device d = parseDevice(device);
    if (d != Device::Auto && d != Device::Cpu)
        throw Error("float64 arrays are filtered on the CPU; device '" + std::string(device) +
                    "' filters float32 (pass precision='float32')");
    const std::size_t kw = weights.shape(1), kh = weights.shape(0);
    if (kw == 0 || kh == 0 || kw > kMaxKernelSide || kh > kMaxKernelSide)
        throw Error("weights of shape (" + std::to_string(kh) + ", " + std::to_string(kw) + ") are outside 1.." +
                    std::to_string(kMaxKernelSide) + " per side");
    Convolve64Params p;
    p.kernelWidth = static_cast<int>(kw);
    p.kernelHeight = static_cast<int>(kh);
    p.weights.assign(weights.data(), weights.data() + kw * kh);
    p.anchorX = anchorX;
    p.anchorY = anchorY;
    const Border border = parseBorder(mode);
    p.border = border.mode;
    // "constant:VALUE" carries its own value (parsed as a float32 there); plain "constant" takes
    // cval exactly.
    const bool written = mode.find_first_of(":=") != std::string_view::npos;
    p.cval = border.mode == BorderMode::Constant && !written ? cval : double(border.value);
    p.semantics = correlate ? Semantics::Correlation : Semantics::Convolution;
    p.method = parseMethod(method);
    p.threads = threads;
    return p;
}

// The last result buffer numpy let go, kept for the next result of its size: a loop
// `out = convolve(x, k)` frees each result after the next one is made, so from its third call on
// a result reuses memory whose pages are already backed (a fresh 2048x2048 float64 result paid
// 32 MiB of page faults a call, longer than a 3x3 run). One buffer of at most kMaxSpareBytes.
// Never destroyed: numpy may free a result after the module's statics are gone.
constexpr std::size_t kMaxSpareBytes = std::size_t(64) << 20;

struct SpareBuffer {
    std::mutex mutex;
    std::unique_ptr<Buffer64> buffer;
};
SpareBuffer& spareBuffer()
{
    static auto* spare = new SpareBuffer;
    return *spare;
}

std::unique_ptr<Buffer64> bufferOf(std::size_t values)
{
    SpareBuffer& spare = spareBuffer();
    std::lock_guard lock(spare.mutex);
    if (spare.buffer && spare.buffer->size() == values) return std::move(spare.buffer);
    return std::make_unique<Buffer64>(values);
}

void keepAsSpare(Buffer64* buffer) noexcept
{
    std::unique_ptr<Buffer64> owned(buffer);
    if (owned->size() * sizeof(double) > kMaxSpareBytes) return;
    SpareBuffer& spare = spareBuffer();
    if (!spare.mutex.try_lock()) return; // another thread is at it: let this one go
    std::lock_guard lock(spare.mutex, std::adopt_lock);
    spare.buffer = std::move(owned); // an older spare is freed
}

// A new float64 array of the input's shape, owning its buffer (the spare one when it fits);
// returns its values.
double* newArray64(const Input64& input, nb::object& array)
{
    std::size_t shape[3] = {input.shape(0), input.shape(1), input.ndim() == 3 ? input.shape(2) : 1};
    std::unique_ptr<Buffer64> buffer = bufferOf(shape[0] * shape[1] * shape[2]);
    double* values = buffer->data();
    nb::capsule owner(buffer.get(), [](void* p) noexcept { keepAsSpare(static_cast<Buffer64*>(p)); });
    buffer.release();
    array = nb::cast(nb::ndarray<nb::numpy, double>(values, input.ndim(), shape, owner));
    return values;
}

nb::tuple filter64(Input64 input, Weights64 weights, std::optional<Output64Array> output, std::string_view mode,
                   double cval, int anchorX, int anchorY, bool correlate, std::string_view method,
                   std::string_view device, int threads, bool wantReport)
{
    Samples64 in = samplesOf(input);
    Convolve64Params params = paramsOf(weights, mode, cval, anchorX, anchorY, correlate, method, device, threads);
    nb::object array;
    double* out = nullptr;
    if (output) {
        bool same = output->ndim() == input.ndim();
        for (std::size_t i = 0; same && i < input.ndim(); ++i) same = output->shape(i) == input.shape(i);
        if (!same) throw Error("output's shape differs from the input's");
        array = nb::cast(*output);
        out = output->data();
    } else {
        out = newArray64(input, array);
    }
    // Runs that Ctrl-C stops take the float32 engine's parameters; only their size and cancel
    // flag are read.
    ConvolveParams watched;
    watched.kernel = Kernel(params.kernelWidth, params.kernelHeight, {});
    RunReport report;
    double copyInMs = 0.0;
    runInterruptibly(watched, in.values(), [&] {
        params.cancel = watched.cancel;
        Buffer64 copy;
        const std::size_t bytes = in.values() * sizeof(double);
        const auto* a = reinterpret_cast<const char*>(in.data);
        const auto* b = reinterpret_cast<const char*>(out);
        if (a < b + bytes && b < a + bytes) { // output= the input's memory: the engine reads a copy
            const auto start = std::chrono::steady_clock::now();
            copy.assign(in.data, in.data + in.values());
            in.data = copy.data();
            copyInMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
        convolve64(in, params, Output64{out, in.width, in.height, in.channels}, &report);
    });
    return nb::make_tuple(array, wantReport ? nb::object(reportDict(report, copyInMs, 0.0)) : nb::none());
}

} // namespace

void defineFilter64(nb::module_& m)
{
    m.def("filter64", &filter64, "input"_a, "weights"_a, "output"_a.none(), "mode"_a, "cval"_a, "anchor_x"_a,
          "anchor_y"_a, "correlate"_a, "method"_a, "device"_a, "threads"_a, "report"_a);
}

} // namespace convlab::python
