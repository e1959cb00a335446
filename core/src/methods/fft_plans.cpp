// SPDX-License-Identifier: GPL-3.0-or-later
// The FFT method's plan cache (fft_plans.h).
#include "methods/fft_plans.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <vector>

#include "convlab/costs.h"
#include "engine/processwide.h"
#include "io/fsutil.h"

namespace convlab::detail {
namespace {

std::mutex& plannerMutex() // FFTW's planner is not thread-safe; execution is
{
    static std::mutex m;
    return m;
}

std::filesystem::path wisdomPath()
{
    const auto dir = cacheDirectory();
    return dir.empty() ? dir : dir / "fftwf-wisdom";
}

class PlanCache {
public:
    // Never destroyed, made anew in a forked child (ProcessWide): a thread still executing a
    // plan at exit would otherwise see it destroyed under it.
    static PlanCache& instance() { return ProcessWide<PlanCache>::instance(); }

    PlanCache() { plannerMutex(); } // constructed first, so destroyed after the cache

    ~PlanCache() // only a cache made twice at once, whose copy lost the race, is destroyed
    {
        {
            std::lock_guard lock(queueMutex_);
            stopping_ = true;
        }
        queueChanged_.notify_all();
        if (background_.joinable()) background_.join();
        std::lock_guard lock(plannerMutex());
        std::lock_guard mapLock(mapMutex_);
        for (auto& [key, p] : plans_) destroy(p);
        for (PlanPair& p : retired_) destroy(p);
    }

    // The plans for `count` planes, rows or columns (`shape`) of a tile of n0 x n1; `planned` is
    // set when this call made them (a one-time cost for the size). `measure` false: estimated
    // plans whatever the size, for work too small to repay measuring.
    PlanPair get(PlanShape shape, int n0, int n1, int count, bool* planned, bool measure = true)
    {
        const Key key{static_cast<int>(shape), n0, n1, count};
        if (auto known = find(key)) return *known;
        std::lock_guard lock(plannerMutex());
        if (auto known = find(key)) return *known; // planned meanwhile by another thread
        loadWisdom();
        *planned = true;
        // Measuring pays for large transforms made again and again; small ones plan by estimate.
        const bool worthMeasuring = measure && static_cast<long long>(n0) * n1 >= 128 * 128;
        PlanPair p;
        if (!worthMeasuring) {
            p = make(key, FFTW_ESTIMATE);
        } else if (PlanPair known = make(key, FFTW_MEASURE | FFTW_WISDOM_ONLY); known.forward && known.backward) {
            p = known; // measured before, on this machine
        } else {
            destroy(known);
            if (policy_.load() == FftPlanning::MeasureNow) {
                p = make(key, FFTW_MEASURE);
                saveWisdom();
            } else {
                p = make(key, FFTW_ESTIMATE);
                enqueue(key);
            }
        }
        if (!p.forward || !p.backward) {
            destroy(p);
            throw Error("FFTW could not plan a " + std::to_string(n0) + "x" + std::to_string(n1) + " transform");
        }
        std::lock_guard mapLock(mapMutex_);
        plans_.emplace(key, p);
        return p;
    }

    void setPolicy(FftPlanning policy) { policy_.store(policy); }
    FftPlanning policy() const { return policy_.load(); }

    void waitIdle()
    {
        std::unique_lock lock(queueMutex_);
        idle_.wait(lock, [this] { return queue_.empty() && !working_; });
    }

private:
    using Key = std::tuple<int, int, int, int>; // shape, n0, n1, count

    std::optional<PlanPair> find(const Key& key)
    {
        std::lock_guard lock(mapMutex_);
        if (auto it = plans_.find(key); it != plans_.end()) return it->second;
        return std::nullopt;
    }

    static void destroy(PlanPair& p)
    {
        if (p.forward) fftwf_destroy_plan(p.forward);
        if (p.backward) fftwf_destroy_plan(p.backward);
        p = {};
    }

