// SPDX-License-Identifier: GPL-3.0-or-later
// convlab._convlab: the engine for Python (nanobind). The public API, with scipy.ndimage's
// argument conventions, is python/convlab/__init__.py; this file takes arrays already checked
// and converted there (float32, or uint8/uint16 samples; C order) and runs the engine without the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "convlab/border.h"
#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/executor.h"
#include "convlab/modes.h"
#include "engine/threadpool.h" // the engine's pool (core/src), for the copies in and out
#include "filter64.h"
#include "interruptible.h"
#include "report.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Input = nb::ndarray<const float, nb::c_contig, nb::device::cpu>;
using Weights = nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Output = nb::ndarray<float, nb::c_contig, nb::device::cpu>;
using NumpyResult = nb::ndarray<nb::numpy, float>;

// convlab::Image holds at most 4 channels; wider (H, W, C) arrays run in groups of channels,
// which is exact because channels are filtered independently (docs/semantics.md, Values and
// channels).
constexpr int kMaxGroupChannels = 4;

double millisecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The array's (height, width, channels): a 2-D array is one channel.
struct Shape {
    int height = 0;
    int width = 0;
    int channels = 1;
    std::size_t pixels() const { return static_cast<std::size_t>(height) * width; }
};

template <class Array> Shape shapeOf(const Array& input)
{
    if (input.ndim() != 2 && input.ndim() != 3)
        throw convlab::Error("input must be 2-D (H, W) or 3-D (H, W, C), got " + std::to_string(input.ndim()) +
                             "-D");
    Shape s;
    s.height = static_cast<int>(std::min<std::size_t>(input.shape(0), convlab::kMaxImageSide + 1));
    s.width = static_cast<int>(std::min<std::size_t>(input.shape(1), convlab::kMaxImageSide + 1));
    if (input.ndim() == 3) {
        if (input.shape(2) == 0 || input.shape(2) > std::size_t(1) << 20)
            throw convlab::Error("input's channel axis has " + std::to_string(input.shape(2)) + " entries");
        s.channels = static_cast<int>(input.shape(2));
    }
    convlab::checkImageSize(s.width, s.height, std::min(s.channels, kMaxGroupChannels));
    return s;
}

// Everything the engine needs besides the image, from the arguments as Python passes them.
convlab::ConvolveParams paramsFrom(const Weights& weights, std::string_view mode, double cval, int anchorX,
                                   int anchorY, bool correlate, std::string_view method, std::string_view device,
                                   int threads)
{
    convlab::ConvolveParams p;
    const std::size_t kw = weights.shape(1), kh = weights.shape(0);
    if (kw == 0 || kh == 0 || kw > convlab::kMaxKernelSide || kh > convlab::kMaxKernelSide)
        throw convlab::Error("weights of shape (" + std::to_string(kh) + ", " + std::to_string(kw) +
                             ") are outside 1.." + std::to_string(convlab::kMaxKernelSide) + " per side");
    p.kernel = convlab::Kernel(static_cast<int>(kw), static_cast<int>(kh),
                               std::vector<float>(weights.data(), weights.data() + kw * kh));
    p.kernel.anchorX = anchorX;
    p.kernel.anchorY = anchorY;
    p.kernel.validate();
    p.border = convlab::parseBorder(mode);
    // "constant:VALUE" carries its own value; a plain "constant" takes cval (scipy's argument),
    // which other modes leave unread (scipy accepts any, NaN included).
    if (p.border.mode == convlab::BorderMode::Constant && mode.find_first_of(":=") == std::string_view::npos)
        p.border.value = static_cast<float>(cval);
    if (p.border.mode == convlab::BorderMode::Constant && !std::isfinite(p.border.value))
        throw convlab::Error("cval " + std::to_string(cval) + " is not a finite float");
    p.semantics = correlate ? convlab::Semantics::Correlation : convlab::Semantics::Convolution;
    p.method = convlab::parseMethod(method);
    p.device = convlab::parseDevice(device);
    p.threads = threads;
    return p;
}

// Channels [first, first + count) of an (H, W, C) array (C 1 for a 2-D one) as the engine's
// planes, where they are: read (ImagePlanes) or written (OutputPlanes). Plane c starts at the
// first pixel's sample first + c, and its samples are C floats apart.
template <class Planes, class T> Planes channelsOf(T* values, const Shape& s, int first, int count)
{
    Planes planes;
    planes.width = s.width;
    planes.height = s.height;
    planes.channels = count;
    planes.pixelStep = s.channels;
    for (int c = 0; c < count; ++c) planes.planes[c] = values + first + c;
    return planes;
}
convlab::ImagePlanes planeOf(const float* input, const Shape& s)
{
    return channelsOf<convlab::ImagePlanes>(input, s, 0, 1);
}

