// SPDX-License-Identifier: GPL-3.0-or-later
// Engine runs that Ctrl-C stops (docs/python.md, Reliability).
#pragma once
#include <cstddef>
#include <functional>

#include "convlab/convolve.h"

namespace convlab::python {

// Runs `job` (which runs the engine with `params`) without the GIL. On Python's main thread a
// job of some size runs on a helper thread while the caller waits for it and, every few tens of
// milliseconds, takes the GIL back to run Python's signal handlers: when one raises
// (KeyboardInterrupt for Ctrl-C), the engine's cancel flag in `params` is raised, the job ends
// at its next check (a band of rows) and the handler's exception propagates (nb::python_error).
// `values` (samples of the image) sizes the job. Called with the GIL held.
void runInterruptibly(ConvolveParams& params, std::size_t values, const std::function<void()>& job);

// Registers the atexit callback after which a run ending on a thread other than the one
// finalizing Python parks that thread instead of taking the GIL back (interruptible.cpp,
// ExitGuard). Called once, at import.
void registerExitGuard();

} // namespace convlab::python
