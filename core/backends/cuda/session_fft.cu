// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA session's FFT path: cuFFT plans and callbacks, the sides and layout chosen per size, the runs.
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>
#include <dlfcn.h>
#include <nvJitLink.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cudacheck.h"
#include "convlab/error.h"
#include "fftcallbacks.h"
#include "launchers.h"
#include "methods/methods.h"
#include "session_internal.h"

namespace convlab::cuda {

// The transform sides for a padded ph x pw image of `channels` planes, chosen once per padded
// size. cuFFT's time per point depends on the sides' factors (tests/gpu/results, run 3: 0.61
// ms at 4116 = 2^2 3 7^3 a side, 0.67 ms at 4200 = 2^3 3 5^2 7), so the smallest sides whose
// factors go up to 7, to 5 and to 3 are each timed over the transform stage (forward,
// product, inverse) and the fastest is kept; sides with over 30% more points than the
// smallest are not tried. CONVLAB_GPU_FFT_SIZE=smallest keeps the smallest sides untimed.
// The sides fftSidesFor chose for this padded size, or the smallest ones before it has.
std::pair<int, int> Session::knownFftSides(int ph, int pw, int channels) const
{
    const auto chosen = fftSides_.find(std::make_tuple(ph, pw, channels));
    return chosen != fftSides_.end() ? chosen->second
                                     : std::pair{detail::fftFriendlySize(ph), detail::fftFriendlySize(pw)};
}

std::pair<int, int> Session::fftSidesFor(int ph, int pw, int channels, EventClock& clock)
{
    const auto key = std::make_tuple(ph, pw, channels);
    if (auto it = fftSides_.find(key); it != fftSides_.end()) return it->second;
    std::vector<std::pair<int, int>> candidates;
    for (int p : {7, 5, 3}) {
        const std::pair<int, int> s{detail::smoothSizeAtLeast(ph, p), detail::smoothSizeAtLeast(pw, p)};
        const double points = double(s.first) * s.second;
        if (std::find(candidates.begin(), candidates.end(), s) == candidates.end() &&
            (candidates.empty() || points <= 1.3 * double(candidates[0].first) * candidates[0].second))
            candidates.push_back(s);
    }
    const char* forced = std::getenv("CONVLAB_GPU_FFT_SIZE");
    const std::string policy = forced ? forced : "fastest";
    if (policy != "fastest" && policy != "smallest")
        throw Error("CONVLAB_GPU_FFT_SIZE is '" + policy + "': fastest or smallest");
    if (candidates.size() == 1 || policy == "smallest") return fftSides_[key] = candidates[0];
    std::ostringstream note;
    note.precision(4);
    note << "FFT sides for " << pw << "x" << ph << " padded, " << channels << " plane(s), width x height:";
    std::pair<int, int> best = candidates[0];
    double bestMs = INFINITY;
    std::vector<PlanKey> plannedHere;
    for (const auto& [n0, n1] : candidates) {
        const size_t realPer = size_t(n0) * n1, specPer = size_t(n0) * (n1 / 2 + 1);
        if (!plans_.count({n0, n1, channels, false})) plannedHere.push_back({n0, n1, channels, false});
        const Plans plans = plansFor(n0, n1, channels);
        fftReal_.reserve(realPer * channels);
        fftSpec_.reserve(specPer * channels);
        kernelSpec_.reserve(specPer);
        check(cudaMemsetAsync(fftReal_.get(), 0, sizeof(float) * realPer * channels, stream_), "scratch");
        check(cudaMemsetAsync(kernelSpec_.get(), 0, sizeof(float2) * specPer, stream_), "scratch");
        const double ms = bestOfThree([&] {
            checkFft(cufftExecR2C(plans.forward, fftReal_.get(), reinterpret_cast<cufftComplex*>(fftSpec_.get())),
                     "forward");
            launchSpectrumProduct(fftSpec_.get(), kernelSpec_.get(), static_cast<long long>(specPer), channels, stream_);
            checkFft(cufftExecC2R(plans.backward, reinterpret_cast<cufftComplex*>(fftSpec_.get()), fftReal_.get()),
                     "inverse");
        });
        note << " " << n1 << "x" << n0 << " " << ms << " ms";
        if (ms < bestMs) {
            bestMs = ms;
            best = {n0, n1};
        }
    }
    dropPlansMadeFor(plannedHere, {best.first, best.second, channels, false});
    note << "; using " << best.second << "x" << best.first;
    fftChoices_ += (fftChoices_.empty() ? "" : "\n") + note.str();
    spectrumKey_ = {}; // the timing ran over the kernel spectrum's buffer
    clock.mark("choose the FFT size (once per size)", true);
    return fftSides_[key] = best;
}

// The plans a timed choice made for the candidates it did not keep: their work areas go.
void Session::dropPlansMadeFor(const std::vector<PlanKey>& madeHere, const PlanKey& kept)
{
    for (const PlanKey& key : madeHere) {
        const auto it = plans_.find(key);
        if (key == kept || it == plans_.end()) continue;
        cufftDestroy(it->second.forward);
        cufftDestroy(it->second.backward);
        plans_.erase(it);
    }
}

// A candidate (fftlayout.h, FftCandidate) in the choices' notes.
std::string Session::describe(const FftCandidate& c)
{
    std::ostringstream s;
    if (c.layout.tiles() == 1)
        s << "plane " << c.layout.n1 << "x" << c.layout.n0;
    else
        s << c.layout.tilesX << "x" << c.layout.tilesY << " tiles of " << c.layout.n1 << "x" << c.layout.n0;
    s << (c.fused ? ", passes fused" : ", separate passes");
    return s.str();
}

void Session::runFft(const Geometry& g, const Kernel& k, float* out, EventClock& clock)
{
    const auto [n0, n1] = fftSidesFor(g.h + g.kh - 1, g.w + g.kw - 1, g.channels, clock);
    const FftCandidate choice = fftChoiceFor(g, k, n0, n1, clock);
    const bool newPlans = !plans_.count(planKeyOf(choice, g.channels));
    preparePlans(choice, g.channels);
    if (newPlans) clock.mark(choice.fused ? "plan FFT size, link its callbacks (once)" : "plan FFT size (once)", true);
    uploadKernelSpectrum(k, choice.layout);
    clock.mark("upload");
    runFftAs(choice, g, out, &clock);
}

Session::PlanKey Session::planKeyOf(const FftCandidate& c, int channels)
{
    return {c.layout.n0, c.layout.n1, c.layout.batch(channels), c.fused};
}

// Plans and scratch for a choice (cached plans are reused).
void Session::preparePlans(const FftCandidate& c, int channels)
{
    const FftLayout& l = c.layout;
    plansFor(l.n0, l.n1, l.batch(channels), c.fused);
    plansFor(l.n0, l.n1, 1); // the kernel's transform
    fftReal_.reserve(static_cast<size_t>(l.realPer()) * l.batch(channels));
    fftSpec_.reserve(static_cast<size_t>(l.specPer()) * l.batch(channels));
}

// The kernel's spectrum at the layout's transform size, scaled by 1/(n0 n1), cached by content
// and size. Only the kw x kh taps travel; the plane is built on the device.
void Session::uploadKernelSpectrum(const Kernel& k, const FftLayout& l)
{
    const auto key = std::make_tuple(l.n0, l.n1, k.width, k.height, k.values);
    if (key == spectrumKey_) return;
    const Plans kernelPlans = plansFor(l.n0, l.n1, 1);
    kernel_.reserve(k.values.size());
    check(cudaMemcpyAsync(kernel_.get(), k.values.data(), sizeof(float) * k.values.size(), cudaMemcpyHostToDevice,
                          stream_), "kernel upload");
    kernelReal_.reserve(static_cast<size_t>(l.realPer()));
    kernelSpec_.reserve(static_cast<size_t>(l.specPer()));
    launchKernelScatter(kernel_.get(), k.width, k.height, 1.0f / static_cast<float>(l.realPer()), kernelReal_.get(),
                        l.n0, l.n1, stream_);
    checkFft(cufftExecR2C(kernelPlans.forward, kernelReal_.get(), reinterpret_cast<cufftComplex*>(kernelSpec_.get())),
             "kernel transform");
    spectrumKey_ = key;
}

// The transforms of a prepared choice, from the resident image into `out`; stage marks when
// `clock` is given (none while choices are timed).
void Session::runFftAs(const FftCandidate& c, const Geometry& g, float* out, EventClock* clock)
{
    const FftLayout& l = c.layout;
    const int batch = l.batch(g.channels);
    const Plans plans = plansFor(l.n0, l.n1, batch, c.fused);
    auto* spec = reinterpret_cast<cufftComplex*>(fftSpec_.get());
    if (c.fused) {
        FftFusion f;
        std::memset(&f, 0, sizeof f); // padding too: compared bytewise below
        f.src = src_.get();
        f.kernelSpectrum = kernelSpec_.get();
        f.out = out;
        f.g = g;
        f.l = l;
        // Uploaded when it changed (the result slots alternate, so usually every run). From
        // pageable memory: staged by the driver when the call returns, in stream order.
        if (std::memcmp(&f, &fusionUploaded_, sizeof f) != 0) {
            check(cudaMemcpyAsync(fusion_.get(), &f, sizeof f, cudaMemcpyHostToDevice, stream_), "callback data");
            fusionUploaded_ = f;
        }
        checkFft(cufftExecR2C(plans.forward, fftReal_.get(), spec), "forward (image loaded, product stored)");
        checkFft(cufftExecC2R(plans.backward, spec, fftReal_.get()), "inverse (outputs stored)");
        if (clock) clock->mark("transform (pad and crop fused)");
        return;
    }
    launchPadEmbed(src_.get(), fftReal_.get(), g, l, stream_);
    if (clock) clock->mark("pad");
    checkFft(cufftExecR2C(plans.forward, fftReal_.get(), spec), "forward");
    launchSpectrumProduct(fftSpec_.get(), kernelSpec_.get(), l.specPer(), batch, stream_);
    checkFft(cufftExecC2R(plans.backward, spec, fftReal_.get()), "inverse");
    if (clock) clock->mark("transform");
    launchCrop(fftReal_.get(), out, g, l, stream_);
    if (clock) clock->mark("crop");
}

// The FFT layout for this geometry, chosen once per image size, kernel size, planes and
// border: every candidate runs on the resident image with this kernel, is timed (best of
// three), and is kept only when its outputs agree with the plane's separate passes (the
// path the tests hold to the CPU) within 5e-6 of the largest output the sum can give.
// CONVLAB_GPU_FFT_LAYOUT=plane|plane-fused|tiles|tiles-fused takes that candidate untimed.
FftCandidate Session::fftChoiceFor(const Geometry& g, const Kernel& k, int n0, int n1, EventClock& clock)
{
    const auto key = std::make_tuple(g.w, g.h, g.kw, g.kh, g.channels, static_cast<int>(g.mode), n0, n1);
    if (auto it = fftLayouts_.find(key); it != fftLayouts_.end()) return it->second;
    probeFusedFft();
    const char* forced = std::getenv("CONVLAB_GPU_FFT_LAYOUT");
    const std::string policy = forced ? forced : "fastest";
    const std::vector<FftCandidate> candidates = fftCandidates(g, n0, n1, fusedFft_, policy != "fastest");
    if (policy != "fastest") return fftLayouts_[key] = forcedCandidate(policy, candidates);
    if (candidates.size() == 1) return fftLayouts_[key] = candidates[0];

    const size_t values = static_cast<size_t>(g.w) * g.h * g.channels;
    DeviceBuffer<float> reference, trial, stats;
    reference.reserve(values);
    trial.reserve(values);
    stats.reserve(2);
    // The FFT's contract is 1e-5 of the largest output the sum can give (docs/semantics.md,
    // Tolerances); the reference's own error measured 1e-7 to 5e-7 of it on the CPU's
    // benchmarks, so a candidate allowed 5e-6 more stays within the contract.
    const double tolerance = 5e-6 * std::max(largestOutput(g, k, values, stats.get()), 1e-30);

    std::ostringstream note;
    note.precision(4);
    note << "FFT layout for " << g.w << "x" << g.h << ", " << g.kw << "x" << g.kh << ", " << g.channels
         << " plane(s), " << borderName(g.mode) << ":";
    FftCandidate best = candidates[0];
    double bestMs = INFINITY;
    std::vector<PlanKey> plannedHere;
    for (const FftCandidate& c : candidates) {
        const bool isReference = &c == &candidates[0];
        if (!plans_.count(planKeyOf(c, g.channels))) plannedHere.push_back(planKeyOf(c, g.channels));
        if (c.fused && !fusedFft_) continue; // an earlier fused candidate could not be linked
        const Trial t = tryCandidate(c, g, k, isReference ? reference.get() : trial.get(),
                                     isReference ? nullptr : reference.get(), values, stats.get());
        if (!t.failure.empty()) {
            if (isReference) throw Error(t.failure); // the path every other is checked against
            note << "\n  " << describe(c) << ": failed (" << t.failure << ")";
            if (c.fused && t.inPlanning) { // not tried again in this session: each try links anew
                fusedFft_ = false;
                fusedFftReason_ = t.failure;
            }
            continue;
        }
        const bool agrees = t.difference <= tolerance;
        note << "\n  " << describe(c) << ": " << t.ms << " ms (plans " << t.planMs << " ms)";
        if (!isReference) note << ", max difference " << t.difference << (agrees ? "" : ", too large: not used");
        if (agrees && t.ms < bestMs) {
            bestMs = t.ms;
            best = c;
        }
    }
    dropPlansMadeFor(plannedHere, planKeyOf(best, g.channels));
    spectrumKey_ = {}; // computed for the last candidate's size
    note << "\n  using " << describe(best);
    if (std::isfinite(bestMs)) fftLayoutMs_[std::make_tuple(g.w, g.h, g.kw, g.kh, g.channels)] = bestMs;
    fftChoices_ += (fftChoices_.empty() ? "" : "\n") + note.str();
    clock.mark("choose the FFT layout (once per size and border)", true);
    return fftLayouts_[key] = best;
}

// The candidate CONVLAB_GPU_FFT_LAYOUT names (plane, plane-fused, tiles, tiles-fused).
FftCandidate Session::forcedCandidate(const std::string& policy, const std::vector<FftCandidate>& candidates) const
{
    const bool tiles = policy == "tiles" || policy == "tiles-fused";
    const bool fused = policy == "plane-fused" || policy == "tiles-fused";
    if (!tiles && !fused && policy != "plane")
        throw Error("CONVLAB_GPU_FFT_LAYOUT is '" + policy + "': fastest, plane, plane-fused, tiles or tiles-fused");
    for (const FftCandidate& c : candidates)
        if (c.tiled == tiles && c.fused == fused) return c;
    throw Error("CONVLAB_GPU_FFT_LAYOUT=" + policy + " has no candidate here" +
                (fused && !fusedFft_ ? " (" + fusedFftReason_ + ")" : std::string()));
}

// |scale| max|image| sum|k| + |offset|: the largest output magnitude the sum can give.
double Session::largestOutput(const Geometry& g, const Kernel& k, size_t values, float* scratch2)
{
    launchMaxDifference(src_.get(), src_.get(), static_cast<long long>(values), scratch2, stream_); // [1]: max|image|
    float stats[2] = {0, 0};
    check(cudaMemcpyAsync(stats, scratch2, sizeof stats, cudaMemcpyDeviceToHost, stream_), "download");
    check(cudaStreamSynchronize(stream_), "download");
    double taps = 0;
    for (float v : k.values) taps += std::fabs(v);
    return std::fabs(g.scale) * stats[1] * taps + std::fabs(g.offset);
}

Session::Trial Session::tryCandidate(const FftCandidate& c, const Geometry& g, const Kernel& k, float* dst,
                                      const float* reference, size_t values, float* scratch2)
{
    Trial t;
    try {
        t.inPlanning = true;
        const auto t0 = std::chrono::steady_clock::now();
        preparePlans(c, g.channels);
        t.planMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        t.inPlanning = false;
        uploadKernelSpectrum(k, c.layout);
        t.ms = bestOfThree([&] { runFftAs(c, g, dst, nullptr); });
        if (reference) {
            launchMaxDifference(dst, reference, static_cast<long long>(values), scratch2, stream_);
            float diff[2] = {0, 0};
            check(cudaMemcpyAsync(diff, scratch2, sizeof diff, cudaMemcpyDeviceToHost, stream_), "download");
            check(cudaStreamSynchronize(stream_), "download");
            t.difference = diff[0];
        }
    } catch (const Error& e) {
        cudaGetLastError();
        t.failure = e.what();
    }
    return t;
}

// Whether cuFFT can take this library's callbacks: nvJitLink's version, or why not. cuFFT
// opens nvJitLink by name when it links a callback; the library is not linked into the
// binaries (it would add some 30 MB to every process), so it is opened here, from the
// loader's path or else beside libcufft, and made global, so that cuFFT finds it loaded.
void Session::probeFusedFft()
{
    if (fusedFftProbed_) return;
    fusedFftProbed_ = true;
    unsigned major = 0, minor = 0;
    void* lib = openNvJitLink();
    using Version = nvJitLinkResult (*)(unsigned*, unsigned*);
    const auto version = lib ? reinterpret_cast<Version>(dlsym(lib, "nvJitLinkVersion")) : nullptr;
    if (!lib) {
        fusedFftReason_ = "nvJitLink not found (" + dlerrorText() + ")";
    } else if (!version || version(&major, &minor) != NVJITLINK_SUCCESS) {
        fusedFftReason_ = "nvJitLink did not answer";
    } else if (fftCallbacksFatbin().empty()) {
        fusedFftReason_ = "no callbacks were built";
    } else {
        fusion_.reserve(1);
        fusedFft_ = true;
    }
    fftChoices_ += (fftChoices_.empty() ? "" : "\n") + std::string("FFT callbacks: ") +
                   (fusedFft_ ? "nvJitLink " + std::to_string(major) + "." + std::to_string(minor)
                              : "unavailable, " + fusedFftReason_);
}

std::string Session::dlerrorText()
{
    const char* e = dlerror();
    return e ? e : "no reason given";
}

// nvJitLink of this toolkit's major version (the one cuFFT asks for), kept open for the process.
void* Session::openNvJitLink()
{
    const std::string name = "libnvJitLink.so." + std::to_string(CUDART_VERSION / 1000);
    if (void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL)) return lib;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cufftCreate), &info) == 0 || !info.dli_fname) return nullptr;
    std::string path = info.dli_fname;
    path = path.substr(0, path.rfind('/') + 1) + name;
    return dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
}