// The engine's planar input for one calling thread, kept between calls, for (H, W, C) arrays
// whose channels are interleaved: they are gathered into it, and a fresh buffer of the size
// would pay a page fault per 4 KiB on every call, which took longer than the copy
// (docs/architecture.md, Python). Buffers beyond kMaxKeptStagingBytes are let go after the call.
constexpr std::size_t kMaxKeptStagingBytes = std::size_t(64) << 20;

convlab::Image& stagingImage(const Shape& s, int channels)
{
    thread_local convlab::Image staging;
    if (staging.width != s.width || staging.height != s.height || staging.channels != channels)
        staging = convlab::Image::uninitialized(s.width, s.height, channels); // gathered into whole
    return staging;
}

void releaseLargeStaging(convlab::Image& staging)
{
    if (staging.data.size() * sizeof(float) > kMaxKeptStagingBytes) staging = convlab::Image();
}

// The engine's result for a call that writes an output array, kept per calling thread between
// calls as the staging image is: a fresh one made every call pay its page faults each time (the
// engine's "allocate output" stage, 8-10 ms for 4096x4096) and kept the planner from learning
// from the runs (it learns only from runs into memory already in use).
convlab::Image& keptResult()
{
    thread_local convlab::Image result;
    return result;
}

// Channels [first, first + count) of pixels [begin, end) of an interleaved (H, W, C) array, to
// or from `count` planes, in one pass over the array (a pass per channel would read it C times).
// C is the array's channel count when it is one of the usual 2 to 4, a template argument so that
// the loop over the channels unrolls; 0 for any other count (`channels`). Pixels and Planes are
// pointers to const on the side that is read.
template <int C, bool ToPlanes, class Pixels, class Planes>
void copyPixelRange(Pixels interleaved, int channels, std::size_t begin, std::size_t end, int first, int count,
                    Planes planes)
{
    const std::size_t step = C > 0 ? C : channels;
    for (std::size_t i = begin; i < end; ++i) {
        const Pixels pixel = interleaved + i * step + first;
#pragma GCC unroll 4
        for (int c = 0; c < (C > 0 ? C : count); ++c) {
            if (c >= count) break;
            if constexpr (ToPlanes)
                planes[c][i] = pixel[c];
            else
                pixel[c] = planes[c][i];
        }
    }
}

// body(begin, end) over [0, n) in ranges on up to `threads` threads of the engine's pool (0:
// all), at least kPixelsPerThread pixels a range. The copies are bound by memory, which one
// core on this VM does not saturate.
constexpr std::size_t kPixelsPerThread = std::size_t(1) << 20;

template <class Body> void forPixelRanges(std::size_t n, int threads, const Body& body)
{
    const int ranges = static_cast<int>(std::min<std::size_t>(convlab::detail::resolveThreads(threads),
                                                              std::max<std::size_t>(1, n / kPixelsPerThread)));
    const std::size_t step = (n + ranges - 1) / ranges;
    convlab::detail::parallelFor(ranges, ranges, [&](int r0, int r1) {
        for (int r = r0; r < r1; ++r) body(std::min(n, r * step), std::min(n, (r + 1) * step));
    });
}

template <bool ToPlanes, class Pixels, class Planes>
void interleave(Pixels interleaved, const Shape& s, int first, int count, Planes planes, int threads)
{
    forPixelRanges(s.pixels(), threads, [&](std::size_t begin, std::size_t end) {
        const int n = s.channels;
        switch (n) {
        case 1:
            if constexpr (ToPlanes)
                std::memcpy(planes[0] + begin, interleaved + begin, (end - begin) * sizeof(float));
            else
                std::memcpy(interleaved + begin, planes[0] + begin, (end - begin) * sizeof(float));
            return;
        case 2: return copyPixelRange<2, ToPlanes>(interleaved, n, begin, end, first, count, planes);
        case 3: return copyPixelRange<3, ToPlanes>(interleaved, n, begin, end, first, count, planes);
        case 4: return copyPixelRange<4, ToPlanes>(interleaved, n, begin, end, first, count, planes);
        default: return copyPixelRange<0, ToPlanes>(interleaved, n, begin, end, first, count, planes);
        }
    });
}

