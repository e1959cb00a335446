// SPDX-License-Identifier: GPL-3.0-or-later
// One thread pool for the whole process. parallelFor splits [0, n) into contiguous chunks and
// runs them on at most `threads` workers (the caller's thread included), returning when all
// are done. Exceptions thrown by a chunk are rethrown in the caller.
#pragma once
#include <functional>

namespace convlab::detail {

int hardwareThreads();
// threads <= 0: all hardware threads.
int resolveThreads(int threads);
void parallelFor(int n, int threads, const std::function<void(int begin, int end)>& fn);

} // namespace convlab::detail
