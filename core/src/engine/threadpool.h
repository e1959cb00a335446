// SPDX-License-Identifier: GPL-3.0-or-later
// One thread pool for the whole process. Work over [0, n) is cut into chunks
// that the workers (the caller's thread included) take from one counter as they
// become free, so a worker on a core that runs slower for a while (one shared
// with another process, an efficiency core) takes fewer chunks, where equal
// shares would leave the others waiting for it at the end. Calls return when
// every chunk is done; an exception thrown by a worker stops the others taking
// chunks and is rethrown in the caller.
#pragma once
#include <atomic>
#include <functional>

namespace convlab::detail {

int hardwareThreads();
// threads <= 0: all hardware threads.
int resolveThreads(int threads);
// Runs take no more threads than their work pays for (engine.cpp, threadsWorthWaking). A test
// that compares thread counts on small images makes every run take the threads asked for;
// returns the setting before.
bool setThreadsAsAskedForTests(bool asked);
bool threadsAsAskedForTests();

// The chunks of [0, n), `grain` indices each (the last may be shorter), in
// order.
class ChunkQueue {
public:
  ChunkQueue(int n, int grain) : n_(n), grain_(grain < 1 ? 1 : grain) {}
  // The next chunk not yet taken; false when none is left.
  bool next(int &begin, int &end) {
    const long long b = next_.fetch_add(grain_, std::memory_order_relaxed);
    if (b >= n_)
      return false;
    begin = static_cast<int>(b);
    end = n_ - b < grain_ ? n_ : begin + grain_;
    return true;
  }
  void drain() {
    next_.store(n_, std::memory_order_relaxed);
  } // nothing more is handed out

private:
  std::atomic<long long> next_{0}; // past n once all are taken; never wraps
  const int n_, grain_;
};

// Runs `worker` on at most `threads` workers, each once: a worker sets up what
// it keeps (buffers, row windows) and then takes chunks from the queue until it
// is empty.
void parallelWorkers(int n, int threads, int grain,
                     const std::function<void(ChunkQueue &)> &worker);

// A grain giving each of `threads` workers about `chunksPerWorker` chunks, at
// least minGrain and a multiple of `multiple`.
int chunkGrain(int n, int threads, int chunksPerWorker, int minGrain = 1,
               int multiple = 1);

// fn(begin, end) for chunks of about an eighth of each worker's share, for
// loops that keep nothing from one chunk to the next.
void parallelFor(int n, int threads,
                 const std::function<void(int begin, int end)> &fn);

} // namespace convlab::detail