// Channels [first, first + dst.channels) of the interleaved (H, W, C) array into a planar image.
void gatherChannels(const float* src, const Shape& s, int first, convlab::Image& dst, int threads)
{
    std::array<float*, kMaxGroupChannels> planes{};
    for (int c = 0; c < dst.channels; ++c) planes[c] = dst.plane(c);
    interleave<true>(src, s, first, dst.channels, planes.data(), threads);
}

// The planes of `src` into channels [first, first + src.channels) of the interleaved array.
void scatterChannels(const convlab::Image& src, const Shape& s, int first, float* dst, int threads)
{
    std::array<const float*, kMaxGroupChannels> planes{};
    for (int c = 0; c < src.channels; ++c) planes[c] = src.plane(c);
    interleave<false>(dst, s, first, src.channels, planes.data(), threads);
}

struct GroupRun {
    convlab::RunReport report;
    double copyInMs = 0.0;
    double copyOutMs = 0.0;
};

// Filters `input` into `out` (both H x W x C floats, C order), channel group by channel group.
// Runs without the GIL: touches no Python object.
std::vector<GroupRun> filterInto(const float* input, const Shape& s, const convlab::ConvolveParams& params,
                                 float* out)
{
    std::vector<GroupRun> runs;
    const std::size_t values = s.pixels() * s.channels;
    const auto in0 = reinterpret_cast<std::uintptr_t>(input), out0 = reinterpret_cast<std::uintptr_t>(out);
    const bool shared = in0 < out0 + values * sizeof(float) && out0 < in0 + values * sizeof(float);
    if (!shared) {
        // Read in place and written in place: the engine reads the interleaved samples where
        // they are and fills `out` itself (no staging image, no copy in or out).
        for (int first = 0; first < s.channels; first += kMaxGroupChannels) {
            const int count = std::min(kMaxGroupChannels, s.channels - first);
            GroupRun run;
            convlab::convolveInto(channelsOf<convlab::ImagePlanes>(input, s, first, count), params,
                                  channelsOf<convlab::OutputPlanes>(out, s, first, count), &run.report);
            runs.push_back(std::move(run));
        }
        return runs;
    }
    const convlab::ImagePlanes plane = s.channels == 1 ? planeOf(input, s) : convlab::ImagePlanes();
    convlab::Image& result = keptResult();
    if (s.channels == 1) { // `out` is `input` (or overlaps it): the result goes to `out` after the run
        GroupRun run;
        convlab::convolveInto(plane, params, result, &run.report);
        const auto start = std::chrono::steady_clock::now();
        scatterChannels(result, s, 0, out, params.threads);
        run.copyOutMs = millisecondsSince(start);
        runs.push_back(std::move(run));
        releaseLargeStaging(result);
        return runs;
    }
    for (int first = 0; first < s.channels; first += kMaxGroupChannels) {
        GroupRun run;
        auto start = std::chrono::steady_clock::now();
        convlab::Image& in = stagingImage(s, std::min(kMaxGroupChannels, s.channels - first));
        gatherChannels(input, s, first, in, params.threads);
        run.copyInMs = millisecondsSince(start);
        convlab::convolveInto(in, params, result, &run.report);
        start = std::chrono::steady_clock::now();
        scatterChannels(result, s, first, out, params.threads);
        run.copyOutMs = millisecondsSince(start);
        runs.push_back(std::move(run));
        if (first + kMaxGroupChannels >= s.channels) {
            releaseLargeStaging(in);
            releaseLargeStaging(result);
        }
    }
    return runs;
}

nb::object reportOf(const std::vector<GroupRun>& runs)
{
    nb::dict first = convlab::python::reportDict(runs.front().report, runs.front().copyInMs, runs.front().copyOutMs);
    if (runs.size() > 1) {
        nb::list all;
        for (const GroupRun& r : runs) all.append(convlab::python::reportDict(r.report, r.copyInMs, r.copyOutMs));
        first["channel_groups"] = all;
    }
    return first;
}

// A new float32 (H, W, C) array for a result, set into `array`; returns its values. It lives in
// the engine's sample storage (huge pages, left unset: every value is written next), so that a
// fresh result of hundreds of MiB takes a page fault per 2 MiB, not per 4 KiB.
float* newResultArray(const Shape& s, nb::object& array)
{
    auto buffer = std::make_unique<convlab::Samples>(s.pixels() * s.channels);
    float* values = buffer->data();
    nb::capsule owner(buffer.get(), [](void* p) noexcept { delete static_cast<convlab::Samples*>(p); });
    buffer.release();
    NumpyResult created(values, {static_cast<std::size_t>(s.height), static_cast<std::size_t>(s.width),
                                 static_cast<std::size_t>(s.channels)}, owner);
    array = nb::cast(created);
    return values;
}

