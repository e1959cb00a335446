// SPDX-License-Identifier: GPL-3.0-or-later
// Ctrl-C and the elapsed-time line of a long CLI run (cli_interrupt.h).
#include "cli_interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <iterator>
#include <cstdio>

namespace convlab::cli {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
std::atomic<bool> gInterrupted{false};
std::atomic<int> gSignal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "raised from a signal handler");

extern "C" void raiseInterrupted(int sig)
{
    gSignal.store(sig);
    gInterrupted.store(true);
}

struct sigaction gPrevious[std::size(kSignals)];

void writeAll(const std::string& text)
{
    const char* p = text.data();
    std::size_t n = text.size();
    while (n > 0) {
        const ssize_t w = ::write(2, p, n);
        if (w <= 0) return;
        p += w;
        n -= std::size_t(w);
    }
}

} // namespace

InterruptStops::InterruptStops()
{
    gInterrupted.store(false);
    gSignal.store(0);
    struct sigaction sa = {};
    sa.sa_handler = raiseInterrupted;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND; // a second signal: the default action, the process ends
    for (std::size_t i = 0; i < std::size(kSignals); ++i)
        ::sigaction(kSignals[i], &sa, &gPrevious[i]);
}

InterruptStops::~InterruptStops()
{
    for (std::size_t i = 0; i < std::size(kSignals); ++i)
        ::sigaction(kSignals[i], &gPrevious[i], nullptr);
}

const std::atomic<bool>* InterruptStops::flag() const { return &gInterrupted; }

int InterruptStops::signal() const { return gSignal.load(); }

std::string interruptedBy(int sig)
{
    return sig == SIGINT ? "interrupted by SIGINT" : sig == SIGTERM ? "stopped by SIGTERM" : sig == SIGHUP
                                                                                         ? "stopped by SIGHUP"
                                                                                         : "stopped by a signal";
}

ElapsedLine::ElapsedLine(std::string what, double estimateS) : what_(std::move(what)), estimateS_(estimateS)
{
    if (::isatty(2)) thread_ = std::thread([this] { loop(); });
}

ElapsedLine::~ElapsedLine()
{
    if (!thread_.joinable()) return;
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void ElapsedLine::loop()
{
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex_);
    for (int second = 1;; ++second) {
        if (wake_.wait_until(lock, start + std::chrono::seconds(second), [this] { return stop_; })) break;
        char line[200];
        if (estimateS_ > 0)
            std::snprintf(line, sizeof line, "\r%s: %d s of about %.0f s estimated; Ctrl-C stops\033[K", what_.c_str(),
                          second, estimateS_);
        else
            std::snprintf(line, sizeof line, "\r%s: %d s so far; Ctrl-C stops\033[K", what_.c_str(), second);
        writeAll(line);
        drawn_ = true;
    }
    if (drawn_) writeAll("\r\033[K");
}

} // namespace convlab::cli