Session::Plans Session::plansFor(int n0, int n1, int batch, bool fused)
{
    const auto key = std::make_tuple(n0, n1, batch, fused);
    if (auto it = plans_.find(key); it != plans_.end()) return it->second;
    int dims[2] = {n0, n1};
    const int realDist = n0 * n1, specDist = n0 * (n1 / 2 + 1);
    Plans p;
    checkFft(cufftCreate(&p.forward), "plan");
    if (cufftCreate(&p.backward) != CUFFT_SUCCESS) {
        cufftDestroy(p.forward);
        throw Error("cuFFT plan failed");
    }
    try {
        if (fused) attachCallbacks(p);
        size_t work = 0;
        checkFft(cufftMakePlanMany(p.forward, 2, dims, nullptr, 1, realDist, nullptr, 1, specDist, CUFFT_R2C, batch,
                                   &work), "plan");
        checkFft(cufftMakePlanMany(p.backward, 2, dims, nullptr, 1, specDist, nullptr, 1, realDist, CUFFT_C2R, batch,
                                   &work), "plan");
        checkFft(cufftSetStream(p.forward, stream_), "plan stream");
        checkFft(cufftSetStream(p.backward, stream_), "plan stream");
    } catch (...) {
        cufftDestroy(p.forward);
        cufftDestroy(p.backward);
        throw;
    }
    plans_[key] = p;
    return p;
}

// The three callbacks (fftcallbacks.h), set before the plans are made, as cuFFT requires;
// all read the one FftFusion in device memory that runFftAs fills before each run.
void Session::attachCallbacks(Plans& p)
{
    const auto fatbin = fftCallbacksFatbin();
    // cuFFT takes an array of callerInfo pointers (one per GPU); it lives with the session in
    // case cuFFT reads it again after this call.
    fusionInfo_ = fusion_.get();
    auto attach = [&](cufftHandle plan, const char* name, cufftXtCallbackType type) {
        checkFft(cufftXtSetJITCallback(plan, name, fatbin.data(), fatbin.size(), type, &fusionInfo_), name);
    };
    attach(p.forward, kFftLoadPadded, CUFFT_CB_LD_REAL);
    attach(p.forward, kFftStoreProduct, CUFFT_CB_ST_COMPLEX);
    attach(p.backward, kFftStoreCropped, CUFFT_CB_ST_REAL);
}

} // namespace convlab::cuda