// The last one-channel result numpy let go, kept for the next result of its size: a loop
// `out = convolve(img, k)` frees each result after the next one is made, so from its third call
// on a result reuses the memory of the one before last, whose pages are already backed (a fresh
// 4096x4096 result paid 6 ms of page faults a call, as long as a 3x3 run on one thread). One
// image of at most kMaxKeptStagingBytes. Never destroyed: numpy may free a result after the
// module's statics are gone.
struct SpareResult {
    std::mutex mutex;
    std::unique_ptr<convlab::Image> image;
};
SpareResult& spareResult()
{
    static auto* spare = new SpareResult;
    return *spare;
}

std::unique_ptr<convlab::Image> resultImageFor(const Shape& s)
{
    SpareResult& spare = spareResult();
    std::lock_guard lock(spare.mutex);
    if (spare.image && spare.image->width == s.width && spare.image->height == s.height && spare.image->channels == 1)
        return std::move(spare.image);
    return std::make_unique<convlab::Image>();
}

void keepAsSpare(convlab::Image* image) noexcept
{
    std::unique_ptr<convlab::Image> owned(image);
    if (owned->channels != 1 || owned->data.size() * sizeof(float) > kMaxKeptStagingBytes) return;
    SpareResult& spare = spareResult();
    if (!spare.mutex.try_lock()) return; // another thread is at it: let this one go
    std::lock_guard lock(spare.mutex, std::adopt_lock);
    spare.image = std::move(owned); // an older spare is freed
}

// The engine's one-channel image as a new numpy array of `ndim` axes, which owns it (no copy);
// when numpy lets it go, its memory becomes the spare result.
nb::object arrayOwning(std::unique_ptr<convlab::Image> image, const Shape& s, std::size_t ndim)
{
    float* data = image->data.data();
    nb::capsule owner(image.get(), [](void* p) noexcept { keepAsSpare(static_cast<convlab::Image*>(p)); });
    image.release();
    const std::size_t shape[3] = {static_cast<std::size_t>(s.height), static_cast<std::size_t>(s.width), 1};
    return nb::cast(NumpyResult(data, ndim, shape, owner));
}

// A one-channel array, (H, W) or (H, W, 1), read in place and its result handed to numpy as it
// is: the new array owns the engine's image (no copy in, no copy out).
nb::tuple filterPlaneToNew(const float* input, const Shape& s, std::size_t ndim, convlab::ConvolveParams& params,
                           bool wantReport)
{
    std::unique_ptr<convlab::Image> result = resultImageFor(s);
    GroupRun run;
    convlab::python::runInterruptibly(params, s.pixels(), [&] {
        convlab::convolveInto(planeOf(input, s), params, *result, &run.report);
    });
    nb::object report = wantReport ? reportOf({run}) : nb::none();
    return nb::make_tuple(arrayOwning(std::move(result), s, ndim), report);
}

// Whether two arrays have the same axes.
template <class A, class B> bool sameShape(const A& a, const B& b)
{
    bool same = a.ndim() == b.ndim();
    for (std::size_t i = 0; same && i < a.ndim(); ++i) same = a.shape(i) == b.shape(i);
    return same;
}

