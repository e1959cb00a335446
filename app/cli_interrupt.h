// SPDX-License-Identifier: GPL-3.0-or-later
// What the CLI does while a long run computes: Ctrl-C stops it cleanly, and a terminal is told
// how long it has run against its estimate.
#pragma once
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace convlab::cli {

// While alive, the first SIGINT, SIGTERM or SIGHUP raises flag() (the run's
// ConvolveParams::cancel): the run stops at its next check (every 16 rows) and throws Cancelled.
// The first signal also restores the default action, so a second one ends the process at once.
// Destroyed, it puts back the handlers it found (the one that removes a write's temporary).
class InterruptStops {
public:
    InterruptStops();
    ~InterruptStops();
    InterruptStops(const InterruptStops&) = delete;
    InterruptStops& operator=(const InterruptStops&) = delete;

    const std::atomic<bool>* flag() const;
    // The signal that arrived (0: none).
    int signal() const;
};

// What the program says and returns for a run stopped by `sig`: "interrupted by SIGINT", and
// 128 + sig, as a shell reports a job a signal ended.
std::string interruptedBy(int sig);
inline int exitStatusFor(int sig) { return 128 + sig; }

// While alive and stderr is a terminal: from one second on, one line on stderr redrawn every
// second, "separable: 12 s of about 57 s estimated; Ctrl-C stops" (without an estimate: "12 s
// so far"), cleared when it ends. Written to the descriptor directly, from its own thread.
class ElapsedLine {
public:
    ElapsedLine(std::string what, double estimateS);
    ~ElapsedLine();
    ElapsedLine(const ElapsedLine&) = delete;
    ElapsedLine& operator=(const ElapsedLine&) = delete;

private:
    void loop();

    std::string what_;
    double estimateS_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool drawn_ = false;
    std::thread thread_;
};

} // namespace convlab::cli
