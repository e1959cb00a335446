// SPDX-License-Identifier: GPL-3.0-or-later
// convlab._convlab.filter64: float64 arrays filtered in float64 (convlab/convolve64.h).
#pragma once
#include <nanobind/nanobind.h>

namespace convlab::python {

void defineFilter64(nanobind::module_& m);

} // namespace convlab::python