// An 8- or 16-bit array of up to four channels, filtered from its samples as the image decoders'
// are (convlab::PackedImage: direct and separable convert each row to float as they pad it), so
// no float copy of the source is made: the engine reads the samples where they lie
// (PackedImage::borrowed). The results equal those of the array converted to float32, bit for
// bit (docs/semantics.md, Values and channels). `output` (float32, the input's shape), when
// given, receives the result where it lies, as a new result array of several channels does;
// one that shares the input's memory gets it from a copy of the samples.
template <class T>
nb::tuple filterPacked(nb::ndarray<const T, nb::c_contig, nb::device::cpu> input, Weights weights,
                       std::optional<Output> output, std::string_view mode, double cval, int anchorX, int anchorY,
                       bool correlate, std::string_view method, std::string_view device, int threads,
                       bool wantReport)
{
    const Shape s = shapeOf(input);
    if (output && !sameShape(*output, input)) throw convlab::Error("output's shape differs from the input's");
    if (s.channels > kMaxGroupChannels)
        throw convlab::Error("8/16-bit arrays are read as samples for up to 4 channels, got " +
                             std::to_string(s.channels));
    convlab::ConvolveParams params =
        paramsFrom(weights, mode, cval, anchorX, anchorY, correlate, method, device, threads);
    convlab::PackedImage packed;
    packed.width = s.width;
    packed.height = s.height;
    packed.channels = s.channels;
    packed.depth = sizeof(T) == 1 ? convlab::SampleDepth::U8 : convlab::SampleDepth::U16;
    packed.stride = static_cast<std::size_t>(s.width) * s.channels * sizeof(T);
    packed.borrowed = {reinterpret_cast<const std::uint8_t*>(input.data()), packed.stride * s.height};
    nb::object array;
    float* out = nullptr;
    if (output) {
        array = nb::cast(*output);
        out = output->data();
    } else if (s.channels > 1) {
        out = newResultArray(s, array);
    }
    const convlab::OutputPlanes outPlanes = out ? channelsOf<convlab::OutputPlanes>(out, s, 0, s.channels)
                                                : convlab::OutputPlanes();
    auto result = std::make_unique<convlab::Image>();
    GroupRun run;
    convlab::python::runInterruptibly(params, s.pixels() * s.channels, [&] {
        if (out && outPlanes.overlaps(packed.borrowed)) { // output=input's memory: read a copy
            const auto start = std::chrono::steady_clock::now();
            packed.bytes.assign(packed.borrowed.begin(), packed.borrowed.end());
            packed.borrowed = {};
            run.copyInMs = millisecondsSince(start);
        }
        if (out) // the engine writes the result's interleaved pixels itself
            convlab::convolveInto(packed, params, outPlanes, &run.report);
        else
            convlab::convolveInto(packed, params, *result, &run.report);
    });
    nb::object report = wantReport ? reportOf({run}) : nb::none();
    return nb::make_tuple(out ? array : arrayOwning(std::move(result), s, input.ndim()), report);
}

nb::tuple filter(Input input, Weights weights, std::optional<Output> output, std::string_view mode, double cval,
                 int anchorX, int anchorY, bool correlate, std::string_view method, std::string_view device,
                 int threads, bool wantReport)
{
    const Shape s = shapeOf(input);
    convlab::ConvolveParams params =
        paramsFrom(weights, mode, cval, anchorX, anchorY, correlate, method, device, threads);
    if (!output && s.channels == 1) return filterPlaneToNew(input.data(), s, input.ndim(), params, wantReport);

    nb::object array;
    float* out = nullptr;
    if (output) {
        if (!sameShape(*output, input)) throw convlab::Error("output's shape differs from the input's");
        array = nb::cast(*output);
        out = output->data();
    } else {
        out = newResultArray(s, array);
    }
    std::vector<GroupRun> runs;
    convlab::python::runInterruptibly(params, s.pixels() * s.channels,
                                      [&] { runs = filterInto(input.data(), s, params, out); });
    return nb::make_tuple(array, wantReport ? reportOf(runs) : nb::none());
}

// A run over one image in GPU memory (python/convlab/_device.py reads the pointers from the
// array's __cuda_array_interface__): `channels` planes of height x width float32 at `in`, the
// result written at `out`, after the work queued on the caller's `stream`. Returns (whether the
// input held a NaN or an infinity, the report or None).
nb::tuple filterDevice(std::uintptr_t in, std::uintptr_t out, int height, int width, int channels, std::uintptr_t stream,
                       Weights weights, std::string_view mode, double cval, int anchorX, int anchorY, bool correlate,
                       std::string_view method, std::string_view device, bool wantReport, std::uintptr_t outStream)
{
    convlab::ConvolveParams params = paramsFrom(weights, mode, cval, anchorX, anchorY, correlate, method, device, 0);
    convlab::checkImageSize(width, height, std::max(channels, 1));
    convlab::DevicePlanes planes;
    planes.in = reinterpret_cast<const float*>(in);
    planes.out = reinterpret_cast<float*>(out);
    planes.width = width;
    planes.height = height;
    planes.channels = channels;
    planes.stream = stream;
    planes.outStream = outStream;
    convlab::RunReport report;
    bool nonFinite = false;
    convlab::python::runInterruptibly(params, planes.width * std::size_t(planes.height) * std::max(channels, 1),
                                      [&] { nonFinite = convlab::convolveOnDevice(params, planes, &report); });
    return nb::make_tuple(nonFinite, wantReport ? nb::object(convlab::python::reportDict(report, 0.0, 0.0)) : nb::none());
}

