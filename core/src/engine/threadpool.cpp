// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/threadpool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/processwide.h"

namespace convlab::detail {
namespace {

thread_local bool tInsideWorker = false;

// A fixed set of workers fed from one queue, created on first use; one per process, never
// destroyed and made anew in a forked child (ProcessWide: a run may be inside it at exit).
class Pool {
public:
    static Pool& instance() { return ProcessWide<Pool>::instance(); }

    void submit(std::function<void()> task)
    {
        {
            std::lock_guard lock(mutex_);
            ensureWorkers();
            queue_.push_back(std::move(task));
        }
        cv_.notify_one();
    }

private:
    void ensureWorkers()
    {
        if (!workers_.empty()) return;
        const int n = std::max(1, hardwareThreads() - 1);
        for (int i = 0; i < n; ++i)
            workers_.emplace_back([this] {
                tInsideWorker = true;
                for (;;) {
                    std::function<void()> task;
                    {
                        std::unique_lock lock(mutex_);
                        cv_.wait(lock, [this] { return !queue_.empty(); });
                        task = std::move(queue_.front());
                        queue_.pop_front();
                    }
                    task();
                }
            });
    }

    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> workers_; // never joined: they end with the process
};

} // namespace

int hardwareThreads()
{
    static const int n = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<int>(n);
}

int resolveThreads(int threads)
{
    return threads <= 0 ? hardwareThreads() : std::min(threads, 256);
}

namespace {
std::atomic<bool> gThreadsAsAsked{false};
}

bool setThreadsAsAskedForTests(bool asked) { return gThreadsAsAsked.exchange(asked); }
bool threadsAsAskedForTests() { return gThreadsAsAsked.load(); }

int chunkGrain(int n, int threads, int chunksPerWorker, int minGrain, int multiple)
{
    const long long parts = static_cast<long long>(resolveThreads(threads)) * std::max(chunksPerWorker, 1);
    long long g = std::max<long long>({1, minGrain, n / parts});
    g = (g + multiple - 1) / multiple * multiple;
    return static_cast<int>(std::min<long long>(g, std::max(n, 1)));
}

void parallelWorkers(int n, int threads, int grain, const std::function<void(ChunkQueue&)>& worker)
{
    if (n <= 0) return;
    const int chunks = (n + std::max(grain, 1) - 1) / std::max(grain, 1);
    const int parts = std::min(chunks, tInsideWorker ? 1 : resolveThreads(threads));
    if (parts <= 1) { // one worker: one chunk, nothing set up again
        ChunkQueue whole(n, n);
        worker(whole);
        return;
    }
    ChunkQueue queue(n, grain);
    std::mutex m;
    std::condition_variable done;
    int pending = parts - 1;
    std::exception_ptr error;
    auto work = [&] {
        try {
            worker(queue);
        } catch (...) {
            queue.drain();
            std::lock_guard lock(m);
            if (!error) error = std::current_exception();
        }
    };
    for (int i = 1; i < parts; ++i)
        Pool::instance().submit([&] {
            work();
            std::lock_guard lock(m);
            if (--pending == 0) done.notify_one();
        });
    work();
    std::unique_lock lock(m);
    done.wait(lock, [&] { return pending == 0; });
    if (error) std::rethrow_exception(error);
}

void parallelFor(int n, int threads, const std::function<void(int begin, int end)>& fn)
{
    // One worker gets the whole range as one chunk (parallelWorkers).
    parallelWorkers(n, threads, chunkGrain(n, threads, 8), [&](ChunkQueue& queue) {
        for (int b, e; queue.next(b, e);) fn(b, e);
    });
}

} // namespace convlab::detail
