// SPDX-License-Identifier: GPL-3.0-or-later
// FFT method: pad every channel by the kernel extent with the border rule, take batched
// real-to-complex FFTW transforms at 2^a 3^b 5^c 7^d sizes, multiply by the kernel's
// spectrum, transform back and crop. The kernel is placed at negative offsets so the circular
// product is exactly the correlation on the cropped region (no wrap-around reaches it).
#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <memory>
#include <mutex>

#include "convlab/error.h"
#include "methods.h"
#include "threadpool.h"

namespace convlab::detail {
namespace {

std::mutex& plannerMutex() // FFTW's planner is not thread-safe
{
    static std::mutex m;
    return m;
}

struct FftwFree {
    void operator()(void* p) const { fftwf_free(p); }
};
template <class T> using FftwBuffer = std::unique_ptr<T[], FftwFree>;
template <class T> FftwBuffer<T> fftwAlloc(std::size_t n)
{
    auto* p = static_cast<T*>(fftwf_malloc(sizeof(T) * std::max<std::size_t>(n, 1)));
    if (!p) throw Error("out of memory for the FFT buffers (" + std::to_string(sizeof(T) * n >> 20) + " MiB)");
    return FftwBuffer<T>(p);
}

struct Plan {
    fftwf_plan p = nullptr;
    Plan() = default;
    explicit Plan(fftwf_plan plan) : p(plan)
    {
        if (!p) throw Error("FFTW could not make a plan");
    }
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;
    ~Plan()
    {
        if (p) {
            std::lock_guard lock(plannerMutex());
            fftwf_destroy_plan(p);
        }
    }
};

void setPlannerThreads([[maybe_unused]] int threads)
{
#ifdef CONVLAB_HAVE_FFTW_THREADS
    static const bool ok = fftwf_init_threads() != 0;
    if (ok) fftwf_plan_with_nthreads(threads);
#endif
}

} // namespace

int fftFriendlySize(int n)
{
    for (int m = std::max(n, 1);; ++m) {
        int r = m;
        for (int p : {2, 3, 5, 7})
            while (r % p == 0) r /= p;
        if (r == 1) return m;
    }
}

void runFft(const Job& job, Image& out, StageClock& clock)
{
    const Image& in = *job.in;
    const Kernel& k = job.kernel;
    const int w = in.width, h = in.height, nc = job.channels;
    const int left = k.ax(), right = k.width - 1 - k.ax();
    const int top = k.ay(), bottom = k.height - 1 - k.ay();
    const int pw = w + left + right, ph = h + top + bottom;
    const int n0 = fftFriendlySize(ph), n1 = fftFriendlySize(pw);
    const int n1c = n1 / 2 + 1;
    const std::size_t realSize = static_cast<std::size_t>(n0) * n1;
    const std::size_t specSize = static_cast<std::size_t>(n0) * n1c;

    auto real = fftwAlloc<float>(realSize * nc);
    auto spec = fftwAlloc<fftwf_complex>(specSize * nc);
    auto kreal = fftwAlloc<float>(realSize);
    auto kspec = fftwAlloc<fftwf_complex>(specSize);

    std::unique_ptr<Plan> forward, backward, kernelPlan;
    {
        std::lock_guard lock(plannerMutex());
        setPlannerThreads(job.threads);
        const int dims[2] = {n0, n1};
        forward = std::make_unique<Plan>(fftwf_plan_many_dft_r2c(
            2, dims, nc, real.get(), nullptr, 1, static_cast<int>(realSize), spec.get(), nullptr, 1,
            static_cast<int>(specSize), FFTW_ESTIMATE));
        backward = std::make_unique<Plan>(fftwf_plan_many_dft_c2r(
            2, dims, nc, spec.get(), nullptr, 1, static_cast<int>(specSize), real.get(), nullptr, 1,
            static_cast<int>(realSize), FFTW_ESTIMATE));
        kernelPlan = std::make_unique<Plan>(fftwf_plan_dft_r2c_2d(n0, n1, kreal.get(), kspec.get(), FFTW_ESTIMATE));
    }
    clock.mark("plan");

    // Kernel at negative offsets, 1/(n0*n1) folded in.
    std::fill(kreal.get(), kreal.get() + realSize, 0.0f);
    const float norm = 1.0f / static_cast<float>(realSize);
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u)
            kreal[static_cast<std::size_t>((n0 - v) % n0) * n1 + (n1 - u) % n1] = k.at(v, u) * norm;
    fftwf_execute(kernelPlan->p);
    job.checkCancel();

    // Padded planes, zero beyond.
    for (int c = 0; c < nc; ++c) {
        float* plane = real.get() + c * realSize;
        std::vector<float> padded(static_cast<std::size_t>(pw) * ph);
        padPlane(in.plane(c), w, h, job.border, top, bottom, left, right, padded.data());
        for (int y = 0; y < n0; ++y) {
            float* row = plane + static_cast<std::size_t>(y) * n1;
            if (y < ph) {
                std::memcpy(row, padded.data() + static_cast<std::size_t>(y) * pw, sizeof(float) * pw);
                std::fill(row + pw, row + n1, 0.0f);
            } else {
                std::fill(row, row + n1, 0.0f);
            }
        }
    }
    clock.mark("pad");
    job.checkCancel();

    fftwf_execute(forward->p);
    job.checkCancel();
    parallelFor(nc * n0, job.threads, [&](int r0, int r1) {
        for (int r = r0; r < r1; ++r) {
            auto* s = reinterpret_cast<std::complex<float>*>(spec.get() + static_cast<std::size_t>(r) * n1c);
            const auto* kk = reinterpret_cast<const std::complex<float>*>(kspec.get() + static_cast<std::size_t>(r % n0) * n1c);
            for (int x = 0; x < n1c; ++x) s[x] *= kk[x];
        }
    });
    job.checkCancel();
    fftwf_execute(backward->p);
    clock.mark("transform");

    const float scale = static_cast<float>(job.scale), offset = static_cast<float>(job.offset);
    for (int c = 0; c < nc; ++c) {
        const float* plane = real.get() + c * realSize;
        float* dst = out.plane(c);
        for (int y = 0; y < h; ++y) {
            const float* s = plane + static_cast<std::size_t>(y) * n1;
            float* o = dst + static_cast<std::size_t>(y) * w;
            for (int x = 0; x < w; ++x) o[x] = scale * s[x] + offset;
        }
    }
    clock.mark("crop");
}

} // namespace convlab::detail
