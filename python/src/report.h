// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's RunReport as the dict Python's return_report=True gives (docs/python.md).
#pragma once
#include <nanobind/nanobind.h>

#include "convlab/convolve.h"

namespace convlab::python {

// copyInMs / copyOutMs: the binding's own copies around the run (0 where it made none).
nanobind::dict reportDict(const RunReport& r, double copyInMs, double copyOutMs);

} // namespace convlab::python