// The samples the engine's border rule reads for coordinates [begin, end) of an axis of n:
// borderIndex itself (docs/semantics.md, Border modes), -1 where the constant stands.
nb::ndarray<nb::numpy, std::int64_t> borderIndices(long long begin, long long end, int n, std::string_view mode)
{
    if (n < 1) throw convlab::Error("axis length " + std::to_string(n) + " is not positive");
    // Compared as unsigned: end - begin of the extreme coordinates overflows a long long.
    if (end < begin || static_cast<unsigned long long>(end) - static_cast<unsigned long long>(begin) >
                           (1ULL << 31))
        throw convlab::Error("coordinates " + std::to_string(begin) + ".." + std::to_string(end) +
                             " are not a range of at most 2**31");
    const convlab::BorderMode m = convlab::parseBorder(mode).mode;
    const std::size_t count = static_cast<std::size_t>(end - begin);
    auto* buffer = new std::int64_t[std::max<std::size_t>(count, 1)];
    for (std::size_t i = 0; i < count; ++i) buffer[i] = convlab::borderIndex(begin + (long long)i, n, m);
    nb::capsule owner(buffer, [](void* p) noexcept { delete[] static_cast<std::int64_t*>(p); });
    return nb::ndarray<nb::numpy, std::int64_t>(buffer, 1, &count, owner);
}

nb::list borderModeTable()
{
    nb::list rows;
    for (const convlab::BorderModeInfo& m : convlab::borderModes()) {
        nb::list aliases;
        for (const char* a : m.aliases) aliases.append(a);
        nb::dict row;
        row["name"] = m.name;
        row["aliases"] = aliases;
        row["takes_value"] = m.takesValue;
        row["rule"] = m.rule;
        row["example"] = m.example;
        row["scipy"] = m.scipy ? nb::object(nb::str(m.scipy)) : nb::none();
        rows.append(row);
    }
    return rows;
}

nb::list methodTable()
{
    nb::list rows;
    for (const convlab::MethodInfo& m : convlab::methods())
    {
        nb::dict row;
        row["name"] = m.name;
        row["description"] = m.description;
        rows.append(row);
    }
    return rows;
}

} // namespace

NB_MODULE(_convlab, m)
{
    m.doc() = "ConvLab's convolution engine (use the convlab package, not this module)";
    // ValueError's subclass, so scipy-style callers catching ValueError see engine errors.
    nb::exception<convlab::Error>(m, "Error", PyExc_ValueError);
    m.attr("__version__") = CONVLAB_VERSION;
    convlab::python::registerExitGuard(); // no abort when Python exits during a daemon thread's run
    m.attr("max_side") = convlab::kMaxImageSide;          // samples along a filtered axis
    m.attr("max_kernel_side") = convlab::kMaxKernelSide;  // taps along a kernel's axis
    m.def("filter", &filter, "input"_a, "weights"_a, "output"_a.none(), "mode"_a, "cval"_a, "anchor_x"_a,
          "anchor_y"_a, "correlate"_a, "method"_a, "device"_a, "threads"_a, "report"_a);
    m.def("filter_u8", &filterPacked<std::uint8_t>, "input"_a, "weights"_a, "output"_a.none(), "mode"_a, "cval"_a, "anchor_x"_a,
          "anchor_y"_a, "correlate"_a, "method"_a, "device"_a, "threads"_a, "report"_a);
    m.def("filter_u16", &filterPacked<std::uint16_t>, "input"_a, "weights"_a, "output"_a.none(), "mode"_a, "cval"_a, "anchor_x"_a,
          "anchor_y"_a, "correlate"_a, "method"_a, "device"_a, "threads"_a, "report"_a);
    convlab::python::defineFilter64(m);
    m.def("filter_device", &filterDevice, "input"_a, "output"_a, "height"_a, "width"_a, "channels"_a, "stream"_a,
          "weights"_a, "mode"_a, "cval"_a, "anchor_x"_a, "anchor_y"_a, "correlate"_a, "method"_a, "device"_a,
          "report"_a, "output_stream"_a = 0);
    m.def("border_indices", &borderIndices, "begin"_a, "end"_a, "n"_a, "mode"_a);
    m.def("border_name", [](std::string_view mode) { return convlab::borderName(convlab::parseBorder(mode).mode); });
    m.def("border_modes", &borderModeTable);
    m.def("methods", &methodTable);
    m.def("cuda_available", [] {
        std::string reason;
        const bool ok = convlab::cudaAvailable(&reason);
        return nb::make_tuple(ok, reason);
    });
}