    // Planner mutex held.
    static PlanPair make(const Key& key, unsigned flags)
    {
        const auto [shape, n0, n1, count] = key;
        const int n1c = n1 / 2 + 1;
        fftwf_set_timelimit(0.5);
        PlanPair p;
        switch (static_cast<PlanShape>(shape)) {
        case PlanShape::Planes: {
            const int realDist = n0 * n1, specDist = n0 * n1c;
            auto real = fftwAlloc<float>(static_cast<std::size_t>(realDist) * count);
            auto spec = fftwAlloc<fftwf_complex>(static_cast<std::size_t>(specDist) * count);
            const int dims[2] = {n0, n1};
            p.forward = fftwf_plan_many_dft_r2c(2, dims, count, real.get(), nullptr, 1, realDist, spec.get(), nullptr,
                                                1, specDist, flags);
            p.backward = fftwf_plan_many_dft_c2r(2, dims, count, spec.get(), nullptr, 1, specDist, real.get(),
                                                 nullptr, 1, realDist, flags | FFTW_DESTROY_INPUT);
            break;
        }
        case PlanShape::Rows: {
            auto real = fftwAlloc<float>(static_cast<std::size_t>(n1) * count);
            auto spec = fftwAlloc<fftwf_complex>(static_cast<std::size_t>(n1c) * count);
            const int dims[1] = {n1};
            p.forward =
                fftwf_plan_many_dft_r2c(1, dims, count, real.get(), nullptr, 1, n1, spec.get(), nullptr, 1, n1c, flags);
            p.backward = fftwf_plan_many_dft_c2r(1, dims, count, spec.get(), nullptr, 1, n1c, real.get(), nullptr, 1,
                                                 n1, flags | FFTW_DESTROY_INPUT);
            break;
        }
        case PlanShape::Columns: {
            auto spec = fftwAlloc<fftwf_complex>(static_cast<std::size_t>(n0) * n1c);
            const int dims[1] = {n0};
            p.forward = fftwf_plan_many_dft(1, dims, count, spec.get(), nullptr, n1c, 1, spec.get(), nullptr, n1c, 1,
                                            FFTW_FORWARD, flags);
            p.backward = fftwf_plan_many_dft(1, dims, count, spec.get(), nullptr, n1c, 1, spec.get(), nullptr, n1c, 1,
                                             FFTW_BACKWARD, flags);
            break;
        }
        }
        return p;
    }

    void enqueue(const Key& key)
    {
        std::lock_guard lock(queueMutex_);
        queue_.push_back(key);
        if (!background_.joinable()) background_ = std::thread([this] { measureInBackground(); });
        queueChanged_.notify_all();
    }

    // Replaces estimated plans by measured ones, one size at a time. The estimated plans may
    // be executing on other threads: they are retired, not destroyed, until the cache goes.
    void measureInBackground()
    {
        for (;;) {
            Key key;
            {
                std::unique_lock lock(queueMutex_);
                working_ = false;
                idle_.notify_all();
                queueChanged_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
                if (stopping_) return;
                key = queue_.front();
                queue_.pop_front();
                working_ = true;
            }
            std::lock_guard lock(plannerMutex());
            PlanPair measured = make(key, FFTW_MEASURE);
            if (!measured.forward || !measured.backward) {
                destroy(measured); // the estimated plans stay
                continue;
            }
            {
                std::lock_guard mapLock(mapMutex_);
                PlanPair& slot = plans_[key];
                retired_.push_back(slot);
                slot = measured;
            }
            saveWisdom();
        }
    }

    void loadWisdom()
    {
        if (wisdomLoaded_) return;
        wisdomLoaded_ = true;
        const auto path = wisdomPath();
        if (!path.empty()) fftwf_import_wisdom_from_filename(path.c_str()); // absent: nothing to learn
    }
    void saveWisdom() // under the planner mutex: exporting reads the planner's state
    {
        const auto path = wisdomPath();
        if (path.empty()) return;
        std::error_code ec;
        std::filesystem::create_directories(path.parent_path(), ec);
        try {
            writeFileAtomically(path.string(), [](const std::string& tmp) {
                if (!fftwf_export_wisdom_to_filename(tmp.c_str())) throw Error("cannot write '" + tmp + "'");
            });
        } catch (const std::exception&) {
            // A cache: failing to keep it only costs planning time.
        }
    }

    // Looking a plan up never waits for the planner (which may be measuring in the background).
    std::mutex mapMutex_;
    std::map<Key, PlanPair> plans_;     // map mutex
    std::vector<PlanPair> retired_;     // map mutex
    bool wisdomLoaded_ = false;         // planner mutex
    std::atomic<FftPlanning> policy_{FftPlanning::MeasureNow};
    std::mutex queueMutex_;
    std::condition_variable queueChanged_, idle_;
    std::deque<Key> queue_;
    bool working_ = false;
    bool stopping_ = false;
    std::thread background_;
};

} // namespace

PlanPair fftPlans(PlanShape shape, int n0, int n1, int count, bool* planned, bool measure)
{
    return PlanCache::instance().get(shape, n0, n1, count, planned, measure);
}

} // namespace convlab::detail

namespace convlab {
void setFftPlanning(FftPlanning policy) { detail::PlanCache::instance().setPolicy(policy); }
FftPlanning fftPlanning() { return detail::PlanCache::instance().policy(); }
void waitForFftPlanning() { detail::PlanCache::instance().waitIdle(); }
} // namespace convlab
