// SPDX-License-Identifier: GPL-3.0-or-later
#include "interruptible.h"

#include <nanobind/nanobind.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/processwide.h" // core/src: one helper per process, made anew after fork

namespace nb = nanobind;

namespace convlab::python {
namespace {

// Below this many multiply-adds (samples x taps) a run ends within milliseconds: it runs on the
// calling thread, sparing the hand-over to the helper (tens of microseconds) on small calls.
constexpr double kWatchedWork = double(1 << 22);
// How often the waiting main thread looks for signals: Ctrl-C is answered within about this
// much plus one band of rows of the engine.
constexpr auto kPollInterval = std::chrono::milliseconds(20);

// The thread that runs the main thread's large jobs, one at a time (only the main thread hands
// it work). Its thread-local buffers (module.cpp's staging and kept results) live as long as it.
class Helper {
public:
    // Hands `job` over; returns at once.
    void start(const std::function<void()>& job)
    {
        std::lock_guard lock(mutex_);
        if (!thread_.joinable()) thread_ = std::thread([this] { serve(); });
        job_ = &job;
        error_ = nullptr;
        busy_ = true;
        changed_.notify_all();
    }

    // Waits up to `limit` for the job handed over; true once it has ended.
    bool waitFor(std::chrono::milliseconds limit)
    {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, limit, [this] { return !busy_; });
    }

    std::exception_ptr error()
    {
        std::lock_guard lock(mutex_);
        return error_;
    }

private:
    void serve()
    {
        for (;;) {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [this] { return job_ != nullptr; });
            const std::function<void()>* job = job_;
            job_ = nullptr;
            lock.unlock();
            std::exception_ptr error;
            try {
                (*job)();
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            error_ = error;
            busy_ = false;
            changed_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    const std::function<void()>* job_ = nullptr;
    std::exception_ptr error_;
    bool busy_ = false;
    std::thread thread_; // never joined (ProcessWide): it waits for work until the process ends
};

// A thread other than the one finalizing Python must not take the GIL back once finalizing has
// begun: Python then ends the thread with pthread_exit, whose unwinding through nanobind's
// catch (...) aborts the process ("terminate called without an active exception"). Python's
// atexit callbacks run before finalizing, so one of them (registerExitGuard) raises `exiting`,
// under the mutex every return to the GIL takes: a run that ends later parks its thread (a
// daemon thread, which the process's end stops) instead of returning.
struct ExitGuard {
    std::mutex mutex;
    bool exiting = false;
    unsigned long exitingThread = 0; // the thread running atexit: it goes on
};
ExitGuard& exitGuard()
{
    static auto* guard = new ExitGuard; // never destroyed: used until the very end
    return *guard;
}

void markExiting()
{
    ExitGuard& guard = exitGuard();
    const unsigned long self = PyThread_get_thread_ident();
    nb::gil_scoped_release unlocked; // a thread returning holds the mutex while it waits for the GIL
    std::lock_guard lock(guard.mutex);
    guard.exiting = true;
    guard.exitingThread = self;
}

// PyEval_RestoreThread, or never returning once Python is about to finalize (ExitGuard).
void takeGilBack(PyThreadState* state)
{
    ExitGuard& guard = exitGuard();
    std::unique_lock lock(guard.mutex);
    if (guard.exiting && PyThread_get_thread_ident() != guard.exitingThread) {
        lock.unlock();
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    PyEval_RestoreThread(state);
}

// `job` without the GIL on this thread; the GIL taken back by takeGilBack, not by a destructor
// (which pthread_exit's unwinding through would end in std::terminate).
void runHere(const std::function<void()>& job)
{
    PyThreadState* state = PyEval_SaveThread();
    std::exception_ptr error;
    try {
        job();
    } catch (...) {
        error = std::current_exception();
    }
    takeGilBack(state);
    if (error) std::rethrow_exception(error);
}

// Whether the caller is the thread Python runs signal handlers on (the only one where
// PyErr_CheckSignals does anything). Asked of `threading` each time: after a fork from another
// thread, that thread is the child's main thread.
bool onMainThread()
{
    nb::object mainThread = nb::module_::import_("threading").attr("main_thread")();
    return nb::cast<unsigned long>(mainThread.attr("ident")) == PyThread_get_thread_ident();
}

// The job on the helper, the caller waiting without the GIL and polling signals between waits.
void runWatched(std::atomic<bool>& cancel, const std::function<void()>& job)
{
    Helper& helper = detail::ProcessWide<Helper>::instance();
    helper.start(job);
    bool interrupted = false;
    for (;;) {
        bool ended = false;
        {
            nb::gil_scoped_release unlocked;
            ended = helper.waitFor(kPollInterval);
        }
        if (ended) break;
        if (!interrupted && PyErr_CheckSignals() != 0) { // a handler raised: its exception is set
            interrupted = true;
            cancel.store(true, std::memory_order_relaxed);
        }
    }
    if (interrupted) throw nb::python_error(); // the handler's exception, the run's own ignored
    if (std::exception_ptr error = helper.error()) std::rethrow_exception(error);
}

} // namespace

void runInterruptibly(ConvolveParams& params, std::size_t values, const std::function<void()>& job)
{
    std::atomic<bool> cancel{false};
    const std::atomic<bool>* before = params.cancel;
    params.cancel = &cancel;
    struct Restore { // the flag lives on this frame only
        ConvolveParams& p;
        const std::atomic<bool>* before;
        ~Restore() { p.cancel = before; }
    } restore{params, before};
    const double work = double(values) * params.kernel.width * params.kernel.height;
    if (work < kWatchedWork || !onMainThread()) return runHere(job);
    runWatched(cancel, job);
}

void registerExitGuard()
{
    nb::module_::import_("atexit").attr("register")(nb::cpp_function(&markExiting));
}

} // namespace convlab::python
